//! The Bloom kinds and the cuckoo filter: `BloomFilter`, `BlockedBloomFilter`,
//! `CuckooFilter`.

use crate::common::membership_class;
use crate::convert::new_filter;
use crate::errors::{to_py_context, IntoPy};
use crate::items::{answers, for_each_chunk, with_item, Array, Items};
use amq::math::{Spec, Target};
use amq::wire::Kind;
use amq::{AnyFilter, Filter, Insert, Remove};
use core::any::Any;
use pyo3::prelude::*;

/// A filter of `kind` for n items at false-positive rate `fpr`, as `amq build --fpr` sizes it.
fn sized(kind: Kind, n: u64, fpr: f64, k: Option<u32>, seed: u64) -> PyResult<AnyFilter> {
    let spec = Spec::sized(kind, n, Target::Fpr(fpr), k).py()?;
    new_filter(&spec, seed)
}

/// `add_many`: inserts in order, a chunk at a time with the GIL released; on an error (a full
/// cuckoo filter) says how many of the batch went in before it. A split block filter given a
/// NumPy integer array takes it through `insert_batch_values`, whose hash loop vectorises
/// (the same bits: an int item is its 8 little-endian bytes either way).
pub fn insert_batch<F: Insert<[u8]> + Send + 'static>(
    py: Python<'_>,
    inner: &mut F,
    items: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let mut added = 0usize;
    for_each_chunk(items, None, |chunk| {
        let any: &mut dyn Any = &mut *inner;
        if let Some(f) = any.downcast_mut::<amq::SplitBlockBloomFilter>() {
            match chunk {
                Items::U64(v) => py.detach(|| f.insert_batch_values(v)),
                Items::I64(v) => py.detach(|| f.insert_batch_values(v)),
                Items::Arena(_) => {
                    return insert_each(py, &chunk, &mut added, |b| f.insert(b).map(|_| ()))
                }
            }
            return Ok(());
        }
        insert_each(py, &chunk, &mut added, |b| inner.insert(b).map(|_| ()))
    })
}

/// `add_many` of a kind without [`Insert`] (a position, a time or a TTL goes with each item):
/// `insert` of every item in order, a chunk at a time with the GIL released; on an error says
/// how many of the batch went in before it.
pub fn insert_all(
    py: Python<'_>,
    items: &Bound<'_, PyAny>,
    mut insert: impl FnMut(&[u8]) -> amq::Result<()> + Send,
) -> PyResult<()> {
    let mut added = 0usize;
    for_each_chunk(items, None, |chunk| {
        insert_each(py, &chunk, &mut added, &mut insert)
    })
}

/// `insert` of the items of a chunk one at a time, GIL released, counting them into `added`.
fn insert_each(
    py: Python<'_>,
    chunk: &Items<'_>,
    added: &mut usize,
    insert: impl FnMut(&[u8]) -> amq::Result<()> + Send,
) -> PyResult<()> {
    let (done, result) = py.detach(|| chunk.try_for_each(insert));
    *added += done;
    result.map_err(|e| {
        // counted from 0, as `items::at_item` counts: item i has the i before it
        let context = format_args!(
            "(item {added} of the batch: the {added} before it were processed, it and those after \
             it were not)"
        );
        match e {
            // the library's "nothing was added" speaks of the one item, not of the batch
            amq::Error::Full { items, capacity } => {
                let message =
                    format!("filter is full ({items} items, capacity {capacity}) {context}");
                crate::errors::with_message(amq::Error::Full { items, capacity }, message)
            }
            e => to_py_context(e, context),
        }
    })
}

/// `contains_many` of a contiguous NumPy `uint64`/`int64` array for the split block kind:
/// one `contains_batch_values` over the whole array with the GIL released (its hash loop takes
/// several keys per SIMD instruction: 1.9 against 3.7 ns a key through [`contains_batch!`] at
/// 10^6 keys, 3.2 against 7.2 at 10^7). `None` for any other kind or batch.
pub fn contains_values<'py, F: 'static>(
    py: Python<'py>,
    inner: &F,
    items: &Bound<'py, PyAny>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let any: &dyn Any = inner;
    let Some(f) = any.downcast_ref::<amq::SplitBlockBloomFilter>() else {
        return Ok(None);
    };
    let Some(array) = Array::of(items)? else {
        return Ok(None);
    };
    let out = match array.items() {
        Items::U64(v) => py.detach(|| ask_values(f, v)),
        Items::I64(v) => py.detach(|| ask_values(f, v)),
        Items::Arena(_) => return Ok(None),
    };
    answers(py, out, true).map(Some)
}

/// The answers of `contains_batch_values` for items held in a slice.
fn ask_values<T: amq::Item>(f: &amq::SplitBlockBloomFilter, items: &[T]) -> Vec<bool> {
    let mut out = vec![false; items.len()];
    f.contains_batch_values(items, &mut out);
    out
}

/// `contains_many` of the kinds with prefetching hash batches: per chunk, hashes the items
/// and asks for them all, with the GIL released. `at: $at` asks a kind whose batch answers at
/// a time or an epoch (`contains_hash_batch(hashes, at, out)`). The answers as
/// [`answers`](crate::items::answers) gives them.
macro_rules! contains_batch {
    ($py:expr, $inner:expr, $items:expr) => {
        $crate::filters::contains_batch!(@run $py, $inner, $items, |inner, hashes, out| {
            inner.contains_hash_batch(hashes, out)
        })
    };
    ($py:expr, $inner:expr, $items:expr, at: $at:expr) => {{
        let at = $at;
        $crate::filters::contains_batch!(@run $py, $inner, $items, |inner, hashes, out| {
            inner.contains_hash_batch(hashes, at, out)
        })
    }};
    (@run $py:expr, $inner:expr, $items:expr, |$f:ident, $hs:ident, $o:ident| $ask:expr) => {{
        let $f = $inner;
        let mut out: Vec<bool> = Vec::new();
        let mut hashes = Vec::with_capacity($crate::items::CHUNK);
        $crate::items::for_each_chunk($items, None, |chunk| {
            $py.detach(|| {
                hashes.clear();
                chunk.map_into(&mut hashes, |b| $f.hash(b));
                let start = out.len();
                out.resize(start + hashes.len(), false);
                let ($hs, $o) = (&hashes[..], &mut out[start..]);
                $ask;
            });
            Ok(())
        })?;
        $crate::items::answers($py, out, $crate::items::is_ndarray($items)?)
    }};
}
pub(crate) use contains_batch;

/// A filter of `kind` with m bits (rounded up to whole blocks in the blocked kinds) and `k`
/// probes (`None`: the kind's own k, the split block kind's 8).
fn with_bits(kind: Kind, m_bits: u64, k: Option<u32>, seed: u64) -> PyResult<AnyFilter> {
    let spec = Spec::sized(kind, 1, Target::Bits(m_bits), k).py()?;
    new_filter(&spec, seed)
}

/// The methods the three Bloom kinds share, on the class `$cls` over `amq::$kind` (the
/// registry's `AnyFilter` and `Kind` variant `$variant`, the Python name `$name`), then the
/// class's own `$extra` methods. `k: given` makes the constructor `Cls(m_bits, k, seed=0)`;
/// `k: fixed` makes it `Cls(m_bits, seed=0)` (the kind's k is fixed).
macro_rules! bloom_class {
    ($cls:ident, $kind:ident, $variant:ident, $name:literal, k: given, { $($extra:tt)* }) => {
        bloom_class!(@class $cls, $kind, $variant, $name, {
            #[new]
            #[pyo3(signature = (m_bits, k, seed = 0))]
            fn new(m_bits: u64, k: u32, seed: u64) -> PyResult<Self> {
                Self::from_any(with_bits(Kind::$variant, m_bits, Some(k), seed)?)
            }
            $($extra)*
        });
    };
    ($cls:ident, $kind:ident, $variant:ident, $name:literal, k: fixed, { $($extra:tt)* }) => {
        bloom_class!(@class $cls, $kind, $variant, $name, {
            #[new]
            #[pyo3(signature = (m_bits, seed = 0))]
            fn new(m_bits: u64, seed: u64) -> PyResult<Self> {
                Self::from_any(with_bits(Kind::$variant, m_bits, None, seed)?)
            }
            $($extra)*
        });
    };
    (@class $cls:ident, $kind:ident, $variant:ident, $name:literal, { $($extra:tt)* }) => {
        impl $cls {
            pub fn wrap(inner: amq::$kind) -> Self {
                $cls { inner }
            }

            fn from_any(f: AnyFilter) -> PyResult<Self> {
                match f {
                    AnyFilter::$variant(f) => Ok(Self::wrap(f)),
                    _ => unreachable!("the spec makes a filter of its kind"),
                }
            }
        }

        membership_class!($cls, amq::$kind::from_bytes, union: skip_self,
            add: "Adds an item. Returns False if it may already have been there (every bit was set).",
            inserted: "How many items were added: every ``add`` counts, a duplicate too, and a \
                       union adds the other filter's count.", {

        /// A filter for ``n`` items at false-positive rate ``fpr`` (0 < fpr < 1), with ``k``
        /// fixed if given (the split block kind has k = 8: any other ``k`` raises
        /// ``ValueError``): m and k as ``amq build --fpr FPR --items N`` chooses them, so the
        /// same items give the same ``.amq`` bytes.
        #[staticmethod]
        #[pyo3(signature = (n, fpr, seed = 0, k = None))]
        fn with_fpr(n: u64, fpr: f64, seed: u64, k: Option<u32>) -> PyResult<Self> {
            Self::from_any(sized(Kind::$variant, n, fpr, k, seed)?)
        }

        /// Keeps only the bits set in both filters (same shape and seed, else ``ValueError``).
        fn intersect(slf: &Bound<'_, Self>, other: &Bound<'_, Self>) -> PyResult<()> {
            if slf.is(other) {
                return Ok(());
            }
            let o = other.try_borrow()?;
            slf.try_borrow_mut()?.inner.intersect(&o.inner).py()
        }

        fn __and__(slf: &Bound<'_, Self>, other: &Bound<'_, Self>) -> PyResult<Self> {
            let mut out = slf.try_borrow()?.copy();
            out.inner.intersect(&other.try_borrow()?.inner).py()?;
            Ok(out)
        }

        fn __iand__(slf: &Bound<'_, Self>, other: &Bound<'_, Self>) -> PyResult<()> {
            Self::intersect(slf, other)
        }

        /// Removes every item (all bits to zero, the count to 0).
        fn clear(&mut self) {
            self.inner.clear();
        }

        /// m, the bits of the table (a multiple of 512 in a blocked filter).
        #[getter]
        fn m_bits(&self) -> u64 {
            self.inner.m()
        }

        /// k, the bits set (probes) per item (within its block, in a blocked filter).
        #[getter]
        fn k(&self) -> u32 {
            self.inner.k()
        }

        fn __repr__(&self) -> String {
            format!(
                concat!("<amq.", $name, " m_bits={} k={} seed={} inserted={}>"),
                self.inner.m(),
                self.inner.k(),
                self.inner.seed(),
                self.inner.inserted()
            )
        }
            $($extra)*
        });
    };
}

/// The classic Bloom filter: m bits, k probes per item.
///
/// It answers ``item in f`` with True ("maybe present", wrong with probability about the
/// planned false-positive rate) or False ("definitely absent": never wrong). Items are
/// ``bytes``, ``str`` (UTF-8) or ``int`` (8 little-endian bytes); ``add_many`` and
/// ``contains_many`` take any iterable of items or a NumPy ``uint64``/``int64`` array and run
/// without the GIL; ``contains_many`` answers a NumPy array with a NumPy ``bool`` array.
///
/// Make one with ``BloomFilter.with_fpr(n, fpr)`` (sized as ``amq build --fpr`` sizes it) or
/// ``BloomFilter(m_bits, k)``. Raises ``ValueError`` for parameters out of range,
/// ``OverflowError`` for integers out of range and ``MemoryError`` if the table cannot be
/// allocated.
///
/// >>> f = amq.BloomFilter.with_fpr(1000, 0.01)
/// >>> f.m_bits, f.k
/// (9593, 7)
/// >>> f.add("apple"), f.add("apple")  # True: it was new
/// (True, False)
/// >>> "apple" in f, "pear" in f
/// (True, False)
#[pyclass(module = "amq", name = "BloomFilter")]
pub struct PyBloom {
    pub inner: amq::BloomFilter,
}

bloom_class!(PyBloom, BloomFilter, Bloom, "BloomFilter", k: given, {});

/// The blocked Bloom filter: each item's k bits fall in one 64-byte cache line (512-bit
/// block), so a query costs one cache miss; it needs a few more bits than ``BloomFilter``
/// for the same false-positive rate.
///
/// The same interface as ``BloomFilter``: ``BlockedBloomFilter.with_fpr(n, fpr)`` or
/// ``BlockedBloomFilter(m_bits, k)`` (m rounded up to whole blocks), ``add``, ``in``,
/// ``add_many``, ``contains_many``, ``union``/``|``, ``info()``, ``to_bytes()``.
///
/// >>> f = amq.BlockedBloomFilter.with_fpr(1000, 0.01)
/// >>> f.add_many([1, 2, 3])
/// >>> f.contains_many([1, 2, 3, 4])
/// [True, True, True, False]
#[pyclass(module = "amq", name = "BlockedBloomFilter")]
pub struct PyBlocked {
    pub inner: amq::BlockedBloomFilter,
}

bloom_class!(
    PyBlocked,
    BlockedBloomFilter,
    BlockedBloom,
    "BlockedBloomFilter",
    k: given,
    {}
);

/// The split block Bloom filter: each item sets one bit in each of the eight 64-bit lanes of
/// one 64-byte block (k is 8), probed with SIMD; the fastest Bloom kind, a few bits per key
/// above ``BloomFilter`` for the same false-positive rate.
///
/// The same interface as ``BloomFilter``: ``SplitBlockBloomFilter.with_fpr(n, fpr)`` or
/// ``SplitBlockBloomFilter(m_bits)`` (m rounded up to whole 512-bit blocks), ``add``, ``in``,
/// ``add_many``, ``contains_many``, ``union``/``|``, ``intersect``/``&``, ``info()``,
/// ``to_bytes()``. ``add_many`` and ``contains_many`` of a NumPy ``uint64``/``int64`` array
/// hash several keys per SIMD instruction: the fast way to build and ask one.
///
/// >>> f = amq.SplitBlockBloomFilter.with_fpr(1000, 0.01)
/// >>> f.k, f.m_bits  # eight bits per key, in 512-bit blocks
/// (8, 10240)
/// >>> f.add(b"key"), b"key" in f
/// (True, True)
#[pyclass(module = "amq", name = "SplitBlockBloomFilter")]
pub struct PySplitBlock {
    pub inner: amq::SplitBlockBloomFilter,
}

bloom_class!(
    PySplitBlock,
    SplitBlockBloomFilter,
    SplitBlockBloom,
    "SplitBlockBloomFilter",
    k: fixed,
    {}
);

/// The cuckoo filter: f-bit fingerprints in buckets of 4 slots, with deletion.
///
/// ``add`` raises ``amq.FilterFullError`` when the table cannot take the item (nothing is
/// lost: every item added before is still found). ``remove`` deletes one copy; only remove
/// what was added, or another item may be lost. Make one with ``CuckooFilter.with_fpr(n,
/// fpr)`` (as ``amq build --kind cuckoo`` sizes it) or ``CuckooFilter(buckets,
/// fingerprint_bits)``.
///
/// >>> f = amq.CuckooFilter.with_fpr(1000, 0.01)
/// >>> f.add("x"), f.add("x"), f.count("x")  # a second copy, held as such
/// (True, False, 2)
/// >>> f.remove("x"), "x" in f  # one copy left
/// (True, True)
#[pyclass(module = "amq", name = "CuckooFilter")]
pub struct PyCuckoo {
    pub inner: amq::CuckooFilter,
}

impl PyCuckoo {
    pub fn wrap(inner: amq::CuckooFilter) -> Self {
        PyCuckoo { inner }
    }
}

membership_class!(PyCuckoo, amq::CuckooFilter::from_bytes, union: copy_self,
    add: "Adds one copy of an item. Returns False if a copy may already have been there. \
          Raises ``amq.FilterFullError`` if the table cannot take it.",
    inserted: "The fingerprints held: adds (a duplicate stores another copy) minus removes.", {
    #[new]
    #[pyo3(signature = (buckets, fingerprint_bits, seed = 0))]
    fn new(buckets: u64, fingerprint_bits: u32, seed: u64) -> PyResult<Self> {
        amq::CuckooFilter::new(buckets, fingerprint_bits, seed)
            .py()
            .map(Self::wrap)
    }

    /// A filter for ``n`` items at false-positive rate ``fpr``: the fingerprint width and
    /// buckets ``amq build --kind cuckoo --fpr FPR --items N`` chooses.
    #[staticmethod]
    #[pyo3(signature = (n, fpr, seed = 0))]
    fn with_fpr(n: u64, fpr: f64, seed: u64) -> PyResult<Self> {
        match sized(Kind::Cuckoo, n, fpr, None, seed)? {
            AnyFilter::Cuckoo(f) => Ok(Self::wrap(f)),
            _ => unreachable!("a cuckoo spec makes a cuckoo filter"),
        }
    }

    /// Removes one copy of an item: True if one was held, False if it was absent.
    fn remove(&mut self, item: &Bound<'_, PyAny>) -> PyResult<bool> {
        with_item(item, |b| self.inner.remove(b))
    }

    /// How many copies of the item's fingerprint the table holds (an upper bound on the
    /// item's copies).
    fn count(&self, item: &Bound<'_, PyAny>) -> PyResult<u32> {
        with_item(item, |b| self.inner.count(b))
    }

    /// Removes every item.
    fn clear(&mut self) {
        self.inner.clear();
    }

    /// f, the fingerprint width in bits.
    #[getter]
    fn fingerprint_bits(&self) -> u32 {
        self.inner.fingerprint_bits()
    }

    /// The buckets (of 4 slots each).
    #[getter]
    fn buckets(&self) -> u64 {
        self.inner.buckets()
    }

    /// α, the fingerprints held over the slots.
    #[getter]
    fn load_factor(&self) -> f64 {
        self.inner.load_factor()
    }

    fn __repr__(&self) -> String {
        format!(
            "<amq.CuckooFilter buckets={} fingerprint_bits={} seed={} inserted={}>",
            self.inner.buckets(),
            self.inner.fingerprint_bits(),
            self.inner.seed(),
            self.inner.inserted()
        )
    }
});
