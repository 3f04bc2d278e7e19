//! Reading command arguments as Redis reads them: integers and doubles with Redis's own
//! parsers (`RedisModule_StringToLongLong`, `RedisModule_StringToDouble`), keywords without
//! regard to case.

use redis_module::RedisString;

/// The argument as an integer, as Redis parses one.
pub fn int(s: &RedisString) -> Option<i64> {
    s.parse_integer().ok()
}

/// The argument as an unsigned 64-bit integer in decimal, all of its range (Redis's
/// `parse_unsigned_integer` reads through a signed integer and refuses 2^63 and above).
pub fn unsigned(s: &RedisString) -> Option<u64> {
    let text = std::str::from_utf8(s.as_slice()).ok()?;
    text.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| text.parse().ok())
        .flatten()
}

/// The argument as a double, as Redis parses one (no NaN).
pub fn float(s: &RedisString) -> Option<f64> {
    s.parse_float().ok().filter(|f| !f.is_nan())
}

/// `true` if the argument is `keyword`, ignoring ASCII case.
pub fn is(s: &RedisString, keyword: &str) -> bool {
    s.as_slice().eq_ignore_ascii_case(keyword.as_bytes())
}

/// An error-rate value for a filter: a number strictly between 0 and 1.
pub fn in_unit_interval(x: f64) -> bool {
    x > 0.0 && x < 1.0
}
