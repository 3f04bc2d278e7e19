//! RedisBloom's `BF.*` commands over the scalable Bloom filter (and a classic or blocked
//! Bloom filter restored with `AMQ.RESTORE`): syntax, defaults, replies and error strings
//! after <https://redis.io/docs/latest/commands/?group=bf>.

use super::{chunks, exists};
use crate::access::{self, filter_mut, read, read_filter, Family, Slot};
use crate::args::{float, in_unit_interval, int, is};
use crate::errors::{self, e};
use crate::ops;
use crate::replies::{boolean, count, ordered_map};
use crate::stored::Stored;
use amq::math::{plan, Spec};
use amq::scalable::{DEFAULT_EXPANSION, DEFAULT_TIGHTENING};
use amq::AnyFilter;
use redis_module::{Context, RedisError, RedisResult, RedisString, RedisValue};

/// ε of a filter that `BF.ADD`, `BF.MADD` or `BF.INSERT` creates (RedisBloom's default).
pub const DEFAULT_ERROR_RATE: f64 = 0.01;
/// Capacity of a filter that `BF.ADD`, `BF.MADD` or `BF.INSERT` creates (RedisBloom's).
pub const DEFAULT_CAPACITY: u64 = 100;

/// How to create a scalable Bloom filter: a typed request, planned with the library's
/// [`Spec::ScalableBloom`].
#[derive(Debug, Clone, Copy)]
struct Create {
    capacity: u64,
    fpr: f64,
    expansion: u32,
    tightening: f64,
    nonscaling: bool,
}

impl Default for Create {
    fn default() -> Self {
        Create {
            capacity: DEFAULT_CAPACITY,
            fpr: DEFAULT_ERROR_RATE,
            expansion: DEFAULT_EXPANSION,
            tightening: DEFAULT_TIGHTENING,
            nonscaling: false,
        }
    }
}

impl Create {
    fn spec(&self) -> Spec {
        Spec::ScalableBloom {
            items: self.capacity,
            fpr: self.fpr,
            expansion: self.expansion,
            tightening: self.tightening,
            nonscaling: self.nonscaling,
        }
    }

    /// The arguments of `BF.RESERVE` (after the key) that create this filter.
    fn reserve_args(&self) -> Vec<String> {
        let mut a = vec![self.fpr.to_string(), self.capacity.to_string()];
        a.extend(self.options());
        a
    }

    /// The arguments of `BF.INSERT` (after the key, before `ITEMS`) that create this filter.
    fn insert_args(&self) -> Vec<String> {
        let mut a = vec!["CAPACITY".into(), self.capacity.to_string()];
        a.extend(["ERROR".into(), self.fpr.to_string()]);
        a.extend(self.options());
        a
    }

    /// `NONSCALING` or `EXPANSION x`, and `TIGHTENING r` (Rust's shortest decimal of an f64
    /// reads back as the same f64).
    fn options(&self) -> Vec<String> {
        let mut a = if self.nonscaling {
            vec!["NONSCALING".into()]
        } else {
            vec!["EXPANSION".into(), self.expansion.to_string()]
        };
        a.extend(["TIGHTENING".into(), self.tightening.to_string()]);
        a
    }

    /// Plans the filter, checks the memory limit, and stores it at the empty key.
    fn store(&self, ctx: &Context, slot: &Slot) -> Result<(), RedisError> {
        let spec = self.spec();
        let p = plan(&spec).map_err(|e| errors::lib(&e))?;
        ops::check_size(ctx, p.bytes)?;
        let f = AnyFilter::new(&spec, 0).map_err(|e| errors::lib(&e))?;
        slot.set(Stored::ready(f))
    }
}

/// `BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING]`, and amq's
/// `[TIGHTENING r]`: creates an empty scalable filter.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn reserve(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 4 || args.len() > 8 {
        return Err(RedisError::WrongArity);
    }
    let fpr = float(&args[2]).ok_or(e(errors::BAD_ERROR_RATE))?;
    if !in_unit_interval(fpr) {
        return Err(e(errors::ERROR_RATE_RANGE));
    }
    let capacity = int(&args[3]).ok_or(e(errors::BAD_CAPACITY))?;
    if capacity <= 0 {
        return Err(e(errors::CAPACITY_RANGE));
    }
    let mut c = Create {
        capacity: capacity as u64,
        fpr,
        ..Create::default()
    };
    let (mut expansion, mut i) = (None, 4);
    while i < args.len() {
        let a = &args[i];
        if is(a, "NONSCALING") {
            c.nonscaling = true;
            i += 1;
        } else if is(a, "EXPANSION") {
            expansion = Some(args.get(i + 1).ok_or(e(errors::NO_EXPANSION))?);
            i += 2;
        } else if is(a, "TIGHTENING") {
            let r = args.get(i + 1).and_then(float);
            c.tightening = r
                .filter(|&r| in_unit_interval(r))
                .ok_or(e(errors::BAD_TIGHTENING))?;
            i += 2;
        } else {
            return Err(e(errors::SYNTAX));
        }
    }
    if let Some(v) = expansion {
        if c.nonscaling {
            return Err(e(errors::NONSCALING_EXPANSION));
        }
        let s = int(v).ok_or(e(errors::BAD_EXPANSION))?;
        if s < 1 {
            return Err(e(errors::EXPANSION_RANGE));
        }
        c.expansion = u32::try_from(s).map_err(|_| e(errors::EXPANSION_TOO_LARGE))?;
    }
    let slot = Slot::open(ctx, &args[1]);
    slot.vacant(Family::Bloom)?;
    c.store(ctx, &slot)?;
    ctx.replicate_verbatim();
    Ok(RedisValue::SimpleStringStatic("OK"))
}

/// `BF.ADD key item`: adds one item, creating a default filter if the key is missing.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn add(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    add_items(ctx, &args[1], &args[2..], Some(Create::default()), false)
}

/// `BF.MADD key item [item ...]`: adds items, creating a default filter if the key is missing.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn madd(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 3 {
        return Err(RedisError::WrongArity);
    }
    add_items(ctx, &args[1], &args[2..], Some(Create::default()), true)
}

/// `BF.INSERT key [CAPACITY capacity] [ERROR error] [EXPANSION expansion] [NOCREATE]
/// [NONSCALING] ITEMS item [item ...]` (and amq's `[TIGHTENING r]`).
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn insert(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() < 4 {
        return Err(RedisError::WrongArity);
    }
    let mut c = Create::default();
    let (mut create, mut at) = (true, None);
    let mut i = 2;
    let (mut capacity, mut expansion) = (c.capacity as i64, i64::from(c.expansion));
    while i < args.len() && at.is_none() {
        let a = &args[i];
        let value = || args.get(i + 1).ok_or(RedisError::WrongArity);
        if is(a, "ITEMS") {
            at = Some(i + 1);
        } else if is(a, "ERROR") {
            c.fpr = float(value()?).ok_or(e(errors::INSERT_BAD_ERROR_RATE))?;
            i += 2;
        } else if is(a, "EXPANSION") {
            expansion = int(value()?).ok_or(e(errors::INSERT_BAD_EXPANSION))?;
            i += 2;
        } else if is(a, "CAPACITY") {
            capacity = int(value()?).ok_or(e(errors::INSERT_BAD_CAPACITY))?;
            i += 2;
        } else if is(a, "TIGHTENING") {
            c.tightening = float(value()?).ok_or(e(errors::BAD_TIGHTENING))?;
            i += 2;
        } else if is(a, "NOCREATE") {
            create = false;
            i += 1;
        } else if is(a, "NONSCALING") {
            c.nonscaling = true;
            i += 1;
        } else {
            return Err(e(errors::UNKNOWN_ARGUMENT));
        }
    }
    let at = match at {
        Some(at) if at < args.len() => at,
        _ => return Err(RedisError::WrongArity),
    };
    if !in_unit_interval(c.fpr) || capacity < 1 || expansion < 1 || expansion > i64::from(u32::MAX)
    {
        return Err(e(errors::BAD_ARGUMENT));
    }
    if !in_unit_interval(c.tightening) {
        return Err(e(errors::BAD_TIGHTENING));
    }
    c.capacity = capacity as u64;
    c.expansion = expansion as u32;
    add_items(ctx, &args[1], &args[at..], create.then_some(c), true)
}

/// Adds `items` to the Bloom filter at `key`, creating it with `create` if the key is missing
/// (`None`: the key must exist). One item: a boolean or the error; several: an array of
/// booleans that ends at the first refused item with its error (RedisBloom's `BF.MADD`).
fn add_items(
    ctx: &Context,
    key: &RedisString,
    items: &[RedisString],
    create: Option<Create>,
    multi: bool,
) -> RedisResult {
    let slot = Slot::open(ctx, key);
    let created = slot.value()?.is_none();
    if created {
        match create {
            Some(c) => c.store(ctx, &slot)?,
            None => return Err(e(errors::NOT_FOUND)),
        }
    }
    let stored = slot.value()?.ok_or(e(errors::NOT_FOUND))?;
    let f = filter_mut(stored, Family::Bloom)?;
    let mut out = Vec::with_capacity(items.len());
    let mut refused = None;
    for item in items {
        match ops::insert(ctx, f, item.as_slice()) {
            Ok(new) => out.push(boolean(new)),
            Err(r) => {
                refused = Some(r);
                break;
            }
        }
    }
    if refused.is_none() {
        if created || !out.is_empty() {
            ctx.replicate_verbatim();
        }
    } else {
        // replicas and the AOF get what was done, not the command: a refusal of this
        // server's memory limit is not replayed there (they apply no limit to it)
        replicate_added(ctx, key, create.filter(|_| created), &items[..out.len()]);
    }
    match refused {
        Some(r) if !multi => Err(r.bloom()),
        Some(r) => {
            out.push(RedisValue::StaticError(r.bloom_in_array()));
            Ok(RedisValue::Array(out))
        }
        None if multi => Ok(RedisValue::Array(out)),
        None => Ok(out.pop().unwrap_or(RedisValue::Null)),
    }
}

/// Replicates the insert of `items` (those a refused insert added before the refusal): as
/// `BF.INSERT`, creating the filter with `created` if the command created it, or as
/// `BF.RESERVE` if it created the filter and added nothing.
fn replicate_added(
    ctx: &Context,
    key: &RedisString,
    created: Option<Create>,
    items: &[RedisString],
) {
    let (command, options) = match (created, items.is_empty()) {
        (None, true) => return,
        (Some(c), true) => ("BF.RESERVE", c.reserve_args()),
        (Some(c), false) => ("BF.INSERT", c.insert_args()),
        (None, false) => ("BF.INSERT", vec!["NOCREATE".into()]),
    };
    let mut argv: Vec<&[u8]> = vec![key.as_slice()];
    argv.extend(options.iter().map(String::as_bytes));
    if !items.is_empty() {
        argv.push(b"ITEMS");
        argv.extend(items.iter().map(RedisString::as_slice));
    }
    ctx.replicate(command, argv.as_slice());
}

/// `BF.EXISTS key item`: "maybe present" (1) or "definitely absent" (0); 0 for a missing key.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn exists(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    exists::exists(ctx, args, Family::Bloom)
}

/// `BF.MEXISTS key item [item ...]`: [`exists`](fn@exists) for each item.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn mexists(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    exists::mexists(ctx, args, Family::Bloom)
}

/// `BF.CARD key`: the items added (0 for a missing key).
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn card(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 2 {
        return Err(RedisError::WrongArity);
    }
    read_filter(ctx, &args[1], Family::Bloom, |f| {
        Ok(count(f.map_or(0, AnyFilter::inserted)))
    })
}

/// `BF.INFO key [CAPACITY | SIZE | FILTERS | ITEMS | EXPANSION]`: RedisBloom's five fields
/// in its order (a map in RESP3), or one of them in a one-element array.
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn info(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    if args.len() != 2 && args.len() != 3 {
        return Err(RedisError::WrongArity);
    }
    read(ctx, &args[1], |v| {
        let s = v.ok_or(e(errors::NOT_FOUND))?;
        let f = access::filter(s, Family::Bloom)?;
        let (capacity, filters, expansion) = match f {
            AnyFilter::ScalableBloom(c) => (
                c.capacity(),
                c.links(),
                if c.params().scaling {
                    count(u64::from(c.params().expansion))
                } else {
                    RedisValue::Null
                },
            ),
            _ => (0, 1, RedisValue::Null),
        };
        let fields = [
            ("Capacity", "CAPACITY", count(capacity)),
            ("Size", "SIZE", count(s.memory() as u64)),
            ("Number of filters", "FILTERS", count(u64::from(filters))),
            ("Number of items inserted", "ITEMS", count(f.inserted())),
            ("Expansion rate", "EXPANSION", expansion),
        ];
        match args.get(2) {
            None => ordered_map(ctx, fields.into_iter().map(|(n, _, v)| (n, v)).collect()),
            Some(want) => fields
                .into_iter()
                .find(|(_, short, _)| is(want, short))
                .map(|(_, _, v)| RedisValue::Array(vec![v]))
                .ok_or(e(errors::INVALID_INFO)),
        }
    })
}

/// `BF.SCANDUMP key iterator`: the filter in chunks ([`chunks::scandump`]).
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn scandump(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    chunks::scandump(ctx, args, Family::Bloom)
}

/// `BF.LOADCHUNK key iterator data`: loads a `BF.SCANDUMP` chunk ([`chunks::loadchunk`]).
///
/// # Errors
/// The command's error replies (RedisBloom's strings, listed in `docs/redis.md`).
pub fn loadchunk(ctx: &Context, args: Vec<RedisString>) -> RedisResult {
    chunks::loadchunk(ctx, args, Family::Bloom)
}
