//! `SlidingWindowCuckoo`: a membership set by registration epochs (the rate-limiting-nullifier
//! scenario of the seed: register is an append, slash a deletion).

use crate::common::{filter_class, same};
use crate::convert::to_object;
use crate::errors::{to_py, to_py_context, IntoPy};
use crate::filters::contains_batch;
use crate::items::{for_each_chunk, with_item};
use amq::rln::SlidingWindowCuckoo;
use pyo3::prelude::*;

/// The sliding-window cuckoo filter: one cuckoo filter per epoch of ``epoch_items`` (B)
/// registrations, so the set grows without bound. A member is asked for and slashed at the
/// epoch it registered in; a closed epoch shrinks to the members it keeps. A light client
/// downloads one epoch at a time (``export_epoch``, ``apply_epoch``).
///
/// ``SlidingWindowCuckoo(epoch_items, fpr, seed=0)`` makes the set ``amq rln new`` makes:
/// every query's false-positive rate is at most ``fpr``. ``item in f`` without an epoch raises
/// ``ValueError`` (use ``f.contains(item, epoch)``).
///
/// >>> f = amq.SlidingWindowCuckoo(100, 0.01)
/// >>> epoch = f.register("alice")
/// >>> epoch, f.contains("alice", epoch)
/// (0, True)
/// >>> f.slash("alice", epoch), f.contains("alice", epoch)
/// (True, False)
#[pyclass(module = "amq", name = "SlidingWindowCuckoo")]
pub struct PyRln {
    pub inner: SlidingWindowCuckoo,
}

impl PyRln {
    pub fn wrap(inner: SlidingWindowCuckoo) -> Self {
        PyRln { inner }
    }
}

filter_class!(PyRln, SlidingWindowCuckoo::from_bytes, same,
    inserted: "Registrations in all: every ``register``, a duplicate too; slashes do not lower \
               it (``members`` does).", {
    /// Epochs of ``epoch_items`` registrations (B, at least 1; 7782, 15564, 31129, ... fill
    /// their tables best), every query's false-positive rate at most ``fpr``; else
    /// ``ValueError``.
    #[new]
    #[pyo3(signature = (epoch_items, fpr, seed = 0))]
    fn new(epoch_items: u64, fpr: f64, seed: u64) -> PyResult<Self> {
        Ok(Self::wrap(
            SlidingWindowCuckoo::with_fpr(epoch_items, fpr, seed).py()?,
        ))
    }

    /// Registers a member in the open epoch (opening one if none is) and returns the epoch's
    /// number, which the member keeps: it is asked for and slashed there. Raises
    /// ``ValueError`` when the epoch numbers are exhausted, ``MemoryError`` when an epoch's
    /// table cannot be allocated.
    fn register(&mut self, item: &Bound<'_, PyAny>) -> PyResult<u64> {
        with_item(item, |b| self.inner.register(b))?.py()
    }

    /// Registers every item in order (GIL released) and returns their epochs, one per item.
    /// An error part-way (an object that is not an item, an iterable that raises, epochs
    /// exhausted) stops it there, with exactly the items before it registered (the library's
    /// errors say how many). Until it returns, any call on the set from another thread or
    /// from the iterable raises ``RuntimeError``.
    fn register_many(&mut self, py: Python<'_>, items: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let inner = &mut self.inner;
        let mut epochs = Vec::new();
        for_each_chunk(items, None, |chunk| {
            let (_, result) =
                py.detach(|| chunk.try_for_each(|b| inner.register(b).map(|e| epochs.push(e))));
            result.map_err(|e| {
                to_py_context(
                    e,
                    format_args!("({} items were registered before it)", epochs.len()),
                )
            })
        })?;
        Ok(epochs)
    }

    /// Raises ``ValueError``: a member is found at its epoch (``f.contains(item, epoch)``).
    fn __contains__(&self, _item: &Bound<'_, PyAny>) -> PyResult<bool> {
        Err(to_py(amq::Error::Unsupported {
            kind: amq::wire::Kind::SlidingWindowCuckoo.name(),
            operation: "membership without an epoch (use f.contains(item, epoch))",
        }))
    }

    /// True if the item may have registered at ``epoch`` and not been slashed, False if it
    /// definitely did not (or the epoch is not held).
    fn contains(&self, item: &Bound<'_, PyAny>, epoch: u64) -> PyResult<bool> {
        with_item(item, |b| self.inner.contains(b, epoch))
    }

    /// ``[f.contains(item, epoch) for item in items]`` (GIL released; one batch that
    /// prefetches the buckets of the items ahead). Meanwhile other threads may ask the set,
    /// but a call that changes it raises ``RuntimeError``.
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        items: &Bound<'py, PyAny>,
        epoch: u64,
    ) -> PyResult<Bound<'py, PyAny>> {
        contains_batch!(py, &self.inner, items, at: epoch)
    }

    /// Slashes a member at its epoch: removes one copy of its fingerprint there and returns
    /// True, or returns False (nothing changed) when it is definitely absent. Slash only
    /// members: an item never registered that matches a member's fingerprint and buckets (a
    /// false positive) removes that member.
    fn slash(&mut self, item: &Bound<'_, PyAny>, epoch: u64) -> PyResult<bool> {
        with_item(item, |b| self.inner.slash(b, epoch))
    }

    /// Closes the open epoch early (the next registration opens a new one) and compacts it;
    /// returns its number, or None if no epoch was open (nothing changed).
    fn close(&mut self) -> Option<u64> {
        self.inner.close()
    }

    /// A set holding epoch ``epoch`` alone, to send to a light client (its ``to_bytes`` are
    /// the epoch's table and a few words). Raises ``ValueError`` if the epoch is not held.
    fn export_epoch(&self, epoch: u64) -> PyResult<Self> {
        Ok(Self::wrap(self.inner.export_epoch(epoch).py()?))
    }

    /// Puts the single epoch of ``part`` (an ``export_epoch`` of a set of the same shape and
    /// seed) into this set: it replaces the epoch of its number or follows the last one held.
    /// Raises ``ValueError`` (and changes nothing) for another shape or seed, or an epoch that
    /// is neither held nor the next one.
    fn apply_epoch(slf: &Bound<'_, Self>, part: &Bound<'_, Self>) -> PyResult<()> {
        let part = part.try_borrow()?.inner.clone();
        slf.try_borrow_mut()?.inner.apply_epoch(&part).py()
    }

    /// Epoch ``epoch``'s figures as a dict (``epoch``, ``registered``, ``members``,
    /// ``buckets``, ``bytes``, ``load_factor``, ``fpr``, ``open``: a line of
    /// ``amq rln info --epochs --json``), or None if it is not held.
    fn epoch<'py>(&self, py: Python<'py>, epoch: u64) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.inner
            .epoch(epoch)
            .map(|e| to_object(py, &e))
            .transpose()
    }

    /// The false-positive rate of a query at ``epoch`` now (0 for an epoch not held).
    fn epoch_fpr(&self, epoch: u64) -> f64 {
        self.inner.epoch_fpr(epoch)
    }

    /// Shape, epochs, members and false-positive rates: the keys of ``amq info --json``.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_object(py, &self.inner.info())
    }

    /// B, the registrations per epoch.
    #[getter]
    fn epoch_items(&self) -> u64 {
        self.inner.epoch_items()
    }

    /// f, the fingerprint bits.
    #[getter]
    fn fingerprint_bits(&self) -> u32 {
        self.inner.fingerprint_bits()
    }

    /// Buckets of an open epoch's table (a closed one may have fewer).
    #[getter]
    fn epoch_buckets(&self) -> u64 {
        1 << self.inner.log2_buckets()
    }

    /// The number of the first epoch held (0, or the epoch of an export).
    #[getter]
    fn first_epoch(&self) -> u64 {
        self.inner.first_epoch()
    }

    /// The number of epochs held.
    #[getter]
    fn epochs(&self) -> u64 {
        self.inner.epochs()
    }

    /// The epoch the next registration goes to.
    #[getter]
    fn next_epoch(&self) -> u64 {
        self.inner.next_epoch()
    }

    /// Members held: registrations less slashes.
    #[getter]
    fn members(&self) -> u64 {
        self.inner.members()
    }

    /// The bound on every query's false-positive rate.
    #[getter]
    fn fpr_bound(&self) -> f64 {
        self.inner.fpr_bound()
    }

    fn __repr__(&self) -> String {
        format!(
            "<amq.SlidingWindowCuckoo epoch_items={} fingerprint_bits={} epochs={} members={} seed={}>",
            self.inner.epoch_items(),
            self.inner.fingerprint_bits(),
            self.inner.epochs(),
            self.inner.members(),
            self.inner.seed()
        )
    }
});
