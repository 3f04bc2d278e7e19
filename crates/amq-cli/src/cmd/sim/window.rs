//! `amq sim window`: a sliding-window Bloom filter's ε at a fixed and at the newest position.

use super::plot::{Plot, Series, GREEN, RED};
use super::{false_positives, finish, random_member, Common};
use amq::window::{SlidingWindowBloom, WindowParams};
use anyhow::{bail, Result};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::fmt::Write as _;
use std::process::ExitCode;

/// Sliding-window Bloom filter: ε at an archived position and at the newest one.
///
/// Fill a sliding-window filter and measure ε against the model (`WindowParams::fpr`) at
/// position B·W/S (whose window fills as the items after it arrive, then leaves into the
/// archive) and at the newest position (whose window is only partly filled).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq sim window --window 4096 --chunk 256 --batch 16 --hashes 4 --n 1536 --out docs/sim
  amq sim window --window 8192 --chunk 512 --batch 8 --hashes 8 --n 2048 --out sim --json")]
pub(super) struct WindowArgs {
    /// W, the window bits.
    #[arg(long, default_value_t = 4096)]
    window: u64,
    /// S, the chunk bits.
    #[arg(long, default_value_t = 256)]
    chunk: u64,
    /// B, the insertions per slide.
    #[arg(long, default_value_t = 16)]
    batch: u64,
    /// k, the indices per item.
    #[arg(long, default_value_t = 4)]
    hashes: u32,
    /// n, the items inserted (positions 0..n).
    #[arg(long, default_value_t = 1536)]
    n: u64,
    /// Measurements along the fill.
    #[arg(long, default_value_t = 48)]
    points: u64,
    /// Queries of items never inserted per measurement and position.
    #[arg(long, default_value_t = 100_000)]
    queries: u64,
    #[command(flatten)]
    common: Common,
}

/// Runs `amq sim window`.
pub(super) fn run(a: WindowArgs) -> Result<ExitCode> {
    if a.n == 0 || a.points == 0 {
        bail!("--n and --points must be at least 1");
    }
    let params = WindowParams {
        window_bits: a.window,
        chunk_bits: a.chunk,
        batch: a.batch,
        k: a.hashes,
    };
    let seed = a.common.seed;
    let mut f = SlidingWindowBloom::new(params, seed)?;
    let mut rng = StdRng::seed_from_u64(seed);
    // A fixed position whose window is the first to be covered by W/S full batches: its ε
    // rises to the steady state as the items after it arrive, then its chunks are archived.
    let fixed = params.batch * params.chunks();
    let mut csv = String::from("items,position,archived,queries,false_positives,fpr,fpr_formula\n");
    let (mut latest, mut old) = (Vec::new(), Vec::new());
    for p in 1..=a.points {
        let upto = (u128::from(a.n) * u128::from(p) / u128::from(a.points)) as u64;
        while f.next_position() < upto {
            f.insert(&random_member(&mut rng))?;
        }
        let n = f.next_position();
        if n == 0 {
            continue; // fewer items than points: nothing inserted yet
        }
        let mut probe = |position: u64| {
            let (fp, got) = false_positives(&mut rng, a.queries, |x| f.contains(&x, position));
            let formula = params.fpr(n, position);
            let archived = position / params.batch < f.window_start_chunk();
            let _ = writeln!(
                csv,
                "{n},{position},{archived},{},{fp},{got:.6e},{formula:.6e}",
                a.queries
            );
            (n as f64, got, formula)
        };
        latest.push(probe(n - 1));
        old.push(probe(fixed));
    }
    let pts = |v: &[(f64, f64, f64)], j: usize| {
        v.iter()
            .map(|r| (r.0, if j == 1 { r.1 } else { r.2 }))
            .collect()
    };
    let series = vec![
        Series {
            name: format!("position B·W/S = {fixed} (measured)"),
            color: GREEN,
            formula: false,
            points: pts(&old, 1),
        },
        Series {
            name: format!("position {fixed} (formula)"),
            color: GREEN,
            formula: true,
            points: pts(&old, 2),
        },
        Series {
            name: "newest position (measured)".into(),
            color: RED,
            formula: false,
            points: pts(&latest, 1),
        },
        Series {
            name: "newest position (formula)".into(),
            color: RED,
            formula: true,
            points: pts(&latest, 2),
        },
    ];
    let plot = Plot {
        title: format!(
            "sliding-window bloom: W = {}, S = {}, B = {}, k = {}",
            params.window_bits, params.chunk_bits, params.batch, params.k
        ),
        x_label: "items inserted (positions)",
        y_label: "false-positive rate (log scale)",
        log_y: true,
        series,
    };
    let last = latest.last().copied().unwrap_or_default();
    let summary = serde_json::json!({
        "sim": "window", "window_bits": params.window_bits, "chunk_bits": params.chunk_bits,
        "batch": params.batch, "k": params.k, "n": a.n,
        "fpr_latest": last.1, "fpr_latest_formula": last.2,
        "steady_state_fpr": params.steady_state_fpr(),
        "archived_chunks": f.archived_chunks(), "archive_bytes": f.archive_bytes(),
    });
    finish(
        &a.common,
        format!(
            "window-W{}-S{}-B{}-k{}",
            params.window_bits, params.chunk_bits, params.batch, params.k
        ),
        csv,
        &plot,
        summary,
        &[],
    )
}
