//! The growing chains: `ScalableBloomFilter` and `ExpandableCuckooFilter`, for a set whose
//! size is not known in advance.

use crate::common::membership_class;
use crate::convert::new_filter;
use crate::items::with_item;
use amq::math::Spec;
use amq::{AnyFilter, Remove};
use pyo3::prelude::*;

/// A scalable Bloom filter (Almeida et al., 2007): classic Bloom filters of growing capacity
/// and shrinking false-positive rate, queried together, the whole chain within ``fpr``.
///
/// ``ScalableBloomFilter(n, fpr, seed=0, expansion=2, tightening=0.5, nonscaling=False)``:
/// the first link holds ``n`` items, each next one ``expansion`` times as many at
/// ``tightening`` times the rate, so ``fpr`` bounds the chain however many items it takes
/// (up to 64 links). ``nonscaling=True`` keeps one link and raises ``amq.FilterFullError``
/// past ``n`` items. Its ``.amq`` file is the one ``amq serve`` keeps for a
/// ``scalable-bloom`` spec; ``amq info`` reads it.
///
/// >>> f = amq.ScalableBloomFilter(100, 0.01)
/// >>> f.add_many(range(1000))
/// >>> f.links, f.capacity, all(i in f for i in range(1000))
/// (4, 1500, True)
#[pyclass(module = "amq", name = "ScalableBloomFilter")]
pub struct PyScalable {
    pub inner: amq::scalable::ScalableBloomFilter,
}

impl PyScalable {
    pub fn wrap(inner: amq::scalable::ScalableBloomFilter) -> Self {
        PyScalable { inner }
    }
}

membership_class!(
    PyScalable,
    amq::scalable::ScalableBloomFilter::from_bytes,
    union: skip_self,
    chain: "ScalableBloomFilter",
    add: "Adds an item (a new link first if the active one is full). Returns False if it \
          may already have been there. Raises ``amq.FilterFullError`` if the chain cannot grow.",
    inserted: "How many items were added: the ``add`` calls that returned True (an item that \
               may already be present adds nothing), and a union adds the other chain's count.",
    {
        #[new]
        #[pyo3(signature = (n, fpr, seed = 0, expansion = 2, tightening = 0.5, nonscaling = false))]
        fn new(
            n: u64,
            fpr: f64,
            seed: u64,
            expansion: u32,
            tightening: f64,
            nonscaling: bool,
        ) -> PyResult<Self> {
            let spec = Spec::ScalableBloom {
                items: n,
                fpr,
                expansion,
                tightening,
                nonscaling,
            };
            match new_filter(&spec, seed)? {
                AnyFilter::ScalableBloom(f) => Ok(Self::wrap(f)),
                _ => unreachable!("the spec makes a filter of its kind"),
            }
        }

        /// m, the bits of every link together.
        #[getter]
        fn m_bits(&self) -> u64 {
            self.inner.m()
        }
    }
);

/// An expandable cuckoo filter: cuckoo filters of growing capacity and longer fingerprints,
/// queried together, the whole chain within ``fpr``, with ``remove``.
///
/// ``ExpandableCuckooFilter(n, fpr, seed=0, expansion=2, tightening=0.5)``: the first link holds
/// ``n`` items; when it cannot take one, a link ``expansion`` times larger with ``tightening``
/// times the rate is added (while the rate fits 16-bit fingerprints, at most 32 links;
/// ``expansion=0`` never grows and raises ``amq.FilterFullError``). ``remove`` deletes one copy:
/// only remove what was added, and across links a remove may take the copy of another item with the
/// same fingerprint (as RedisBloom's ``CF.DEL`` on a chain). Its ``.amq`` file is the one
/// ``amq serve`` keeps for an ``expandable-cuckoo`` spec; ``amq info`` reads it.
///
/// >>> f = amq.ExpandableCuckooFilter(100, 0.01)
/// >>> f.add_many(range(500))
/// >>> f.links, f.remove(7), 7 in f
/// (3, True, False)
#[pyclass(module = "amq", name = "ExpandableCuckooFilter")]
pub struct PyExpandable {
    pub inner: amq::cuckoo::ExpandableCuckooFilter,
}

impl PyExpandable {
    pub fn wrap(inner: amq::cuckoo::ExpandableCuckooFilter) -> Self {
        PyExpandable { inner }
    }
}

membership_class!(
    PyExpandable,
    amq::cuckoo::ExpandableCuckooFilter::from_bytes,
    union: copy_self,
    chain: "ExpandableCuckooFilter",
    add: "Adds one copy of an item (a new link first if no link can take it). Returns False \
          if a copy may already have been there. Raises ``amq.FilterFullError`` if the chain \
          cannot grow; nothing is lost.",
    inserted: "The fingerprints held in every link: adds (a duplicate stores another copy) \
               minus removes.",
    {
        #[new]
        #[pyo3(signature = (n, fpr, seed = 0, expansion = 2, tightening = 0.5))]
        fn new(n: u64, fpr: f64, seed: u64, expansion: u32, tightening: f64) -> PyResult<Self> {
            let spec = Spec::ExpandableCuckoo {
                items: n,
                fpr,
                expansion,
                tightening,
                max_kicks: amq::cuckoo::MAX_KICKS,
            };
            match new_filter(&spec, seed)? {
                AnyFilter::ExpandableCuckoo(f) => Ok(Self::wrap(f)),
                _ => unreachable!("the spec makes a filter of its kind"),
            }
        }

        /// Removes one copy of an item: True if one was held, False if it was absent.
        fn remove(&mut self, item: &Bound<'_, PyAny>) -> PyResult<bool> {
            with_item(item, |b| self.inner.remove(b))
        }

        /// How many copies of the item's fingerprint the links hold (an upper bound on the
        /// item's copies).
        fn count(&self, item: &Bound<'_, PyAny>) -> PyResult<u64> {
            with_item(item, |b| self.inner.count(b))
        }

        /// α, the fingerprints held over the slots of every link.
        #[getter]
        fn load_factor(&self) -> f64 {
            self.inner.load_factor()
        }
    }
);
