//! `amq.cashu`: Cashu spent-note filters, the Golomb-coded sets of the NUT-23 draft, as
//! `amq cashu` uses them.

use crate::convert::{from_object, to_object};
use crate::errors::{value_error, IntoPy};
use crate::eth::fixed;
use crate::items::{with_bytes, Batch};
use amq::formats::cashu::{self, CashuFilter, CashuHash, GetFilterResponse, DEFAULT_M, DEFAULT_P};
use pyo3::prelude::*;
use pyo3::types::PyList;

/// The item hash by its command-line name, with the SipHash key if any.
fn cashu_hash(name: &str, key: Option<&Bound<'_, PyAny>>) -> PyResult<CashuHash> {
    match (name, key) {
        ("siphash", key) => Ok(CashuHash::SipHash24 {
            key: match key {
                Some(k) => fixed::<16>(k, "the SipHash key")?,
                None => [0u8; 16],
            },
        }),
        ("murmur3-128" | "murmur3-32x2", Some(_)) => {
            Err(value_error("key is only for hash=\"siphash\""))
        }
        ("murmur3-128", None) => Ok(CashuHash::Murmur3X64_128),
        ("murmur3-32x2", None) => Ok(CashuHash::Murmur3X86_32x2),
        (other, _) => Err(value_error(format!(
            "unknown hash {other:?}: use \"murmur3-128\" (the draft's text), \"murmur3-32x2\" \
             (nutshell, cashu-ts, cdk) or \"siphash\" (the draft's first version)"
        ))),
    }
}

/// A mint's filter of spent notes: the GetFilterResponse as a dict, ``{"n", "p", "m",
/// "content", "timestamp"}`` (``content`` in base64), as ``amq cashu build`` prints it.
///
/// ``items`` are raw ``bytes`` (33-byte points ``Y``, not their hex; duplicates kept), hashed
/// with ``hash``: ``"murmur3-128"`` (MurmurHash3 x64_128, the draft's text; the default),
/// ``"murmur3-32x2"`` (two MurmurHash3 x86_32: the draft's test vectors and its pull requests
/// to nutshell, cashu-ts and cdk; the response does not name its hash, so mint and wallet
/// must agree) or ``"siphash"`` (SipHash-2-4 with a 16-byte ``key``). ``p`` is the
/// Golomb-Rice parameter, ``m`` the inverse false-positive rate (below 2**32), ``timestamp``
/// in seconds since the Unix epoch, an int or a float such as ``time.time()``, rounded down
/// (default: now). Built with the GIL released.
#[pyfunction]
#[pyo3(signature = (items, hash = "murmur3-128", p = DEFAULT_P, m = DEFAULT_M, timestamp = None, key = None))]
fn build<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    hash: &str,
    p: u8,
    m: u64,
    timestamp: Option<crate::common::Seconds>,
    key: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let hash = cashu_hash(hash, key)?;
    let batch = Batch::read(items, Some("an item"))?;
    let items = batch.byte_items();
    let filter = py.detach(|| CashuFilter::build(&items, hash, p, m)).py()?;
    let timestamp = crate::common::time(timestamp);
    to_object(py, &filter.to_response(timestamp))
}

/// A response as a filter (a dict as ``build`` returns it or as ``json.loads`` gives it, or
/// the JSON text).
fn response_filter(response: &Bound<'_, PyAny>, hash: CashuHash) -> PyResult<CashuFilter> {
    let r: GetFilterResponse = from_object(response, "not a valid GetFilterResponse")?;
    r.into_filter(hash).py()
}

/// For each item, in order: True if it may be in the mint's filter ("maybe spent"), False if
/// it definitely is not ("unspent"), as ``amq cashu match`` answers.
///
/// ``response`` is the GetFilterResponse (a dict, or its JSON text; null ``p``/``m`` mean 19
/// and 784931); ``items`` are distinct raw ``bytes`` (a repeated item raises ``ValueError``,
/// as the draft's ``match_many``); ``hash`` and ``key`` as for ``build`` (the response does
/// not say which hash the mint used). One pass over the set, GIL released.
#[pyfunction(name = "match")]
#[pyo3(signature = (response, items, hash = "murmur3-128", key = None))]
fn match_items<'py>(
    py: Python<'py>,
    response: &Bound<'py, PyAny>,
    items: &Bound<'py, PyAny>,
    hash: &str,
    key: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let filter = response_filter(response, cashu_hash(hash, key)?)?;
    let batch = Batch::read(items, Some("an item"))?;
    let items = batch.byte_items();
    let hits = py.detach(|| filter.match_many(&items)).py()?;
    PyList::new(py, hits)
}

/// True if one item may be in the mint's filter, False if it definitely is not.
#[pyfunction]
#[pyo3(signature = (response, item, hash = "murmur3-128", key = None))]
fn contains(
    response: &Bound<'_, PyAny>,
    item: &Bound<'_, PyAny>,
    hash: &str,
    key: Option<&Bound<'_, PyAny>>,
) -> PyResult<bool> {
    let filter = response_filter(response, cashu_hash(hash, key)?)?;
    with_bytes(item, "an item", |b| filter.contains(b))?.py()
}

/// The draft's bulk table: the chance ``(1 - 1/m) ** queries`` that ``queries`` lookups of
/// items not in the filter all come back negative.
#[pyfunction]
#[pyo3(signature = (queries, m = DEFAULT_M))]
fn bulk_all_negative(queries: u64, m: u64) -> PyResult<f64> {
    if m == 0 {
        return Err(value_error("m must be at least 1"));
    }
    Ok(cashu::bulk_all_negative(m, queries))
}

/// The draft's ``hash_to_range``: the item's 64-bit hash mapped to ``[0, f)`` as
/// ``(f * h) >> 64``.
#[pyfunction]
#[pyo3(signature = (item, f, hash = "murmur3-128", key = None))]
fn hash_to_range(
    item: &Bound<'_, PyAny>,
    f: u64,
    hash: &str,
    key: Option<&Bound<'_, PyAny>>,
) -> PyResult<u64> {
    let h = cashu_hash(hash, key)?;
    with_bytes(item, "an item", |b| amq::gcs::hash_to_range(h.hash(b), f))
}

/// The `amq.cashu` module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(match_items, m)?)?;
    m.add_function(wrap_pyfunction!(contains, m)?)?;
    m.add_function(wrap_pyfunction!(bulk_all_negative, m)?)?;
    m.add_function(wrap_pyfunction!(hash_to_range, m)?)?;
    m.add("DEFAULT_P", DEFAULT_P)?;
    m.add("DEFAULT_M", DEFAULT_M)?;
    crate::cashu_state::register(m)
}
