//! The library's serde types to Python objects and back (pythonize), so Python sees the same
//! fields under the same names as `amq ... --json`; and the memory check before a filter is
//! allocated.

use crate::errors::{serde_error, IntoPy};
use amq::math::{Spec, ValueShape};
use amq::AnyFilter;
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyMapping, PySequence, PyString};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A serde value as a Python object (a dict for a struct), field names as serde names them.
pub fn to_object<'py, T: Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, value).map_err(|e| serde_error("cannot convert to Python", e))
}

/// A serde value from a Python object (dicts, lists, strings, numbers, as `json.loads` gives
/// them) or from JSON text (`str`, `bytes`).
///
/// # Errors
/// `ValueError` naming `what`, with serde's message (or the library's, for a check it makes
/// while reading).
pub fn from_object<T: DeserializeOwned>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    if let Ok(s) = obj.cast::<PyString>() {
        return serde_json::from_str(&s.to_cow()?).map_err(|e| serde_error(what, e));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return serde_json::from_slice(b.as_bytes()).map_err(|e| serde_error(what, e));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return serde_json::from_slice(&b.to_vec()).map_err(|e| serde_error(what, e));
    }
    check_depth(obj, what)?;
    pythonize::depythonize(obj).map_err(|e| serde_error(what, e))
}

/// A [`Spec`] from a dict of its fields, checked for depth as [`from_object`] checks. serde
/// reads a spec's fields through its `kind` tag, so its message names no field: the one
/// whose value the message quotes is named in front ([`Spec::name_error_field`]).
///
/// # Errors
/// `ValueError` "not a filter spec: parameter "items": invalid type: sequence, expected u64".
pub fn spec_from_dict(d: &Bound<'_, PyDict>) -> PyResult<Spec> {
    const WHAT: &str = "not a filter spec";
    check_depth(d.as_any(), WHAT)?;
    pythonize::depythonize::<Spec>(d.as_any()).map_err(|e| {
        let fields: Vec<(String, ValueShape)> = d
            .iter()
            .filter_map(|(k, v)| Some((k.extract().ok()?, pythonize::depythonize(&v).ok()?)))
            .collect();
        serde_error(
            WHAT,
            Spec::name_error_field(&e.to_string(), "parameter", &fields),
        )
    })
}

/// How deeply lists and dicts may nest in an object read with [`from_object`]: serde_json's
/// own limit for JSON text.
const MAX_DEPTH: usize = 128;

/// `ValueError` for an object whose lists, tuples, other sequences and dicts nest deeper than
/// [`MAX_DEPTH`]: the reader recurses once a level, and 20,000 levels overflowed the stack
/// (a crash of the interpreter). Walked without recursion; iterators are not consumed.
fn check_depth(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
    let mut stack = vec![(obj.clone(), 0usize)];
    while let Some((o, depth)) = stack.pop() {
        if o.is_instance_of::<PyString>()
            || o.is_instance_of::<PyBytes>()
            || o.is_instance_of::<PyByteArray>()
        {
            continue;
        }
        let children: Vec<Bound<'_, PyAny>> = if let Ok(d) = o.cast::<PyMapping>() {
            d.values()?.iter().collect()
        } else if let Ok(seq) = o.cast::<PySequence>() {
            seq.try_iter()?.collect::<PyResult<_>>()?
        } else {
            continue;
        };
        if children.is_empty() {
            continue;
        }
        if depth >= MAX_DEPTH {
            return Err(PyValueError::new_err(format!(
                "{what}: nested more than {MAX_DEPTH} levels deep"
            )));
        }
        stack.extend(children.into_iter().map(|c| (c, depth + 1)));
    }
    Ok(())
}

/// Refuses, with `MemoryError`, a filter whose table cannot be allocated, before the library
/// allocates it: a few kinds allocate with `vec!`, which would abort the interpreter instead.
/// (The probe reserves address space only; the pages are not touched.)
fn check_memory(bytes: u64) -> PyResult<()> {
    let fail = || PyMemoryError::new_err(format!("cannot allocate {bytes} bytes for the filter"));
    let n = usize::try_from(bytes).map_err(|_| fail())?;
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(n).map_err(|_| fail())?;
    Ok(())
}

/// An empty filter of the kind and shape `spec` plans, as the command line creates it.
///
/// # Errors
/// The planner's and the kind's errors; `MemoryError` when the table cannot be allocated.
pub fn new_filter(spec: &Spec, seed: u64) -> PyResult<AnyFilter> {
    let plan = amq::math::plan(spec).py()?;
    check_memory(plan.bytes)?;
    AnyFilter::new(spec, seed).py()
}
