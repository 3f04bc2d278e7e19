//! `BF.SCANDUMP`/`BF.LOADCHUNK`, `CF.SCANDUMP`/`CF.LOADCHUNK` and `AMQ.SCANDUMP`/
//! `AMQ.LOADCHUNK`: a filter moved in chunks of its `.amq` bytes, with RedisBloom's iterator
//! convention (<https://redis.io/docs/latest/commands/bf.scandump/>): iterator 0 gives a
//! header chunk with iterator 1, each later call gives the next chunk with the iterator to
//! load it with and to ask for the one after, and iterator 0 with no data ends the walk.
//! The chunks are amq's, not RedisBloom's: a dump moves between amq servers only.

use crate::access::{self, Family, Slot};
use crate::args::int;
use crate::errors::{self, e};
use crate::ops;
use crate::stored::{self, Loaded, State, Stored};
use redis_module::{Context, RedisError, RedisResult, RedisString, RedisValue};

/// The iterator argument's error for a family.
fn bad_iterator(family: Family, load: bool) -> RedisError {
    match (family, load) {
        (Family::Cuckoo, _) => e(errors::INVALID_POSITION),
        (_, false) => e(errors::SCANDUMP_ITERATOR),
        (_, true) => e(errors::LOADCHUNK_ITERATOR),
    }
}

/// `*.SCANDUMP key iterator`.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn scandump(ctx: &Context, args: Vec<RedisString>, family: Family) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let it = int(&args[2]);
    if family == Family::Cuckoo && it.is_none() {
        return Err(bad_iterator(family, false));
    }
    access::read(ctx, &args[1], |v| {
        let s = v.ok_or(e(errors::NOT_FOUND))?;
        let f = access::filter(s, family)?;
        let it = it.ok_or_else(|| bad_iterator(family, false))?;
        let mut walks = s.dump.borrow_mut();
        if it == 0 {
            let amq = walks.begin(|| f.to_bytes());
            let (next, header) = stored::scan(f.kind(), amq, 0);
            return Ok(RedisValue::Array(vec![
                RedisValue::Integer(next),
                RedisValue::StringBuffer(header),
            ]));
        }
        // a write since iterator 0 dropped the bytes: the walk cannot go on over others
        let amq = walks.bytes().ok_or(e(stored::WALK_GONE))?;
        let (next, chunk) = stored::scan(f.kind(), amq, it);
        if next == 0 {
            walks.end();
            let end = if family == Family::Cuckoo {
                RedisValue::Null
            } else {
                RedisValue::StringBuffer(Vec::new())
            };
            return Ok(RedisValue::Array(vec![RedisValue::Integer(0), end]));
        }
        Ok(RedisValue::Array(vec![
            RedisValue::Integer(next),
            RedisValue::StringBuffer(chunk),
        ]))
    })
}

/// `*.LOADCHUNK key iterator data`: iterator 1 with the header creates the key (which must
/// not exist); each later chunk must be the next one; the last one turns the key into the
/// filter, checked as `AMQ.RESTORE` checks bytes (a key whose bytes do not decode is deleted).
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn loadchunk(ctx: &Context, args: Vec<RedisString>, family: Family) -> RedisResult {
    if args.len() != 4 {
        return Err(RedisError::WrongArity);
    }
    let it = int(&args[2])
        .filter(|&it| family != Family::Cuckoo || it != 0)
        .ok_or_else(|| bad_iterator(family, true))?;
    let data = args[3].as_slice();
    let slot = Slot::open(ctx, &args[1]);
    let refused = |r: stored::Refused| errors::err(r.0);
    match slot.value()? {
        None if it == 1 => {
            let (kind, total) = stored::read_dump_header(data).map_err(refused)?;
            if !family.accepts(kind) {
                return Err(errors::err(format!(
                    "received bad data (the dump holds a filter of kind {}, which these \
                     commands do not take)",
                    kind.name()
                )));
            }
            ops::check_size(ctx, total)?;
            slot.set(Stored {
                state: State::Loading {
                    kind,
                    total,
                    bytes: Vec::new(),
                },
                dump: Default::default(),
            })?;
        }
        None => return Err(e(errors::NOT_FOUND)),
        // a filter of the other family is another type (RedisBloom's WRONGTYPE)
        Some(s) if !family.accepts(s.kind()) => return Err(e(errors::WRONGTYPE)),
        Some(_) if it == 1 => return Err(e(errors::ITEM_EXISTS)),
        Some(s) => {
            let done = match &mut s.state {
                State::Ready(_) => {
                    return Err(errors::err("the filter is loaded already"));
                }
                State::Loading { kind, total, bytes } => {
                    // a load begun by RESTORE (or under a higher limit) is held to the
                    // limit as one begun by the header chunk is
                    ops::check_size(ctx, *total)?;
                    match stored::load_chunk(*kind, *total, bytes, it, data) {
                        Ok(Loaded::Partial) => None,
                        Ok(Loaded::Done(f)) => Some(Ok(*f)),
                        Err(r) if bytes.len() as u64 >= *total => Some(Err(r)),
                        Err(r) => return Err(refused(r)),
                    }
                }
            };
            match done {
                None => {}
                Some(Ok(f)) => s.state = State::Ready(Box::new(f)),
                Some(Err(r)) => {
                    slot.delete()?;
                    ctx.replicate_verbatim();
                    return Err(errors::err(format!("{r}; the key was deleted")));
                }
            }
        }
    }
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}
