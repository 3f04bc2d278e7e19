//! Sizing an aging Bloom filter: the generations' m and k for a window and a bound on ε,
//! without allocating the filter (the planner uses it too).

use super::aging::{check, group_bits};
use super::{Rotation, MAX_GENERATIONS};
use crate::error::{Error, Result};
use crate::math;

/// The shape [`AgingBloom::with_window`] and [`AgingBloom::with_time_window`] build, computed
/// without allocating it (for the planner).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AgingShape {
    pub(crate) m: u64,
    pub(crate) k: u32,
    pub(crate) rotation: Rotation,
    /// Payload bytes: ⌈m·G/64⌉ words, G the generations rounded up to a power of two.
    pub(crate) bytes: u64,
}

/// The shape of an aging filter that remembers at least `window` insertions (rotation by
/// count) or `window_seconds` seconds with at most `items_per_generation` items per interval
/// (rotation by time), over g generations, with ε at most `fpr`.
pub(crate) fn aging_shape(
    window: Option<u64>,
    window_seconds: Option<u64>,
    items_per_generation: Option<u64>,
    generations: u32,
    fpr: f64,
) -> Result<AgingShape> {
    if !(2..=MAX_GENERATIONS).contains(&generations) {
        return Err(Error::invalid(
            "generations",
            alloc::format!("must be between 2 and {MAX_GENERATIONS}, got {generations}"),
        ));
    }
    let g1 = u64::from(generations - 1);
    let (c, rotation) = match (window, window_seconds, items_per_generation) {
        (Some(0), None, _) => return Err(Error::invalid("window", "must be at least 1 item")),
        (Some(window), None, _) => {
            let c = window.div_ceil(g1);
            (c, Rotation::Count(c))
        }
        (None, Some(seconds), Some(items)) if seconds > 0 && items > 0 => {
            (items, Rotation::Time(seconds.div_ceil(g1)))
        }
        (None, Some(_), _) => {
            return Err(Error::invalid(
                "window",
                "the window and the items per generation must be at least 1",
            ))
        }
        _ => {
            return Err(Error::invalid(
                "window",
                "give either a window of insertions or a window of seconds",
            ))
        }
    };
    let (m, k) = math::bloom_size_exact(c, per_generation_fpr(fpr, generations)?)?;
    check(m, k, generations, rotation)?;
    let bytes = 8 * (m * u64::from(group_bits(generations))).div_ceil(64);
    Ok(AgingShape {
        m,
        k,
        rotation,
        bytes,
    })
}

fn per_generation_fpr(fpr: f64, g: u32) -> Result<f64> {
    if !(fpr > 0.0 && fpr < 1.0) {
        return Err(Error::invalid(
            "fpr",
            alloc::format!(
                "must be strictly between 0 and 1, got {}",
                crate::math::Rate(fpr)
            ),
        ));
    }
    Ok(-libm::expm1(libm::log1p(-fpr) / f64::from(g)))
}
