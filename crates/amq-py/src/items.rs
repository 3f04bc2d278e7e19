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
//! A batch is a NumPy `uint64` or `int64` array or a subclass such as `np.memmap` (read in
//! place, without a copy, through rust-numpy), or any iterable of items (copied once into one
//! buffer, so the filter can work on it with the GIL released). The answers to a batch given
//! as a NumPy array (of any dtype) are a NumPy `bool` array, to any other batch a list
//! ([`answers`]).

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{
    PyByteArray, PyBytes, PyInt, PyIterator, PyList, PyMemoryView, PyString, PyTuple, PyType,
};

/// The message of the `TypeError` for an object that is not an item, naming its type with its
/// module beyond the built-ins (`numpy.bool`, where `bool` read as if `True` were refused).
fn not_an_item(obj: &Bound<'_, PyAny>) -> PyErr {
    let name = obj
        .get_type()
        .fully_qualified_name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string());
    PyTypeError::new_err(format!(
        "an item must be bytes, bytearray, memoryview, str or int, not {name}"
    ))
}

/// The 8 little-endian bytes of an integer item.
///
/// As an `i64` first (one value has the same bytes as either type below 2**63): PyO3 reads it
/// with `PyLong_AsLong`, which has a fast path for every size that `PyLong_AsUnsignedLongLong`
/// (PyO3's `u64`) lacks on CPython 3.11 for values of 2**30 and more. Only an int outside
/// the `i64` range is tried as a `u64`.
fn int_bytes(obj: &Bound<'_, PyAny>) -> PyResult<[u8; 8]> {
    let overflow = |e: &PyErr| e.is_instance_of::<PyOverflowError>(obj.py());
    match obj.extract::<i64>() {
        Ok(v) => return Ok(v.to_le_bytes()),
        Err(e) if overflow(&e) => {}
        Err(_) => return Err(not_an_item(obj)),
    }
    match obj.extract::<u64>() {
        Ok(v) => Ok(v.to_le_bytes()),
        Err(e) if overflow(&e) => Err(PyOverflowError::new_err(
            "an int item must be in [-2**63, 2**64) (it is hashed as 8 little-endian bytes)",
        )),
        Err(_) => Err(not_an_item(obj)),
    }
}

/// Calls `f` with the UTF-8 bytes of a str: borrowed from the str where the ABI allows it
/// (3.10 and later, or the full API), else encoded into a new bytes object (the stable ABI of
/// 3.9 has no borrowed view).
#[cfg(any(
    all(feature = "abi3-py310", not(feature = "abi3-py39")),
    not(any(feature = "abi3-py310", feature = "abi3-py39"))
))]
#[inline]
fn utf8<R>(s: &Bound<'_, PyString>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    Ok(f(s.to_str()?.as_bytes()))
}

/// Calls `f` with the UTF-8 bytes of a str, encoded into a new bytes object (the stable ABI
/// of 3.9 has no borrowed view of a str's UTF-8).
#[cfg(feature = "abi3-py39")]
#[inline]
fn utf8<R>(s: &Bound<'_, PyString>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    let b = s.encode_utf8()?;
    Ok(f(b.as_bytes()))
}

/// Calls `f` with the bytes of one item.
///
/// # Errors
/// `TypeError` for an object that is not an item, `OverflowError` for an int out of range,
/// `UnicodeEncodeError` for a `str` that is not valid Unicode.
#[inline]
pub fn with_item<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    // exact types first: a pointer comparison (the subclass checks below are calls under the
    // stable ABI)
    if let Ok(b) = obj.cast_exact::<PyBytes>() {
        return Ok(f(b.as_bytes()));
    }
    if let Ok(s) = obj.cast_exact::<PyString>() {
        return utf8(s, f);
    }
    if obj.cast_exact::<PyInt>().is_ok() {
        return Ok(f(&int_bytes(obj)?));
    }
    if let Some(b) = byte_string(obj)? {
        return Ok(f(b.as_bytes()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return utf8(s, f);
    }
    if obj.cast::<PyInt>().is_ok() {
        return Ok(f(&int_bytes(obj)?));
    }
    if obj.hasattr("__index__")? {
        return Ok(f(&int_bytes(obj)?));
    }
    Err(not_an_item(obj))
}

/// The bytes of a byte string ([`byte_string`]).
pub enum ByteString<'py> {
    /// A `bytes` object (or a subclass's), or a `memoryview`'s `tobytes()`: read in place.
    Bytes(Bound<'py, PyBytes>),
    /// A `bytearray`, copied (Python code may resize it while its bytes are in use).
    Copied(Vec<u8>),
}

impl ByteString<'_> {
    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            ByteString::Bytes(b) => b.as_bytes(),
            ByteString::Copied(v) => v,
        }
    }
}

/// The bytes of `obj` if it is a byte string: `bytes` (or a subclass), `bytearray`, or a
/// `memoryview` (its `tobytes()`: the memory it shows, in order, whatever its format);
/// `None` for any other object.
pub fn byte_string<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<ByteString<'py>>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Some(ByteString::Bytes(b.clone())));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Some(ByteString::Copied(b.to_vec())));
    }
    if obj.is_instance_of::<PyMemoryView>() {
        let b = obj.call_method0("tobytes")?.cast_into::<PyBytes>()?;
        return Ok(Some(ByteString::Bytes(b)));
    }
    Ok(None)
}

/// Calls `f` with the bytes of one item that must be a byte string (`bytes`, `bytearray` or
/// a `memoryview`): the chain formats hash raw bytes, where a `str` would most likely be hex
/// by mistake.
pub fn with_bytes<R>(
    obj: &Bound<'_, PyAny>,
    what: &str,
    f: impl FnOnce(&[u8]) -> R,
) -> PyResult<R> {
    if let Some(b) = byte_string(obj)? {
        return Ok(f(b.as_bytes()));
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
        "{what} must be bytes, bytearray or memoryview, not {name}{hint}"
    )))
}

/// Calls `f` with the bytes of a serialised filter (`bytes` or `bytearray`). A `str` or a
/// path object is most likely the name of the file, so the error says how to read one.
pub fn with_filter_bytes<R>(obj: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if obj.cast::<PyString>().is_ok() || obj.hasattr("__fspath__")? {
        return Err(PyTypeError::new_err(format!(
            "data must be a filter's bytes (bytes or bytearray), not a file name: read the file first, as in \
             amq.load(open({}, \"rb\").read())",
            obj.repr()?
        )));
    }
    with_bytes(obj, "data", f)
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
    /// A NumPy `uint64` array (or a chunk of one), in place.
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

    /// `f` of each item's bytes, in order, appended to `out`.
    pub fn map_into<T>(&self, out: &mut Vec<T>, mut f: impl FnMut(&[u8]) -> T) {
        out.reserve(self.len());
        let _ = self.try_for_each::<()>(|b| {
            out.push(f(b));
            Ok(())
        });
    }
}

/// The items of a batch handed over at a time: enough to amortise releasing and taking the
/// GIL, few enough that the buffers stay in cache and are reused.
pub const CHUNK: usize = 4096;

/// A contiguous one-dimensional NumPy `uint64` or `int64` array, read in place.
pub enum Array<'py> {
    U64(PyReadonlyArray1<'py, u64>),
    I64(PyReadonlyArray1<'py, i64>),
}

/// `true` if `obj` is a NumPy array (of any dtype and layout), or of a subclass
/// (`np.memmap`, `np.matrix`, ...), without importing NumPy: some class of its type's MRO is
/// `numpy.ndarray`.
pub fn is_ndarray(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    let mro = obj.get_type().getattr(pyo3::intern!(py, "__mro__"))?;
    for ty in mro.cast_into::<PyTuple>()?.iter() {
        let ty = ty.cast_into::<PyType>()?;
        if ty.name()?.to_cow()? == "ndarray" && ty.module()?.to_cow()? == "numpy" {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The answers to a batch, in its order: for a batch given as a NumPy array (`ndarray`,
/// from [`is_ndarray`]) a NumPy `bool` array that takes over `out` without a copy, else a list.
///
/// # Errors
/// Python's, if the array or list cannot be made.
pub fn answers(py: Python<'_>, out: Vec<bool>, ndarray: bool) -> PyResult<Bound<'_, PyAny>> {
    if ndarray {
        Ok(PyArray1::from_vec(py, out).into_any())
    } else {
        Ok(PyList::new(py, out)?.into_any())
    }
}

impl<'py> Array<'py> {
    /// `obj` as such an array, if it is one (other dtypes and strided arrays are read item by
    /// item instead). NumPy is not imported for objects that are not NumPy arrays.
    pub fn of(obj: &Bound<'py, PyAny>) -> PyResult<Option<Self>> {
        if !is_ndarray(obj)? {
            return Ok(None);
        }
        if let Ok(a) = obj.extract::<PyReadonlyArray1<'py, u64>>() {
            if a.as_slice().is_ok() {
                return Ok(Some(Array::U64(a)));
            }
        }
        if let Ok(a) = obj.extract::<PyReadonlyArray1<'py, i64>>() {
            if a.as_slice().is_ok() {
                return Ok(Some(Array::I64(a)));
            }
        }
        Ok(None)
    }

    pub fn items(&self) -> Items<'_> {
        // `of` checked that both are contiguous
        match self {
            Array::U64(a) => Items::U64(a.as_slice().unwrap_or(&[])),
            Array::I64(a) => Items::I64(a.as_slice().unwrap_or(&[])),
        }
    }
}

/// The iterator over a batch that is not an array.
fn iterate<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyIterator>> {
    // iterating a byte string or a str item by item (each byte an int item, each character a
    // str) is almost surely a mistake; a memoryview of wider items (an array of u64) is not
    let byte_view =
        obj.is_instance_of::<PyMemoryView>() && obj.getattr("itemsize")?.extract::<usize>()? == 1;
    if obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
        || obj.is_instance_of::<PyString>()
        || byte_view
    {
        return Err(PyTypeError::new_err(
            "a batch is an iterable of items (a list, a tuple, a NumPy array, ...), not a \
             single bytes, bytearray, memoryview of bytes or str object",
        ));
    }
    obj.try_iter()
}

/// `f` of each item of a batch, in order (a single byte string or `str` is refused, as
/// [`iterate`] refuses it); an error from `f` names the item's position ([`at_item`]).
pub fn map_each<'py, R>(
    obj: &Bound<'py, PyAny>,
    mut f: impl FnMut(&Bound<'py, PyAny>) -> PyResult<R>,
) -> PyResult<Vec<R>> {
    iterate(obj)?
        .enumerate()
        .map(|(i, item)| f(&item?).map_err(|e| at_item(obj.py(), e, i as u64)))
        .collect()
}

/// Reads one item into the arena.
fn push(arena: &mut Arena, item: &Bound<'_, PyAny>, bytes_only: Option<&str>) -> PyResult<()> {
    match bytes_only {
        None => with_item(item, |b| arena.push(b)),
        Some(what) => with_bytes(item, what, |b| arena.push(b)),
    }
}

/// `e`, of the same type, with its message prefixed by the position of the item it is about
/// (counted from 0) in the batch, and `e` as its cause: the items before it were handed on.
pub fn at_item(py: Python<'_>, e: PyErr, index: u64) -> PyErr {
    let message = format!("item {index} of the batch: {}", e.value(py));
    let at = PyErr::from_type(e.get_type(py), message);
    at.set_cause(py, Some(e));
    at
}

/// Calls `f` with the items of a batch, [`CHUNK`] at a time, in order: a contiguous NumPy
/// `uint64`/`int64` array is read in place, any other iterable item by item into one reused
/// buffer (as [`with_item`] reads an item; with `bytes_only`, as [`with_bytes`]). `f` may
/// release the GIL while it works on a chunk.
///
/// # Errors
/// `TypeError` if `obj` is not iterable or holds an object that is not an item, the errors of
/// [`with_item`] (their message begins with the item's position, [`at_item`]) and of the
/// iterator, and `f`'s errors, each of which stops the batch there: every item before it was
/// handed to `f` (the items read before a bad item or an iterator error go to `f` first, so
/// that `add_many` adds exactly the items before it), none after.
pub fn for_each_chunk<'py>(
    obj: &Bound<'py, PyAny>,
    bytes_only: Option<&str>,
    mut f: impl FnMut(Items<'_>) -> PyResult<()>,
) -> PyResult<()> {
    if bytes_only.is_none() {
        if let Some(array) = Array::of(obj)? {
            return match array.items() {
                Items::U64(v) => v.chunks(CHUNK).try_for_each(|c| f(Items::U64(c))),
                Items::I64(v) => v.chunks(CHUNK).try_for_each(|c| f(Items::I64(c))),
                Items::Arena(_) => Ok(()),
            };
        }
    }
    let mut iter = iterate(obj)?;
    let mut arena = Arena::default();
    let mut before = 0u64;
    loop {
        arena.data.clear();
        arena.ends.clear();
        let mut failed = Ok(());
        for item in iter.by_ref().take(CHUNK) {
            // (an error the iterator raises is the caller's own, and goes on unchanged)
            failed = item.and_then(|item| {
                push(&mut arena, &item, bytes_only)
                    .map_err(|e| at_item(obj.py(), e, before + arena.ends.len() as u64))
            });
            if failed.is_err() {
                break;
            }
        }
        before += arena.ends.len() as u64;
        let full = arena.ends.len() == CHUNK;
        if !arena.ends.is_empty() {
            f(Items::Arena(&arena))?;
        }
        failed?;
        if !full {
            return Ok(());
        }
    }
}

/// A whole batch in memory, for the structures built from all their items at once (the
/// Golomb-coded sets): a NumPy integer array kept borrowed, or the items of an iterable
/// copied into one [`Arena`].
pub enum Batch<'py> {
    /// A contiguous NumPy array.
    Array(Array<'py>),
    /// Anything else, copied.
    Arena(Arena),
}

impl<'py> Batch<'py> {
    /// Reads a whole batch, as [`for_each_chunk`] reads its chunks.
    ///
    /// # Errors
    /// As [`for_each_chunk`].
    pub fn read(obj: &Bound<'py, PyAny>, bytes_only: Option<&str>) -> PyResult<Self> {
        if bytes_only.is_none() {
            if let Some(array) = Array::of(obj)? {
                return Ok(Batch::Array(array));
            }
        }
        let mut arena = Arena::default();
        for item in iterate(obj)? {
            push(&mut arena, &item?, bytes_only)?;
        }
        Ok(Batch::Arena(arena))
    }

    /// The items of a batch read with `bytes_only`, as slices of the copy.
    pub fn byte_items(&self) -> Vec<&[u8]> {
        match self {
            Batch::Arena(a) => a.slices(),
            Batch::Array(_) => Vec::new(),
        }
    }

    /// The items, to be used with or without the GIL.
    pub fn items(&self) -> Items<'_> {
        match self {
            Batch::Array(a) => a.items(),
            Batch::Arena(a) => Items::Arena(a),
        }
    }
}
