//! `amq sim aging`: an aging Bloom filter's ε on fresh items, its window and what it forgets.

use super::plot::{Plot, Series, BLUE, GREEN, RED};
use super::{false_positives, finish, Common};
use amq::window::{AgingBloom, Rotation};
use amq::{Filter, Insert};
use anyhow::{bail, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;
use std::process::ExitCode;

/// Aging Bloom filter: ε, the window kept, and how fast old items are forgotten.
///
/// Stream n distinct items through an aging filter (rotated by count) and, at `points` times,
/// measure ε on fresh items against the expected rate and the bound it was sized for, check
/// that every item of the last `window` insertions is found, and measure how many items
/// older than g·c insertions still answer "maybe" (they should be forgotten: about ε).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq sim aging --window 100000 --generations 4 --fpr 0.01 --n 1000000 --out docs/sim
  amq sim aging --window 10000 --generations 8 --fpr 1% --n 100000 --out sim --json")]
pub(super) struct AgingArgs {
    /// The insertions the filter must remember (at least).
    #[arg(long, default_value_t = 100_000)]
    window: u64,
    /// g, the generations.
    #[arg(long, default_value_t = 4)]
    generations: u32,
    /// The bound on ε the filter is sized for.
    #[arg(long, value_parser = crate::cmd::parse_fpr, default_value = "0.01")]
    fpr: f64,
    /// n, the items streamed through.
    #[arg(long, default_value_t = 1_000_000)]
    n: u64,
    /// Measurements along the stream.
    #[arg(long, default_value_t = 40)]
    points: u64,
    /// Queries of fresh items (and of forgotten items) per measurement.
    #[arg(long, default_value_t = 100_000)]
    queries: u64,
    #[command(flatten)]
    common: Common,
}

/// Runs `amq sim aging`.
pub(super) fn run(a: AgingArgs) -> Result<ExitCode> {
    if a.n == 0 || a.points == 0 || a.queries == 0 {
        bail!("--n, --points and --queries must be at least 1");
    }
    let seed = a.common.seed;
    let mut f = AgingBloom::with_window(a.window, a.generations, a.fpr, seed)?;
    let Rotation::Count(c) = f.rotation() else {
        bail!("a count-rotated filter was expected");
    };
    let span = c * u64::from(f.generations()); // older than this: forgotten
    let mut rng = StdRng::seed_from_u64(seed);
    let mut csv = String::from(
        "items,queries,false_positives,fpr,fpr_expected,fpr_bound,window_checked,window_missed,old_queries,old_maybe,old_maybe_rate\n",
    );
    // items are 0, 1, 2, ... (top bit clear); fresh queries have the top bit set
    let (mut rows, mut missed_total) = (Vec::new(), 0u64);
    let mut inserted = 0u64;
    for p in 1..=a.points {
        let upto = (u128::from(a.n) * u128::from(p) / u128::from(a.points)) as u64;
        while inserted < upto {
            f.insert(&inserted)?;
            inserted += 1;
        }
        let (fp, got) = false_positives(&mut rng, a.queries, |x| f.contains(&x));
        let recent = inserted.saturating_sub(a.window)..inserted;
        let missed = recent.clone().filter(|i| !f.contains(i)).count() as u64;
        missed_total += missed;
        let old_end = inserted.saturating_sub(span);
        // every forgotten item if there are at most `queries` of them, else a random sample
        let (old_queries, old_maybe) = if old_end <= a.queries {
            let hits = (0..old_end).filter(|i| f.contains(i)).count() as u64;
            (old_end, hits)
        } else {
            let hits = (0..a.queries)
                .filter(|_| f.contains(&rng.random_range(0..old_end)))
                .count() as u64;
            (a.queries, hits)
        };
        let old_rate = if old_queries == 0 {
            f64::NAN
        } else {
            old_maybe as f64 / old_queries as f64
        };
        let (expected, bound) = (f.estimated_fpr(), f.fpr_bound());
        let _ = writeln!(
            csv,
            "{inserted},{},{fp},{got:.6e},{expected:.6e},{bound:.6e},{},{missed},{old_queries},{old_maybe},{old_rate:.6e}",
            a.queries,
            recent.end - recent.start
        );
        rows.push((inserted as f64, got, expected, bound, old_rate));
    }
    let col = |j: usize| -> Vec<(f64, f64)> {
        rows.iter()
            .map(|r| (r.0, [r.1, r.2, r.3, r.4][j]))
            .filter(|p| p.1.is_finite())
            .collect()
    };
    let plot = Plot {
        title: format!(
            "aging bloom: window {}, g = {}, c = {c}, m = {} bits per generation, k = {}",
            a.window,
            f.generations(),
            f.m(),
            f.k()
        ),
        x_label: "items inserted",
        y_label: "rate (log scale)",
        log_y: true,
        series: vec![
            Series {
                name: "fresh items: false positives (measured)".into(),
                color: RED,
                formula: false,
                points: col(0),
            },
            Series {
                name: "expected from the live generations".into(),
                color: RED,
                formula: true,
                points: col(1),
            },
            Series {
                name: "bound it was sized for".into(),
                color: BLUE,
                formula: true,
                points: col(2),
            },
            Series {
                name: format!("items older than g·c = {span}: still \"maybe\" (measured)"),
                color: GREEN,
                formula: false,
                points: col(3),
            },
        ],
    };
    let last = rows.last().copied().unwrap_or_default();
    let summary = serde_json::json!({
        "sim": "aging", "window": a.window, "generations": f.generations(), "c": c,
        "m_bits_per_generation": f.m(), "k": f.k(), "n": a.n,
        "fpr": last.1, "fpr_expected": last.2, "fpr_bound": last.3,
        "max_fpr": rows.iter().map(|r| r.1).fold(0.0, f64::max),
        "old_maybe_rate": if last.4.is_finite() { serde_json::json!(last.4) } else { serde_json::Value::Null },
        "false_negatives_in_window": missed_total,
    });
    finish(
        &a.common,
        format!("aging-w{}-g{}", a.window, f.generations()),
        csv,
        &plot,
        summary,
        &[],
    )
}
