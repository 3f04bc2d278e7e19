//! The window kinds: `SlidingWindowBloom` (items at positions) and `AgingBloom` (items seen
//! within the last window of insertions or seconds).

use crate::common::{at, call_clock_kind, filter_class, same, same_bytes, CallClock, Seconds};
use crate::convert::{new_filter, to_object};
use crate::errors::{to_py, IntoPy};
use crate::filters::contains_batch;
use crate::items::{answers, is_ndarray, with_item, Array, Batch, Items};
use amq::math::Spec;
use amq::window::{AgingBloom, Rotation, WindowParams};
use amq::{AnyFilter, Filter, Insert};
use pyo3::exceptions::PyOverflowError;
use pyo3::prelude::*;
use pyo3::types::PyInt;

/// The sliding-window Bloom filter of mutator sets: every item has a position L, and its k
/// bits fall in a window of W bits that slides by S bits every B positions; chunks that leave
/// the window are archived and still answered.
///
/// An item is found at the position it was added at; ``item in f`` without a position raises
/// ``ValueError`` (use ``f.contains(item, position)``). Make one with
/// ``SlidingWindowBloom(window_bits, chunk_bits, batch, k)`` or
/// ``SlidingWindowBloom.neptune()`` (W = 2**20, S = 2**12, B = 8, k = 45).
///
/// >>> f = amq.SlidingWindowBloom(1024, 128, 4, 5)
/// >>> position = f.add("a")
/// >>> position, f.contains("a", position), f.contains("a", position + 1)
/// (0, True, False)
#[pyclass(module = "amq", name = "SlidingWindowBloom")]
pub struct PyWindow {
    pub inner: amq::SlidingWindowBloom,
}

impl PyWindow {
    pub fn wrap(inner: amq::SlidingWindowBloom) -> Self {
        PyWindow { inner }
    }

    fn with_params(params: WindowParams, seed: u64) -> PyResult<Self> {
        match new_filter(&Spec::SlidingWindowBloom { params }, seed)? {
            AnyFilter::SlidingWindowBloom(f) => Ok(Self::wrap(f)),
            _ => unreachable!("a window spec makes a sliding-window filter"),
        }
    }
}

filter_class!(PyWindow, amq::SlidingWindowBloom::from_bytes, same,
    inserted: "How many items were added: every ``add``, at any position, a duplicate too.", {
    /// W bits of window (a multiple of S, at most 2**36), S bits per chunk (a multiple of
    /// 64, at most 2**32), B insertions per slide, k indices per item (1 to 64); else
    /// ``ValueError``.
    #[new]
    #[pyo3(signature = (window_bits, chunk_bits, batch, k, seed = 0))]
    fn new(window_bits: u64, chunk_bits: u64, batch: u64, k: u32, seed: u64) -> PyResult<Self> {
        Self::with_params(
            WindowParams {
                window_bits,
                chunk_bits,
                batch,
                k,
            },
            seed,
        )
    }

    /// Neptune's mutator-set shape: W = 2**20, S = 2**12, B = 8, k = 45.
    #[staticmethod]
    #[pyo3(signature = (seed = 0))]
    fn neptune(seed: u64) -> PyResult<Self> {
        Self::with_params(WindowParams::NEPTUNE, seed)
    }

    /// Adds an item at ``position``, or at the next position if None; returns the position.
    /// A position at or past ``next_position`` slides the window there first.
    #[pyo3(signature = (item, position = None))]
    fn add(&mut self, item: &Bound<'_, PyAny>, position: Option<u64>) -> PyResult<u64> {
        match position {
            None => with_item(item, |b| self.inner.insert(b))?.py(),
            Some(p) => with_item(item, |b| self.inner.insert_at(b, p))?
                .py()
                .map(|_| p),
        }
    }

    /// Raises ``ValueError``: an item is found at a position (``f.contains(item, position)``).
    fn __contains__(&self, _item: &Bound<'_, PyAny>) -> PyResult<bool> {
        Err(to_py(amq::Error::Unsupported {
            kind: amq::wire::Kind::SlidingWindowBloom.name(),
            operation: "membership without a position (use f.contains(item, position))",
        }))
    }

    /// True if the item may have been added at ``position``, False if it definitely was not.
    fn contains(&self, item: &Bound<'_, PyAny>, position: u64) -> PyResult<bool> {
        with_item(item, |b| self.inner.contains(b, position))
    }

    /// Adds every item at the next positions in order (GIL released); returns the first
    /// position (the items get ``first, first + 1, ...``). An error part-way (an object that
    /// is not an item, an iterable that raises) stops it there, with exactly the items before
    /// it added. Until it returns, any call on the filter from another thread or from the
    /// iterable raises ``RuntimeError``.
    fn add_many(&mut self, py: Python<'_>, items: &Bound<'_, PyAny>) -> PyResult<u64> {
        let first = self.inner.next_position();
        let inner = &mut self.inner;
        crate::filters::insert_all(py, items, |b| inner.insert(b).map(|_| ()))?;
        Ok(first)
    }

    /// ``[f.contains(item, p) for item, p in zip(items, positions)]``; ``positions`` is one
    /// int for every item, or an iterable of ints (or a NumPy integer array) as long as
    /// ``items`` (else ``ValueError``); a negative position raises ``OverflowError``. GIL
    /// released; the queries run as one prefetching batch, during which a call that changes
    /// the filter from another thread raises ``RuntimeError``.
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        items: &Bound<'py, PyAny>,
        positions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ndarray = is_ndarray(items)?;
        let batch = Batch::read(items, None)?;
        let items = batch.items();
        let positions = read_positions(positions, items.len())?;
        if positions.len() != items.len() {
            return Err(crate::errors::value_error(format!(
                "{} items but {} positions",
                items.len(),
                positions.len()
            )));
        }
        let inner = &self.inner;
        let mut out = vec![false; items.len()];
        py.detach(|| {
            let mut hashes = Vec::with_capacity(items.len());
            items.map_into(&mut hashes, |b| inner.hash(b));
            inner.contains_hash_batch(&hashes, &positions, &mut out);
        });
        answers(py, out, ndarray)
    }

    /// The position the next ``add`` gets.
    #[getter]
    fn next_position(&self) -> u64 {
        self.inner.next_position()
    }

    /// The expected false-positive rate of a query at ``position`` now.
    fn expected_fpr(&self, position: u64) -> f64 {
        self.inner.expected_fpr(position)
    }

    /// Shape, window, archive and false-positive rates: the keys of ``amq info --json``.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_object(py, &self.inner.info())
    }

    fn __repr__(&self) -> String {
        let p = self.inner.params();
        format!(
            "<amq.SlidingWindowBloom window_bits={} chunk_bits={} batch={} k={} seed={} next_position={}>",
            p.window_bits,
            p.chunk_bits,
            p.batch,
            p.k,
            self.inner.seed(),
            self.inner.next_position()
        )
    }
});

/// The positions of a `contains_many` of `n` items: one int (a Python int or an object with
/// `__index__`, such as a NumPy integer) for every item, else one per item from a NumPy
/// `uint64`/`int64` array (read in place) or any iterable of ints.
///
/// # Errors
/// `OverflowError` for a position outside `[0, 2**64)`, `TypeError` for an object that is
/// neither an int nor an iterable of ints.
fn read_positions(obj: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<u64>> {
    // a NumPy array has `__index__` too (for its 0-d case): it is many positions
    let ndarray = is_ndarray(obj)?;
    if obj.cast::<PyInt>().is_ok()
        || (!ndarray && obj.hasattr(pyo3::intern!(obj.py(), "__index__"))?)
    {
        return Ok(vec![obj.extract::<u64>()?; n]);
    }
    if let Some(array) = Array::of(obj)? {
        match array.items() {
            Items::U64(v) => return Ok(v.to_vec()),
            Items::I64(v) => {
                return v
                    .iter()
                    .map(|&p| {
                        u64::try_from(p).map_err(|_| {
                            PyOverflowError::new_err(format!("a position is at least 0, not {p}"))
                        })
                    })
                    .collect()
            }
            Items::Arena(_) => {}
        }
    }
    obj.try_iter()?.map(|p| p?.extract::<u64>()).collect()
}

/// The aging Bloom filter: g generations rotated by insertions or by seconds, so an item is
/// found within the last window and forgotten after it.
///
/// ``AgingBloom.with_window(window, generations, fpr)`` remembers at least the last ``window``
/// insertions;
/// ``AgingBloom.with_time_window(window_seconds, generations, items_per_generation, fpr)`` at least
/// the last ``window_seconds`` seconds. The methods that depend on the time take ``now`` (seconds
/// since the Unix epoch, an int or a float such as ``time.time()``, rounded down; default: the
/// system clock), as the command line's ``--now``. It is the call's own: calls at other times from
/// other threads, or on a copy, do not change it.
///
/// >>> f = amq.AgingBloom.with_time_window(3600, 4, 1000, 0.01)
/// >>> f.add("token", now=1_700_000_000)
/// True
/// >>> f.contains("token", now=1_700_000_100), f.contains("token", now=1_700_010_000)
/// (True, False)
#[pyclass(module = "amq", name = "AgingBloom")]
pub struct PyAging {
    pub inner: AgingBloom<CallClock>,
}

call_clock_kind!(PyAging, AgingBloom, aging_from_bytes);

impl PyAging {
    fn from_spec(spec: Spec, seed: u64) -> PyResult<Self> {
        match new_filter(&spec, seed)? {
            AnyFilter::AgingBloom(f) => Ok(Self::wrap(f)),
            _ => unreachable!("an aging spec makes an aging filter"),
        }
    }
}

filter_class!(PyAging, aging_from_bytes, same_bytes,
    inserted: "How many items were added in all: every ``add``, a duplicate too, those rotated \
               out still counted.", {
    /// Remembers at least the last ``window`` insertions, with a false-positive rate of at
    /// most ``fpr`` over all ``generations`` (2 to 64), as ``amq aging new --window`` makes it.
    #[staticmethod]
    #[pyo3(signature = (window, generations, fpr, seed = 0))]
    fn with_window(window: u64, generations: u32, fpr: f64, seed: u64) -> PyResult<Self> {
        Self::from_spec(
            Spec::AgingBloom {
                window: Some(window),
                window_seconds: None,
                items_per_generation: None,
                generations,
                fpr,
            },
            seed,
        )
    }

    /// Remembers at least the last ``window_seconds`` seconds, for at most
    /// ``items_per_generation`` items per rotation interval, as ``amq aging new
    /// --window-seconds`` makes it.
    #[staticmethod]
    #[pyo3(signature = (window_seconds, generations, items_per_generation, fpr, seed = 0))]
    fn with_time_window(
        window_seconds: u64,
        generations: u32,
        items_per_generation: u64,
        fpr: f64,
        seed: u64,
    ) -> PyResult<Self> {
        Self::from_spec(
            Spec::AgingBloom {
                window: None,
                window_seconds: Some(window_seconds),
                items_per_generation: Some(items_per_generation),
                generations,
                fpr,
            },
            seed,
        )
    }

    /// Adds an item to the current generation (rotating first when it is full or its time is
    /// over). Returns False if it may already have been there.
    #[pyo3(signature = (item, now = None))]
    fn add(&mut self, item: &Bound<'_, PyAny>, now: Option<Seconds>) -> PyResult<bool> {
        at(now, || with_item(item, |b| self.inner.insert(b)))?.py()
    }

    fn __contains__(&self, item: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.contains(item, None)
    }

    /// True if the item may have been added within the window (as of ``now``), False if
    /// definitely not.
    #[pyo3(signature = (item, now = None))]
    fn contains(&self, item: &Bound<'_, PyAny>, now: Option<Seconds>) -> PyResult<bool> {
        at(now, || with_item(item, |b| self.inner.contains(b)))
    }

    /// Adds every item in order at ``now`` (GIL released). An error part-way (an object that
    /// is not an item, an iterable that raises) stops it there, with exactly the items before
    /// it added. Until it returns, any call on the filter from another thread or from the
    /// iterable raises ``RuntimeError``.
    #[pyo3(signature = (items, now = None))]
    fn add_many(
        &mut self,
        py: Python<'_>,
        items: &Bound<'_, PyAny>,
        now: Option<Seconds>,
    ) -> PyResult<()> {
        at(now, || {
            crate::filters::insert_batch(py, &mut self.inner, items)
        })
    }

    /// ``[f.contains(item, now) for item in items]`` (GIL released; batched, prefetching in
    /// a filter of 16 MiB or more). Meanwhile other threads may ask the filter, at any
    /// ``now``, but a call that changes it raises ``RuntimeError``.
    #[pyo3(signature = (items, now = None))]
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        items: &Bound<'py, PyAny>,
        now: Option<Seconds>,
    ) -> PyResult<Bound<'py, PyAny>> {
        at(now, || contains_batch!(py, &self.inner, items))
    }

    /// Applies the rotations due by ``now`` (a time-rotated filter; the command line does
    /// this before it writes the file).
    #[pyo3(signature = (now = None))]
    fn expire(&mut self, now: Option<Seconds>) {
        at(now, || self.inner.expire());
    }

    /// Clears the oldest generation and makes it the current one.
    fn rotate(&mut self) {
        self.inner.rotate();
    }

    /// Shape, generations and false-positive rate as of ``now``: the keys of
    /// ``amq info --json``.
    #[pyo3(signature = (now = None))]
    fn info<'py>(&self, py: Python<'py>, now: Option<Seconds>) -> PyResult<Bound<'py, PyAny>> {
        at(now, || to_object(py, &self.inner.info()))
    }

    /// The false-positive rate the filter promises over all its generations:
    /// ``1 - (1 - e)**g``, e the rate of one generation of ``c`` items. A count-rotated
    /// filter takes c = its items per generation; a time-rotated one, whose bytes do not keep
    /// the count it was planned for, the most items any generation holds now (0.0 while
    /// empty): ``fpr_bound_at(items_per_generation)`` gives the planned bound.
    fn fpr_bound(&self) -> f64 {
        self.inner.fpr_bound()
    }

    /// The bound of ``fpr_bound`` for generations of at most ``items`` items each: what a
    /// time-rotated filter promises while no interval takes more than ``items``.
    fn fpr_bound_at(&self, items: u64) -> f64 {
        self.inner.fpr_bound_at(items)
    }

    /// g, the generations.
    #[getter]
    fn generations(&self) -> u32 {
        self.inner.generations()
    }

    /// m of one generation, in bits.
    #[getter]
    fn m_bits_per_generation(&self) -> u64 {
        self.inner.m()
    }

    /// k, the bits set per item.
    #[getter]
    fn k(&self) -> u32 {
        self.inner.k()
    }

    fn __repr__(&self) -> String {
        let rotation = match self.inner.rotation() {
            Rotation::Count(c) => format!("every {c} insertions"),
            Rotation::Time(d) => format!("every {d} s"),
        };
        format!(
            "<amq.AgingBloom generations={} m_bits_per_generation={} k={} rotation='{rotation}' seed={} inserted={}>",
            self.inner.generations(),
            self.inner.m(),
            self.inner.k(),
            self.inner.seed(),
            self.inner.inserted()
        )
    }
});
