//! `amq.cashu` (continued): the Cashu compact state filters of cashubtc/nuts PR #433, as
//! `amq cashu element|block` uses them: the element `E` of a state change, and revision B's
//! Bloom blocks.

use crate::errors::IntoPy;
use crate::eth::fixed;
use crate::items::for_each_chunk;
use amq::formats::cashu_state::{self as state, Block, Element, Kind, Words};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

/// `E` of a state change: SHA-256 of the domain separator, the kind, the id and the state
/// (each after its length), 32 bytes.
///
/// ``kind`` is ``"proof_state"``, ``"mint_quote"``, ``"melt_quote"`` or
/// ``"blind_signature"``; ``id`` the 33-byte point (``Y`` or ``B_``, ``bytes``: a ``str``
/// raises ``TypeError``, with a hint to ``bytes.fromhex``) or the quote ID (``str``, hashed
/// verbatim, or its UTF-8 ``bytes``); ``state`` ``"UNSPENT"``, ``"PENDING"`` or ``"SPENT"``
/// (proof_state), ``"UNPAID"``, ``"PENDING"`` or ``"PAID"`` (melt_quote), and ``""`` for the
/// others. Raises ``ValueError`` for anything else.
#[pyfunction]
#[pyo3(signature = (kind, id, state = ""))]
fn element<'py>(
    py: Python<'py>,
    kind: &str,
    id: &Bound<'py, PyAny>,
    state: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let kind = Kind::parse(kind).py()?;
    let point = matches!(kind, Kind::ProofState | Kind::BlindSignature);
    let id = if point {
        // a point as text is hex by mistake: with_bytes says so
        crate::items::with_bytes(id, "the id of a point (Y or B_)", <[u8]>::to_vec)?
    } else {
        quote_id(id)?
    };
    let e = Element::parse(kind, &id, state).py()?;
    Ok(PyBytes::new(py, &e.hash()))
}

/// Checks that a quote ID is one a mint may publish filters of: a UUIDv7 in its 36-character
/// text form (``str`` or its UTF-8 ``bytes``). The spec forbids a mint to publish a quote
/// kind's filters when its quote IDs are generated any other way; ``amq serve`` refuses such
/// IDs the same way. Raises ``ValueError`` saying what is wrong; returns None.
///
/// >>> amq.cashu.check_quote_id("019e6d5a-2347-7000-8afa-051ae571f334")
/// >>> amq.cashu.check_quote_id("550e8400-e29b-41d4-a716-446655440000")
/// Traceback (most recent call last):
/// ValueError: invalid id: "550e8400-e29b-41d4-a716-446655440000" is a UUID of version 4 ...
#[pyfunction]
fn check_quote_id(id: &Bound<'_, PyAny>) -> PyResult<()> {
    state::check_quote_id(&quote_id(id)?).py()
}

/// A quote ID's bytes: a `str` as UTF-8 (hashed verbatim), or its bytes.
fn quote_id(id: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    match id.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.as_bytes().to_vec()),
        _ => crate::items::with_bytes(id, "a quote ID", <[u8]>::to_vec),
    }
}

/// A revision-B block's capacity: the insertions at which a block of 2**b bits is sealed
/// (its expected fill is one half there, a test's false-positive rate 2**-16).
#[pyfunction]
fn capacity(b: u8) -> PyResult<u64> {
    state::capacity(b).py()
}

/// The smallest b whose capacity holds ``count`` insertions (None above b = 26).
#[pyfunction]
fn smallest_b(count: u64) -> Option<u8> {
    state::smallest_b(count)
}

/// An element `E`: 32 bytes, or 64 hex digits.
fn element_hash(obj: &Bound<'_, PyAny>) -> PyResult<[u8; 32]> {
    fixed::<32>(obj, "an element E")
}

/// A revision-B Bloom block of the compact state filters: 2**b bits (b from 5 to 26), 16
/// positions per element taken from the words of ``SHA256(E || i)``, served as its 2**b / 8
/// bytes and nothing else.
///
/// A mint inserts the ``E`` of every state change (``amq.cashu.element``); a wallet tests
/// its candidates: False is "definitely not", True "maybe" (wrong with probability
/// ``fill ** 16``), to be confirmed through NUT-07. A block folds to any smaller b.
/// Elements are 32-byte ``bytes`` (or 64 hex digits).
#[pyclass(module = "amq.cashu", name = "StateBlock", eq, skip_from_py_object)]
#[derive(Clone, PartialEq)]
pub struct PyStateBlock {
    inner: Block,
}

#[pymethods]
impl PyStateBlock {
    /// An empty block of 2**b bits (b from 5 to 26, else ``ValueError``).
    #[new]
    fn new(b: u8) -> PyResult<Self> {
        Ok(PyStateBlock {
            inner: Block::new(b).py()?,
        })
    }

    /// A block as served: 2**b / 8 bytes (4 bytes to 8 MiB), b read from the length. Raises
    /// ``ValueError`` for any other length; every bit pattern is a valid block.
    #[staticmethod]
    fn from_bytes(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let bytes = crate::items::with_bytes(data, "a block", <[u8]>::to_vec)?;
        Ok(PyStateBlock {
            inner: Block::from_bytes(bytes).py()?,
        })
    }

    /// The block of ``elements`` (every one is an insertion, repeats included) at width b,
    /// folded to the smallest b that holds them with ``fold=True`` (as a mint folds a block
    /// sealed on timeout), as ``amq cashu block build [--fold]`` builds it.
    #[staticmethod]
    #[pyo3(signature = (elements, b, fold = false))]
    fn build(py: Python<'_>, elements: &Bound<'_, PyAny>, b: u8, fold: bool) -> PyResult<Self> {
        let mut block = PyStateBlock::new(b)?;
        let count = block.insert_many(py, elements)?;
        if fold {
            let to = state::smallest_b(count).map_or(b, |s| s.min(b));
            block.inner = block.inner.fold(to).py()?;
        }
        Ok(block)
    }

    /// Inserts an element ``E``.
    fn insert(&mut self, e: &Bound<'_, PyAny>) -> PyResult<()> {
        self.inner.insert(&Words::from_element(&element_hash(e)?));
        Ok(())
    }

    /// Inserts every element of an iterable (GIL released); returns how many.
    fn insert_many(&mut self, py: Python<'_>, elements: &Bound<'_, PyAny>) -> PyResult<u64> {
        let inner = &mut self.inner;
        let mut count = 0u64;
        for_each_chunk(elements, Some("an element E"), |chunk| {
            let mut bad = None;
            py.detach(|| {
                let _ = chunk.try_for_each(|b| {
                    let e: &[u8; 32] = b.try_into().map_err(|_| bad = Some(b.len()))?;
                    inner.insert(&Words::from_element(e));
                    count += 1;
                    Ok::<(), ()>(())
                });
            });
            match bad {
                Some(len) => Err(crate::errors::value_error(format!(
                    "item {count} of the batch: an element E must be 32 bytes, got {len} \
                     (the {count} before it were inserted)"
                ))),
                None => Ok(()),
            }
        })?;
        Ok(count)
    }

    /// True if the element may have been inserted ("maybe"), False if it definitely was not.
    fn contains(&self, e: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.inner.contains_element(&element_hash(e)?))
    }

    fn __contains__(&self, e: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.contains(e)
    }

    /// ``[e in block for e in elements]`` (GIL released).
    fn contains_many<'py>(
        &self,
        py: Python<'py>,
        elements: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let hashes = crate::items::map_each(elements, element_hash)?;
        let inner = &self.inner;
        let out: Vec<bool> =
            py.detach(|| hashes.iter().map(|e| inner.contains_element(e)).collect());
        PyList::new(py, out)
    }

    /// The block folded to width ``to`` (<= b): bit p of the result is the OR of the bits it
    /// covers, so every element that matched still matches.
    fn fold(&self, to: u8) -> PyResult<Self> {
        Ok(PyStateBlock {
            inner: self.inner.fold(to).py()?,
        })
    }

    /// The bytes as served (2**b / 8).
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.as_bytes())
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    /// The bytes as hex.
    fn hex(&self) -> String {
        hex::encode(self.inner.as_bytes())
    }

    /// b: the block has 2**b bits.
    #[getter]
    fn b(&self) -> u8 {
        self.inner.b()
    }

    /// Bits set.
    fn popcount(&self) -> u64 {
        self.inner.popcount()
    }

    /// f, the fraction of bits set.
    fn fill(&self) -> f64 {
        self.inner.fill()
    }

    /// The false-positive rate of a test now: ``fill ** 16``.
    fn fpr(&self) -> f64 {
        self.inner.fpr()
    }

    /// The insertions estimated from the fill (None for a full block).
    fn count_estimate(&self) -> Option<f64> {
        self.inner.count_estimate()
    }

    /// The fields of ``amq cashu block info --json``: ``b``, ``bits``, ``bytes``,
    /// ``capacity``, ``popcount``, ``fill``, ``fpr``, ``count_estimate``.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("b", self.inner.b())?;
        d.set_item("bits", self.inner.bit_len())?;
        d.set_item("bytes", self.inner.as_bytes().len())?;
        d.set_item("capacity", state::capacity(self.inner.b()).py()?)?;
        d.set_item("popcount", self.inner.popcount())?;
        d.set_item("fill", self.inner.fill())?;
        d.set_item("fpr", self.inner.fpr())?;
        d.set_item("count_estimate", self.inner.count_estimate())?;
        Ok(d)
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
        let from = slf.get_type().getattr("from_bytes")?;
        Ok((from, (slf.try_borrow()?.to_bytes(slf.py()),)))
    }

    fn __repr__(&self) -> String {
        format!(
            "<amq.cashu.StateBlock b={} popcount={}>",
            self.inner.b(),
            self.inner.popcount()
        )
    }
}

/// Adds the state filters to the `amq.cashu` module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyStateBlock>()?;
    m.add_function(wrap_pyfunction!(element, m)?)?;
    m.add_function(wrap_pyfunction!(check_quote_id, m)?)?;
    m.add_function(wrap_pyfunction!(capacity, m)?)?;
    m.add_function(wrap_pyfunction!(smallest_b, m)?)?;
    Ok(())
}
