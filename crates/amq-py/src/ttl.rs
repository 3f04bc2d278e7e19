//! `TtlCuckooFilter`: a cuckoo filter whose every entry expires on its own.

use crate::common::{at, call_clock_kind, filter_class, same_bytes, time, CallClock, Seconds};
use crate::convert::{new_filter, to_object};
use crate::errors::IntoPy;
use crate::filters::contains_batch;
use crate::items::with_item;
use amq::math::Spec;
use amq::ttl::TtlSpec;
use amq::{AnyFilter, TtlCuckooFilter};
use pyo3::prelude::*;

/// The TTL cuckoo filter: every slot holds a fingerprint and an expiry stamp, so each item
/// is forgotten on its own, between ``ttl - tick`` and ``ttl`` seconds after it was added
/// (an item added again gets the later expiry). It deletes (``remove``) and says when it is
/// full (``amq.FilterFullError``; expired entries make room first).
///
/// ``TtlCuckooFilter(items, fpr, tick, max_ttl=None, stamp_bits=None)`` holds ``items`` live
/// items at false-positive rate ``fpr``, as ``amq ttl new`` makes it. The methods that depend
/// on the time take ``now`` (seconds since the Unix epoch, an int or a float such as
/// ``time.time()``, rounded down; default: the system clock), as the
/// command line's ``--now`` (the call's own: calls at other times from other threads, or on
/// a copy, do not change it); ``ttl`` defaults to the filter's default TTL (``max_ttl``).
///
/// >>> f = amq.TtlCuckooFilter(1000, 0.01, tick=60, max_ttl=3600)
/// >>> f.add("session", ttl=600, now=1_700_000_000)
/// True
/// >>> f.contains("session", now=1_700_000_500), f.contains("session", now=1_700_000_700)
/// (True, False)
#[pyclass(module = "amq", name = "TtlCuckooFilter")]
pub struct PyTtl {
    pub inner: TtlCuckooFilter<CallClock>,
}

// only `info` reads the time from the filter's clock; the other calls give the library their
// `now`
call_clock_kind!(PyTtl, TtlCuckooFilter, ttl_from_bytes);

filter_class!(PyTtl, ttl_from_bytes, same_bytes,
    inserted: "How many new entries were stored: the ``add`` calls that returned True (a \
               refresh of a live copy does not count); removes and expiry do not lower it \
               (``live(now)`` counts the entries live).", {
    /// For ``items`` live items at false-positive rate ``fpr``, expiry to within ``tick``
    /// seconds, TTLs up to ``max_ttl`` seconds (also the default TTL) or ``tick * 2**(s-1)``
    /// by ``stamp_bits`` s (1 to 16, default 4); else ``ValueError``.
    #[new]
    #[pyo3(signature = (items, fpr, tick, max_ttl = None, stamp_bits = None, seed = 0))]
    fn new(
        items: u64,
        fpr: f64,
        tick: u64,
        max_ttl: Option<u64>,
        stamp_bits: Option<u32>,
        seed: u64,
    ) -> PyResult<Self> {
        let spec = Spec::TtlCuckoo(TtlSpec {
            items,
            fpr,
            tick,
            stamp_bits,
            max_ttl,
        });
        match new_filter(&spec, seed)? {
            AnyFilter::TtlCuckoo(f) => Ok(Self::wrap(*f)),
            _ => unreachable!("a TTL spec makes a TTL cuckoo filter"),
        }
    }

    /// Adds an item at ``now`` to live ``ttl`` seconds. Returns True if a new entry was
    /// stored, False if a live copy was there (it gets the later expiry). Raises
    /// ``ValueError`` for a ``ttl`` above ``max_ttl`` or one so short (below a tick) that the
    /// entry would expire within the current tick, ``amq.FilterFullError`` when both buckets
    /// and the stash hold live entries (nothing changes).
    #[pyo3(signature = (item, ttl = None, now = None))]
    fn add(
        &mut self,
        item: &Bound<'_, PyAny>,
        ttl: Option<u64>,
        now: Option<Seconds>,
    ) -> PyResult<bool> {
        let ttl = ttl.unwrap_or(self.inner.default_ttl());
        let now = time(now);
        with_item(item, |b| self.inner.insert(b, now, ttl))?.py()
    }

    fn __contains__(&self, item: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.contains(item, None)
    }

    /// True if the item may be live at ``now``, False if it definitely is not.
    #[pyo3(signature = (item, now = None))]
    fn contains(&self, item: &Bound<'_, PyAny>, now: Option<Seconds>) -> PyResult<bool> {
        let now = time(now);
        with_item(item, |b| self.inner.contains(b, now))
    }

    /// Removes the item's live entry: True if there was one. An item with the same
    /// fingerprint and buckets shares it and goes with it.
    #[pyo3(signature = (item, now = None))]
    fn remove(&mut self, item: &Bound<'_, PyAny>, now: Option<Seconds>) -> PyResult<bool> {
        let now = time(now);
        with_item(item, |b| self.inner.remove(b, now))
    }

    /// Adds every item in order, each to live ``ttl`` seconds from ``now`` (GIL released).
    /// An error part-way stops it there, with exactly the items before it added: an object
    /// that is not an item, an iterable that raises, or an item the filter cannot take
    /// (``amq.FilterFullError``, saying how many items of the batch came before it). Until it
    /// returns, any call on the filter from another thread or from the iterable raises
    /// ``RuntimeError``.
    #[pyo3(signature = (items, ttl = None, now = None))]
    fn add_many(
        &mut self,
        py: Python<'_>,
        items: &Bound<'_, PyAny>,
        ttl: Option<u64>,
        now: Option<Seconds>,
    ) -> PyResult<()> {
        let ttl = ttl.unwrap_or(self.inner.default_ttl());
        let now = time(now);
        let inner = &mut self.inner;
        crate::filters::insert_all(py, items, |b| inner.insert(b, now, ttl).map(|_| ()))
    }

    /// ``[f.contains(item, now) for item in items]`` (GIL released; one batch that
    /// prefetches the buckets of the items ahead). Meanwhile other threads may ask the
    /// filter, but a call that changes it raises ``RuntimeError``.
    #[pyo3(signature = (items, now = None))]
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        items: &Bound<'py, PyAny>,
        now: Option<Seconds>,
    ) -> PyResult<Bound<'py, PyAny>> {
        contains_batch!(py, &self.inner, items, at: time(now))
    }

    /// Clears the entries expired at ``now`` (inserts do this when they need the room).
    #[pyo3(signature = (now = None))]
    fn expire(&mut self, now: Option<Seconds>) {
        self.inner.expire(time(now));
    }

    /// Removes every entry.
    fn clear(&mut self) {
        self.inner.clear();
    }

    /// Entries live at ``now``.
    #[pyo3(signature = (now = None))]
    fn live(&self, now: Option<Seconds>) -> u64 {
        self.inner.entries_at(time(now)).0
    }

    /// Shape, live and expired entries and the false-positive rate as of ``now``: the keys
    /// of ``amq info --json``.
    #[pyo3(signature = (now = None))]
    fn info<'py>(&self, py: Python<'py>, now: Option<Seconds>) -> PyResult<Bound<'py, PyAny>> {
        at(now, || to_object(py, &self.inner.info()))
    }

    /// Buckets of four slots.
    #[getter]
    fn buckets(&self) -> u64 {
        self.inner.buckets()
    }

    /// f, the fingerprint bits of a slot.
    #[getter]
    fn fingerprint_bits(&self) -> u32 {
        self.inner.fingerprint_bits()
    }

    /// s, the expiry stamp bits of a slot.
    #[getter]
    fn stamp_bits(&self) -> u32 {
        self.inner.stamp_bits()
    }

    /// The tick in seconds: the precision of expiry.
    #[getter]
    fn tick(&self) -> u64 {
        self.inner.tick()
    }

    /// The longest TTL ``add`` takes, in seconds.
    #[getter]
    fn max_ttl(&self) -> u64 {
        self.inner.max_ttl()
    }

    /// The TTL ``add`` uses when given none, in seconds.
    #[getter]
    fn default_ttl(&self) -> u64 {
        self.inner.default_ttl()
    }

    fn __repr__(&self) -> String {
        format!(
            "<amq.TtlCuckooFilter buckets={} fingerprint_bits={} stamp_bits={} tick={} default_ttl={} seed={} inserted={}>",
            self.inner.buckets(),
            self.inner.fingerprint_bits(),
            self.inner.stamp_bits(),
            self.inner.tick(),
            self.inner.default_ttl(),
            self.inner.seed(),
            self.inner.inserted()
        )
    }
});
