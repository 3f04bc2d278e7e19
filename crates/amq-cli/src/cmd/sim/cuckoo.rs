//! `amq sim cuckoo`: a cuckoo filter's ε while filling to the first refusal and while
//! deleting, against the formula, with a check for false negatives.

use super::plot::{Plot, Series, BLUE, GREEN, RED};
use super::{false_positives, finish, random_member, Common};
use amq::cuckoo::{self, CuckooFilter, SLOTS_PER_BUCKET};
use amq::{Filter, Insert, Remove};
use anyhow::{bail, Result};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::fmt::Write as _;
use std::process::ExitCode;

/// Cuckoo filter: ε along the fill to the first refused insert, and back down by deletes.
///
/// Fill a cuckoo filter sized for n items until its first refused insert, measuring ε at
/// every `step` of load factor against `1 − (1 − 2^−f)^(2bα)`; then delete the items again,
/// oldest first, measuring ε on the way down and checking that every item not yet deleted is
/// still found.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq sim cuckoo --n 100000 --fingerprint-bits 8 --out docs/sim
  amq sim cuckoo --n 100000 --fingerprint-bits 16 --step 0.1 --out sim --json")]
pub(super) struct CuckooArgs {
    /// n, the items the filter is sized for (⌈n/(4 · 0.95)⌉ buckets); it is filled past n, to
    /// the first refused insert.
    #[arg(long, default_value_t = 100_000)]
    n: u64,
    /// f, the fingerprint bits (8, 12 or 16).
    #[arg(long, default_value_t = 8)]
    fingerprint_bits: u32,
    /// The load-factor step between measurements.
    #[arg(long, default_value_t = 0.05)]
    step: f64,
    /// Queries of items never inserted per measurement.
    #[arg(long, default_value_t = 200_000)]
    queries: u64,
    #[command(flatten)]
    common: Common,
}

/// Runs `amq sim cuckoo`.
pub(super) fn run(a: CuckooArgs) -> Result<ExitCode> {
    if a.n == 0 {
        bail!("--n must be at least 1");
    }
    if !(a.step > 0.0 && a.step < 1.0) {
        bail!("--step must be in (0, 1), got {}", a.step);
    }
    let seed = a.common.seed;
    let mut f = CuckooFilter::with_capacity(a.n, a.fingerprint_bits, seed)?;
    let bits = f.fingerprint_bits();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut csv = String::from(
        "phase,items,load_factor,queries,false_positives,fpr,fpr_formula,false_negatives\n",
    );
    // (load factor, measured ε, formula) for each phase
    let (mut filling, mut deleting) = (Vec::new(), Vec::new());
    let mut keys: Vec<u64> = Vec::with_capacity(usize::try_from(f.slots()).unwrap_or(0));
    let mut measure = |f: &CuckooFilter, phase: &str, keys: &[u64], rng: &mut StdRng| {
        let (fp, got) = false_positives(rng, a.queries, |x| f.contains(&x));
        let false_negatives = keys.iter().filter(|x| !f.contains(*x)).count();
        let load = f.load_factor();
        let formula = cuckoo::fpr(bits, load);
        let _ = writeln!(
            csv,
            "{phase},{},{load:.6},{},{fp},{got:.6e},{formula:.6e},{false_negatives}",
            f.inserted(),
            a.queries
        );
        (load, got, formula, false_negatives)
    };
    let mut next = a.step;
    let full_at = loop {
        let x = random_member(&mut rng);
        match f.insert(&x) {
            Ok(_) => keys.push(x),
            Err(amq::Error::Full { .. }) => break f.load_factor(),
            Err(e) => return Err(e.into()),
        }
        if f.load_factor() >= next {
            filling.push(measure(&f, "fill", &keys, &mut rng));
            next += a.step;
        }
    };
    filling.push(measure(&f, "full", &keys, &mut rng));
    // Delete oldest first, measuring each time the load falls below a multiple of the step.
    let mut next = (full_at / a.step).ceil() * a.step - a.step;
    let mut deleted = 0;
    while deleted < keys.len() {
        if !f.remove(&keys[deleted]) {
            bail!("an inserted item was not found to delete");
        }
        deleted += 1;
        if f.load_factor() <= next + 1e-12 {
            deleting.push(measure(&f, "delete", &keys[deleted..], &mut rng));
            next -= a.step;
        }
    }
    let false_negatives: usize = filling.iter().chain(&deleting).map(|r| r.3).sum();
    let col = |v: &[(f64, f64, f64, usize)], formula: bool| -> Vec<(f64, f64)> {
        v.iter()
            .map(|r| (r.0, if formula { r.2 } else { r.1 }))
            .collect()
    };
    let mut formula = col(&filling, true);
    formula.retain(|p| p.1 > 0.0);
    let plot = Plot {
        title: format!(
            "cuckoo filter: f = {bits}, {} buckets of {SLOTS_PER_BUCKET}, filled to the first refusal (α = {full_at:.4})",
            f.buckets()
        ),
        x_label: "load factor α",
        y_label: "false-positive rate (log scale)",
        log_y: true,
        series: vec![
            Series {
                name: "measured while filling".into(),
                color: RED,
                formula: false,
                points: col(&filling, false),
            },
            Series {
                name: "measured while deleting".into(),
                color: GREEN,
                formula: false,
                points: col(&deleting, false),
            },
            Series {
                name: format!("formula 1 - (1 - 2^-{bits})^({}α)", 2 * SLOTS_PER_BUCKET),
                color: BLUE,
                formula: true,
                points: formula,
            },
        ],
    };
    let last = filling.last().copied().unwrap_or_default();
    let summary = serde_json::json!({
        "sim": "cuckoo", "n": a.n, "fingerprint_bits": bits, "buckets": f.buckets(),
        "items_at_first_refusal": keys.len(), "load_factor_at_first_refusal": full_at,
        "fpr": last.1, "fpr_formula": last.2, "false_negatives": false_negatives,
    });
    finish(
        &a.common,
        format!("cuckoo-n{}-f{bits}", a.n),
        csv,
        &plot,
        summary,
        &[],
    )
}
