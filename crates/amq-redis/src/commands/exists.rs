//! `*.EXISTS` and `*.MEXISTS`, the same for the `BF` and `CF` families: "maybe present" (1)
//! or "definitely absent" (0), 0 for a missing key.

use crate::access::{read_filter, Family};
use crate::replies::boolean;
use redis_module::{Context, RedisError, RedisResult, RedisString, RedisValue};

/// `exists key item` on a filter of `family`.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn exists(ctx: &Context, args: Vec<RedisString>, family: Family) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    read_filter(ctx, &args[1], family, |f| {
        Ok(boolean(f.is_some_and(|f| {
            f.contains(args[2].as_slice()).unwrap_or(false)
        })))
    })
}

/// `mexists key item [item ...]` on a filter of `family`: [`exists`](fn@exists) for each item.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn mexists(ctx: &Context, args: Vec<RedisString>, family: Family) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    read_filter(ctx, &args[1], family, |f| {
        Ok(RedisValue::Array(
            args[2..]
                .iter()
                .map(|i| boolean(f.is_some_and(|f| f.contains(i.as_slice()).unwrap_or(false))))
                .collect(),
        ))
    })
}
