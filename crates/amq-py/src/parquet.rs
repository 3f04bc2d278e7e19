//! `amq.parquet`: Apache Parquet's split block Bloom filter, read and written as the bitset a
//! Parquet file stores after a column chunk's `BloomFilterHeader`.

use crate::errors::IntoPy;
use crate::items::with_bytes;
use amq::formats::parquet::{self, ParquetBloomFilter};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// Calls `f` with a `BYTE_ARRAY` value's bytes: a byte string (`bytes`, `bytearray`,
/// `memoryview`), or a `str` as UTF-8 (how Parquet stores strings).
fn with_value<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if let Some(b) = crate::items::byte_string(obj)? {
        return Ok(f(b.as_bytes()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(f(s.to_cow()?.as_bytes()));
    }
    Err(PyTypeError::new_err(
        "a BYTE_ARRAY value must be bytes, bytearray, memoryview or str",
    ))
}

/// The hashes of an iterable, each by `hash`.
fn hashes(
    values: &Bound<'_, PyAny>,
    hash: impl Fn(&Bound<'_, PyAny>) -> PyResult<u64>,
) -> PyResult<Vec<u64>> {
    crate::items::map_each(values, hash)
}

fn hash_of_int64(v: &Bound<'_, PyAny>) -> PyResult<u64> {
    Ok(parquet::hash_i64(v.extract()?))
}

fn hash_of_bytes(v: &Bound<'_, PyAny>) -> PyResult<u64> {
    with_value(v, parquet::hash_byte_array)
}

/// A Parquet split block Bloom filter: ``num_bytes / 32`` blocks of eight 32-bit words, the
/// layout and hashing of the Parquet format's BloomFilter.md.
///
/// ``ParquetBloomFilter(num_bytes)`` is empty, exactly ``num_bytes`` bytes (a positive
/// multiple of 32); ``ParquetBloomFilter.with_ndv_fpp(ndv, fpp)`` is sized as Parquet writers
/// size it; ``ParquetBloomFilter.from_bitset(data)`` reads the bytes that follow a column
/// chunk's ``BloomFilterHeader`` and ``bitset()`` gives them back. Values: ``*_int64`` for
/// ``INT64`` columns, ``*_bytes`` for ``BYTE_ARRAY`` (``str`` as UTF-8) and
/// ``FIXED_LEN_BYTE_ARRAY`` columns; any other type through ``hash_*`` and ``*_hash``.
#[pyclass(
    module = "amq.parquet",
    name = "ParquetBloomFilter",
    eq,
    skip_from_py_object
)]
#[derive(Clone, PartialEq)]
pub struct PyParquetBloom {
    inner: ParquetBloomFilter,
}

#[pymethods]
impl PyParquetBloom {
    #[new]
    fn new(num_bytes: usize) -> PyResult<Self> {
        Ok(PyParquetBloom {
            inner: ParquetBloomFilter::with_num_bytes(num_bytes).py()?,
        })
    }

    /// An empty filter sized as Parquet writers size it: ``-8 * ndv / ln(1 - fpp ** (1/8))``
    /// bits, clamped to 32 bytes .. 128 MiB and rounded up to a power of two.
    #[staticmethod]
    fn with_ndv_fpp(ndv: u64, fpp: f64) -> PyResult<Self> {
        Ok(PyParquetBloom {
            inner: ParquetBloomFilter::with_ndv_fpp(ndv, fpp).py()?,
        })
    }

    /// Reads a bitset as a Parquet file stores it (``numBytes`` bytes after the header).
    /// Raises ``ValueError`` unless its length is a positive multiple of 32.
    #[staticmethod]
    fn from_bitset(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let inner = with_bytes(data, "a bitset", ParquetBloomFilter::from_bitset)?.py()?;
        Ok(PyParquetBloom { inner })
    }

    /// The bitset as a Parquet file stores it: blocks of eight little-endian 32-bit words.
    fn bitset<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bitset())
    }

    /// The bitset's size in bytes (``numBytes`` in the header).
    fn size_bytes(&self) -> u64 {
        self.inner.size_bytes()
    }

    /// The number of 256-bit blocks.
    fn blocks(&self) -> u64 {
        self.inner.blocks()
    }

    /// The number of bits set.
    fn bits_set(&self) -> u64 {
        self.inner.bits_set()
    }

    /// The false-positive rate now, from the bits set in each block.
    fn estimated_fpr(&self) -> f64 {
        self.inner.estimated_fpr()
    }

    /// The model's false-positive rate after ``n`` distinct values.
    fn expected_fpr(&self, n: u64) -> f64 {
        self.inner.expected_fpr(n)
    }

    /// Adds a 64-bit hash (``hash_int64(v)``, ...); True if it was certainly not there.
    fn insert_hash(&mut self, h: u64) -> bool {
        self.inner.insert_hash(h)
    }

    /// True if a 64-bit hash may be present, False if it is definitely absent.
    fn contains_hash(&self, h: u64) -> bool {
        self.inner.contains_hash(h)
    }

    /// ``contains_hash`` for each hash of an iterable, with the GIL released.
    fn contains_hashes(&self, py: Python<'_>, hashes: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
        let hs = self::hashes(hashes, |v| v.extract::<u64>())?;
        Ok(self.batch(py, &hs))
    }

    /// Adds an ``INT64`` value.
    fn insert_int64(&mut self, value: i64) -> bool {
        self.inner.insert_hash(parquet::hash_i64(value))
    }

    /// True if an ``INT64`` value may be present.
    fn contains_int64(&self, value: i64) -> bool {
        self.inner.contains_hash(parquet::hash_i64(value))
    }

    /// ``contains_int64`` for each value of an iterable, with the GIL released.
    fn contains_int64_many(
        &self,
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<bool>> {
        Ok(self.batch(py, &hashes(values, hash_of_int64)?))
    }

    /// Adds a ``BYTE_ARRAY`` or ``FIXED_LEN_BYTE_ARRAY`` value (``bytes``, or ``str`` as
    /// UTF-8).
    fn insert_bytes(&mut self, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.insert_hash(hash_of_bytes(value)?))
    }

    /// True if a ``BYTE_ARRAY`` or ``FIXED_LEN_BYTE_ARRAY`` value may be present.
    fn contains_bytes(&self, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.contains_hash(hash_of_bytes(value)?))
    }

    /// ``contains_bytes`` for each value of an iterable, with the GIL released.
    fn contains_bytes_many(
        &self,
        py: Python<'_>,
        values: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<bool>> {
        Ok(self.batch(py, &hashes(values, hash_of_bytes)?))
    }

    /// Adds every value of ``other`` (the same number of blocks), in place.
    fn union(&mut self, other: &Self) -> PyResult<()> {
        self.inner.union(&other.inner).py()
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    /// Pickled as ``ParquetBloomFilter.from_bitset(bitset)``.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> crate::common::Reduce<'py, (Bound<'py, PyBytes>,)> {
        let from = slf.get_type().getattr("from_bitset")?;
        Ok((from, (slf.try_borrow()?.bitset(slf.py()),)))
    }

    fn __repr__(&self) -> String {
        format!(
            "ParquetBloomFilter(num_bytes={}, bits_set={})",
            self.inner.size_bytes(),
            self.inner.bits_set()
        )
    }
}

impl PyParquetBloom {
    fn batch(&self, py: Python<'_>, hashes: &[u64]) -> Vec<bool> {
        let mut out = vec![false; hashes.len()];
        py.detach(|| self.inner.contains_hash_batch(hashes, &mut out));
        out
    }
}

/// XXH64 (seed 0) of an ``INT32`` value's plain encoding (4 little-endian bytes).
#[pyfunction]
fn hash_int32(value: i32) -> u64 {
    parquet::hash_i32(value)
}

/// XXH64 (seed 0) of an ``INT64`` value's plain encoding (8 little-endian bytes).
#[pyfunction]
fn hash_int64(value: i64) -> u64 {
    parquet::hash_i64(value)
}

/// XXH64 (seed 0) of a ``FLOAT`` value's plain encoding (IEEE 754 single, little-endian).
/// The value is rounded to the nearest single, as a ``FLOAT`` column stores it; a finite
/// value beyond the single's range (about ±3.4e38), which would round to infinity, is a
/// ``ValueError``.
#[pyfunction]
fn hash_float(value: f64) -> PyResult<u64> {
    let single = value as f32;
    if single.is_infinite() && value.is_finite() {
        return Err(PyValueError::new_err(format!(
            "{value:e} is beyond a FLOAT's range (largest {:e}): a FLOAT column cannot hold it",
            f32::MAX
        )));
    }
    Ok(parquet::hash_f32(single))
}

/// XXH64 (seed 0) of a ``DOUBLE`` value's plain encoding (IEEE 754 double, little-endian).
#[pyfunction]
fn hash_double(value: f64) -> u64 {
    parquet::hash_f64(value)
}

/// XXH64 (seed 0) of a ``BYTE_ARRAY`` or ``FIXED_LEN_BYTE_ARRAY`` value: its bytes, without
/// the length prefix (``str`` as UTF-8).
#[pyfunction]
fn hash_bytes(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    hash_of_bytes(value)
}

/// The bitset size in bytes Parquet writers pick for ``ndv`` distinct values at ``fpp``.
#[pyfunction]
fn writer_num_bytes(ndv: u64, fpp: f64) -> PyResult<usize> {
    parquet::writer_num_bytes(ndv, fpp).py()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyParquetBloom>()?;
    m.add_function(wrap_pyfunction!(hash_int32, m)?)?;
    m.add_function(wrap_pyfunction!(hash_int64, m)?)?;
    m.add_function(wrap_pyfunction!(hash_float, m)?)?;
    m.add_function(wrap_pyfunction!(hash_double, m)?)?;
    m.add_function(wrap_pyfunction!(hash_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(writer_num_bytes, m)?)?;
    Ok(())
}
