//! `AMQ.*`: what RedisBloom does not have, over the same keys. The planner, every `.amq`
//! kind (the blocked Bloom filter, the aging filter with per-item expiry in seconds, the
//! negative cache, the sliding window...), union, and the filter moved as its `.amq` bytes,
//! byte-identical to the command line's files.

use super::{chunks, spec};
use crate::access::{self, filter_mut, read, Family, Slot};
use crate::args::{is, unsigned};
use crate::errors::{self, e};
use crate::ops;
use crate::replies::{boolean, json};
use crate::stored::{State, Stored};
use amq::math::plan;
use amq::{AnyFilter, At};
use redis_module::{Context, RedisError, RedisResult, RedisString, RedisValue};

/// `AMQ.PLAN <kind> [options]`: the planner's [`Plan`](amq::math::Plan), as `amq plan --json`
/// prints it, without creating anything.
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, the library's errors.
pub fn plan_cmd(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 2 {
        return Err(RedisError::WrongArity);
    }
    let (s, _) = spec::parse(&args[1..])?;
    let p = plan(&s).map_err(|e| errors::lib(&e))?;
    json(
        ctx,
        &serde_json::to_value(&p).map_err(|e| errors::err(e.to_string()))?,
    )
}

/// `AMQ.RESERVE key <kind> [options]`: an empty filter of any kind, as planned.
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, the library's errors.
pub fn reserve(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    let (s, seed) = spec::parse(&args[2..])?;
    let slot = Slot::open(ctx, &args[1]);
    if slot.value()?.is_some() {
        return Err(e(errors::ITEM_EXISTS));
    }
    let p = plan(&s).map_err(|e| errors::lib(&e))?;
    ops::check_size(ctx, p.bytes)?;
    let f = AnyFilter::new(&s, seed).map_err(|e| errors::lib(&e))?;
    slot.set(Stored::ready(f))?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `AMQ.ADD key item [item ...]`: for each item, `true` if it was new (a sliding-window Bloom
/// filter replies the position it gave the item, a sliding-window cuckoo filter the epoch it
/// registered the member in). An aging filter, a negative cache and a TTL cuckoo filter stamp
/// the items with the server's time, and the command is replicated as `AMQ.ADDAT` with that
/// time, so replicas and the AOF hold the same bits. Other kinds replicate it as it came;
/// an insert refused part-way replicates as `AMQ.ADDAT` of the items added.
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, the library's errors.
pub fn add(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    add_at(ctx, &args[1], Time::Now(access::now()), &args[2..])
}

/// `AMQ.ADDAT key unix-seconds item [item ...]`: [`add`] at a given time (what `AMQ.ADD`
/// replicates as).
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, the library's errors.
pub fn addat(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 4 {
        return Err(RedisError::WrongArity);
    }
    let t = unsigned(&args[2])
        .ok_or_else(|| errors::err("the time must be unsigned seconds since the Unix epoch"))?;
    add_at(ctx, &args[1], Time::Given(t), &args[3..])
}

/// The time of a write: the server's clock (`AMQ.ADD`, `AMQ.DEL`) or the one the command
/// gives (`AMQ.ADDAT`, `AMQ.DELAT`, what the former replicate as).
#[derive(Clone, Copy)]
enum Time {
    Now(u64),
    Given(u64),
}

impl Time {
    fn seconds(self) -> u64 {
        match self {
            Time::Now(t) | Time::Given(t) => t,
        }
    }

    /// `true` if replicas and the AOF may take the command as it came: it gives its time,
    /// or the filter does not read one.
    fn verbatim(self, f: &AnyFilter) -> bool {
        matches!(self, Time::Given(_)) || !f.reads_clock()
    }
}

fn add_at(ctx: &Context, key: &RedisString, time: Time, items: &[RedisString]) -> RedisResult {
    let slot = Slot::open(ctx, key);
    let f = filter_mut(slot.value()?.ok_or(e(errors::NOT_FOUND))?, Family::Any)?;
    let t = time.seconds();
    f.set_now(t);
    let mut out = Vec::with_capacity(items.len());
    let mut refused = None;
    for item in items {
        match ops::insert_placed(ctx, f, item.as_slice()) {
            Ok(placed) => out.push(match placed.at {
                Some(At::Position(n) | At::Epoch(n)) => {
                    RedisValue::Integer(i64::try_from(n).unwrap_or(i64::MAX))
                }
                None => boolean(placed.new),
            }),
            Err(r) => {
                refused = Some(r);
                break;
            }
        }
    }
    if refused.is_none() && time.verbatim(f) {
        // (the cheap way: rebuilding the command cost a third of AMQ.ADD's throughput)
        ctx.replicate_verbatim();
    } else if !out.is_empty() {
        replicate_at(ctx, "AMQ.ADDAT", key, t, &items[..out.len()]);
    }
    match refused {
        Some(r) if out.is_empty() => Err(r.amq()),
        Some(r) => {
            out.push(RedisValue::StaticError(r.amq_in_array()));
            Ok(RedisValue::Array(out))
        }
        None => Ok(RedisValue::Array(out)),
    }
}

/// Replicates `command key t items...`.
fn replicate_at(ctx: &Context, command: &str, key: &RedisString, t: u64, items: &[RedisString]) {
    let t = t.to_string();
    let mut argv: Vec<&[u8]> = vec![key.as_slice(), t.as_bytes()];
    argv.extend(items.iter().map(RedisString::as_slice));
    ctx.replicate(command, argv.as_slice());
}

/// `AMQ.EXISTS key item [item ...]`, `AMQ.EXISTS key POSITION p item [item ...]` for a
/// sliding-window Bloom filter, `AMQ.EXISTS key EPOCH e item [item ...]` for a sliding-window
/// cuckoo filter: for each item, "maybe present" (`true`) or "definitely absent"; a negative
/// cache answers the other way round, "definitely present" (`true`) or "maybe absent". A
/// missing key answers `false`. (`POSITION` and `EPOCH` are read as such only for the kind
/// that takes them: for any other kind they are items.)
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, the library's errors.
pub fn exists(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    access::read_filter(ctx, &args[1], Family::Any, |f| {
        let Some(f) = f else {
            return Ok(RedisValue::Array(vec![boolean(false); args.len() - 2]));
        };
        let answers = match placed_at(f, &args[2..])? {
            Some(at) => ops::exists_at(f, &args[4..], at)?,
            None => args[2..]
                .iter()
                .map(|i| ops::exists(f, i.as_slice()).map_err(|e| with_hint(f, e, false)))
                .collect::<Result<Vec<_>, _>>()?,
        };
        Ok(RedisValue::Array(
            answers.into_iter().map(boolean).collect(),
        ))
    })
}

/// `POSITION p` (a sliding-window Bloom filter) or `EPOCH e` (a sliding-window cuckoo
/// filter) at the start of `rest`, read only for the kind that takes it and only when an item
/// follows.
fn placed_at(f: &AnyFilter, rest: &[RedisString]) -> Result<Option<At>, RedisError> {
    let (word, make): (&str, fn(u64) -> At) = match f {
        AnyFilter::SlidingWindowBloom(_) => ("POSITION", At::Position),
        AnyFilter::SlidingWindowCuckoo(_) => ("EPOCH", At::Epoch),
        _ => return Ok(None),
    };
    if rest.len() < 3 || !is(&rest[0], word) {
        return Ok(None);
    }
    let n = unsigned(&rest[1])
        .ok_or_else(|| errors::err(format!("{word} needs an unsigned integer")))?;
    Ok(Some(make(n)))
}

/// A sliding-window kind's refusal to answer (`deleting`: to delete) by item alone, with the
/// command that asks it (slashes the member) at its position or epoch; other refusals as
/// they are.
fn with_hint(f: &AnyFilter, e: RedisError, deleting: bool) -> RedisError {
    let command = match (f, deleting) {
        (AnyFilter::SlidingWindowBloom(_), false) => "AMQ.EXISTS key POSITION p item",
        (AnyFilter::SlidingWindowCuckoo(_), false) => "AMQ.EXISTS key EPOCH e item",
        (AnyFilter::SlidingWindowCuckoo(_), true) => "AMQ.DEL key EPOCH e item",
        _ => return e,
    };
    match e {
        RedisError::String(s) => RedisError::String(format!("{s}; use {command}")),
        e => e,
    }
}

/// `AMQ.DEL key item`: removes one copy from a filter that deletes (the cuckoo filters, the
/// negative cache); an item it says is definitely absent is refused and nothing changes.
/// Replicated as `AMQ.DELAT` with the server's time for the kinds that read a clock (the TTL
/// cuckoo filter, the negative cache), as it is for others. `AMQ.DEL key EPOCH e item` slashes a
/// member of a sliding-window cuckoo filter at its epoch (replicated as it is).
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, the library's errors.
pub fn del(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() == 5 && is(&args[2], "EPOCH") {
        return slash(ctx, &args[1], &args[3], &args[4]);
    }
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    del_at(ctx, &args[1], Time::Now(access::now()), &args[2])
}

fn slash(ctx: &Context, key: &RedisString, epoch: &RedisString, item: &RedisString) -> RedisResult {
    let epoch = unsigned(epoch).ok_or_else(|| errors::err("EPOCH needs an unsigned integer"))?;
    let slot = Slot::open(ctx, key);
    let f = filter_mut(slot.value()?.ok_or(e(errors::NOT_FOUND))?, Family::Any)?;
    match f.remove_at(item.as_slice(), At::Epoch(epoch)) {
        Ok(true) => {
            ctx.replicate_verbatim();
            Ok(boolean(true))
        }
        Ok(false) => Err(e(errors::NOT_DELETED)),
        Err(err) => Err(errors::lib(&err)),
    }
}

/// `AMQ.CLOSE key`: ends a sliding-window cuckoo filter's open epoch early (the next
/// registration opens a new one); replies the epoch closed, or nil if none was open (nothing
/// changed, nothing replicated).
///
/// # Errors
/// `ERR not found`, `WRONGTYPE`, the library's error for a kind without epochs.
pub fn close(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    let slot = Slot::open(ctx, &args[1]);
    let f = filter_mut(slot.value()?.ok_or(e(errors::NOT_FOUND))?, Family::Any)?;
    match f.close_epoch().map_err(|err| errors::lib(&err))? {
        Some(epoch) => {
            ctx.replicate_verbatim();
            Ok(RedisValue::Integer(
                i64::try_from(epoch).unwrap_or(i64::MAX),
            ))
        }
        None => Ok(RedisValue::Null),
    }
}

/// `AMQ.DELAT key unix-seconds item`: [`del`] at a given time.
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, the library's errors.
pub fn delat(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 4 {
        return Err(RedisError::WrongArity);
    }
    let t = unsigned(&args[2])
        .ok_or_else(|| errors::err("the time must be unsigned seconds since the Unix epoch"))?;
    del_at(ctx, &args[1], Time::Given(t), &args[3])
}

fn del_at(ctx: &Context, key: &RedisString, time: Time, item: &RedisString) -> RedisResult {
    let slot = Slot::open(ctx, key);
    let f = filter_mut(slot.value()?.ok_or(e(errors::NOT_FOUND))?, Family::Any)?;
    let t = time.seconds();
    f.set_now(t);
    match f.remove(item.as_slice()) {
        Ok(true) => {
            if time.verbatim(f) {
                ctx.replicate_verbatim();
            } else {
                replicate_at(ctx, "AMQ.DELAT", key, t, std::slice::from_ref(item));
            }
            Ok(boolean(true))
        }
        Ok(false) => Err(e(errors::NOT_DELETED)),
        Err(err) => Err(with_hint(f, errors::lib(&err), true)),
    }
}

/// `AMQ.MERGE destination source [source ...]`: the union of the sources into the
/// destination (created as a copy of the first source if missing). Every filter must be of
/// the same kind and shape; nothing changes on any error. Each key is named once: an existing
/// destination is in the union already, and a filter merged with itself is not its union.
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, a key given twice, the
/// library's errors.
pub fn merge(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    // a filter merged with itself is not the union: a cuckoo filter would hold each
    // fingerprint twice, a Bloom filter count its items twice (the CLI and the server refuse
    // it too); an existing destination is already in the union
    for (i, key) in args.iter().enumerate().skip(2) {
        if args[1..i].iter().any(|k| k.as_slice() == key.as_slice()) {
            return Err(errors::err(format!(
                "{:?} is given twice: a filter cannot be merged with itself",
                String::from_utf8_lossy(key.as_slice())
            )));
        }
    }
    let mut sources = Vec::with_capacity(args.len() - 2);
    for key in &args[2..] {
        let f = access::read_filter(ctx, key, Family::Any, |f| {
            f.cloned().ok_or(e(errors::NOT_FOUND))
        })?;
        sources.push(f);
    }
    let slot = Slot::open(ctx, &args[1]);
    let mut merged = match slot.value()? {
        Some(s) => access::filter(s, Family::Any)?.clone(),
        None => sources.remove(0),
    };
    for s in &sources {
        merged.merge(s).map_err(|e| errors::lib(&e))?;
    }
    ops::check_size(ctx, merged.size_bytes())?;
    match slot.value()? {
        Some(s) => {
            s.touched();
            s.state = State::Ready(Box::new(merged));
        }
        None => slot.set(Stored::ready(merged))?,
    }
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `AMQ.DUMP key`: the filter's `.amq` bytes, as `amq build` writes them.
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, the library's errors.
pub fn dump(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    read(ctx, &args[1], |v| {
        let s = v.ok_or(e(errors::NOT_FOUND))?;
        Ok(RedisValue::StringBuffer(
            access::filter(s, Family::Any)?.to_bytes(),
        ))
    })
}

/// `AMQ.RESTORE key bytes [REPLACE]`: a filter from `.amq` bytes of any kind, checked as
/// every decoder checks them (a length it reads is never trusted). `REPLACE` may also come
/// before the bytes, as `redis-cli -x AMQ.RESTORE key REPLACE < f.amq` sends it (`-x` puts
/// stdin last); no `.amq` file is the word `REPLACE`, so the two orders cannot be confused.
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, the library's errors.
pub fn restore(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    let (bytes, replace) = match args.len() {
        3 => (&args[2], false),
        4 if is(&args[3], "REPLACE") => (&args[2], true),
        4 if is(&args[2], "REPLACE") => (&args[3], true),
        4 => return Err(e(errors::SYNTAX)),
        _ => return Err(RedisError::WrongArity),
    };
    let f = AnyFilter::from_bytes(bytes.as_slice()).map_err(|e| errors::lib(&e))?;
    ops::check_size(ctx, f.size_bytes())?;
    let slot = Slot::open(ctx, &args[1]);
    if slot.exists() && !replace {
        return Err(e(errors::BUSYKEY));
    }
    if slot.exists() {
        slot.delete()?;
    }
    slot.set(Stored::ready(f))?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `AMQ.INFO key`: the library's [`Info`](amq::Info), as `amq info --json` prints it (the
/// aging filter and the negative cache as of now).
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, the library's errors.
pub fn info(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    read(ctx, &args[1], |v| {
        let s = v.ok_or(e(errors::NOT_FOUND))?;
        let i = access::filter(s, Family::Any)?.info();
        json(
            ctx,
            &serde_json::to_value(&i).map_err(|e| errors::err(e.to_string()))?,
        )
    })
}

/// `AMQ.SCANDUMP key iterator`: any kind in chunks ([`chunks::scandump`]).
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, the library's errors.
pub fn scandump(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    chunks::scandump(ctx, args, Family::Any)
}

/// `AMQ.LOADCHUNK key iterator data`: any kind from chunks (what the AOF rewrite emits).
///
/// # Errors
/// The command's error replies: `ERR not found`, `WRONGTYPE`, the library's errors.
pub fn loadchunk(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    chunks::loadchunk(ctx, args, Family::Any)
}
