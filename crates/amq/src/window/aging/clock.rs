//! A clock gone backwards: what an aging filter rotated by time accepts, and what it refuses.

use super::{AgingBloom, Rotation};
use crate::clock::Clock;
use crate::error::{Error, Result};

impl<C: Clock> AgingBloom<C> {
    /// Checks that the clock reads a time this filter can use.
    ///
    /// With [`Rotation::Time`] (interval Δ), a reading before the start of the newest
    /// generation's interval means that the clock went backwards, or that an earlier insert was
    /// given a time in the future. Up to one interval Δ behind is tolerated (clocks of
    /// different machines disagree by seconds): [`insert_hash`](Self::insert_hash),
    /// [`contains_hash`](Self::contains_hash) and [`expire`](Self::expire) take such a reading
    /// as the newest interval. Further behind, the generations would stop expiring until the
    /// clock caught up with the newest one, so that reading is refused here; a program should
    /// call this before it inserts or queries with a clock it does not control.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`now`) for a reading more than Δ before the start of the
    /// newest generation's interval.
    ///
    /// # Example
    /// ```
    /// use amq::clock::ManualClock;
    /// use amq::window::AgingBloom;
    /// use amq::Insert;
    /// let clock = ManualClock::new(10_000);
    /// let mut f = AgingBloom::with_time_window(3600, 4, 100, 0.01, 0)?.with_clock(clock.clone());
    /// f.insert("a")?;
    /// clock.set(10_000 - 600); // half an interval (Δ = 1200) behind: tolerated
    /// assert!(f.check_clock().is_ok());
    /// clock.set(5_000); // the clock went back more than an interval
    /// assert!(f.check_clock().is_err());
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn check_clock(&self) -> Result<()> {
        let Rotation::Time(delta) = self.rotation else {
            return Ok(());
        };
        let now = self.clock.now();
        let newest = self.epoch.saturating_mul(delta);
        if now.saturating_add(delta) < newest {
            return Err(Error::invalid(
                "now",
                alloc::format!(
                    "the clock reads {now}, more than one interval ({delta}) before the filter's \
                     newest generation, which began at {newest}: the clock went backwards, or an \
                     earlier insert was given a time in the future"
                ),
            ));
        }
        Ok(())
    }
}
