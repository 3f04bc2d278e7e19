//! Items from Python: what bytes a filter hashes for a Python object, one at a time or in
//! batches.
//!
//! * `bytes` and `bytearray`: their bytes.
//! * `str`: its UTF-8 bytes (a string with lone surrogates raises `UnicodeEncodeError`).
//! * `int` (and NumPy integers): the library's integers, 8 little-endian bytes: a value in
//!   `[0, 2**64)` as a `u64`, a negative one in `[-2**63, 0)` as an `i64` (two's complement);
//!   anything else raises `OverflowError`. So `f.add(5)` and `f.add(b"\x05" + bytes(7))` are
//!   the same item, as they are for the Rust library (`f.insert(&5u64)`).
//!
//! A batch is a NumPy `uint64` or `int64` array (read in place, without a copy, through
//! rust-numpy), or any iterable of items (copied once into one buffer, so the filter can work
//! on it with the GIL released).

use numpy::PyReadonlyArray1;
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyInt, PyList, PyString, PyTuple};

/// The message of the `TypeError` for an object that is not an item.
fn not_an_item(obj: &Bound<'_, PyAny>) -> PyErr {
    let name = obj
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string());
    PyTypeError::new_err(format!(
        "an item must be bytes, bytearray, str or int, not {name}"
    ))
}

/// The 8 little-endian bytes of an integer item.
fn int_bytes(obj: &Bound<'_, PyAny>) -> PyResult<[u8; 8]> {
    if let Ok(v) = obj.extract::<u64>() {
        return Ok(v.to_le_bytes());
    }
    match obj.extract::<i64>() {
        Ok(v) => Ok(v.to_le_bytes()),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => Err(PyOverflowError::new_err(
            "an int item must be in [-2**63, 2**64) (it is hashed as 8 little-endian bytes)",
        )),
        Err(_) => Err(not_an_item(obj)),
    }
}

/// Calls `f` with the bytes of one item.
///
/// # Errors
/// `TypeError` for an object that is not an item, `OverflowError` for an int out of range,
/// `UnicodeEncodeError` for a `str` that is not valid Unicode.
#[inline]
pub fn with_item<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(f(b.as_bytes()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        // abi3 for Python 3.9 has no borrowed UTF-8 view of a str: encode it once
        let b = s.encode_utf8()?;
        return Ok(f(b.as_bytes()));
    }
    if obj.cast::<PyInt>().is_ok() {
        return Ok(f(&int_bytes(obj)?));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(f(&b.to_vec()));
    }
    if obj.hasattr("__index__")? {
        return Ok(f(&int_bytes(obj)?));
    }
    Err(not_an_item(obj))
}

/// Calls `f` with the bytes of one item that must be a byte string (`bytes` or `bytearray`):
/// the chain formats hash raw bytes, where a `str` would most likely be hex by mistake.
pub fn with_bytes<R>(
    obj: &Bound<'_, PyAny>,
    what: &str,
    f: impl FnOnce(&[u8]) -> R,
) -> PyResult<R> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(f(b.as_bytes()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(f(&b.to_vec()));
    }
    let name = obj
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string());
    let hint = if obj.cast::<PyString>().is_ok() {
        " (for hex text use bytes.fromhex(...))"
    } else {
        ""
    };
    Err(PyTypeError::new_err(format!(
        "{what} must be bytes or bytearray, not {name}{hint}"
    )))
}

/// Items copied into one buffer: item i is `data[ends[i - 1]..ends[i]]`.
#[derive(Default)]
pub struct Arena {
    data: Vec<u8>,
    ends: Vec<usize>,
}

impl Arena {
    fn push(&mut self, bytes: &[u8]) {
        self.data.extend_from_slice(bytes);
        self.ends.push(self.data.len());
    }

    /// The items as slices.
    pub fn slices(&self) -> Vec<&[u8]> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let s = &self.data[start..end];
                start = end;
                s
            })
            .collect()
    }
}

/// A batch of items, ready to be used without the GIL.
pub enum Items<'a> {
    /// Items of any kind, copied.
    Arena(&'a Arena),
    /// A NumPy `uint64` array, in place.
    U64(&'a [u64]),
    /// A NumPy `int64` array, in place.
    I64(&'a [i64]),
}

impl Items<'_> {
    /// The number of items.
    pub fn len(&self) -> usize {
        match self {
            Items::Arena(a) => a.ends.len(),
            Items::U64(v) => v.len(),
            Items::I64(v) => v.len(),
        }
    }

    /// Calls `f` with each item's bytes in order, stopping at the first error; returns how
    /// many calls succeeded and the error, if any.
    pub fn try_for_each<E>(
        &self,
        mut f: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> (usize, Result<(), E>) {
        let mut done = 0usize;
        let mut run = |bytes: &[u8]| -> Result<(), E> {
            f(bytes)?;
            done += 1;
            Ok(())
        };
        let result = match self {
            Items::Arena(a) => {
                let mut start = 0;
                a.ends.iter().try_for_each(|&end| {
                    let r = run(&a.data[start..end]);
                    start = end;
                    r
                })
            }
            Items::U64(v) => v.iter().try_for_each(|x| run(&x.to_le_bytes())),
            Items::I64(v) => v.iter().try_for_each(|x| run(&x.to_le_bytes())),
        };
        (done, result)
    }

    /// `f` of each item's bytes, in order.
    pub fn map<T>(&self, mut f: impl FnMut(&[u8]) -> T) -> Vec<T> {
        let mut out = Vec::with_capacity(self.len());
        let _ = self.try_for_each::<()>(|b| {
            out.push(f(b));
            Ok(())
        });
        out
    }
}

/// A batch read from a Python object: a NumPy integer array kept borrowed, or the items of
/// an iterable copied into an [`Arena`].
pub enum Batch<'py> {
    /// A contiguous `uint64` array.
    U64(PyReadonlyArray1<'py, u64>),
    /// A contiguous `int64` array.
    I64(PyReadonlyArray1<'py, i64>),
    /// Anything else, copied.
    Arena(Arena),
}

impl<'py> Batch<'py> {
    /// Reads a batch: a one-dimensional contiguous NumPy `uint64`/`int64` array in place, or
    /// the items of any iterable (`list` and `tuple` the fastest), each as [`with_item`] reads
    /// it (with `bytes_only`, as [`with_bytes`] reads it).
    ///
    /// # Errors
    /// `TypeError` if `obj` is not iterable or holds an object that is not an item, and the
    /// errors of [`with_item`].
    pub fn read(obj: &Bound<'py, PyAny>, bytes_only: Option<&str>) -> PyResult<Self> {
        if bytes_only.is_none() && obj.get_type().name()?.to_cow()? == "ndarray" {
            if let Ok(a) = obj.extract::<PyReadonlyArray1<'py, u64>>() {
                if a.as_slice().is_ok() {
                    return Ok(Batch::U64(a));
                }
            }
            if let Ok(a) = obj.extract::<PyReadonlyArray1<'py, i64>>() {
                if a.as_slice().is_ok() {
                    return Ok(Batch::I64(a));
                }
            }
        }
        let mut arena = Arena::default();
        let add = |arena: &mut Arena, item: &Bound<'py, PyAny>| -> PyResult<()> {
            match bytes_only {
                None => with_item(item, |b| arena.push(b)),
                Some(what) => with_bytes(item, what, |b| arena.push(b)),
            }
        };
        if let Ok(list) = obj.cast::<PyList>() {
            arena.ends.reserve(list.len());
            for item in list.iter() {
                add(&mut arena, &item)?;
            }
        } else if let Ok(tuple) = obj.cast::<PyTuple>() {
            arena.ends.reserve(tuple.len());
            for item in tuple.iter() {
                add(&mut arena, &item)?;
            }
        } else if obj.cast::<PyBytes>().is_ok() || obj.cast::<PyString>().is_ok() {
            // iterating a bytes or str object item by item is almost surely a mistake
            return Err(PyTypeError::new_err(
                "a batch is an iterable of items (a list, a tuple, a NumPy array, ...), not a \
                 single bytes or str object",
            ));
        } else {
            for item in obj.try_iter()? {
                add(&mut arena, &item?)?;
            }
        }
        Ok(Batch::Arena(arena))
    }

    /// The items of a batch read with `bytes_only`, as slices of the copy.
    pub fn byte_items(&self) -> Vec<&[u8]> {
        match self {
            Batch::Arena(a) => a.slices(),
            _ => Vec::new(),
        }
    }

    /// The items, to be used with or without the GIL.
    pub fn items(&self) -> Items<'_> {
        match self {
            // `read` checked that both arrays are contiguous
            Batch::U64(a) => Items::U64(a.as_slice().unwrap_or(&[])),
            Batch::I64(a) => Items::I64(a.as_slice().unwrap_or(&[])),
            Batch::Arena(a) => Items::Arena(a),
        }
    }
}
