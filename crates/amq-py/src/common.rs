//! What every filter class has: its `.amq` bytes, copying, pickling, equality and the common
//! read-only figures. [`filter_class!`] writes them into the class's one `#[pymethods]` block
//! beside the kind's own methods.

/// What a `__reduce__` returns: the callable that rebuilds the object, and its arguments.
pub type Reduce<'py, Args> = pyo3::PyResult<(pyo3::Bound<'py, pyo3::PyAny>, Args)>;

/// `#[pymethods]` for a filter class `$cls` wrapping `self.inner`, whose `.amq` decoder is
/// `$from` (`fn(&[u8]) -> amq::Result<Inner>`) and whose equality is `$eq`
/// (`fn(&Inner, &Inner) -> bool`), followed by the kind's own methods `$($rest)*`.
/// `inserted: $inserted` is the docstring of the `inserted` getter: what the kind counts
/// differs (every add, the entries held, the adds that stored something new).
macro_rules! filter_class {
    ($cls:ident, $from:path, $eq:path, inserted: $inserted:literal, { $($rest:tt)* }) => {
        #[pyo3::pymethods]
        impl $cls {
            /// The filter as an ``.amq`` file: the same bytes the ``amq`` command line writes
            /// for the same items and parameters (``amq.load`` and ``amq info`` read it).
            fn to_bytes<'py>(&self, py: pyo3::Python<'py>) -> pyo3::Bound<'py, pyo3::types::PyBytes> {
                pyo3::types::PyBytes::new(py, &self.inner.to_bytes())
            }

            fn __bytes__<'py>(&self, py: pyo3::Python<'py>) -> pyo3::Bound<'py, pyo3::types::PyBytes> {
                self.to_bytes(py)
            }

            /// Reads an ``.amq`` file of this kind (``bytes`` or ``bytearray``; ``amq.load``
            /// reads any kind).
            ///
            /// Raises ``ValueError`` for bytes that are not such a file (wrong magic, kind,
            /// version or checksum, truncated or corrupt), ``TypeError`` for an object that is
            /// not bytes; never crashes, whatever the bytes.
            #[staticmethod]
            fn from_bytes(data: &pyo3::Bound<'_, pyo3::PyAny>) -> pyo3::PyResult<Self> {
                use $crate::errors::IntoPy as _;
                Ok(Self::wrap($crate::items::with_filter_bytes(data, $from)?.py()?))
            }

            fn __reduce__<'py>(
                slf: &pyo3::Bound<'py, Self>,
            ) -> pyo3::PyResult<(pyo3::Bound<'py, pyo3::PyAny>, (pyo3::Bound<'py, pyo3::types::PyBytes>,))> {
                use pyo3::types::PyAnyMethods as _;
                let from = slf.get_type().getattr("from_bytes")?;
                Ok((from, (slf.try_borrow()?.to_bytes(slf.py()),)))
            }

            fn __copy__(&self) -> Self {
                Self::wrap(self.inner.clone())
            }

            fn __deepcopy__(&self, _memo: &pyo3::Bound<'_, pyo3::PyAny>) -> Self {
                Self::wrap(self.inner.clone())
            }

            /// A copy of the filter.
            fn copy(&self) -> Self {
                Self::wrap(self.inner.clone())
            }

            fn __eq__(&self, other: pyo3::PyRef<'_, Self>) -> bool {
                $eq(&self.inner, &other.inner)
            }

            /// The hash seed (an int in ``[0, 2**64)``).
            #[getter]
            fn seed(&self) -> u64 {
                self.inner.seed()
            }

            #[doc = $inserted]
            #[getter]
            fn inserted(&self) -> u64 {
                self.inner.inserted()
            }

            /// Bytes of the table (the ``.amq`` payload).
            #[getter]
            fn size_bytes(&self) -> u64 {
                self.inner.size_bytes()
            }

            $($rest)*
        }
    };
}

pub(crate) use filter_class;

/// [`filter_class!`] for a membership filter `$cls` (items go in with `amq::Insert`, are
/// asked for with `amq::Filter`, merge with `union`): adds `add` (its docstring `$add`),
/// `in`/`contains`, `contains_many` (through the kind's `hash` and `contains_hash_batch`),
/// `add_many`, `info`, `union`, `|` and `|=`, then the class's own methods; `inserted` as
/// for [`filter_class!`].
/// `union: skip_self` makes `f.union(f)` a no-op (a Bloom filter or chain: OR-ing a table
/// into itself changes nothing); `union: copy_self` unions a copy (a cuckoo filter or chain:
/// every item is added again), and the union can raise `amq.FilterFullError`. `chain: "Name"`
/// adds a chain's `links`, `capacity`, `fpr_bound` and `__repr__`. The caller's module has
/// `pyo3::prelude::*` in scope.
macro_rules! membership_class {
    ($cls:ident, $from:path, union: $union:ident, chain: $name:literal, add: $add:literal,
     inserted: $inserted:literal, { $($rest:tt)* }) => {
        $crate::common::membership_class!($cls, $from, union: $union, add: $add,
            inserted: $inserted, {
            /// The links (filters of growing capacity) in the chain.
            #[getter]
            fn links(&self) -> u32 {
                self.inner.links()
            }

            /// The items the chain's links are planned for together (``n·expansionⁱ`` summed
            /// over the links).
            #[getter]
            fn capacity(&self) -> u64 {
                self.inner.capacity()
            }

            /// The bound on the chain's false-positive rate over its links so far.
            #[getter]
            fn fpr_bound(&self) -> f64 {
                self.inner.fpr_bound()
            }

            fn __repr__(&self) -> String {
                format!(
                    concat!("<amq.", $name, " links={} capacity={} seed={} inserted={}>"),
                    self.inner.links(),
                    self.inner.capacity(),
                    self.inner.seed(),
                    self.inner.inserted()
                )
            }
            $($rest)*
        });
    };
    ($cls:ident, $from:path, union: skip_self, add: $add:literal, inserted: $inserted:literal,
     { $($rest:tt)* }) => {
        $crate::common::membership_class!(@methods $cls, $from, $add, $inserted, {
            /// Adds every item of ``other`` (same shape and seed, else ``ValueError``), in
            /// place.
            fn union(slf: &Bound<'_, Self>, other: &Bound<'_, Self>) -> PyResult<()> {
                use $crate::errors::IntoPy as _;
                if slf.is(other) {
                    return Ok(());
                }
                let o = other.try_borrow()?;
                slf.try_borrow_mut()?.inner.union(&o.inner).py()
            }
            $($rest)*
        });
    };
    ($cls:ident, $from:path, union: copy_self, add: $add:literal, inserted: $inserted:literal,
     { $($rest:tt)* }) => {
        $crate::common::membership_class!(@methods $cls, $from, $add, $inserted, {
            /// Adds every item of ``other`` (same shape and seed, else ``ValueError``), in
            /// place; ``amq.FilterFullError`` if both sets do not fit (then nothing changes).
            fn union(slf: &Bound<'_, Self>, other: &Bound<'_, Self>) -> PyResult<()> {
                use $crate::errors::IntoPy as _;
                let o = if slf.is(other) {
                    slf.try_borrow()?.inner.clone()
                } else {
                    other.try_borrow()?.inner.clone()
                };
                slf.try_borrow_mut()?.inner.union(&o).py()
            }
            $($rest)*
        });
    };
    (@methods $cls:ident, $from:path, $add:literal, $inserted:literal, { $($rest:tt)* }) => {
        $crate::common::filter_class!($cls, $from, $crate::common::same, inserted: $inserted, {
            #[doc = $add]
            fn add(&mut self, item: &Bound<'_, PyAny>) -> PyResult<bool> {
                use $crate::errors::IntoPy as _;
                $crate::items::with_item(item, |b| amq::Insert::<[u8]>::insert(&mut self.inner, b))?.py()
            }

            fn __contains__(&self, item: &Bound<'_, PyAny>) -> PyResult<bool> {
                $crate::items::with_item(item, |b| amq::Filter::<[u8]>::contains(&self.inner, b))
            }

            /// ``item in f``: True if the item may be present, False if it is definitely absent.
            fn contains(&self, item: &Bound<'_, PyAny>) -> PyResult<bool> {
                self.__contains__(item)
            }

            /// ``[item in f for item in items]`` for an iterable or a NumPy ``uint64``/``int64``
            /// array: hashed and asked in batches that prefetch (a chain asks each link only
            /// for the items no newer link holds), with the GIL released. The answers to a
            /// NumPy array are a NumPy ``bool`` array, to anything else a list. Until it
            /// returns, other threads may ask the filter too, but a call that changes it
            /// raises ``RuntimeError`` (``Already borrowed``).
            fn contains_many<'py>(
                &self,
                py: Python<'py>,
                items: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyAny>> {
                if let Some(answers) = $crate::filters::contains_values(py, &self.inner, items)? {
                    return Ok(answers);
                }
                $crate::filters::contains_batch!(py, &self.inner, items)
            }

            /// Adds every item of an iterable (or a NumPy ``uint64``/``int64`` array) in order,
            /// GIL released. An error part-way stops it there, with exactly the items before it
            /// added: an object that is not an item (``TypeError``), an iterable that raises,
            /// or ``amq.FilterFullError`` (a cuckoo filter or a chain that cannot take an item;
            /// the message says how many were added). Until it returns, any call on the filter
            /// from another thread, or from the iterable (a generator that asks ``k in f``),
            /// raises ``RuntimeError`` (``Already mutably borrowed``).
            fn add_many(&mut self, py: Python<'_>, items: &Bound<'_, PyAny>) -> PyResult<()> {
                $crate::filters::insert_batch(py, &mut self.inner, items)
            }

            /// The filter's shape, fill and estimated false-positive rate: a dict with the keys of
            /// ``amq info --json`` (``kind``, ``m_bits``, ``k``, ``seed``, ``items_inserted``,
            /// ``bytes``, ``fill_ratio``, ``estimated_items``, ``estimated_fpr`` and the kind's
            /// own, such as ``load_factor``, ``links`` or the Bloom kinds' ``index_scheme``: 2, or
            /// 1 for a file of a version before it).
            fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                $crate::convert::to_object(py, &self.inner.info())
            }

            fn __or__(slf: &Bound<'_, Self>, other: &Bound<'_, Self>) -> PyResult<Self> {
                use $crate::errors::IntoPy as _;
                let mut out = slf.try_borrow()?.copy();
                out.inner.union(&other.try_borrow()?.inner).py()?;
                Ok(out)
            }

            fn __ior__(slf: &Bound<'_, Self>, other: &Bound<'_, Self>) -> PyResult<()> {
                Self::union(slf, other)
            }

            $($rest)*
        });
    };
}

pub(crate) use membership_class;

/// A `now=` or `timestamp=` argument: seconds since the Unix epoch, an int, or a float such as
/// `time.time()` returns, rounded down as the system clock's time is (a float that is not
/// finite, or below 0, or of 2^64 and more raises `ValueError`; an int takes PyO3's checks of
/// a u64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seconds(pub u64);

impl<'a, 'py> pyo3::FromPyObject<'a, 'py> for Seconds {
    type Error = pyo3::PyErr;

    fn extract(obj: pyo3::Borrowed<'a, 'py, pyo3::PyAny>) -> pyo3::PyResult<Self> {
        use pyo3::types::{PyFloat, PyFloatMethods as _};
        if let Ok(float) = obj.cast::<PyFloat>() {
            let x = float.value();
            // 2^64 as f64 is exact; every finite x in [0, 2^64) truncates into a u64
            return if x.is_finite() && (0.0..18_446_744_073_709_551_616.0).contains(&x) {
                Ok(Seconds(x as u64))
            } else {
                Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "a time is seconds since the Unix epoch, at least 0 and below 2**64: got {x}"
                )))
            };
        }
        obj.extract::<u64>().map(Seconds)
    }
}

/// `now` (seconds since the Unix epoch), or the system clock's time: the default of every
/// call that takes `now` or a timestamp.
pub fn time(now: Option<Seconds>) -> u64 {
    use amq::clock::Clock as _;
    now.map_or_else(|| amq::clock::SystemClock.now(), |Seconds(s)| s)
}

std::thread_local! {
    /// The time of the call running on this thread ([`at`]), if one set it.
    static CALL_TIME: std::cell::Cell<Option<u64>> = const { std::cell::Cell::new(None) };
}

/// The clock of the kinds that read the time from their clock (`AgingBloom`,
/// `NegativeCache`, `TtlCuckooFilter`): the time of the Python call running on the calling
/// thread, which [`at`] sets. It holds nothing, so a copy, an unpickled or a loaded filter
/// shares no time with another, and two threads asking one filter at different times each see
/// their own (a batch runs its GIL-released chunks on the thread that called it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallClock;

impl amq::clock::Clock for CallClock {
    /// The time [`at`] set on this thread, or the system clock's outside such a call.
    #[inline]
    fn now(&self) -> u64 {
        CALL_TIME
            .with(std::cell::Cell::get)
            .unwrap_or_else(|| time(None))
    }
}

/// Runs `f` with [`CallClock`] reading `now` (default: the system clock's time, read once
/// here) on this thread, then puts back the time it read before: a call made meanwhile on
/// this thread (by an item's `__index__` or a batch's generator) sets its own time and leaves
/// this one in place for the rest of `f`.
pub fn at<R>(now: Option<Seconds>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<u64>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CALL_TIME.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(CALL_TIME.with(|t| t.replace(Some(time(now)))));
    f()
}

/// `a == b` for types whose `PartialEq` is the equality of their contents.
pub fn same<T: PartialEq>(a: &T, b: &T) -> bool {
    a == b
}

/// Equality of the `.amq` bytes: the time-based kinds are equal when their files are.
pub fn same_bytes<T: ToBytes>(a: &T, b: &T) -> bool {
    a.to_bytes() == b.to_bytes()
}

/// The `.amq` encoding, for [`same_bytes`].
pub trait ToBytes {
    /// The `.amq` bytes.
    fn to_bytes(&self) -> Vec<u8>;
}

/// For a kind that reads the time from a clock (`$kind<CallClock>`, the `inner` of the class
/// `$cls`): its [`ToBytes`], its decoder `$from`, which gives the decoded filter a
/// [`CallClock`], and `$cls::wrap`, the class over a filter of any clock.
macro_rules! call_clock_kind {
    ($cls:ident, $kind:ident, $from:ident) => {
        impl $crate::common::ToBytes for $kind<$crate::common::CallClock> {
            fn to_bytes(&self) -> Vec<u8> {
                $kind::to_bytes(self)
            }
        }

        fn $from(bytes: &[u8]) -> amq::Result<$kind<$crate::common::CallClock>> {
            Ok($kind::from_bytes(bytes)?.with_clock($crate::common::CallClock))
        }

        impl $cls {
            /// The class over `inner`, reading the time of each call ([`CallClock`]) instead
            /// of `inner`'s clock.
            pub fn wrap<C: amq::clock::Clock>(inner: $kind<C>) -> Self {
                $cls {
                    inner: inner.with_clock($crate::common::CallClock),
                }
            }
        }
    };
}

pub(crate) use call_clock_kind;
