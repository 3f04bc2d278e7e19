//! `amq sim ttl`: a TTL cuckoo filter under a steady stream of inserts: ε against the
//! live-load formula as entries expire, and the expiry precision against `ttl − tick .. ttl`.

use super::plot::{draw, Plot, Series, BLUE, GREEN, RED};
use super::{false_positives, finish, Common};
use amq::ttl::TtlCuckooFilter;
use anyhow::{bail, Result};
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::fmt::Write as _;
use std::process::ExitCode;

/// TTL cuckoo filter: ε at a steady live load, and when items are forgotten against the TTL.
///
/// Insert fresh items at a steady rate (n/ttl per second, item i at second ⌊i·ttl/n⌋, so n
/// are live once the first ones expire) for `duration` seconds, each with the same TTL, into
/// a filter planned for n live items. At `points` times, measure ε on fresh items against
/// `1 − (1 − 1/(2^f − 1))^(8α)` at the live load α and against the planned ε. At the end, for
/// every age around the TTL, measure the share of items still found over `tick` consecutive
/// query times, against the rule: found for ages up to ttl − tick, gone from ttl, and in
/// between with probability (ttl − age)/tick (the insert's phase in its tick); an item gone
/// is still "found" as a false positive at rate ε.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq sim ttl --items 100000 --fpr 0.001 --ttl 600 --tick 60 --out docs/sim
  amq sim ttl --items 10000 --ttl 300 --tick 10 --duration 1200 --out sim --json")]
pub(super) struct TtlArgs {
    /// n, the live items the filter is planned for.
    #[arg(long, default_value_t = 100_000)]
    items: u64,
    /// ε at n live items.
    #[arg(long, value_parser = crate::cmd::parse_fpr, default_value = "0.001")]
    fpr: f64,
    /// The TTL of every insert, in seconds.
    #[arg(long, default_value_t = 600)]
    ttl: u64,
    /// The tick, in seconds (the precision of expiry).
    #[arg(long, default_value_t = 60)]
    tick: u64,
    /// Seconds of inserts (default: 3 TTLs).
    #[arg(long)]
    duration: Option<u64>,
    /// Measurements of ε along the run.
    #[arg(long, default_value_t = 30)]
    points: u64,
    /// Queries of fresh items per measurement.
    #[arg(long, default_value_t = 200_000)]
    queries: u64,
    /// Items checked per second of age in the expiry measurement.
    #[arg(long, default_value_t = 200)]
    per_second: u64,
    #[command(flatten)]
    common: Common,
}

/// Runs `amq sim ttl`.
pub(super) fn run(a: TtlArgs) -> Result<ExitCode> {
    if a.items == 0 || a.ttl == 0 || a.tick == 0 || a.points == 0 || a.queries == 0 {
        bail!("--items, --ttl, --tick, --points and --queries must be at least 1");
    }
    let seed = a.common.seed;
    let mut f = TtlCuckooFilter::with_ttl(a.items, a.fpr, a.ttl, a.tick, seed)?;
    let duration = a.duration.unwrap_or(3 * a.ttl).max(1);
    let start = 1_700_000_000u64;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut csv = String::from(
        "time,live_entries,occupied_slots,load_factor,queries,false_positives,fpr,fpr_formula,fpr_planned\n",
    );
    let planned = f.expected_fpr(a.items);
    let mut rows = Vec::new();
    let mut next_point = 1;
    // item i (top bit clear) is inserted at second ⌊i·ttl/n⌋
    for second in 0..duration {
        let now = start + second;
        for item in first_item(second, &a)..first_item(second + 1, &a) {
            f.insert(&item, now, a.ttl)?;
        }
        if (second + 1) * a.points >= next_point * duration {
            next_point += 1;
            let (live, occupied) = f.entries_at(now);
            let (fp, got) = false_positives(&mut rng, a.queries, |x| f.contains(&x, now));
            let formula = f.expected_fpr(live);
            let _ = writeln!(
                csv,
                "{second},{live},{occupied},{:.6},{},{fp},{got:.6e},{formula:.6e},{planned:.6e}",
                live as f64 / f.slots() as f64,
                a.queries
            );
            rows.push((second as f64, got, formula, planned));
        }
    }
    let end = start + duration - 1;
    let (ages, found) = expiry_curve(&f, &a, start, end);
    // an expired item is still "found" as a false positive, at the live load's rate
    let eps = f.expected_fpr(f.entries_at(end + a.tick).0);
    let mut exp_csv = String::from("age,checked,found,found_rate,formula\n");
    let mut exp_rows = Vec::new();
    for (age, (checked, hits)) in ages.iter().zip(&found) {
        let rate_found = *hits as f64 / (*checked).max(1) as f64;
        let p = survival(*age, a.ttl, a.tick);
        let formula = p + (1.0 - p) * eps;
        let _ = writeln!(
            exp_csv,
            "{age},{checked},{hits},{rate_found:.6},{formula:.6}"
        );
        exp_rows.push((*age as f64 - a.ttl as f64, rate_found, formula));
    }
    let name = a
        .common
        .name
        .clone()
        .unwrap_or_else(|| format!("ttl-n{}-ttl{}-tick{}", a.items, a.ttl, a.tick));
    std::fs::create_dir_all(&a.common.out)?;
    let exp_csv_path = a.common.out.join(format!("{name}-expiry.csv"));
    let exp_svg_path = a.common.out.join(format!("{name}-expiry.svg"));
    crate::fsio::write(&exp_csv_path, exp_csv.as_bytes())?;
    let col = |rows: &[(f64, f64, f64)], j: usize| -> Vec<(f64, f64)> {
        rows.iter().map(|r| (r.0, [r.1, r.2][j])).collect()
    };
    draw(
        &exp_svg_path,
        &Plot {
            title: format!(
                "ttl cuckoo expiry: ttl {} s, tick {} s (lives between ttl − tick and ttl)",
                a.ttl, a.tick
            ),
            x_label: "age − ttl (seconds)",
            y_label: "share of items found",
            log_y: false,
            series: vec![
                Series {
                    name: "found (measured)".into(),
                    color: RED,
                    formula: false,
                    points: col(&exp_rows, 0),
                },
                Series {
                    name: "p = min(1, max(0, (ttl − age)/tick)), plus (1 − p)·ε".into(),
                    color: BLUE,
                    formula: true,
                    points: col(&exp_rows, 1),
                },
            ],
        },
    )?;
    let four = |j: usize| -> Vec<(f64, f64)> {
        rows.iter()
            .map(|r: &(f64, f64, f64, f64)| (r.0, [r.1, r.2, r.3][j]))
            .collect()
    };
    let plot = Plot {
        title: format!(
            "ttl cuckoo: n = {}, f = {}, s = {}, {} inserts/s with ttl {} s, tick {} s",
            a.items,
            f.fingerprint_bits(),
            f.stamp_bits(),
            rate(&a),
            a.ttl,
            a.tick
        ),
        x_label: "seconds",
        y_label: "false-positive rate (log scale)",
        log_y: true,
        series: vec![
            Series {
                name: "fresh items: false positives (measured)".into(),
                color: RED,
                formula: false,
                points: four(0),
            },
            Series {
                name: "1 − (1 − 1/(2^f − 1))^(8α), α the live load".into(),
                color: BLUE,
                formula: true,
                points: four(1),
            },
            Series {
                name: "planned ε at n live items".into(),
                color: GREEN,
                formula: true,
                points: four(2),
            },
        ],
    };
    let last = rows.last().copied().unwrap_or_default();
    let worst_expiry = exp_rows
        .iter()
        .map(|r| (r.1 - r.2).abs())
        .fold(0.0, f64::max);
    let summary = serde_json::json!({
        "sim": "ttl", "items": a.items, "ttl": a.ttl, "tick": a.tick, "inserts_per_second": rate(&a),
        "fingerprint_bits": f.fingerprint_bits(), "stamp_bits": f.stamp_bits(),
        "bytes": f.size_bytes(), "swept_epoch": f.swept_epoch(),
        "fpr": last.1, "fpr_formula": last.2, "fpr_planned": planned,
        "found_after_ttl": exp_rows.iter().filter(|r| r.0 >= 0.0).map(|r| r.1).fold(0.0, f64::max),
        "found_before_ttl_minus_tick": exp_rows.iter().filter(|r| r.0 <= -(a.tick.min(a.ttl) as f64)).map(|r| r.1).fold(1.0, f64::min),
        "expiry_max_deviation": worst_expiry,
        "expiry_csv": exp_csv_path.display().to_string(),
        "expiry_svg": exp_svg_path.display().to_string(),
    });
    finish(
        &a.common,
        name,
        csv,
        &plot,
        summary,
        &[&exp_csv_path, &exp_svg_path],
    )
}

/// Inserts a second, n/ttl, to two decimals.
fn rate(a: &TtlArgs) -> f64 {
    (a.items as f64 / a.ttl as f64 * 100.0).round() / 100.0
}

/// The first item inserted at second `s` of the run: ⌈s·n/ttl⌉, so that item i goes in at
/// second ⌊i·ttl/n⌋ (n/ttl a second on average, whether or not ttl divides n).
fn first_item(s: u64, a: &TtlArgs) -> u64 {
    (u128::from(s) * u128::from(a.items)).div_ceil(u128::from(a.ttl)) as u64
}

/// The share of items of age `age` found under the expiry rule, with insert phases uniform
/// in their tick: `min(1, max(0, (ttl − age)/tick))`.
fn survival(age: u64, ttl: u64, tick: u64) -> f64 {
    (ttl.saturating_sub(age).min(tick)) as f64 / tick as f64
}

/// For each age from `ttl − 2·tick` to `ttl + tick` seconds: how many items of that age were
/// checked and found, over the query times `end + 1 .. end + tick` (no inserts then). Item
/// ages are exact: item i was inserted at `start + ⌊i·ttl/n⌋`.
fn expiry_curve(
    f: &TtlCuckooFilter,
    a: &TtlArgs,
    start: u64,
    end: u64,
) -> (Vec<u64>, Vec<(u64, u64)>) {
    let lo = a.ttl.saturating_sub(2 * a.tick);
    let ages: Vec<u64> = (lo..=a.ttl + a.tick).collect();
    let mut found = vec![(0u64, 0u64); ages.len()];
    for delta in 1..=a.tick {
        let now = end + delta;
        for (k, &age) in ages.iter().enumerate() {
            let Some(t) = now.checked_sub(age).filter(|&t| t >= start && t <= end) else {
                continue;
            };
            let (first, next) = (first_item(t - start, a), first_item(t - start + 1, a));
            for item in first..next.min(first + a.per_second) {
                found[k].0 += 1;
                found[k].1 += u64::from(f.contains(&item, now));
            }
        }
    }
    (ages, found)
}
