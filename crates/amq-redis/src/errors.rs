//! Error replies: RedisBloom's strings where it has one for the case (its `src/rebloom.c`, and
//! the command reference <https://redis.io/docs/latest/commands/?group=bf>), amq's own, each
//! one line, for the rest.

use redis_module::RedisError;

/// A key that is missing where one must exist.
pub const NOT_FOUND: &str = "ERR not found";
/// `CF.DEL` on a missing key.
pub const CF_DEL_NOT_FOUND: &str = "Not found";
/// A key that exists where a new one is created.
pub const ITEM_EXISTS: &str = "ERR item exists";
/// A key of another type, or of a filter of another family.
pub const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";

/// `BF.RESERVE`: the error rate is not a number.
pub const BAD_ERROR_RATE: &str = "ERR bad error rate";
/// `BF.RESERVE`: the error rate is outside (0, 1). (The trailing space is RedisBloom's.)
pub const ERROR_RATE_RANGE: &str = "ERR (0 < error rate range < 1) ";
/// `BF.RESERVE`: the capacity is not an integer.
pub const BAD_CAPACITY: &str = "ERR bad capacity";
/// `BF.RESERVE`: the capacity is below 1.
pub const CAPACITY_RANGE: &str = "ERR (capacity should be larger than 0)";
/// `BF.RESERVE`: `EXPANSION` is the last argument.
pub const NO_EXPANSION: &str = "ERR no expansion";
/// `BF.RESERVE`: the expansion is not an integer.
pub const BAD_EXPANSION: &str = "ERR bad expansion";
/// `BF.RESERVE`: the expansion is below 1.
pub const EXPANSION_RANGE: &str = "ERR expansion should be greater or equal to 1";
/// `BF.RESERVE`: `EXPANSION` with `NONSCALING`.
pub const NONSCALING_EXPANSION: &str = "Nonscaling filters cannot expand";
/// A Bloom filter that does not scale is full.
pub const NONSCALING_FULL: &str = "ERR non scaling filter is full";
/// A chain that cannot add another link.
pub const MAX_EXPANSIONS: &str = "Maximum expansions reached";

/// `BF.INSERT`: the `ERROR` value is not a number.
pub const INSERT_BAD_ERROR_RATE: &str = "Bad error rate";
/// `BF.INSERT`: the `EXPANSION` value is not an integer.
pub const INSERT_BAD_EXPANSION: &str = "Bad expansion";
/// `BF.INSERT`, `CF.INSERT`, `CF.RESERVE`: the capacity is not an integer.
pub const INSERT_BAD_CAPACITY: &str = "Bad capacity";
/// `BF.INSERT`, `CF.INSERT`: an option it does not know.
pub const UNKNOWN_ARGUMENT: &str = "Unknown argument received";
/// `BF.INSERT`: a value out of range.
pub const BAD_ARGUMENT: &str = "Bad argument received";

/// `BF.INFO`: a field it does not know.
pub const INVALID_INFO: &str = "Invalid information value";
/// `BF.SCANDUMP`: the iterator is not an integer.
pub const SCANDUMP_ITERATOR: &str = "Second argument must be numeric";
/// `BF.LOADCHUNK`: the iterator is not an integer.
pub const LOADCHUNK_ITERATOR: &str = "ERR Second argument must be numeric";
/// `CF.SCANDUMP`, `CF.LOADCHUNK`: the iterator is not an integer (or 0 for a load).
pub const INVALID_POSITION: &str = "Invalid position";

/// `CF.RESERVE` option errors.
pub const PARSE_MAXITERATIONS: &str = "Couldn't parse MAXITERATIONS";
/// `CF.RESERVE`: `MAXITERATIONS` below 1.
pub const MAXITERATIONS_RANGE: &str = "MAXITERATIONS parameter needs to be a positive integer";
/// `CF.RESERVE`: `BUCKETSIZE` is not an integer.
pub const PARSE_BUCKETSIZE: &str = "Couldn't parse BUCKETSIZE";
/// `CF.RESERVE`: `BUCKETSIZE` below 1.
pub const BUCKETSIZE_RANGE: &str = "BUCKETSIZE parameter needs to be a positive integer";
/// `CF.RESERVE`: a bucket size amq's cuckoo filter does not have (amq's own).
pub const BUCKETSIZE_FOUR: &str =
    "ERR BUCKETSIZE must be 4: amq's cuckoo filter has 4 slots per bucket";
/// `CF.RESERVE`: `EXPANSION` is not an integer.
pub const PARSE_EXPANSION: &str = "Couldn't parse EXPANSION";
/// `CF.RESERVE`: `EXPANSION` below 0.
pub const CF_EXPANSION_RANGE: &str = "EXPANSION parameter needs to be a non-negative integer";
/// `CF.RESERVE`, `CF.INSERT`: a capacity below two buckets.
pub const CF_CAPACITY_RANGE: &str = "Capacity must be at least (BucketSize * 2)";
/// `CF.ADD`: the filter is full and does not grow.
pub const FILTER_FULL: &str = "Filter is full";

/// amq's own: a `TIGHTENING` value that is not a number in (0, 1).
pub const BAD_TIGHTENING: &str = "ERR TIGHTENING must be a number strictly between 0 and 1";
/// amq's own: an option value out of its range.
pub const MAXITERATIONS_TOO_MANY: &str = "ERR MAXITERATIONS must be at most 65535";
/// amq's own: `CF.DEL`/`AMQ.DEL` of an item the filter says is definitely absent.
pub const NOT_DELETED: &str =
    "ERR not deleted: the item is definitely absent, and deleting it could remove another item";
/// amq's own: a key being loaded by `*.LOADCHUNK`.
pub const LOADING: &str = "ERR the filter is still being loaded (LOADCHUNK)";
/// amq's own: `AMQ.RESTORE` onto an existing key without `REPLACE` (Redis's `RESTORE` string).
pub const BUSYKEY: &str = "BUSYKEY Target key name already exists.";
/// amq's own: an item an array reply could not add (a library error; its text is in the
/// server log of the single-item command).
pub const NOT_ADDED: &str = "ERR the item could not be added";
/// amq's own: `AMQ.ADD` to a filter that is full and does not grow.
pub const FULL: &str = "ERR the filter is full and does not grow";
/// amq's own: `AMQ.ADD` to a chain that may not add another link.
pub const NO_MORE_LINKS: &str =
    "ERR the filter is full: its chain may not add another link (its most links, or the next \
     link's false-positive rate cannot be met)";
/// amq's own: the memory limit, inside an array reply.
pub const TOO_BIG: &str = "ERR the filter would go over amq.max-filter-bytes";
/// amq's own: an `EXPANSION` beyond the library's 32-bit growth factor.
pub const EXPANSION_TOO_LARGE: &str = "ERR EXPANSION must be at most 4294967295";
/// amq's own: a syntax error in an amq option list.
pub const SYNTAX: &str = "ERR syntax error";

/// An error reply from any text: `ERR ` and the text on one line, in ASCII: NUL, CR and LF
/// become spaces (the library's messages never hold them, this makes sure), the library's
/// mathematical signs their ASCII spelling (`ε` is `fpr`, `≤` is `<=`), and any other
/// character beyond ASCII (an item's or a key's text) its escape, `\u{e9}`. An error reply
/// is a simple string of bytes, and redis-module keeps only the low byte of each character.
pub fn err(text: impl AsRef<str>) -> RedisError {
    RedisError::String(format!("ERR {}", ascii(text.as_ref())))
}

/// `text` in ASCII on one line, as [`err`] sends it.
fn ascii(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\0' | '\r' | '\n' => out.push(' '),
            ' '..='~' | '\t' => out.push(c),
            'ε' => out.push_str("fpr"),
            '≤' => out.push_str("<="),
            '≥' => out.push_str(">="),
            '≈' => out.push('~'),
            '·' | '×' => out.push('*'),
            '−' | '–' => out.push('-'),
            '√' => out.push_str("sqrt"),
            _ => out.extend(c.escape_unicode()),
        }
    }
    out
}

/// The reply for a library error.
pub fn lib(e: &amq::Error) -> RedisError {
    err(e.to_string())
}

/// The reply for a filter that would go over the memory limit.
pub fn too_big(bytes: u64, limit: u64) -> RedisError {
    err(format!(
        "the filter would take {bytes} bytes, over amq.max-filter-bytes ({limit})"
    ))
}

/// A static string as an error reply.
pub fn e(s: &'static str) -> RedisError {
    RedisError::Str(s)
}

#[cfg(test)]
mod tests {
    use super::ascii;

    #[test]
    fn error_text_is_ascii_on_one_line() {
        assert_eq!(
            ascii("16-bit fingerprints (ε ≥ 8/65536 ≈ 1.22e-4)"),
            "16-bit fingerprints (fpr >= 8/65536 ~ 1.22e-4)"
        );
        assert_eq!(ascii("s ≤ 3, tick · 2^s − 1"), "s <= 3, tick * 2^s - 1");
        assert_eq!(
            ascii("item \"café\"\r\nnext\0"),
            "item \"caf\\u{e9}\"  next "
        );
        assert!(ascii("日本 ∑ 😀").is_ascii());
    }

    /// The square root sign is spelled `sqrt`, as the other mathematical signs have their
    /// ASCII spelling, not escaped as another character beyond ASCII is. Written against
    /// errors.rs:126 (that match arm deleted: `\u{221a}`), missed.
    #[test]
    fn the_square_root_sign_is_spelled_out() {
        assert_eq!(ascii("ε ≈ 1/√n"), "fpr ~ 1/sqrtn");
    }
}
