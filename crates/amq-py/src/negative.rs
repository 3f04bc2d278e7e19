//! `NegativeCache`: "definitely present" or "maybe absent", the other way round from a
//! filter.

use crate::common::{at, call_clock_kind, filter_class, same_bytes, CallClock, Seconds};
use crate::convert::{new_filter, to_object};
use crate::errors::IntoPy;
use crate::items::{answers, for_each_chunk, is_ndarray, with_item};
use amq::math::Spec;
use amq::{AnyFilter, NegativeCache};
use pyo3::prelude::*;

/// The negative cache: 2**l slots of b-bit fingerprints in sets of ``ways`` slots, with an
/// optional TTL in seconds.
///
/// It answers the other way round from a filter: ``item in cache`` is True only if the item
/// is **definitely present** (it was added and is still held), and False if it is **maybe
/// absent** (never added, expired, removed, or pushed out of its set by later items). A true
/// answer is wrong with probability at most ``ways * 2**-b``. Typical use: remember the keys
/// known to be missing upstream, and skip the lookup for them.
///
/// The methods that depend on the time take ``now`` (seconds since the Unix epoch, an int or a
/// float such as ``time.time()``, rounded down; default: the system clock), as the command line's
/// ``--now``. It is the call's own: calls at other times from other threads, or on a copy, do not
/// change it.
///
/// >>> c = amq.NegativeCache(10, ttl=60)  # 1,024 slots of 64-bit fingerprints
/// >>> c.add("miss", now=100)
/// True
/// >>> c.contains("miss", now=150), c.contains("miss", now=200), c.contains("other", now=150)
/// (True, False, False)
#[pyclass(module = "amq", name = "NegativeCache")]
pub struct PyNegative {
    pub inner: NegativeCache<CallClock>,
}

call_clock_kind!(PyNegative, NegativeCache, negative_from_bytes);

filter_class!(PyNegative, negative_from_bytes, same_bytes,
    inserted: "How many times an item was added: every ``add``, a refresh of a held item too; \
               removes, expiry and items pushed out do not lower it.", {
    /// 2**l slots of b-bit fingerprints (1 to 128) in sets of ``ways`` slots (a power of
    /// two), entries expiring ``ttl`` seconds after insertion if given: as ``amq negative new
    /// --l L --b B --ways W [--ttl T]`` makes it.
    #[new]
    #[pyo3(signature = (l, b = 64, ways = 1, ttl = None, seed = 0))]
    fn new(l: u32, b: u32, ways: u32, ttl: Option<u64>, seed: u64) -> PyResult<Self> {
        match new_filter(&Spec::NegativeCache { l, b, ways, ttl }, seed)? {
            AnyFilter::NegativeCache(c) => Ok(Self::wrap(c)),
            _ => unreachable!("a negative-cache spec makes a negative cache"),
        }
    }

    /// Adds an item (to live ``ttl`` seconds from ``now`` if given, else the cache's TTL),
    /// pushing out the oldest entry of its set when the set is full. Returns True if it was
    /// not held before. ``ttl`` needs a cache made with a TTL (else ``ValueError``).
    #[pyo3(signature = (item, ttl = None, now = None))]
    fn add(
        &mut self,
        item: &Bound<'_, PyAny>,
        ttl: Option<u64>,
        now: Option<Seconds>,
    ) -> PyResult<bool> {
        at(now, || match ttl {
            None => with_item(item, |b| self.inner.insert(b)),
            Some(t) => with_item(item, |b| self.inner.insert_with_ttl(b, t))?.py(),
        })
    }

    fn __contains__(&self, item: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.contains(item, None)
    }

    /// True if the item is definitely present (added, live as of ``now``, not pushed out),
    /// False if it is maybe absent.
    #[pyo3(signature = (item, now = None))]
    fn contains(&self, item: &Bound<'_, PyAny>, now: Option<Seconds>) -> PyResult<bool> {
        at(now, || with_item(item, |b| self.inner.contains(b)))
    }

    /// Forgets an item: True if it was held and live.
    #[pyo3(signature = (item, now = None))]
    fn remove(&mut self, item: &Bound<'_, PyAny>, now: Option<Seconds>) -> PyResult<bool> {
        at(now, || with_item(item, |b| self.inner.remove(b)))
    }

    /// Adds every item in order at ``now`` (GIL released). An error part-way (an object that
    /// is not an item, an iterable that raises) stops it there, with exactly the items before
    /// it added. Until it returns, any call on the cache from another thread or from the
    /// iterable raises ``RuntimeError``.
    #[pyo3(signature = (items, now = None))]
    fn add_many(
        &mut self,
        py: Python<'_>,
        items: &Bound<'_, PyAny>,
        now: Option<Seconds>,
    ) -> PyResult<()> {
        let inner = &mut self.inner;
        at(now, || {
            crate::filters::insert_all(py, items, |b| {
                inner.insert(b);
                Ok(())
            })
        })
    }

    /// ``[cache.contains(item, now) for item in items]`` (GIL released). Meanwhile other
    /// threads may ask the cache, at any ``now``, but a call that changes it raises
    /// ``RuntimeError``.
    #[pyo3(signature = (items, now = None))]
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        items: &Bound<'py, PyAny>,
        now: Option<Seconds>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let c = &self.inner;
        let mut out = Vec::new();
        at(now, || {
            for_each_chunk(items, None, |chunk| {
                py.detach(|| chunk.map_into(&mut out, |b| c.contains(b)));
                Ok(())
            })
        })?;
        answers(py, out, is_ndarray(items)?)
    }

    /// Empties the cache.
    fn clear(&mut self) {
        self.inner.clear();
    }

    /// Shape, occupancy and error rates as of ``now``: the keys of ``amq info --json``.
    #[pyo3(signature = (now = None))]
    fn info<'py>(&self, py: Python<'py>, now: Option<Seconds>) -> PyResult<Bound<'py, PyAny>> {
        at(now, || to_object(py, &self.inner.info()))
    }

    fn __repr__(&self) -> String {
        format!(
            "<amq.NegativeCache l={} b={} ways={} ttl={} seed={} inserted={}>",
            self.inner.l(),
            self.inner.b(),
            self.inner.ways(),
            self.inner
                .ttl()
                .map_or_else(|| "None".to_string(), |t| t.to_string()),
            self.inner.seed(),
            self.inner.inserted()
        )
    }
});
