//! Clocks for the structures that forget by time: the [`AgingBloom`](crate::window::AgingBloom)
//! rotated by time and the [`NegativeCache`](crate::negative::NegativeCache) with a TTL.
//!
//! A clock is injected into the structure (`with_clock`), so tests drive time exactly with a
//! [`ManualClock`] and programs use [`SystemClock`] (behind `std`). Time is a `u64` count of
//! *ticks*; the unit is the clock's (seconds for [`SystemClock`]) and every duration given to a
//! structure (a TTL, a rotation interval) is in the same ticks.

use alloc::sync::Arc;
use core::sync::atomic::{AtomicU64, Ordering};

/// A source of the current time, in ticks.
pub trait Clock {
    /// The current time in ticks. It should never go backwards; a structure treats a time
    /// before one it has seen as that earlier time.
    fn now(&self) -> u64;
}

/// The clock of a structure that does not forget by time: always tick 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoClock;

impl Clock for NoClock {
    #[inline]
    fn now(&self) -> u64 {
        0
    }
}

/// A clock that moves only when told to; clones share the same time.
///
/// # Example
/// ```
/// use amq::clock::{Clock, ManualClock};
/// let clock = ManualClock::new(10);
/// let shared = clock.clone();
/// clock.advance(5);
/// assert_eq!(shared.now(), 15);
/// shared.set(100);
/// assert_eq!(clock.now(), 100);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ManualClock(Arc<AtomicU64>);

impl ManualClock {
    /// A clock at tick `now`.
    pub fn new(now: u64) -> Self {
        ManualClock(Arc::new(AtomicU64::new(now)))
    }
    /// Moves the clock `ticks` forward (saturating at `u64::MAX`).
    pub fn advance(&self, ticks: u64) {
        let now = self.0.load(Ordering::Relaxed);
        self.0.store(now.saturating_add(ticks), Ordering::Relaxed);
    }
    /// Sets the time.
    pub fn set(&self, now: u64) {
        self.0.store(now, Ordering::Relaxed);
    }
}

impl PartialEq for ManualClock {
    /// Two manual clocks are equal when they show the same time.
    fn eq(&self, other: &Self) -> bool {
        self.now() == other.now()
    }
}

impl Clock for ManualClock {
    #[inline]
    fn now(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Wall-clock time: whole seconds since the Unix epoch (0 if the system clock is before it).
#[cfg(feature = "std")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SystemClock;

#[cfg(feature = "std")]
impl Clock for SystemClock {
    fn now(&self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }
}

impl<C: Clock + ?Sized> Clock for &C {
    #[inline]
    fn now(&self) -> u64 {
        (**self).now()
    }
}
