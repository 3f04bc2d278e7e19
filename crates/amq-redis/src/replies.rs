//! Replies that RESP2 and RESP3 see differently, written once: Redis turns a boolean into the
//! integer 1 or 0, a map into a flat array of pairs, a double into a bulk string and a null
//! into a nil bulk for a RESP2 client (RedisBloom replies the same way:
//! <https://redis.io/docs/latest/commands/bf.info/>).

use redis_module::{raw, Context, RedisResult, RedisValue};
use serde_json::Value;

/// A map whose pairs keep their order (RedisBloom's `BF.INFO` order, not a sorted one):
/// written straight to the client, so the command returns [`RedisValue::NoReply`].
pub fn ordered_map(ctx: &Context, pairs: Vec<(&str, RedisValue)>) -> RedisResult {
    raw::reply_with_map(ctx.get_raw(), pairs.len() as std::os::raw::c_long);
    for (k, v) in pairs {
        ctx.reply(Ok(RedisValue::SimpleString(k.to_owned())));
        ctx.reply(Ok(v));
    }
    Ok(RedisValue::NoReply)
}

/// A JSON value (the library's serialised `Info`, `Plan`, `Spec`) as a reply: objects become
/// maps in their field order, integers integers, other numbers doubles, strings bulk strings.
pub fn json(ctx: &Context, v: &Value) -> RedisResult {
    write_json(ctx, v);
    Ok(RedisValue::NoReply)
}

fn write_json(ctx: &Context, v: &Value) {
    match v {
        Value::Object(map) => {
            raw::reply_with_map(ctx.get_raw(), map.len() as std::os::raw::c_long);
            for (k, v) in map {
                ctx.reply(Ok(RedisValue::SimpleString(printable(k))));
                write_json(ctx, v);
            }
        }
        Value::Array(items) => {
            raw::reply_with_array(ctx.get_raw(), items.len() as std::os::raw::c_long);
            for item in items {
                write_json(ctx, item);
            }
        }
        other => {
            ctx.reply(Ok(scalar(other)));
        }
    }
}

/// A JSON scalar as a reply value.
fn scalar(v: &Value) -> RedisValue {
    match v {
        Value::Null => RedisValue::Null,
        Value::Bool(b) => RedisValue::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => RedisValue::Integer(i),
            // above a RESP integer's range (a seed): its decimal digits, not a clamped value
            (None, Some(u), _) => RedisValue::BulkString(u.to_string()),
            (_, _, Some(f)) => RedisValue::Float(f),
            _ => RedisValue::Null,
        },
        Value::String(s) => RedisValue::BulkString(s.clone()),
        Value::Array(_) | Value::Object(_) => RedisValue::Null,
    }
}

/// A field name as a simple string: no CR, LF or NUL.
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A boolean ("maybe present", "newly added").
pub fn boolean(b: bool) -> RedisValue {
    RedisValue::Bool(b)
}

/// An unsigned count as an integer reply (saturating at `i64::MAX`).
pub fn count(n: u64) -> RedisValue {
    RedisValue::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}
