//! `amq.btc`: BIP37 `filterload` bloom filters and BIP158 block filters, as `amq btc` uses
//! them.

use crate::errors::{value_error, IntoPy};
use crate::eth::fixed;
use crate::items::{for_each_chunk, with_bytes, Batch};
use amq::formats::bip158::{self, basic_filter_elements, BlockFilter};
use amq::formats::bip37::{self, Bip37Filter};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

/// A BIP37 bloom filter as Bitcoin Core builds it (``CBloomFilter``): MurmurHash3 x86_32
/// with seeds ``i * 0xFBA4C795 + tweak``, sent to a peer as a ``filterload`` message.
///
/// ``Bip37Filter(elements, fpr, tweak, flags=0)`` sizes it as Core does (at most 36,000
/// bytes and 50 hash functions); ``Bip37Filter.from_filterload(payload)`` reads a
/// ``filterload`` payload. Elements are ``bytes`` (scripts, pubkeys, hashes, outpoints).
#[pyclass(module = "amq.btc", name = "Bip37Filter", eq, skip_from_py_object)]
#[derive(Clone, PartialEq)]
pub struct PyBip37 {
    inner: Bip37Filter,
}

#[pymethods]
impl PyBip37 {
    /// Sized for ``elements`` at false-positive rate ``fpr`` (0 < fpr <= 1; 1 makes the
    /// empty, match-all filter), ``tweak`` (``nTweak``, 32 bits) and ``flags`` (``nFlags``:
    /// 0 none, 1 all, 2 p2pubkey only).
    #[new]
    #[pyo3(signature = (elements, fpr, tweak, flags = 0))]
    fn new(elements: u32, fpr: f64, tweak: u32, flags: u8) -> PyResult<Self> {
        Ok(PyBip37 {
            inner: Bip37Filter::new(elements, fpr, tweak, flags).py()?,
        })
    }

    /// Reads a ``filterload`` payload (CompactSize length, data, nHashFuncs, nTweak,
    /// nFlags; bytes after it are ignored, as Core ignores them). Raises ``ValueError`` for
    /// anything Core would refuse; never crashes.
    #[staticmethod]
    fn from_filterload(payload: &Bound<'_, PyAny>) -> PyResult<Self> {
        let inner = with_bytes(payload, "the payload", Bip37Filter::from_filterload)?.py()?;
        Ok(PyBip37 { inner })
    }

    /// The ``filterload`` payload.
    fn to_filterload<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_filterload())
    }

    /// Pickled (and so copied by ``copy``) as its ``filterload`` payload, which holds the
    /// whole filter.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> crate::common::Reduce<'py, (Bound<'py, PyBytes>,)> {
        let from = slf.get_type().getattr("from_filterload")?;
        Ok((from, (slf.try_borrow()?.to_filterload(slf.py()),)))
    }

    /// Applies a ``filteradd`` payload (CompactSize length, data) as Core does: adds the
    /// data, at most 520 bytes (``ValueError`` for more, or for a truncated payload, with
    /// the filter unchanged). Returns True if any of its bits was zero.
    fn filteradd(&mut self, payload: &Bound<'_, PyAny>) -> PyResult<bool> {
        with_bytes(payload, "the payload", |b| self.inner.filteradd(b))?.py()
    }

    /// The ``filteradd`` payload that adds ``data`` (at most 520 bytes, else
    /// ``ValueError``).
    #[staticmethod]
    fn filteradd_payload<'py>(
        py: Python<'py>,
        data: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let payload = with_bytes(data, "the data", amq::formats::bip37::filteradd_payload)?.py()?;
        Ok(PyBytes::new(py, &payload))
    }

    /// Adds an element. Returns True if any of its bits was zero.
    fn add(&mut self, element: &Bound<'_, PyAny>) -> PyResult<bool> {
        with_bytes(element, "an element", |b| self.inner.insert_bytes(b))
    }

    /// True if the element may be in the filter, False if it definitely is not.
    fn contains(&self, element: &Bound<'_, PyAny>) -> PyResult<bool> {
        with_bytes(element, "an element", |b| self.inner.contains_bytes(b))
    }

    fn __contains__(&self, element: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.contains(element)
    }

    /// Adds every element of an iterable of ``bytes``.
    fn add_many(&mut self, py: Python<'_>, elements: &Bound<'_, PyAny>) -> PyResult<()> {
        let inner = &mut self.inner;
        for_each_chunk(elements, Some("an element"), |chunk| {
            py.detach(|| {
                let _ = chunk.try_for_each::<()>(|b| {
                    inner.insert_bytes(b);
                    Ok(())
                });
            });
            Ok(())
        })
    }

    /// ``[f.contains(e) for e in elements]``.
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        elements: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let inner = &self.inner;
        let mut out = Vec::new();
        for_each_chunk(elements, Some("an element"), |chunk| {
            py.detach(|| chunk.map_into(&mut out, |b| inner.contains_bytes(b)));
            Ok(())
        })?;
        PyList::new(py, out)
    }

    /// Clears every bit (Core's ``clear``).
    fn clear(&mut self) {
        self.inner.clear();
    }

    /// The expected false-positive rate after ``n`` elements.
    fn expected_fpr(&self, n: u64) -> f64 {
        self.inner.expected_fpr(n)
    }

    /// The bit array ``vData``.
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.data())
    }

    /// k, ``nHashFuncs``.
    #[getter]
    fn k(&self) -> u32 {
        self.inner.k()
    }

    /// ``nTweak``.
    #[getter]
    fn tweak(&self) -> u32 {
        self.inner.tweak()
    }

    /// ``nFlags``.
    #[getter]
    fn flags(&self) -> u8 {
        self.inner.flags()
    }

    /// Bytes of ``vData``.
    #[getter]
    fn size_bytes(&self) -> u64 {
        self.inner.size_bytes()
    }

    fn __repr__(&self) -> String {
        format!(
            "<amq.btc.Bip37Filter size_bytes={} k={} tweak={} flags={}>",
            self.inner.size_bytes(),
            self.inner.k(),
            self.inner.tweak(),
            self.inner.flags()
        )
    }
}

/// MurmurHash3 x86_32 of ``data`` with ``seed``, as BIP37 uses it.
#[pyfunction]
fn murmur3_x86_32(data: &Bound<'_, PyAny>, seed: u32) -> PyResult<u32> {
    with_bytes(data, "data", |b| bip37::murmur3_x86_32(b, seed))
}

/// A 32-byte hash: ``bytes`` in internal byte order, or RPC hex (display order, reversed).
fn hash32(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<[u8; 32]> {
    let mut h = fixed::<32>(obj, what)?;
    if obj.cast::<PyString>().is_ok() {
        h.reverse();
    }
    Ok(h)
}

/// A BIP158 block filter: a Golomb-coded set (P = 19, M = 784931 for the basic filter) of a
/// block's elements, keyed by the block hash, as ``getblockfilter`` returns it.
///
/// Block hashes and headers are ``bytes`` in internal byte order, or ``str`` as RPC shows
/// them (hex in display order, the reverse); results are ``bytes`` in internal order
/// (``amq.btc.display_hex`` shows them as RPC does). Elements are ``bytes`` (scripts).
#[pyclass(module = "amq.btc", name = "BlockFilter", eq, skip_from_py_object)]
#[derive(Clone, PartialEq)]
pub struct PyBlockFilter {
    inner: BlockFilter,
}

#[pymethods]
impl PyBlockFilter {
    /// Reads a filter (CompactSize N, then the GCS bytes) for the block with ``block_hash``.
    /// Raises ``ValueError`` for bytes that do not hold N elements of P + 1 bits.
    #[new]
    #[pyo3(signature = (block_hash, data, p = bip158::P, m = bip158::M))]
    fn new(
        block_hash: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        p: u8,
        m: u64,
    ) -> PyResult<Self> {
        let hash = hash32(block_hash, "the block hash")?;
        let bytes = with_bytes(data, "the filter", <[u8]>::to_vec)?;
        Ok(PyBlockFilter {
            inner: BlockFilter::from_bytes_with(&hash, p, m, bytes).py()?,
        })
    }

    /// The filter of ``elements`` (deduplicated before N is counted, as BIP158 says) for
    /// the block with ``block_hash``.
    #[staticmethod]
    #[pyo3(signature = (block_hash, elements, p = bip158::P, m = bip158::M))]
    fn build(
        block_hash: &Bound<'_, PyAny>,
        elements: &Bound<'_, PyAny>,
        p: u8,
        m: u64,
    ) -> PyResult<Self> {
        let hash = hash32(block_hash, "the block hash")?;
        let batch = Batch::read(elements, Some("an element"))?;
        let elements = batch.byte_items();
        Ok(PyBlockFilter {
            inner: BlockFilter::build_with(&hash, p, m, &elements).py()?,
        })
    }

    /// The basic filter of a raw block (serialized bytes, as ``getblock HASH 0`` gives them
    /// in hex), given the scripts its inputs spend in input order (the coinbase spends
    /// none), as ``amq btc filter`` builds it.
    #[staticmethod]
    fn from_block(block: &Bound<'_, PyAny>, spent_scripts: &Bound<'_, PyAny>) -> PyResult<Self> {
        use bitcoin::hashes::Hash as _;
        let raw = with_bytes(block, "the block", <[u8]>::to_vec)?;
        let block: bitcoin::Block = bitcoin::consensus::deserialize(&raw)
            .map_err(|e| value_error(format!("not a valid block: {e}")))?;
        let spent = Batch::read(spent_scripts, Some("a spent script"))?;
        let spent = spent.byte_items();
        let inputs: usize = block
            .txdata
            .iter()
            .filter(|tx| !tx.is_coinbase())
            .map(|tx| tx.input.len())
            .sum();
        if spent.len() != inputs {
            return Err(value_error(format!(
                "the block's transactions have {inputs} inputs besides the coinbase, but {} spent scripts were given",
                spent.len()
            )));
        }
        let outputs = block
            .txdata
            .iter()
            .flat_map(|tx| tx.output.iter().map(|o| o.script_pubkey.as_bytes()));
        let elements = basic_filter_elements(outputs, spent.iter().copied());
        let hash = block.block_hash().to_byte_array();
        Ok(PyBlockFilter {
            inner: BlockFilter::build(&hash, &elements).py()?,
        })
    }

    /// The filter's bytes: CompactSize N, then the GCS.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.as_bytes())
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    /// Pickled (and so copied by ``copy``) as ``BlockFilter(block_hash, data, p, m)``.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> crate::common::Reduce<'py, (Bound<'py, PyBytes>, Bound<'py, PyBytes>, u8, u64)> {
        let py = slf.py();
        let f = slf.try_borrow()?;
        let gcs = f.inner.gcs();
        let args = (f.block_hash(py), f.to_bytes(py), gcs.p(), gcs.m());
        Ok((slf.get_type().into_any(), args))
    }

    /// True if the element may be in the block, False if it definitely is not.
    #[pyo3(name = "match")]
    fn match_one(&self, element: &Bound<'_, PyAny>) -> PyResult<bool> {
        with_bytes(element, "an element", |b| self.inner.match_any([b]))?.py()
    }

    fn __contains__(&self, element: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.match_one(element)
    }

    /// For each element, in order, whether it may be in the block (one pass over the set).
    fn match_many<'py>(
        &self,
        py: Python<'py>,
        elements: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let batch = Batch::read(elements, Some("an element"))?;
        let elements = batch.byte_items();
        let inner = &self.inner;
        let out = py.detach(|| inner.match_many(&elements)).py()?;
        PyList::new(py, out)
    }

    /// True if any element may be in the block (a wallet's question).
    fn match_any(&self, py: Python<'_>, elements: &Bound<'_, PyAny>) -> PyResult<bool> {
        let batch = Batch::read(elements, Some("an element"))?;
        let elements = batch.byte_items();
        let inner = &self.inner;
        py.detach(|| inner.match_any(&elements)).py()
    }

    /// N, the elements in the filter.
    #[getter]
    fn n(&self) -> u64 {
        self.inner.n()
    }

    /// The block hash (internal byte order).
    #[getter]
    fn block_hash<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.block_hash())
    }

    /// The filter hash: double SHA-256 of the filter's bytes (internal byte order).
    fn filter_hash<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.filter_hash())
    }

    /// The BIP157 filter header given the previous block's (default: all zero, for the
    /// genesis block), internal byte order.
    #[pyo3(signature = (prev_header = None))]
    fn header<'py>(
        &self,
        py: Python<'py>,
        prev_header: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let prev = match prev_header {
            Some(h) => hash32(h, "the previous header")?,
            None => [0u8; 32],
        };
        Ok(PyBytes::new(py, &self.inner.header(&prev)))
    }

    fn __repr__(&self) -> String {
        let mut h = *self.inner.block_hash();
        h.reverse();
        format!(
            "<amq.btc.BlockFilter n={} block_hash={}>",
            self.inner.n(),
            hex::encode(h)
        )
    }
}

/// A 32-byte hash in internal byte order as RPC shows it: hex of the bytes reversed.
#[pyfunction]
fn display_hex(hash: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut h = fixed::<32>(hash, "the hash")?;
    h.reverse();
    Ok(hex::encode(h))
}

/// The elements of a basic filter: output scripts that are not empty and not ``OP_RETURN``,
/// then the non-empty scripts the inputs spend.
#[pyfunction]
fn basic_elements<'py>(
    py: Python<'py>,
    output_scripts: &Bound<'py, PyAny>,
    spent_scripts: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let outs = Batch::read(output_scripts, Some("an output script"))?;
    let spent = Batch::read(spent_scripts, Some("a spent script"))?;
    let elements = basic_filter_elements(outs.byte_items(), spent.byte_items());
    PyList::new(py, elements.into_iter().map(|e| PyBytes::new(py, e)))
}

/// The `amq.btc` module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyBip37>()?;
    m.add_class::<PyBlockFilter>()?;
    m.add_function(wrap_pyfunction!(murmur3_x86_32, m)?)?;
    m.add_function(wrap_pyfunction!(display_hex, m)?)?;
    m.add_function(wrap_pyfunction!(basic_elements, m)?)?;
    Ok(())
}
