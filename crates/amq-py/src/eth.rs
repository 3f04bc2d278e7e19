//! `amq.eth`: Ethereum's logsBloom (Yellow Paper §4.3.1), as `amq eth` uses it.

use crate::convert::from_object;
use crate::errors::{value_error, IntoPy};
use crate::items::{for_each_chunk, with_bytes};
use amq::formats::eth::{self, hex_array, Entries, LogsBloom};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

/// A fixed-size value (an address, a topic, a hash): `bytes` of exactly N bytes, or hex text
/// (an optional `0x`).
pub fn fixed<const N: usize>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<[u8; N]> {
    if let Ok(s) = obj.cast::<PyString>() {
        return hex_array::<N>(s.to_cow()?.trim()).map_err(|e| value_error(format!("{what}: {e}")));
    }
    with_bytes(obj, what, |b| {
        <[u8; N]>::try_from(b)
            .map_err(|_| value_error(format!("{what} must be {N} bytes, got {}", b.len())))
    })?
}

/// The topics of a log: an iterable of 32-byte values.
fn topics(obj: &Bound<'_, PyAny>) -> PyResult<Vec<[u8; 32]>> {
    crate::items::map_each(obj, |t| fixed::<32>(t, "a topic"))
}

/// A 2048-bit Ethereum logsBloom (256 bytes), as in block headers and receipts: each input
/// (a log's 20-byte address, each 32-byte topic) sets 3 bits chosen by its Keccak-256 hash.
///
/// ``LogsBloom()`` is empty; ``LogsBloom(data)`` reads 256 bytes; ``LogsBloom.from_hex(s)``
/// reads ``0x`` and 512 hex digits, as JSON-RPC writes it. ``a | b`` is the union (a block's
/// bloom is the OR of its receipts' blooms). Inputs are ``bytes``; addresses, topics and
/// hashes may also be hex text.
#[pyclass(module = "amq.eth", name = "LogsBloom", eq, skip_from_py_object)]
#[derive(Clone, PartialEq)]
pub struct PyLogsBloom {
    pub inner: LogsBloom,
}

#[pymethods]
impl PyLogsBloom {
    #[new]
    #[pyo3(signature = (data = None))]
    fn new(data: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let inner = match data {
            None => LogsBloom::new(),
            Some(d) => with_bytes(d, "a logsBloom", LogsBloom::from_slice)?.py()?,
        };
        Ok(PyLogsBloom { inner })
    }

    /// Reads ``0x`` and 512 hex digits (either case; the ``0x`` is optional).
    #[staticmethod]
    fn from_hex(text: &str) -> PyResult<Self> {
        Ok(PyLogsBloom {
            inner: LogsBloom::from_hex(text.trim()).py()?,
        })
    }

    /// ``0x`` and 512 lower-case hex digits, as JSON-RPC writes a logsBloom.
    fn hex(&self) -> String {
        self.inner.to_hex()
    }

    /// The 256 bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.as_bytes())
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    /// Adds an input: Keccak-256 of ``data`` (any bytes) picks its 3 bits.
    fn accrue(&mut self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        with_bytes(data, "data", |b| self.inner.accrue(b))
    }

    /// Adds an input by its Keccak-256 hash (32 bytes).
    fn accrue_hash(&mut self, hash32: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.accrue_hash(&fixed::<32>(hash32, "hash32")?);
        Ok(())
    }

    /// Adds a log: its address (20 bytes) and each topic (32 bytes); never its data.
    fn accrue_log(
        &mut self,
        address: &Bound<'_, PyAny>,
        topics: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let a = fixed::<20>(address, "the address")?;
        self.inner.accrue_log(&a, &self::topics(topics)?);
        Ok(())
    }

    /// Adds every input of another bloom (OR), in place.
    fn accrue_bloom(&mut self, other: &Self) {
        self.inner.accrue_bloom(&other.inner);
    }

    /// True if ``data`` may have been added, False if it definitely was not.
    fn contains(&self, data: &Bound<'_, PyAny>) -> PyResult<bool> {
        with_bytes(data, "data", |b| self.inner.contains(b))
    }

    fn __contains__(&self, data: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.contains(data)
    }

    /// ``contains`` for an input given by its Keccak-256 hash (32 bytes).
    fn contains_hash(&self, hash32: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.contains_hash(&fixed::<32>(hash32, "hash32")?))
    }

    /// True if the address and every topic may be in the bloom.
    fn contains_log(
        &self,
        address: &Bound<'_, PyAny>,
        topics: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let a = fixed::<20>(address, "the address")?;
        Ok(self.inner.contains_log(&a, &self::topics(topics)?))
    }

    /// True if every bit of ``other`` is set here.
    fn contains_bloom(&self, other: &Self) -> bool {
        self.inner.contains_bloom(&other.inner)
    }

    /// ``[bloom.contains(d) for d in items]`` (bytes items), GIL released.
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        items: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let inner = &self.inner;
        let mut out = Vec::new();
        for_each_chunk(items, Some("an input"), |chunk| {
            py.detach(|| chunk.map_into(&mut out, |b| inner.contains(b)));
            Ok(())
        })?;
        PyList::new(py, out)
    }

    /// Bit ``i`` (0..2048) of the bloom read as a 2048-bit big-endian number.
    fn bit(&self, i: usize) -> PyResult<bool> {
        if i >= eth::LOGS_BLOOM_BITS {
            return Err(value_error(format!("bit {i} out of 0..2048")));
        }
        Ok(self.inner.bit(i))
    }

    /// Bits set (of 2048).
    fn bits_set(&self) -> u32 {
        self.inner.bits_set()
    }

    /// Bits set over 2048.
    fn fill_ratio(&self) -> f64 {
        self.inner.fill_ratio()
    }

    /// The chance that an input never added is reported present: ``fill_ratio() ** 3``.
    fn estimated_fpr(&self) -> f64 {
        self.inner.estimated_fpr()
    }

    /// True if no bit is set.
    fn is_zero(&self) -> bool {
        self.inner.is_zero()
    }

    fn __or__(&self, other: &Self) -> Self {
        PyLogsBloom {
            inner: self.inner | other.inner,
        }
    }

    fn __ior__(&mut self, other: &Self) {
        self.inner |= other.inner;
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let cls = slf.get_type().into_any();
        Ok((cls, (slf.try_borrow()?.to_bytes(slf.py()),)))
    }

    fn __str__(&self) -> String {
        self.inner.to_hex()
    }

    fn __repr__(&self) -> String {
        format!("<amq.eth.LogsBloom bits_set={}>", self.inner.bits_set())
    }
}

/// Keccak-256 of ``data`` (Ethereum's hash, not FIPS SHA3-256), 32 bytes.
#[pyfunction]
fn keccak256<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    with_bytes(data, "data", |b| PyBytes::new(py, &eth::keccak256(b)))
}

/// Logs, receipts and blocks as JSON-RPC returns them: a dict or list (``json.loads`` of a
/// response, its ``result``, a receipt, a block, a list of logs) or the JSON text itself.
fn entries(obj: &Bound<'_, PyAny>) -> PyResult<Entries> {
    from_object(obj, "not logs, a receipt, a block or a JSON-RPC response")
}

/// The logsBloom computed from logs: of a receipt, a block (its receipts or logs), a list of
/// logs, or a JSON-RPC response holding any of them (blooms of several objects are OR-ed), as
/// ``amq eth bloom`` computes it. Raises ``ValueError`` for an object without logs.
#[pyfunction]
fn bloom(obj: &Bound<'_, PyAny>) -> PyResult<PyLogsBloom> {
    let mut out = LogsBloom::new();
    for (i, e) in entries(obj)?.0.iter().enumerate() {
        let computed = e.computed_bloom().ok_or_else(|| {
            value_error(format!(
                "object {} ({e}) has no logs to compute a bloom from",
                i + 1
            ))
        })?;
        out |= computed;
    }
    Ok(PyLogsBloom { inner: out })
}

/// Checks, as ``amq eth verify --json`` does, every receipt with both ``logs`` and
/// ``logsBloom`` and every block with ``logsBloom`` and ``receipts`` or ``logs``: one dict per
/// check, ``{"object", "ok", "stated", "computed", "bits_missing_from_stated",
/// "bits_extra_in_stated"}``. Raises ``ValueError`` if there is nothing to check.
#[pyfunction]
fn verify<'py>(py: Python<'py>, obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
    let checks = entries(obj)?.checks();
    if checks.is_empty() {
        return Err(value_error(eth::NOTHING_TO_VERIFY));
    }
    let out = PyList::empty(py);
    for c in checks {
        let d = PyDict::new(py);
        d.set_item("object", &c.what)?;
        d.set_item("ok", c.ok())?;
        d.set_item("stated", c.stated.to_hex())?;
        d.set_item("computed", c.computed.to_hex())?;
        d.set_item("bits_missing_from_stated", c.bits_missing_from_stated())?;
        d.set_item("bits_extra_in_stated", c.bits_extra_in_stated())?;
        out.append(d)?;
    }
    Ok(out)
}

/// The `amq.eth` module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyLogsBloom>()?;
    m.add_function(wrap_pyfunction!(keccak256, m)?)?;
    m.add_function(wrap_pyfunction!(bloom, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    Ok(())
}
