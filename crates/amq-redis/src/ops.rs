//! What the commands do to a filter beyond the registry's calls: inserts that respect the
//! per-filter memory limit (a chain adds a link only if the limit allows it), and the
//! replies of a refused insert.

use crate::errors::{self, e};
use amq::{AnyFilter, At, Error, Inserted};
use redis_module::{Context, ContextFlags, RedisError, RedisString};
use std::sync::atomic::{AtomicI64, Ordering};

/// `amq.max-filter-bytes`: the most bytes of tables one filter may take (1 GiB by default;
/// `CONFIG SET amq.max-filter-bytes <bytes>` changes it).
pub static MAX_FILTER_BYTES: AtomicI64 = AtomicI64::new(DEFAULT_MAX_FILTER_BYTES);
/// The default of `amq.max-filter-bytes`: 1 GiB.
pub const DEFAULT_MAX_FILTER_BYTES: i64 = 1 << 30;

/// The memory limit now.
pub fn limit() -> u64 {
    u64::try_from(MAX_FILTER_BYTES.load(Ordering::Relaxed)).unwrap_or(0)
}

/// `Ok` if a filter of `bytes` bytes is within the limit, or if the command is one that a
/// primary sent this replica or that the AOF replays at start: it was held to the limit of
/// the server that answered the client, and the writes that limit refused are not in it
/// (they are replicated as the items added). This server's limit, which may be lower, would
/// make the replica or the reloaded data differ from what the client was told.
///
/// # Errors
/// The "over amq.max-filter-bytes" error.
pub fn check_size(ctx: &Context, bytes: u64) -> Result<(), RedisError> {
    let limit = limit();
    if bytes <= limit || replayed(ctx) {
        Ok(())
    } else {
        Err(errors::too_big(bytes, limit))
    }
}

/// `true` for a command from the primary or from the AOF (asked only when a filter would
/// go over the limit: the context's flags cost a call that most commands need not make).
fn replayed(ctx: &Context) -> bool {
    ctx.get_flags()
        .intersects(ContextFlags::REPLICATED | ContextFlags::LOADING)
}

/// Why an insert added nothing.
#[derive(Debug)]
pub enum Refusal {
    /// The filter is full and does not grow (RedisBloom's `NONSCALING`, `EXPANSION 0`).
    Full,
    /// The chain grows, but may not add another link (its most links, or the next link's ε
    /// cannot be met).
    MaxLinks,
    /// The next link would take the filter over the memory limit.
    TooBig(RedisError),
    /// Any other error of the library.
    Other(RedisError),
}

impl Refusal {
    /// The reply of a `BF.*` command.
    pub fn bloom(self) -> RedisError {
        match self {
            Refusal::Full => e(errors::NONSCALING_FULL),
            Refusal::MaxLinks => e(errors::MAX_EXPANSIONS),
            Refusal::TooBig(r) | Refusal::Other(r) => r,
        }
    }

    /// The reply of a single-item `CF.*` command.
    pub fn cuckoo(self) -> RedisError {
        match self {
            Refusal::Full => e(errors::FILTER_FULL),
            Refusal::MaxLinks => e(errors::MAX_EXPANSIONS),
            Refusal::TooBig(r) | Refusal::Other(r) => r,
        }
    }

    /// The reply of `AMQ.ADD`, amq's own wording for every kind (the first item refused is the
    /// error reply, a later one ends the array with [`Refusal::amq_in_array`]'s same text).
    pub fn amq(self) -> RedisError {
        match self {
            Refusal::Full | Refusal::MaxLinks => e(self.amq_in_array()),
            Refusal::TooBig(r) | Refusal::Other(r) => r,
        }
    }

    /// The error of an `AMQ.ADD` refusal inside an array reply.
    pub fn amq_in_array(&self) -> &'static str {
        match self {
            Refusal::Full => errors::FULL,
            Refusal::MaxLinks => errors::NO_MORE_LINKS,
            Refusal::TooBig(_) => errors::TOO_BIG,
            Refusal::Other(_) => errors::NOT_ADDED,
        }
    }

    /// The error of a `BF.*` refusal inside an array reply.
    pub fn bloom_in_array(self) -> &'static str {
        match self {
            Refusal::Full => errors::NONSCALING_FULL,
            Refusal::MaxLinks => errors::MAX_EXPANSIONS,
            Refusal::TooBig(_) => errors::TOO_BIG,
            Refusal::Other(_) => errors::NOT_ADDED,
        }
    }
}

/// Inserts an item's bytes: `Ok(true)` if it was new. A chain whose active link is full adds
/// a link first, if it grows and the link fits within the memory limit; a sliding window
/// (it archives as it goes) or a sliding-window cuckoo filter (it opens epoch tables) inserts
/// only while what the item may add fits ([`AnyFilter::insert_within`]).
///
/// # Errors
/// A [`Refusal`]; the filter is unchanged.
pub fn insert(ctx: &Context, f: &mut AnyFilter, item: &[u8]) -> Result<bool, Refusal> {
    insert_placed(ctx, f, item).map(|i| i.new)
}

/// [`insert`], also saying where a sliding-window kind placed the item (its position or
/// epoch).
///
/// # Errors
/// A [`Refusal`]; the filter is unchanged.
pub fn insert_placed(ctx: &Context, f: &mut AnyFilter, item: &[u8]) -> Result<Inserted, Refusal> {
    let limit = limit();
    let inserted = match f.insert_within(item, limit) {
        // the limit of the server that answered the client held it (see check_size)
        Err(Error::OverLimit { .. }) if replayed(ctx) => f.insert_placed(item),
        other => other,
    };
    inserted.map_err(|e| refusal(f, e, limit))
}

/// What a library error of an insert into `f` replies.
fn refusal(f: &AnyFilter, e: Error, limit: u64) -> Refusal {
    // a chain that grows, refused: it has its most links, or the next link's ε cannot be met
    let grows = match f {
        AnyFilter::ScalableBloom(s) => s.params().scaling,
        AnyFilter::ExpandableCuckoo(c) => c.params().expansion > 0,
        _ => false,
    };
    match e {
        Error::OverLimit { size, more, .. } => {
            Refusal::TooBig(errors::too_big(size.saturating_add(more), limit))
        }
        Error::Full { .. } | Error::InvalidParameter { .. } if grows => Refusal::MaxLinks,
        Error::Full { .. } => Refusal::Full,
        e => Refusal::Other(errors::lib(&e)),
    }
}

/// Inserts an item unless the filter may hold it already (`CF.ADDNX`, `CF.INSERTNX`):
/// `Ok(false)` then, with nothing added.
///
/// # Errors
/// As [`insert`].
pub fn insert_if_absent(ctx: &Context, f: &mut AnyFilter, item: &[u8]) -> Result<bool, Refusal> {
    if f.contains(item)
        .map_err(|e| Refusal::Other(errors::lib(&e)))?
    {
        return Ok(false);
    }
    insert(ctx, f, item)
}

/// The copies of an item's fingerprint a cuckoo filter holds (`CF.COUNT`).
pub fn count(f: &AnyFilter, item: &[u8]) -> u64 {
    match f {
        AnyFilter::ExpandableCuckoo(c) => c.count(item),
        AnyFilter::Cuckoo(c) => u64::from(c.count(item)),
        other => u64::from(other.contains(item).unwrap_or(false)),
    }
}

/// "Maybe present" for any kind: a negative cache answers "definitely present" here, a
/// sliding window needs [`exists_at`].
///
/// # Errors
/// The library's error for a kind that cannot answer without a position.
pub fn exists(f: &AnyFilter, item: &[u8]) -> Result<bool, RedisError> {
    match f {
        AnyFilter::NegativeCache(c) => Ok(c.contains(item)),
        other => other.contains(item).map_err(|e| errors::lib(&e)),
    }
}

/// "Maybe present" for items at a position of a sliding-window Bloom filter, or for members
/// at an epoch of a sliding-window cuckoo filter (its prefetching batch).
///
/// # Errors
/// The library's error for a kind that does not take that position or epoch.
pub fn exists_at(f: &AnyFilter, items: &[RedisString], at: At) -> Result<Vec<bool>, RedisError> {
    let items: Vec<&[u8]> = items.iter().map(RedisString::as_slice).collect();
    let mut out = vec![false; items.len()];
    f.contains_batch_at(&items, at, &mut out)
        .map_err(|e| errors::lib(&e))?;
    Ok(out)
}
