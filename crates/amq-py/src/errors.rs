//! The library's errors as Python exceptions, with the library's message.
//!
//! | `amq::Error` | Python |
//! |---|---|
//! | `Full` (a cuckoo filter that cannot take the item) | `amq.FilterFullError` |
//! | `OutOfMemory`, or a size that cannot be allocated (`cannot allocate ...`, `... for this platform`) | `MemoryError` |
//! | everything else (parameters, corrupt input, unsupported operations) | `ValueError` |
//!
//! Python integers out of a parameter's range raise `OverflowError` (PyO3's conversion), and
//! items of the wrong type `TypeError`.

use pyo3::exceptions::{PyException, PyMemoryError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    amq,
    FilterFullError,
    PyException,
    "A cuckoo filter cannot take the item: it was not added, and every item added before is \
     still found. Size the filter for more items (``CuckooFilter.with_fpr(n, ...)``)."
);

/// A library error as the Python exception it maps to.
pub fn to_py(e: amq::Error) -> PyErr {
    let message = e.to_string();
    with_message(e, message)
}

/// A library error as the Python exception it maps to, its message followed by `context`.
pub fn to_py_context(e: amq::Error, context: impl std::fmt::Display) -> PyErr {
    let message = format!("{e} {context}");
    with_message(e, message)
}

/// The Python exception for `e`, with `message`.
pub(crate) fn with_message(e: amq::Error, message: String) -> PyErr {
    match e {
        amq::Error::Full { .. } => FilterFullError::new_err(message),
        amq::Error::OutOfMemory { .. } => PyMemoryError::new_err(message),
        amq::Error::InvalidParameter { reason, .. }
            if reason.starts_with("cannot allocate") || reason.ends_with("for this platform") =>
        {
            PyMemoryError::new_err(message)
        }
        _ => PyValueError::new_err(message),
    }
}

/// `Result<T, amq::Error>` into `PyResult<T>`.
pub trait IntoPy<T> {
    /// Maps the error with [`to_py`].
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, amq::Error> {
    fn py(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// A `ValueError` with this message.
pub fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// Serde conversion errors (pythonize, serde_json) as `ValueError`, naming what was read.
pub fn serde_error(what: &str, e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{what}: {e}"))
}
