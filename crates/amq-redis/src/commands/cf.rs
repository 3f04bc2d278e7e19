//! RedisBloom's `CF.*` commands over the expandable cuckoo filter (and a cuckoo filter
//! restored with `AMQ.RESTORE`): syntax, defaults, replies and error strings after
//! <https://redis.io/docs/latest/commands/?group=cf>. amq's cuckoo filter has 4 slots per
//! bucket: `BUCKETSIZE` other than 4 is refused.

use super::{chunks, exists};
use crate::access::{self, filter_mut, read, read_filter, Family, Slot};
use crate::args::{float, in_unit_interval, int, is};
use crate::errors::{self, e};
use crate::ops::{self, Refusal};
use crate::replies::{boolean, count, ordered_map};
use crate::stored::Stored;
use amq::cuckoo::{MAX_KICKS, SLOTS_PER_BUCKET};
use amq::math::{plan, Spec};
use amq::scalable::DEFAULT_TIGHTENING;
use amq::AnyFilter;
use redis_module::{Context, RedisError, RedisResult, RedisString, RedisValue};

/// Capacity of a filter that `CF.ADD` or `CF.INSERT` creates (RedisBloom's default).
pub const DEFAULT_CAPACITY: u64 = 1024;
/// ε of a cuckoo filter when none is given (amq's: RedisBloom's `CF.*` take none).
pub const DEFAULT_ERROR_RATE: f64 = 0.01;
/// RedisBloom's default `EXPANSION` for cuckoo filters.
pub const DEFAULT_EXPANSION: u32 = 1;
/// RedisBloom's default `MAXITERATIONS`.
pub const DEFAULT_MAX_ITERATIONS: u32 = 20;

/// How to create an expandable cuckoo filter: a typed request, planned with the library's
/// [`Spec::ExpandableCuckoo`].
#[derive(Debug, Clone, Copy)]
struct Create {
    capacity: u64,
    fpr: f64,
    expansion: u32,
    tightening: f64,
    max_kicks: u32,
}

impl Default for Create {
    fn default() -> Self {
        Create {
            capacity: DEFAULT_CAPACITY,
            fpr: DEFAULT_ERROR_RATE,
            expansion: DEFAULT_EXPANSION,
            tightening: DEFAULT_TIGHTENING,
            max_kicks: DEFAULT_MAX_ITERATIONS,
        }
    }
}

impl Create {
    fn store(&self, ctx: &Context, slot: &Slot) -> Result<(), RedisError> {
        let spec = Spec::ExpandableCuckoo {
            items: self.capacity,
            fpr: self.fpr,
            expansion: self.expansion,
            tightening: self.tightening,
            max_kicks: self.max_kicks,
        };
        let p = plan(&spec).map_err(|e| errors::lib(&e))?;
        ops::check_size(ctx, p.bytes)?;
        let f = AnyFilter::new(&spec, 0).map_err(|e| errors::lib(&e))?;
        slot.set(Stored::ready(f))
    }
}

/// The smallest capacity: two buckets (RedisBloom's `Capacity must be at least (BucketSize *
/// 2)`, with amq's 4 slots).
const MIN_CAPACITY: i64 = 2 * SLOTS_PER_BUCKET as i64;

/// `CF.RESERVE key capacity [BUCKETSIZE bucketsize] [MAXITERATIONS maxiterations]
/// [EXPANSION expansion]`, and amq's `[ERROR error] [TIGHTENING r]`.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn reserve(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 || args.len().is_multiple_of(2) {
        return Err(RedisError::WrongArity);
    }
    let capacity = int(&args[2]).ok_or(e(errors::INSERT_BAD_CAPACITY))?;
    let mut c = Create::default();
    for pair in args[3..].chunks_exact(2) {
        let (k, v) = (&pair[0], &pair[1]);
        if is(k, "MAXITERATIONS") {
            let m = int(v).ok_or(e(errors::PARSE_MAXITERATIONS))?;
            if m <= 0 {
                return Err(e(errors::MAXITERATIONS_RANGE));
            }
            c.max_kicks = u16::try_from(m)
                .map(u32::from)
                .map_err(|_| e(errors::MAXITERATIONS_TOO_MANY))?;
        } else if is(k, "BUCKETSIZE") {
            let b = int(v).ok_or(e(errors::PARSE_BUCKETSIZE))?;
            if b <= 0 {
                return Err(e(errors::BUCKETSIZE_RANGE));
            }
            if b != i64::from(SLOTS_PER_BUCKET) {
                return Err(e(errors::BUCKETSIZE_FOUR));
            }
        } else if is(k, "EXPANSION") {
            let x = int(v).ok_or(e(errors::PARSE_EXPANSION))?;
            if x < 0 {
                return Err(e(errors::CF_EXPANSION_RANGE));
            }
            c.expansion = u32::try_from(x).map_err(|_| e(errors::EXPANSION_TOO_LARGE))?;
        } else if is(k, "ERROR") {
            c.fpr = float(v).ok_or(e(errors::BAD_ERROR_RATE))?;
            if !in_unit_interval(c.fpr) {
                return Err(e(errors::ERROR_RATE_RANGE));
            }
        } else if is(k, "TIGHTENING") {
            c.tightening = float(v)
                .filter(|&r| in_unit_interval(r))
                .ok_or(e(errors::BAD_TIGHTENING))?;
        } else {
            return Err(e(errors::UNKNOWN_ARGUMENT));
        }
    }
    if capacity < MIN_CAPACITY {
        return Err(e(errors::CF_CAPACITY_RANGE));
    }
    c.capacity = capacity as u64;
    let slot = Slot::open(ctx, &args[1]);
    slot.vacant(Family::Cuckoo)?;
    c.store(ctx, &slot)?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `CF.ADD key item`: adds a copy, creating a default filter if the key is missing.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn add(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    add_one(ctx, args, false)
}

/// `CF.ADDNX key item`: adds the item unless it may be present already.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn addnx(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    add_one(ctx, args, true)
}

fn add_one(ctx: &Context, args: Vec<RedisString>, nx: bool) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let slot = Slot::open(ctx, &args[1]);
    let created = slot.value()?.is_none();
    if created {
        Create::default().store(ctx, &slot)?;
    }
    let f = filter_mut(slot.value()?.ok_or(e(errors::NOT_FOUND))?, Family::Cuckoo)?;
    let item = args[2].as_slice();
    let r = if nx {
        ops::insert_if_absent(ctx, f, item)
    } else {
        ops::insert(ctx, f, item)
    };
    if r.is_ok() {
        ctx.replicate_verbatim();
    } else if created {
        // the creation alone (see replicate_added)
        replicate_added(ctx, &args[1], Some(DEFAULT_CAPACITY), &[], nx);
    }
    match r {
        // RedisBloom's CF.ADD replies 1 for every copy it adds
        Ok(new) => Ok(boolean(new || !nx)),
        Err(refusal) => Err(refusal.cuckoo()),
    }
}

/// `CF.INSERT key [CAPACITY capacity] [NOCREATE] ITEMS item [item ...]`.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn insert(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    insert_many(ctx, args, false)
}

/// `CF.INSERTNX key [CAPACITY capacity] [NOCREATE] ITEMS item [item ...]`.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn insertnx(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    insert_many(ctx, args, true)
}

fn insert_many(ctx: &Context, args: Vec<RedisString>, nx: bool) -> RedisResult {
    if args.len() < 4 {
        return Err(RedisError::WrongArity);
    }
    let mut c = Create::default();
    let (mut create, mut at, mut i) = (true, None, 2);
    while i < args.len() && at.is_none() {
        let a = &args[i];
        if is(a, "CAPACITY") {
            let v = args.get(i + 1).ok_or(RedisError::WrongArity)?;
            let capacity = int(v).ok_or(e(errors::INSERT_BAD_CAPACITY))?;
            if capacity < MIN_CAPACITY {
                return Err(e(errors::CF_CAPACITY_RANGE));
            }
            c.capacity = capacity as u64;
            i += 2;
        } else if is(a, "ITEMS") {
            at = Some(i + 1);
        } else if is(a, "NOCREATE") {
            create = false;
            i += 1;
        } else {
            return Err(e(errors::UNKNOWN_ARGUMENT));
        }
    }
    let at = match at {
        Some(at) if at < args.len() => at,
        _ => return Err(RedisError::WrongArity),
    };
    let slot = Slot::open(ctx, &args[1]);
    let created = slot.value()?.is_none();
    if created {
        if !create {
            return Err(e(errors::NOT_FOUND));
        }
        c.store(ctx, &slot)?;
    }
    let f = filter_mut(slot.value()?.ok_or(e(errors::NOT_FOUND))?, Family::Cuckoo)?;
    let mut out = Vec::with_capacity(args.len() - at);
    let mut changed = created;
    // the items inserted, if some were refused for the memory limit
    let (mut added, mut too_big) = (Vec::new(), false);
    for item in &args[at..] {
        let r = if nx {
            ops::insert_if_absent(ctx, f, item.as_slice())
        } else {
            ops::insert(ctx, f, item.as_slice())
        };
        changed |= matches!(r, Ok(true)) || (r.is_ok() && !nx);
        match r {
            Ok(_) => added.push(item.as_slice()),
            Err(Refusal::TooBig(_)) => too_big = true,
            Err(_) => {}
        }
        out.push(match r {
            // RESP3: booleans for CF.INSERT, integers for CF.INSERTNX (RedisBloom's replies)
            Ok(new) if nx => RedisValue::Integer(i64::from(new)),
            Ok(_) => boolean(true),
            Err(Refusal::Full | Refusal::MaxLinks) => RedisValue::Integer(-1),
            Err(Refusal::TooBig(_)) => RedisValue::StaticError(errors::TOO_BIG),
            Err(Refusal::Other(_)) => RedisValue::StaticError(errors::NOT_ADDED),
        });
    }
    if too_big {
        // the items refused for other reasons changed nothing
        replicate_added(ctx, &args[1], created.then_some(c.capacity), &added, nx);
    } else if changed {
        ctx.replicate_verbatim();
    }
    Ok(RedisValue::Array(out))
}

/// Replicates what a write that this server's memory limit refused did, not the command
/// (replicas and the AOF apply no limit to it): the insert of `items` as `CF.INSERT` (or
/// `CF.INSERTNX`), creating the filter with `capacity` if the command created it, or
/// `CF.RESERVE` if it created the filter and inserted nothing.
fn replicate_added(
    ctx: &Context,
    key: &RedisString,
    created: Option<u64>,
    items: &[&[u8]],
    nx: bool,
) {
    let capacity = created.map(|c| c.to_string());
    let mut argv: Vec<&[u8]> = vec![key.as_slice()];
    match (&capacity, items.is_empty()) {
        (None, true) => return,
        (Some(c), true) => {
            argv.push(c.as_bytes());
            ctx.replicate("CF.RESERVE", argv.as_slice());
            return;
        }
        (Some(c), false) => argv.extend([b"CAPACITY".as_slice(), c.as_bytes()]),
        (None, false) => argv.push(b"NOCREATE"),
    }
    argv.push(b"ITEMS");
    argv.extend(items);
    ctx.replicate(
        if nx { "CF.INSERTNX" } else { "CF.INSERT" },
        argv.as_slice(),
    );
}

/// `CF.EXISTS key item`: "maybe present" (1) or "definitely absent" (0).
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn exists(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    exists::exists(ctx, args, Family::Cuckoo)
}

/// `CF.MEXISTS key item [item ...]`.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn mexists(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    exists::mexists(ctx, args, Family::Cuckoo)
}

/// `CF.COUNT key item`: the copies of the item's fingerprint held (0 for a missing key).
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn count_item(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    read_filter(ctx, &args[1], Family::Cuckoo, |f| {
        Ok(count(f.map_or(0, |f| ops::count(f, args[2].as_slice()))))
    })
}

/// `CF.DEL key item`: removes one copy. An item the filter says is definitely absent is
/// refused with an error and nothing changes (RedisBloom replies 0).
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn del(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    let slot = Slot::open(ctx, &args[1]);
    let s = slot.value()?.ok_or(e(errors::CF_DEL_NOT_FOUND))?;
    let f = filter_mut(s, Family::Cuckoo)?;
    match f.remove(args[2].as_slice()) {
        Ok(true) => {
            ctx.replicate_verbatim();
            Ok(boolean(true))
        }
        Ok(false) => Err(e(errors::NOT_DELETED)),
        Err(err) => Err(errors::lib(&err)),
    }
}

/// `CF.INFO key`: RedisBloom's eight fields in its order (a map in RESP3).
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn info(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    read(ctx, &args[1], |v| {
        let s = v.ok_or(e(errors::NOT_FOUND))?;
        let f = access::filter(s, Family::Cuckoo)?;
        let (buckets, filters, deleted, expansion, kicks) = match f {
            AnyFilter::ExpandableCuckoo(c) => {
                let p = c.params();
                let first = c.link(0).map_or(0, |l| l.buckets());
                (first, c.links(), c.deleted(), p.expansion, p.max_kicks)
            }
            AnyFilter::Cuckoo(c) => (c.buckets(), 1, 0, 0, MAX_KICKS),
            _ => (0, 1, 0, 0, 0),
        };
        ordered_map(
            ctx,
            vec![
                ("Size", count(s.memory() as u64)),
                ("Number of buckets", count(buckets)),
                ("Number of filters", count(u64::from(filters))),
                ("Number of items inserted", count(f.inserted())),
                ("Number of items deleted", count(deleted)),
                ("Bucket size", count(u64::from(SLOTS_PER_BUCKET))),
                ("Expansion rate", count(u64::from(expansion))),
                ("Max iterations", count(u64::from(kicks))),
            ],
        )
    })
}

/// `CF.SCANDUMP key iterator`.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn scandump(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    chunks::scandump(ctx, args, Family::Cuckoo)
}

/// `CF.LOADCHUNK key iterator data`.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn loadchunk(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    chunks::loadchunk(ctx, args, Family::Cuckoo)
}
