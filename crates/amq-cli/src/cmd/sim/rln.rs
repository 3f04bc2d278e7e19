//! `amq sim rln`: a sliding-window cuckoo filter grown by registrations with slashing: ε per
//! query and bytes per member against the plan, and a check that no member is lost.

use super::plot::{draw, Plot, Series, BLUE, GREEN, RED};
use super::{false_positives, finish, Common};
use amq::rln::{epoch_bytes_for, SlidingWindowCuckoo};
use anyhow::{bail, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::fmt::Write as _;
use std::process::ExitCode;

/// Sliding-window cuckoo filter: ε and bytes per member under registrations and slashes.
///
/// Register `members` members; after each registration, with probability `slash_rate`, slash
/// a random member still held (at its epoch). At `points` times, measure ε on fresh items
/// queried at random epochs against the mean of the queried epochs'
/// `1 − (1 − 1/(2^f − 1))^(8α)` and against the bound, the bytes per member against the plan
/// (each epoch at the size `rln::epoch_bytes_for` its members; the open epoch at full size),
/// and check that a sample of members is found at its epoch.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq sim rln --members 1000000 --epoch-items 15564 --fpr 0.001 --slash-rate 0.05 --out docs/sim
  amq sim rln --members 100000 --epoch-items 7782 --slash-rate 0 --out sim --json")]
pub(super) struct RlnArgs {
    /// Registrations in all.
    #[arg(long, default_value_t = 1_000_000)]
    members: u64,
    /// B, the registrations per epoch.
    #[arg(long, default_value_t = 15_564)]
    epoch_items: u64,
    /// ε per query the set is planned for.
    #[arg(long, value_parser = crate::cmd::parse_fpr, default_value = "0.001")]
    fpr: f64,
    /// The chance that a registration is followed by a slash of a random member.
    #[arg(long, default_value_t = 0.05)]
    slash_rate: f64,
    /// Measurements along the run.
    #[arg(long, default_value_t = 40)]
    points: u64,
    /// Queries of fresh items per measurement.
    #[arg(long, default_value_t = 200_000)]
    queries: u64,
    /// Members checked at their epoch per measurement.
    #[arg(long, default_value_t = 20_000)]
    checks: u64,
    #[command(flatten)]
    common: Common,
}

/// Runs `amq sim rln`.
pub(super) fn run(a: RlnArgs) -> Result<ExitCode> {
    if a.members == 0 || a.points == 0 || a.queries == 0 {
        bail!("--members, --points and --queries must be at least 1");
    }
    if !(0.0..1.0).contains(&a.slash_rate) {
        bail!("--slash-rate must be in [0, 1), got {}", a.slash_rate);
    }
    let seed = a.common.seed;
    let mut set = SlidingWindowCuckoo::with_fpr(a.epoch_items, a.fpr, seed)?;
    let f = set.fingerprint_bits();
    let full_epoch = (1u64 << set.log2_buckets()) * u64::from((4 * f).div_ceil(8));
    let mut rng = StdRng::seed_from_u64(seed);
    // members held: (item, epoch); items are 0, 1, 2, ... (top bit clear)
    let mut held: Vec<(u64, u64)> = Vec::new();
    let (mut slashed, mut missed_total) = (0u64, 0u64);
    let mut csv = String::from(
        "registered,members,slashed,epochs,bytes,bytes_per_member,bytes_per_member_plan,bytes_per_member_no_slashing,queries,false_positives,fpr,fpr_model,fpr_bound,members_checked,missed\n",
    );
    let mut rows = Vec::new();
    let mut next_point = 1;
    for item in 0..a.members {
        let epoch = set.register(&item)?;
        held.push((item, epoch));
        if rng.random::<f64>() < a.slash_rate {
            let (victim, e) = held.swap_remove(rng.random_range(0..held.len()));
            if !set.slash(&victim, e) {
                bail!("member {victim} was not found at its epoch {e}");
            }
            slashed += 1;
        }
        if (item + 1) * a.points < next_point * a.members {
            continue;
        }
        next_point += 1;
        let first = set.first_epoch();
        let epochs = set.epochs();
        let mut model = 0.0;
        let (fp, got) = false_positives(&mut rng, a.queries, |x| {
            let e = first + rng_epoch(x, epochs);
            model += set.epoch_fpr(e);
            set.contains(&x, e)
        });
        model /= a.queries as f64;
        let checked = a.checks.min(held.len() as u64);
        let missed = (0..checked)
            .filter(|_| {
                let (m, e) = held[rng.random_range(0..held.len())];
                !set.contains(&m, e)
            })
            .count() as u64;
        missed_total += missed;
        let members = set.members();
        let plan_bytes: u64 = (first..first + epochs)
            .filter_map(|e| set.epoch(e))
            .map(|e| {
                if e.open {
                    full_epoch
                } else {
                    epoch_bytes_for(e.members, f).unwrap_or(0)
                }
            })
            .sum();
        let table_bytes = set.table_bytes(); // as the plan counts them
        let per = table_bytes as f64 / members as f64;
        let per_plan = plan_bytes as f64 / members as f64;
        let per_full = full_epoch as f64 / a.epoch_items as f64;
        let _ = writeln!(
            csv,
            "{},{members},{slashed},{epochs},{},{per:.4},{per_plan:.4},{per_full:.4},{},{fp},{got:.6e},{model:.6e},{:.6e},{checked},{missed}",
            item + 1,
            table_bytes,
            a.queries,
            set.fpr_bound()
        );
        rows.push([
            members as f64,
            got,
            model,
            set.fpr_bound(),
            per,
            per_plan,
            per_full,
        ]);
    }
    let col = |j: usize| -> Vec<(f64, f64)> { rows.iter().map(|r| (r[0], r[j])).collect() };
    let name = a.common.name.clone().unwrap_or_else(|| {
        format!(
            "rln-n{}-b{}-slash{}",
            a.members, a.epoch_items, a.slash_rate
        )
    });
    std::fs::create_dir_all(&a.common.out)?;
    let bytes_svg = a.common.out.join(format!("{name}-bytes.svg"));
    draw(
        &bytes_svg,
        &Plot {
            title: format!(
                "sliding-window cuckoo: bytes per member (B = {}, f = {f}, slash rate {})",
                a.epoch_items, a.slash_rate
            ),
            x_label: "members held",
            y_label: "bytes per member",
            log_y: false,
            series: vec![
                Series {
                    name: "measured".into(),
                    color: RED,
                    formula: false,
                    points: col(4),
                },
                Series {
                    name: "plan: each epoch at the size for its members".into(),
                    color: BLUE,
                    formula: true,
                    points: col(5),
                },
                Series {
                    name: "full epochs, no slashing".into(),
                    color: GREEN,
                    formula: true,
                    points: col(6),
                },
            ],
        },
    )?;
    let plot = Plot {
        title: format!(
            "sliding-window cuckoo: ε per query (B = {}, f = {f}, slash rate {})",
            a.epoch_items, a.slash_rate
        ),
        x_label: "members held",
        y_label: "false-positive rate (log scale)",
        log_y: true,
        series: vec![
            Series {
                name: "fresh items at random epochs (measured)".into(),
                color: RED,
                formula: false,
                points: col(1),
            },
            Series {
                name: "mean of 1 − (1 − 1/(2^f − 1))^(8α) over the queried epochs".into(),
                color: BLUE,
                formula: true,
                points: col(2),
            },
            Series {
                name: "bound: α = 0.95".into(),
                color: GREEN,
                formula: true,
                points: col(3),
            },
        ],
    };
    let last = rows.last().copied().unwrap_or_default();
    let summary = serde_json::json!({
        "sim": "rln", "registered": a.members, "members": set.members(), "slashed": slashed,
        "epochs": set.epochs(), "epoch_items": a.epoch_items, "fingerprint_bits": f,
        "bytes": set.table_bytes(), "bytes_per_member": last[4], "bytes_per_member_plan": last[5],
        "bytes_per_member_no_slashing": last[6],
        "fpr": last[1], "fpr_model": last[2], "fpr_bound": last[3],
        "max_fpr": rows.iter().map(|r| r[1]).fold(0.0, f64::max),
        "missed": missed_total,
        "bytes_svg": bytes_svg.display().to_string(),
    });
    finish(&a.common, name, csv, &plot, summary, &[&bytes_svg])
}

/// A query's epoch, uniform over the `epochs` held, from the query's own random bits (so the
/// draw does not disturb the item stream).
fn rng_epoch(x: u64, epochs: u64) -> u64 {
    amq::hash::reduce(
        x.rotate_left(17).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        epochs,
    )
}
