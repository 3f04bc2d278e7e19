//! The native module of the `amq` Python package (`amq._amq`): thin PyO3 classes over the
//! library's types. Bytes in and out are the library's formats, so an `.amq` file written
//! from Python is byte-identical to the command line's. The Python-facing documentation is
//! in the docstrings and the stubs (`python/amq/*.pyi`).

mod algorand;
mod btc;
mod cashu;
mod cashu_state;
mod chains;
mod common;
mod convert;
mod errors;
mod eth;
mod filters;
mod items;
mod negative;
mod parquet;
mod rln;
mod ttl;
mod window;

use amq::math::Spec;
use amq::AnyFilter;
use chains::{PyExpandable, PyScalable};
use convert::{new_filter, to_object};
use errors::{value_error, FilterFullError, IntoPy};
use filters::{PyBlocked, PyBloom, PyCuckoo, PySplitBlock};
use negative::PyNegative;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use rln::PyRln;
use ttl::PyTtl;
use window::{PyAging, PyWindow};

/// A filter of any kind as its Python class.
fn wrap(py: Python<'_>, f: AnyFilter) -> PyResult<Bound<'_, PyAny>> {
    Ok(match f {
        AnyFilter::Bloom(f) => Bound::new(py, PyBloom::wrap(f))?.into_any(),
        AnyFilter::BlockedBloom(f) => Bound::new(py, PyBlocked::wrap(f))?.into_any(),
        AnyFilter::SplitBlockBloom(f) => Bound::new(py, PySplitBlock::wrap(f))?.into_any(),
        AnyFilter::Cuckoo(f) => Bound::new(py, PyCuckoo::wrap(f))?.into_any(),
        AnyFilter::SlidingWindowBloom(f) => Bound::new(py, PyWindow::wrap(f))?.into_any(),
        AnyFilter::AgingBloom(f) => Bound::new(py, PyAging::wrap(f))?.into_any(),
        AnyFilter::NegativeCache(f) => Bound::new(py, PyNegative::wrap(f))?.into_any(),
        AnyFilter::TtlCuckoo(f) => Bound::new(py, PyTtl::wrap(*f))?.into_any(),
        AnyFilter::ScalableBloom(f) => Bound::new(py, PyScalable::wrap(f))?.into_any(),
        AnyFilter::ExpandableCuckoo(f) => Bound::new(py, PyExpandable::wrap(f))?.into_any(),
        AnyFilter::SlidingWindowCuckoo(f) => Bound::new(py, PyRln::wrap(*f))?.into_any(),
        other => {
            return Err(value_error(format!(
                "this version of the package has no class for {} filters",
                other.kind().name()
            )))
        }
    })
}

/// Reads an ``.amq`` file of any kind (``bytes``) and returns the filter as its class:
/// ``BloomFilter``, ``BlockedBloomFilter``, ``SplitBlockBloomFilter``, ``CuckooFilter``,
/// ``ScalableBloomFilter``, ``ExpandableCuckooFilter``, ``SlidingWindowBloom``, ``AgingBloom``,
/// ``TtlCuckooFilter``, ``SlidingWindowCuckoo`` or ``NegativeCache``. Raises ``ValueError`` for
/// bytes that are not an ``.amq`` file (wrong magic, version or checksum, truncated,
/// corrupt) or of a kind newer than this package; never crashes, whatever the bytes.
///
/// >>> f = amq.BloomFilter.with_fpr(100, 0.01)
/// >>> f.add("x")
/// True
/// >>> g = amq.load(f.to_bytes())
/// >>> type(g).__name__, g == f, "x" in g
/// ('BloomFilter', True, True)
#[pyfunction]
fn load<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let f = items::with_filter_bytes(data, AnyFilter::from_bytes)?.py()?;
    wrap(py, f)
}

/// The spec from a dict and keyword arguments (the keyword arguments win); `kind` defaults to
/// `bloom`.
fn spec(
    py: Python<'_>,
    spec: Option<&Bound<'_, PyAny>>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Spec> {
    let d = PyDict::new(py);
    if let Some(s) = spec {
        if s.cast::<PyString>().is_ok() {
            d.set_item("kind", s)?;
        } else {
            d.update(s.cast::<pyo3::types::PyMapping>()?)?;
        }
    }
    if let Some(kw) = kwargs {
        d.update(kw.as_mapping())?;
    }
    if !d.contains("kind")? {
        d.set_item("kind", "bloom")?;
    }
    // serde ignores fields a kind does not have and reads the first of two targets: refuse
    // them instead (they were meant for something), in the library's words
    let kind = d.get_item("kind")?;
    if let Some(k) = kind.as_ref().filter(|k| !k.is_instance_of::<PyString>()) {
        // (serde's tagged enum reads a tag that is not a string as a map, and says "dict keys
        // must have type str")
        return Err(value_error(format!(
            "not a filter spec: kind must be a str, one of {}; got {}",
            amq::wire::Kind::names(),
            k.get_type().name()?
        )));
    }
    if let Some(kind) = kind.and_then(|k| k.extract::<String>().ok()) {
        if let Some(kind) = amq::wire::Kind::from_name(&kind) {
            let keys: Vec<String> = d.keys().iter().map(|k| k.to_string()).collect();
            Spec::check_fields(kind, keys.iter().map(String::as_str), &[]).map_err(|e| {
                value_error(format!("not a filter spec: {}", e.message("parameter")))
            })?;
        }
    }
    convert::spec_from_dict(&d)
}

/// Plans a filter without allocating it: a dict with the keys of ``amq plan --json``
/// (``kind``, ``items``, ``m_bits``, ``k``, ``bytes``, ``bits_per_key``, ``fpr``,
/// ``fpr_exact`` and the kind's own).
///
/// The spec is a dict or keyword arguments, as the library's ``Spec`` serialises: ``kind``
/// (``"bloom"``, the default, ``"blocked-bloom"``, ``"split-block-bloom"``, ``"cuckoo"``,
/// ``"scalable-bloom"``, ``"expandable-cuckoo"``, ``"sliding-window-bloom"``,
/// ``"sliding-window-cuckoo"``, ``"aging-bloom"``, ``"ttl-cuckoo"``, ``"negative-cache"``: the
/// kinds of ``amq plan --kind``) and its parameters, for example
/// ``amq.plan(items=10**6, fpr=0.01)``, ``amq.plan("cuckoo", items=10**6, fpr=0.001)``,
/// ``amq.plan(kind="bloom", items=10**4, m_bits=32768)``, ``amq.plan(kind="aging-bloom",
/// window=10**6, generations=4, fpr=0.01)``. Raises ``ValueError`` for a spec the planner
/// refuses, with its message.
///
/// >>> p = amq.plan(items=10**6, fpr=0.01)
/// >>> p["m_bits"], p["k"], p["bytes"]
/// (9592955, 7, 1199120)
#[pyfunction]
#[pyo3(signature = (spec = None, **kwargs))]
fn plan<'py>(
    py: Python<'py>,
    spec: Option<&Bound<'py, PyAny>>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let spec = self::spec(py, spec, kwargs)?;
    to_object(py, &amq::math::plan(&spec).py()?)
}

/// An empty filter of the kind and shape a spec plans (a dict or keyword arguments, as for
/// ``amq.plan``), hashing with ``seed``: ``amq.new(kind="cuckoo", items=1000, fpr=0.01)``.
///
/// >>> f = amq.new(kind="cuckoo", items=1000, fpr=0.01)
/// >>> type(f).__name__, f.add("x"), "x" in f
/// ('CuckooFilter', True, True)
#[pyfunction]
#[pyo3(signature = (spec = None, *, seed = 0, **kwargs))]
fn new<'py>(
    py: Python<'py>,
    spec: Option<&Bound<'py, PyAny>>,
    seed: u64,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let spec = self::spec(py, spec, kwargs)?;
    wrap(py, new_filter(&spec, seed)?)
}

/// Adds a submodule `name` filled by `register`.
fn submodule(
    m: &Bound<'_, PyModule>,
    name: &str,
    register: fn(&Bound<'_, PyModule>) -> PyResult<()>,
) -> PyResult<()> {
    let sub = PyModule::new(m.py(), name)?;
    register(&sub)?;
    m.add_submodule(&sub)
}

#[pymodule]
fn _amq(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("FilterFullError", m.py().get_type::<FilterFullError>())?;
    m.add_class::<PyBloom>()?;
    m.add_class::<PyBlocked>()?;
    m.add_class::<PySplitBlock>()?;
    m.add_class::<PyScalable>()?;
    m.add_class::<PyExpandable>()?;
    m.add_class::<PyCuckoo>()?;
    m.add_class::<PyWindow>()?;
    m.add_class::<PyAging>()?;
    m.add_class::<PyNegative>()?;
    m.add_class::<PyTtl>()?;
    m.add_class::<PyRln>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(new, m)?)?;
    submodule(m, "eth", eth::register)?;
    submodule(m, "btc", btc::register)?;
    submodule(m, "cashu", cashu::register)?;
    submodule(m, "algorand", algorand::register)?;
    submodule(m, "parquet", parquet::register)?;
    Ok(())
}
