//! Keys of the module's type: opening them, telling a missing key from one of another type,
//! and which command family may use which filter kind.

use crate::errors::{e, ITEM_EXISTS, LOADING, WRONGTYPE};
use crate::ffi::AMQ_TYPE;
use crate::stored::{State, Stored};
use amq::wire::Kind;
use amq::AnyFilter;
use redis_module::key::RedisKeyWritable;
use redis_module::{Context, RedisError, RedisString};
use std::time::{SystemTime, UNIX_EPOCH};

/// Which filters a command family works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `BF.*`: the scalable Bloom filter, and a classic or blocked Bloom filter restored
    /// from an `.amq` file.
    Bloom,
    /// `CF.*`: the expandable cuckoo filter, and a cuckoo filter restored from a file.
    Cuckoo,
    /// `AMQ.*`: every kind.
    Any,
}

impl Family {
    /// `true` if the family's commands work on `kind`.
    pub fn accepts(self, kind: Kind) -> bool {
        match self {
            Family::Bloom => matches!(kind, Kind::ScalableBloom | Kind::Bloom | Kind::BlockedBloom),
            Family::Cuckoo => matches!(kind, Kind::ExpandableCuckoo | Kind::Cuckoo),
            Family::Any => true,
        }
    }
}

/// The current time in seconds since the Unix epoch: the clock of the aging filter and the
/// negative cache.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The value of a key opened for reading: `None` if the key is missing.
///
/// # Errors
/// `WRONGTYPE` for a key of another type.
pub fn read<R>(
    ctx: &Context,
    key: &RedisString,
    f: impl FnOnce(Option<&Stored>) -> Result<R, RedisError>,
) -> Result<R, RedisError> {
    let k = ctx.open_key(key);
    let v = k.get_value::<Stored>(&AMQ_TYPE).map_err(|_| e(WRONGTYPE))?;
    f(v)
}

/// The filter a key holds, for a family: `None` if the key is missing.
///
/// # Errors
/// `WRONGTYPE` for a key of another type or a filter of another family; the loading error
/// for a key a `LOADCHUNK` has not finished.
pub fn read_filter<R>(
    ctx: &Context,
    key: &RedisString,
    family: Family,
    f: impl FnOnce(Option<&AnyFilter>) -> Result<R, RedisError>,
) -> Result<R, RedisError> {
    read(ctx, key, |v| match v {
        None => f(None),
        Some(s) => f(Some(filter(s, family)?)),
    })
}

/// The filter of a stored value, for a family (its clock set to now).
///
/// # Errors
/// As [`read_filter`].
pub fn filter(s: &Stored, family: Family) -> Result<&AnyFilter, RedisError> {
    match &s.state {
        State::Loading { .. } => Err(e(LOADING)),
        State::Ready(f) if family.accepts(f.kind()) => {
            clock(f);
            Ok(f)
        }
        State::Ready(_) => Err(e(WRONGTYPE)),
    }
}

/// Sets the clock of the kinds that read one (the aging filter, the negative cache, the TTL
/// cuckoo filter) to now.
fn clock(f: &AnyFilter) {
    if f.reads_clock() {
        f.set_now(now());
    }
}

/// The filter of a stored value, for a family, to change (its clock set to now, the cached
/// dump dropped).
///
/// # Errors
/// As [`read_filter`].
pub fn filter_mut(s: &mut Stored, family: Family) -> Result<&mut AnyFilter, RedisError> {
    s.touched();
    match &mut s.state {
        State::Loading { .. } => Err(e(LOADING)),
        State::Ready(f) if family.accepts(f.kind()) => {
            clock(f);
            Ok(f)
        }
        State::Ready(_) => Err(e(WRONGTYPE)),
    }
}

/// A key opened for writing and its value, if it has one.
pub struct Slot {
    key: RedisKeyWritable,
}

impl Slot {
    /// Opens `key` for writing.
    pub fn open(ctx: &Context, key: &RedisString) -> Self {
        Slot {
            key: ctx.open_key_writable(key),
        }
    }

    /// The value: `None` if the key is missing.
    ///
    /// # Errors
    /// `WRONGTYPE` for a key of another type.
    pub fn value(&self) -> Result<Option<&mut Stored>, RedisError> {
        self.key
            .get_value::<Stored>(&AMQ_TYPE)
            .map_err(|_| e(WRONGTYPE))
    }

    /// `Ok` if the key is missing; else the error of a command that creates a filter there:
    /// `ERR item exists` for a filter the family works on (or a load of one in progress),
    /// `WRONGTYPE` for another (RedisBloom's `BF.*` and `CF.*` filters are types of their
    /// own) or a key of another type.
    ///
    /// # Errors
    /// As above.
    pub fn vacant(&self, family: Family) -> Result<(), RedisError> {
        match self.value()? {
            None => Ok(()),
            Some(s) if family.accepts(s.kind()) => Err(e(ITEM_EXISTS)),
            Some(_) => Err(e(WRONGTYPE)),
        }
    }

    /// `true` if the key exists (of any type).
    pub fn exists(&self) -> bool {
        !self.key.is_empty()
    }

    /// Stores `value` at the key (replacing what it held).
    ///
    /// # Errors
    /// Redis's error if the value cannot be set.
    pub fn set(&self, value: Stored) -> Result<(), RedisError> {
        self.key.set_value(&AMQ_TYPE, value)
    }

    /// Deletes the key.
    ///
    /// # Errors
    /// Redis's error if the key cannot be deleted.
    pub fn delete(&self) -> Result<(), RedisError> {
        self.key.delete().map(|_| ())
    }
}
