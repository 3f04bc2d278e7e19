//! `amq sim bloom`: a classic or blocked Bloom filter's ε as it fills, against the formula.

use super::plot::{Plot, Series, BLUE, RED};
use super::{false_positives, finish, random_member, Common};
use amq::math::{self, Target};
use amq::wire::Kind as PlanKind;
use amq::{AnyFilter, BlockedBloomFilter, BloomFilter};
use anyhow::{bail, Result};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::fmt::Write as _;
use std::process::ExitCode;

/// Fill a Bloom filter sized for n items and measure ε at `points` fills against the formula.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq sim bloom --n 100000 --fpr 0.01 --out docs/sim
  amq sim bloom --kind blocked-bloom --n 100000 --bits 1000000 --out sim --json")]
pub(super) struct BloomArgs {
    /// The layout.
    #[arg(long, value_enum, default_value = "bloom")]
    kind: crate::cmd::BloomKind,
    /// n, the items the filter is sized for (and filled with).
    #[arg(long, default_value_t = 100_000)]
    n: u64,
    /// The target ε at n items (ignored with --bits).
    #[arg(long, value_parser = crate::cmd::parse_fpr, default_value = "0.01")]
    fpr: f64,
    /// m, the bits (instead of --fpr).
    #[arg(long)]
    bits: Option<u64>,
    /// k, the hash functions (default: the best for n and m).
    #[arg(long)]
    hashes: Option<u32>,
    /// Measurements along the fill.
    #[arg(long, default_value_t = 20)]
    points: u64,
    /// Queries of items never inserted per measurement.
    #[arg(long, default_value_t = 200_000)]
    queries: u64,
    #[command(flatten)]
    common: Common,
}

/// Runs `amq sim bloom`.
pub(super) fn run(a: BloomArgs) -> Result<ExitCode> {
    if a.n == 0 || a.points == 0 {
        bail!("--n and --points must be at least 1");
    }
    let kind = a.kind.plan_kind();
    let target = match a.bits {
        Some(m) => Target::Bits(m),
        None => Target::Fpr(a.fpr),
    };
    let plan = math::bloom_plan(kind, a.n, target, a.hashes)?;
    let seed = a.common.seed;
    let mut filter = match kind {
        PlanKind::BlockedBloom => {
            AnyFilter::BlockedBloom(BlockedBloomFilter::new(plan.m_bits, plan.k, seed)?)
        }
        _ => AnyFilter::Bloom(BloomFilter::new(plan.m_bits, plan.k, seed)?),
    };
    let mut rng = StdRng::seed_from_u64(seed);
    let mut csv = String::from("items,bits_per_key,queries,false_positives,fpr,fpr_formula\n");
    let mut rows = Vec::new();
    let mut inserted = 0u64;
    for p in 1..=a.points {
        let upto = (u128::from(a.n) * u128::from(p) / u128::from(a.points)) as u64;
        while inserted < upto {
            filter.insert(&random_member(&mut rng).to_le_bytes())?;
            inserted += 1;
        }
        let (fp, got) = false_positives(&mut rng, a.queries, |x| {
            matches!(filter.contains(&x.to_le_bytes()), Ok(true))
        });
        let formula = match kind {
            PlanKind::BlockedBloom => {
                math::blocked_fpr(inserted, plan.m_bits / math::BLOCK_BITS, plan.k)
            }
            _ => math::fpr_exact(inserted, plan.m_bits, plan.k),
        };
        let _ = writeln!(
            csv,
            "{inserted},{:.4},{},{fp},{got:.6e},{formula:.6e}",
            plan.m_bits as f64 / inserted as f64,
            a.queries
        );
        rows.push((inserted as f64, got, formula));
    }
    let plot = Plot {
        title: format!(
            "{}: m = {} bits, k = {}, filled to n = {}",
            kind.name(),
            plan.m_bits,
            plan.k,
            a.n
        ),
        x_label: "items inserted",
        y_label: "false-positive rate (log scale)",
        log_y: true,
        series: vec![
            Series {
                name: "measured".into(),
                color: RED,
                formula: false,
                points: rows.iter().map(|r| (r.0, r.1)).collect(),
            },
            Series {
                name: if kind == PlanKind::BlockedBloom {
                    "formula (Poisson block load)".into()
                } else {
                    "formula (1 - (1 - 1/m)^kn)^k".into()
                },
                color: BLUE,
                formula: true,
                points: rows.iter().map(|r| (r.0, r.2)).collect(),
            },
        ],
    };
    let last = rows.last().copied().unwrap_or_default();
    let summary = serde_json::json!({
        "sim": "bloom", "kind": kind.name(), "m_bits": plan.m_bits, "k": plan.k, "n": a.n,
        "fpr": last.1, "fpr_formula": last.2,
    });
    finish(
        &a.common,
        format!("{}-n{}-m{}-k{}", kind.name(), a.n, plan.m_bits, plan.k),
        csv,
        &plot,
        summary,
        &[],
    )
}
