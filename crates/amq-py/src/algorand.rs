//! `amq.algorand`: the unit-name registry contract's Bloom filter (its box bytes) off-chain,
//! as `amq algorand` uses it.

use crate::errors::IntoPy;
use amq::formats::algorand::{
    self, AlgorandBloom, AvmHash, UnitNameRegistry, BOX_NAME, DEFAULT_BOX_BYTES, DEFAULT_K,
};
use base64::Engine as _;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};

pyo3::create_exception!(
    amq.algorand,
    BuyError,
    PyValueError,
    "``buy_nft`` failed as the contract (or the AVM) fails it; the message is the contract's \
     (\"Maximum supply reached\", \"Application not bootstrapped\", \"Unit name already \
     taken\", \"value is too long\"). A failed call changes nothing."
);

/// A unit name's bytes: `str` as UTF-8, or `bytes`.
fn with_name<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(f(s.to_cow()?.as_bytes()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(f(b.as_bytes()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(f(&b.to_vec()));
    }
    Err(PyTypeError::new_err(
        "a unit name must be str (UTF-8) or bytes",
    ))
}

/// The registry's Bloom filter: the box's bytes, bit i of the box set for each index.
///
/// ``AlgorandBloom(box_bytes=4096, k=2)`` is an empty box (the seed contract's: 4,096 bytes,
/// k = 2 with ``sha512_256`` and ``sha3_256``; k up to 4 adds ``sha256`` and ``keccak256``);
/// ``AlgorandBloom.from_box(data, k=2)`` reads a box's bytes (algod's box value,
/// base64-decoded). ``name in box`` is True if the contract would refuse the name as taken.
#[pyclass(
    module = "amq.algorand",
    name = "AlgorandBloom",
    eq,
    skip_from_py_object
)]
#[derive(Clone, PartialEq)]
pub struct PyAlgorandBloom {
    inner: AlgorandBloom,
}

#[pymethods]
impl PyAlgorandBloom {
    #[new]
    #[pyo3(signature = (box_bytes = DEFAULT_BOX_BYTES, k = DEFAULT_K))]
    fn new(box_bytes: usize, k: u8) -> PyResult<Self> {
        Ok(PyAlgorandBloom {
            inner: AlgorandBloom::with_size(box_bytes, k).py()?,
        })
    }

    /// Reads the box's bytes (1 to 32,768), with k hashes.
    #[staticmethod]
    #[pyo3(signature = (data, k = DEFAULT_K))]
    fn from_box(data: &[u8], k: u8) -> PyResult<Self> {
        Ok(PyAlgorandBloom {
            inner: AlgorandBloom::from_box(data, k).py()?,
        })
    }

    /// The bit indices of a name (h1, h2, ...), as the contract's ``to_index`` computes them.
    fn indices(&self, name: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        with_name(name, |n| self.inner.indices(n))
    }

    /// True if every bit of the name is set: the contract would refuse it as taken.
    fn contains(&self, name: &Bound<'_, PyAny>) -> PyResult<bool> {
        with_name(name, |n| self.inner.contains_name(n))
    }

    fn __contains__(&self, name: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.contains(name)
    }

    /// Sets the name's bits, as a successful ``buy_nft`` does; True if any was zero.
    fn add(&mut self, name: &Bound<'_, PyAny>) -> PyResult<bool> {
        with_name(name, |n| self.inner.insert_name(n))
    }

    /// The box's bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.as_bytes())
    }

    /// Pickled (and so copied by ``copy``) as ``AlgorandBloom.from_box(bytes, k)``.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> crate::common::Reduce<'py, (Bound<'py, PyBytes>, u8)> {
        let from = slf.get_type().getattr("from_box")?;
        let f = slf.try_borrow()?;
        Ok((from, (f.to_bytes(slf.py()), f.k())))
    }

    fn __bytes__<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.to_bytes(py)
    }

    /// m = 8 × the box's bytes.
    #[getter]
    fn m_bits(&self) -> u64 {
        self.inner.m()
    }

    /// k, the hashes.
    #[getter]
    fn k(&self) -> u8 {
        self.inner.k()
    }

    /// The hashes' AVM opcodes, in order.
    #[getter]
    fn hashes(&self) -> Vec<&'static str> {
        self.inner.hashes().iter().map(|h| h.opcode()).collect()
    }

    /// Bits set.
    fn bits_set(&self) -> u64 {
        self.inner.bits_set()
    }

    /// The expected false-positive rate after ``n`` names.
    fn expected_fpr(&self, n: u64) -> f64 {
        self.inner.expected_fpr(n)
    }

    fn __repr__(&self) -> String {
        format!(
            "<amq.algorand.AlgorandBloom box_bytes={} k={} bits_set={}>",
            self.inner.as_bytes().len(),
            self.inner.k(),
            self.inner.bits_set()
        )
    }
}

/// The bit indices of a name (h1, h2, ...) for a box of ``box_bytes`` bytes and k hashes.
#[pyfunction]
#[pyo3(signature = (name, box_bytes = DEFAULT_BOX_BYTES, k = DEFAULT_K))]
fn indices(name: &Bound<'_, PyAny>, box_bytes: usize, k: u8) -> PyResult<Vec<u64>> {
    let bloom = AlgorandBloom::with_size(box_bytes, k).py()?;
    with_name(name, |n| bloom.indices(n))
}

/// For each name, True if it is available (the contract would mint it), False if it is
/// taken (its bits are all set in ``box``, the box's bytes), as ``amq algorand check``.
#[pyfunction]
#[pyo3(signature = (box_bytes, names, k = DEFAULT_K))]
fn check(box_bytes: &[u8], names: &Bound<'_, PyAny>, k: u8) -> PyResult<Vec<bool>> {
    let bloom = AlgorandBloom::from_box(box_bytes, k).py()?;
    crate::items::map_each(names, |name| with_name(name, |n| !bloom.contains_name(n)))
}

/// The smallest box (and k) for ``supply`` names at false-positive rate ``fpr``, with its
/// minimum balance: a dict with the keys of ``amq algorand plan --json``.
#[pyfunction]
#[pyo3(signature = (supply, fpr, box_name_len = BOX_NAME.len()))]
fn plan<'py>(
    py: Python<'py>,
    supply: u64,
    fpr: f64,
    box_name_len: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let p = algorand::plan(supply, fpr, box_name_len).py()?;
    let d = PyDict::new(py);
    d.set_item("supply", p.supply)?;
    d.set_item("target_fpr", p.target_fpr)?;
    d.set_item("box_bytes", p.box_bytes)?;
    d.set_item("m_bits", p.m_bits)?;
    d.set_item("k", p.k)?;
    d.set_item(
        "hashes",
        p.hashes.iter().map(|h| h.opcode()).collect::<Vec<_>>(),
    )?;
    d.set_item("fpr", p.fpr)?;
    d.set_item("fpr_classic", p.fpr_classic)?;
    d.set_item("expected_refusals_to_mint", p.expected_refusals_to_mint)?;
    d.set_item("min_balance_microalgos", p.min_balance_microalgos)?;
    d.set_item("fits_on_stack", p.fits_on_stack)?;
    d.set_item("box_references", p.box_references)?;
    d.set_item(
        "app_calls_for_box_references",
        p.app_calls_for_box_references,
    )?;
    Ok(d)
}

/// The arguments of ``UnitNameRegistry.from_state``: max_supply, minted, the box's bytes if it
/// exists, box_bytes, k.
type RegistryState<'py> = (u64, u64, Option<Bound<'py, PyBytes>>, usize, u8);

/// The unit-name registry contract (``BloomFilter`` of the seed document), replayed
/// off-chain: ``max_supply``, ``minted`` and the ``bloom`` box once ``create_bloom_filter``
/// made it. ``buy_nft`` checks, in the contract's order, the supply, the box, the name taken,
/// then mints (names over 8 bytes fail as the AVM fails them) and sets the name's bits.
#[pyclass(
    module = "amq.algorand",
    name = "UnitNameRegistry",
    skip_from_py_object
)]
#[derive(Clone)]
pub struct PyRegistry {
    inner: UnitNameRegistry,
}

#[pymethods]
impl PyRegistry {
    /// The contract after ``new(max_supply)``, its box to be ``box_bytes`` bytes read with k
    /// hashes (the seed's: 4,096 and 2).
    #[new]
    #[pyo3(signature = (max_supply, box_bytes = DEFAULT_BOX_BYTES, k = DEFAULT_K))]
    fn new(max_supply: u64, box_bytes: usize, k: u8) -> PyResult<Self> {
        Ok(PyRegistry {
            inner: UnitNameRegistry::with_shape(max_supply, box_bytes, k).py()?,
        })
    }

    /// The contract in a state read back, as the application's global state and box hold it
    /// on chain: ``minted`` of ``max_supply`` minted, and ``box`` the box's bytes (None before
    /// ``create_bloom_filter``). ``box_bytes`` defaults to the box's length, or 4,096 with no
    /// box. So a replay can start where a deployed contract is; pickling saves a registry so.
    ///
    /// Raises ``ValueError`` for a state the contract cannot reach (more minted than
    /// ``max_supply``, any minted with no box, a box of another length than ``box_bytes``) or
    /// a shape it cannot have.
    #[staticmethod]
    #[pyo3(signature = (max_supply, minted, r#box = None, box_bytes = None, k = DEFAULT_K))]
    fn from_state(
        max_supply: u64,
        minted: u64,
        r#box: Option<&[u8]>,
        box_bytes: Option<usize>,
        k: u8,
    ) -> PyResult<Self> {
        let box_bytes = box_bytes.unwrap_or(r#box.map_or(DEFAULT_BOX_BYTES, <[u8]>::len));
        Ok(PyRegistry {
            inner: UnitNameRegistry::from_state(max_supply, minted, box_bytes, k, r#box).py()?,
        })
    }

    /// Pickled (and so copied by ``copy``) as ``UnitNameRegistry.from_state(max_supply,
    /// minted, box, box_bytes, k)``.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> crate::common::Reduce<'py, RegistryState<'py>> {
        let from = slf.get_type().getattr("from_state")?;
        let r = &slf.try_borrow()?.inner;
        let bloom = r.bloom().map(|b| PyBytes::new(slf.py(), b.as_bytes()));
        Ok((
            from,
            (r.max_supply(), r.minted(), bloom, r.box_bytes(), r.k()),
        ))
    }

    fn __eq__(&self, other: PyRef<'_, Self>) -> bool {
        self.inner == other.inner
    }

    /// ``create_bloom_filter``: creates the zeroed box; True if it was created now.
    fn create_bloom_filter(&mut self) -> bool {
        self.inner.create_bloom_filter()
    }

    /// ``buy_nft(unit_name)``: mints and records the name, or raises
    /// ``amq.algorand.BuyError`` with the contract's message and changes nothing.
    fn buy_nft(&mut self, unit_name: &Bound<'_, PyAny>) -> PyResult<()> {
        with_name(unit_name, |n| self.inner.buy_nft(n))?.map_err(|e| BuyError::new_err(e.message()))
    }

    /// What ``buy_nft`` would do now, without doing it: None if it would succeed, else the
    /// contract's message.
    fn check_buy(&self, unit_name: &Bound<'_, PyAny>) -> PyResult<Option<&'static str>> {
        with_name(unit_name, |n| {
            self.inner.check_buy(n).err().map(|e| e.message())
        })
    }

    /// NFTs minted.
    #[getter]
    fn minted(&self) -> u64 {
        self.inner.minted()
    }

    /// The supply limit.
    #[getter]
    fn max_supply(&self) -> u64 {
        self.inner.max_supply()
    }

    /// The box (an ``AlgorandBloom``), or None before ``create_bloom_filter``.
    #[getter(r#box)]
    fn bloom_box(&self) -> Option<PyAlgorandBloom> {
        self.inner
            .bloom()
            .map(|b| PyAlgorandBloom { inner: b.clone() })
    }

    fn __repr__(&self) -> String {
        format!(
            "<amq.algorand.UnitNameRegistry minted={} max_supply={} bootstrapped={}>",
            self.inner.minted(),
            self.inner.max_supply(),
            self.inner.bloom().is_some()
        )
    }
}

/// Replays ``buy_nft`` calls (unit names, in order) against a fresh contract, as ``amq
/// algorand replay --json``: ``{"results": ["ok" | "fail: <message>", ...], "minted",
/// "box_base64", "box_sha256"}`` (the box fields None if it was never created).
#[pyfunction]
#[pyo3(signature = (names, max_supply, box_bytes = DEFAULT_BOX_BYTES, k = DEFAULT_K, bootstrapped = true))]
fn replay<'py>(
    py: Python<'py>,
    names: &Bound<'py, PyAny>,
    max_supply: u64,
    box_bytes: usize,
    k: u8,
    bootstrapped: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let mut app = UnitNameRegistry::with_shape(max_supply, box_bytes, k).py()?;
    if bootstrapped {
        app.create_bloom_filter();
    }
    let results = PyList::empty(py);
    let bought = crate::items::map_each(names, |name| with_name(name, |n| app.buy_nft(n)))?;
    for r in bought {
        results.append(match r {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("fail: {}", e.message()),
        })?;
    }
    let d = PyDict::new(py);
    d.set_item("results", results)?;
    d.set_item("minted", app.minted())?;
    match app.bloom() {
        Some(b) => {
            d.set_item(
                "box_base64",
                base64::engine::general_purpose::STANDARD.encode(b.as_bytes()),
            )?;
            d.set_item(
                "box_sha256",
                hex::encode(AvmHash::Sha256.digest(b.as_bytes())),
            )?;
        }
        None => {
            d.set_item("box_base64", py.None())?;
            d.set_item("box_sha256", py.None())?;
        }
    }
    Ok(d)
}

/// The `amq.algorand` module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyAlgorandBloom>()?;
    m.add_class::<PyRegistry>()?;
    m.add("BuyError", m.py().get_type::<BuyError>())?;
    m.add_function(wrap_pyfunction!(indices, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add("DEFAULT_BOX_BYTES", DEFAULT_BOX_BYTES)?;
    m.add("DEFAULT_K", DEFAULT_K)?;
    Ok(())
}
