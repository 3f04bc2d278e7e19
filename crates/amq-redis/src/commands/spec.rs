//! The options of `AMQ.RESERVE` and `AMQ.PLAN` read into the library's [`Spec`], the same
//! typed request the command line and the server plan and create filters from.
//!
//! `<kind> [ITEMS n] [ERROR ε | BITS m | MEMORY bytes] [K k] [EXPANSION s] [TIGHTENING r]
//! [NONSCALING] [MAXITERATIONS i] [WINDOW w] [TTL seconds] [GENERATIONS g] [L l] [B b]
//! [WAYS w] [WINDOWBITS W] [CHUNKBITS S] [BATCH B] [TICK t] [STAMPBITS s] [EPOCHITEMS B]
//! [SEED s]`, the kind one of `Kind::name`'s (every kind an `.amq` file holds).

use crate::args::{float, int, is, unsigned};
use crate::errors::{self, err};
use amq::math::{Spec, Target};
use amq::window::WindowParams;
use amq::wire::Kind;
use redis_module::{RedisError, RedisString};

/// ε when no target is given.
const DEFAULT_FPR: f64 = 0.01;

/// The options as given, before they make a spec.
#[derive(Debug, Default)]
struct Options {
    items: Option<u64>,
    target: Option<Target>,
    k: Option<u32>,
    expansion: Option<u32>,
    tightening: Option<f64>,
    nonscaling: bool,
    max_kicks: Option<u32>,
    window: Option<u64>,
    ttl: Option<u64>,
    generations: Option<u32>,
    l: Option<u32>,
    b: Option<u32>,
    ways: Option<u32>,
    window_bits: Option<u64>,
    chunk_bits: Option<u64>,
    batch: Option<u64>,
    tick: Option<u64>,
    stamp_bits: Option<u32>,
    epoch_items: Option<u64>,
    seed: Option<u64>,
}

impl Options {
    /// Takes the one sizing target; a second (`ERROR 0.01 BITS 1000`) is refused, not
    /// allowed to override the first.
    fn set_target(&mut self, target: Target) -> Result<(), RedisError> {
        if self.target.replace(target).is_some() {
            return Err(err(
                "ERROR, BITS and MEMORY each size the filter: give one of them, once",
            ));
        }
        Ok(())
    }
}

/// A non-negative integer option of type `T`.
fn number<T: TryFrom<i64>>(name: &str, v: Option<&RedisString>) -> Result<T, RedisError> {
    v.and_then(int)
        .and_then(|i| T::try_from(i).ok())
        .ok_or_else(|| err(format!("{name} needs a non-negative integer in range")))
}

/// Reads `<kind> [options...]` into a spec and the `SEED` (0 if not given).
///
/// # Errors
/// An unknown kind or option, a value that does not parse, or a parameter the kind needs and
/// does not have.
pub fn parse(args: &[RedisString]) -> Result<(Spec, u64), RedisError> {
    let (name, rest) = args.split_first().ok_or(RedisError::WrongArity)?;
    let kind = name
        .try_as_str()
        .ok()
        .and_then(|n| Kind::from_name(&n.to_ascii_lowercase()))
        .ok_or_else(|| err(format!("unknown filter kind ({})", Kind::names())))?;
    let mut o = Options::default();
    let mut i = 0;
    while i < rest.len() {
        let (k, v) = (&rest[i], rest.get(i + 1));
        i += 2;
        if is(k, "ITEMS") {
            o.items = Some(number("ITEMS", v)?);
        } else if is(k, "ERROR") {
            let e = v.and_then(float).ok_or(errors::e(errors::BAD_ERROR_RATE))?;
            o.set_target(Target::Fpr(e))?;
        } else if is(k, "BITS") {
            o.set_target(Target::Bits(number("BITS", v)?))?;
        } else if is(k, "MEMORY") {
            o.set_target(Target::Memory(number("MEMORY", v)?))?;
        } else if is(k, "K") {
            o.k = Some(number("K", v)?);
        } else if is(k, "EXPANSION") {
            o.expansion = Some(number("EXPANSION", v)?);
        } else if is(k, "TIGHTENING") {
            o.tightening = Some(v.and_then(float).ok_or(errors::e(errors::BAD_TIGHTENING))?);
        } else if is(k, "MAXITERATIONS") {
            o.max_kicks = Some(number("MAXITERATIONS", v)?);
        } else if is(k, "WINDOW") {
            o.window = Some(number("WINDOW", v)?);
        } else if is(k, "TTL") {
            o.ttl = Some(number("TTL", v)?);
        } else if is(k, "GENERATIONS") {
            o.generations = Some(number("GENERATIONS", v)?);
        } else if is(k, "L") {
            o.l = Some(number("L", v)?);
        } else if is(k, "B") {
            o.b = Some(number("B", v)?);
        } else if is(k, "WAYS") {
            o.ways = Some(number("WAYS", v)?);
        } else if is(k, "WINDOWBITS") {
            o.window_bits = Some(number("WINDOWBITS", v)?);
        } else if is(k, "CHUNKBITS") {
            o.chunk_bits = Some(number("CHUNKBITS", v)?);
        } else if is(k, "BATCH") {
            o.batch = Some(number("BATCH", v)?);
        } else if is(k, "TICK") {
            o.tick = Some(number("TICK", v)?);
        } else if is(k, "STAMPBITS") {
            o.stamp_bits = Some(number("STAMPBITS", v)?);
        } else if is(k, "EPOCHITEMS") {
            o.epoch_items = Some(number("EPOCHITEMS", v)?);
        } else if is(k, "SEED") {
            o.seed = Some(
                v.and_then(unsigned)
                    .ok_or_else(|| err("SEED needs an unsigned 64-bit integer"))?,
            );
        } else if is(k, "NONSCALING") {
            o.nonscaling = true;
            i -= 1;
        } else {
            return Err(errors::e(errors::SYNTAX));
        }
    }
    Ok((spec(kind, &o)?, o.seed.unwrap_or(0)))
}

/// The spec of `kind` from the options.
fn spec(kind: Kind, o: &Options) -> Result<Spec, RedisError> {
    let items = || {
        o.items
            .ok_or_else(|| err("ITEMS is required for this kind"))
    };
    let fpr = || match o.target {
        None => Ok(DEFAULT_FPR),
        Some(Target::Fpr(e)) => Ok(e),
        Some(_) => Err(err("this kind is sized by ERROR only")),
    };
    let spec = match kind {
        Kind::Bloom | Kind::BlockedBloom | Kind::SplitBlockBloom | Kind::Cuckoo => Spec::sized(
            kind,
            items()?,
            o.target.unwrap_or(Target::Fpr(DEFAULT_FPR)),
            o.k,
        )
        .map_err(|e| errors::lib(&e))?,
        Kind::ScalableBloom => Spec::ScalableBloom {
            items: items()?,
            fpr: fpr()?,
            expansion: o.expansion.unwrap_or(amq::scalable::DEFAULT_EXPANSION),
            tightening: o.tightening.unwrap_or(amq::scalable::DEFAULT_TIGHTENING),
            nonscaling: o.nonscaling,
        },
        Kind::ExpandableCuckoo => Spec::ExpandableCuckoo {
            items: items()?,
            fpr: fpr()?,
            expansion: o.expansion.unwrap_or(amq::scalable::DEFAULT_EXPANSION),
            tightening: o.tightening.unwrap_or(amq::scalable::DEFAULT_TIGHTENING),
            max_kicks: o.max_kicks.unwrap_or(amq::cuckoo::MAX_KICKS),
        },
        Kind::AgingBloom => Spec::AgingBloom {
            window: o.window,
            window_seconds: o.ttl,
            items_per_generation: o.ttl.and(o.items),
            generations: o.generations.unwrap_or(amq::window::DEFAULT_GENERATIONS),
            fpr: fpr()?,
        },
        Kind::NegativeCache => Spec::NegativeCache {
            l: o.l
                .ok_or_else(|| err("L is required for a negative cache"))?,
            b: o.b.unwrap_or(64),
            ways: o.ways.unwrap_or(1),
            ttl: o.ttl,
        },
        Kind::SlidingWindowBloom => {
            let need = |v: Option<u64>, n: &str| v.ok_or_else(|| err(format!("{n} is required")));
            Spec::SlidingWindowBloom {
                params: WindowParams {
                    window_bits: need(o.window_bits, "WINDOWBITS")?,
                    chunk_bits: need(o.chunk_bits, "CHUNKBITS")?,
                    batch: need(o.batch, "BATCH")?,
                    k: o.k.ok_or_else(|| err("K is required"))?,
                },
            }
        }
        Kind::TtlCuckoo => Spec::TtlCuckoo(amq::ttl::TtlSpec {
            items: items()?,
            fpr: fpr()?,
            tick: o
                .tick
                .ok_or_else(|| err("TICK is required for a ttl-cuckoo filter"))?,
            stamp_bits: o.stamp_bits,
            max_ttl: o.ttl,
        }),
        Kind::SlidingWindowCuckoo => Spec::SlidingWindowCuckoo(amq::rln::RlnSpec {
            epoch_items: o
                .epoch_items
                .ok_or_else(|| err("EPOCHITEMS is required for a sliding-window-cuckoo filter"))?,
            fpr: fpr()?,
        }),
        _ => return Err(err("this kind cannot be created here")),
    };
    Ok(spec)
}
