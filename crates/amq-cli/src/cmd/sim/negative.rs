//! `amq sim negative`: the negative cache's false positives and false negatives as it fills.

use super::plot::{Plot, Series, BLUE, RED};
use super::{finish, Common};
use amq::negative::{mean_false_negative_rate, NegativeCache};
use anyhow::{bail, Context, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;
use std::process::ExitCode;

/// Negative cache: false positives and false negatives as its occupancy grows.
///
/// The seed's experiment (negative-bloom-filter.md): insert n random items drawn from a
/// domain, and each time the occupancy passes a multiple of 10% query `queries` more random
/// items of the domain: false positives among those not inserted, false negatives among those
/// inserted.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq sim negative --l 16 --b 128 --n 1000000 --domain 100000 --out docs/sim
  amq sim negative --l 16 --b 1 --ways 8 --out sim --json")]
pub(super) struct NegativeArgs {
    /// l: 2^l slots.
    #[arg(long, default_value_t = 16)]
    l: u32,
    /// b, the fingerprint bits.
    #[arg(long, default_value_t = 128)]
    b: u32,
    /// w, the slots per set.
    #[arg(long, default_value_t = 1)]
    ways: u32,
    /// N, the items inserted (drawn with repetition from the domain).
    #[arg(long, default_value_t = 1_000_000)]
    n: u64,
    /// M, the size of the domain the items are drawn from.
    #[arg(long, default_value_t = 100_000)]
    domain: u64,
    /// Queries per measurement (default: n).
    #[arg(long)]
    queries: Option<u64>,
    #[command(flatten)]
    common: Common,
}

/// Runs `amq sim negative`.
pub(super) fn run(a: NegativeArgs) -> Result<ExitCode> {
    if a.domain == 0 || a.n == 0 {
        bail!("--n and --domain must be at least 1");
    }
    let mut cache = NegativeCache::new(a.l, a.b, a.ways, a.common.seed)?;
    let domain = usize::try_from(a.domain).context("--domain is too large")?;
    let mut truth = Vec::new();
    truth
        .try_reserve_exact(domain)
        .map_err(|_| crate::input::cannot_allocate(domain, "the domain (--domain)"))?;
    truth.resize(domain, false);
    let mut distinct = 0u64;
    let queries = a.queries.unwrap_or(a.n).max(1);
    let mut rng = StdRng::seed_from_u64(a.common.seed);
    let mut csv = String::from(
        "occupancy,inserted,distinct,present_queries,false_negatives,fnr,fnr_formula,absent_queries,false_positives,fpr,fpr_formula\n",
    );
    let mut rows: Vec<[f64; 5]> = Vec::new(); // occupancy, fnr, fnr formula, fpr, fpr formula
    let mut next = 0.1f64;
    let mut measure = |cache: &NegativeCache,
                       truth: &[bool],
                       distinct: u64,
                       inserted: u64,
                       rng: &mut StdRng,
                       csv: &mut String| {
        let (mut pos, mut fneg, mut neg, mut fpos) = (0u64, 0u64, 0u64, 0u64);
        for _ in 0..queries {
            let x = rng.random_range(0..a.domain);
            let present = cache.contains(&x);
            if truth[x as usize] {
                pos += 1;
                fneg += u64::from(!present);
            } else {
                neg += 1;
                fpos += u64::from(present);
            }
        }
        let rate = |k: u64, of: u64| if of == 0 { 0.0 } else { k as f64 / of as f64 };
        // an item pushed out still matches if one of the w fingerprints left equals its own
        let still_matches = (f64::from(cache.ways()) * (-f64::from(cache.b())).exp2()).min(1.0);
        let fnr_formula =
            mean_false_negative_rate(distinct, cache.slots(), cache.ways()) * (1.0 - still_matches);
        let fpr_formula = cache.estimated_fpr();
        let occ = cache.occupancy();
        let _ = writeln!(
            csv,
            "{occ:.6},{inserted},{distinct},{pos},{fneg},{:.6e},{fnr_formula:.6e},{neg},{fpos},{:.6e},{fpr_formula:.6e}",
            rate(fneg, pos),
            rate(fpos, neg)
        );
        rows.push([
            occ,
            rate(fneg, pos),
            fnr_formula,
            rate(fpos, neg),
            fpr_formula,
        ]);
    };
    // Measure at each multiple of 10% occupancy, as the seed does (and once at the end if the
    // occupancy never reached 10%).
    let mut measured = false;
    for i in 0..a.n {
        let x = rng.random_range(0..a.domain);
        cache.insert(&x);
        let seen = &mut truth[x as usize];
        distinct += u64::from(!*seen);
        *seen = true;
        if cache.occupancy() >= next {
            while cache.occupancy() >= next {
                next += 0.1;
            }
            measure(&cache, &truth, distinct, i + 1, &mut rng, &mut csv);
            measured = true;
        }
    }
    if !measured {
        measure(&cache, &truth, distinct, a.n, &mut rng, &mut csv);
    }
    let col = |j: usize| rows.iter().map(|r| (r[0], r[j])).collect::<Vec<_>>();
    let plot = Plot {
        title: format!(
            "negative cache: l = {}, b = {}, {} way{}, N = {}, M = {}",
            a.l,
            a.b,
            a.ways,
            if a.ways == 1 { "" } else { "s" },
            a.n,
            a.domain
        ),
        x_label: "occupancy (fraction of slots in use)",
        y_label: "rate",
        log_y: false,
        series: vec![
            Series {
                name: "false positives (measured)".into(),
                color: RED,
                formula: false,
                points: col(3),
            },
            Series {
                name: "false positives: occupancy·w·2^-b".into(),
                color: RED,
                formula: true,
                points: col(4),
            },
            Series {
                name: "false negatives (measured)".into(),
                color: BLUE,
                formula: false,
                points: col(1),
            },
            Series {
                name: "false negatives: mean P[Bin(j, w/2^l) >= w]·(1 - w·2^-b)".into(),
                color: BLUE,
                formula: true,
                points: col(2),
            },
        ],
    };
    let last = rows.last().copied().unwrap_or_default();
    let summary = serde_json::json!({
        "sim": "negative", "l": a.l, "b": a.b, "ways": a.ways, "n": a.n, "domain": a.domain,
        "occupancy": last[0], "fnr": last[1], "fnr_formula": last[2], "fpr": last[3], "fpr_formula": last[4],
        "max_fpr": rows.iter().map(|r| r[3]).fold(0.0, f64::max),
    });
    finish(
        &a.common,
        format!("negative-l{}-b{}-w{}", a.l, a.b, a.ways),
        csv,
        &plot,
        summary,
        &[],
    )
}
