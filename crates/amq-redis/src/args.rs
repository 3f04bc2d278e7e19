//! Reading command arguments as Redis reads them: integers and doubles with Redis's own
//! parsers (`RedisModule_StringToLongLong`, `RedisModule_StringToDouble`), keywords without
//! regard to case.

use redis_module::RedisString;

/// The argument as an integer, as Redis parses one.
pub fn int(s: &RedisString) -> Option<i64> {
    s.parse_integer().ok()
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
