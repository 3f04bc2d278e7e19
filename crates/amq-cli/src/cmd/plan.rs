//! `amq plan`: size a filter for n items and a target ε, bit budget or memory budget.

use super::{cuckoo_plan_json, parse_bytes, parse_fpr, plan_json, FilterKind};
use amq::math::{plan, Target};
use anyhow::Result;
use std::io::Write;
use std::process::ExitCode;

/// Size a filter: m, k, bytes, bits per key and the expected false-positive rate.
///
/// Without --kind, every kind is planned: bloom, blocked-bloom and (unless --hashes is given,
/// or ε needs fingerprints wider than 16 bits) cuckoo.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq plan --items 1000000 --fpr 0.01
  amq plan --items 10000 --bits 32768 --json
  amq plan --items 663473 --memory 1MiB --kind blocked-bloom
  amq plan --items 1000000 --fpr 0.001 --kind cuckoo")]
#[command(group(clap::ArgGroup::new("target").required(true).args(["fpr", "bits", "memory"])))]
pub struct Args {
    /// n, the number of items.
    #[arg(long, short = 'n')]
    items: u64,
    /// Target false-positive rate ε (0.01 or 1%).
    #[arg(long, value_parser = parse_fpr)]
    fpr: Option<f64>,
    /// Exactly m bits (a blocked filter rounds up to whole 512-bit blocks).
    #[arg(long)]
    bits: Option<u64>,
    /// A memory budget in bytes (units: KB, MB, KiB, MiB, ...).
    #[arg(long, value_parser = parse_bytes)]
    memory: Option<u64>,
    /// k, the number of hash functions (default: the best for the target).
    #[arg(long)]
    hashes: Option<u32>,
    /// The kind to plan (default: every kind that can meet the target).
    #[arg(long, value_enum)]
    kind: Option<FilterKind>,
    /// Machine-readable output: one JSON object per kind.
    #[arg(long)]
    json: bool,
}

/// Runs `amq plan`.
pub fn run(a: Args) -> Result<ExitCode> {
    let target = match (a.fpr, a.bits, a.memory) {
        (Some(e), _, _) => Target::Fpr(e),
        (_, Some(m), _) => Target::Bits(m),
        (_, _, Some(b)) => Target::Memory(b),
        _ => unreachable!("clap requires one target"),
    };
    let kinds = match a.kind {
        Some(k) => vec![k],
        None => vec![
            FilterKind::Bloom,
            FilterKind::BlockedBloom,
            FilterKind::Cuckoo,
        ],
    };
    // every row is planned before any is printed: an error leaves stdout empty
    let mut out: Vec<u8> = Vec::new();
    if !a.json {
        writeln!(
            out,
            "{:<14} {:>14} {:>3} {:>14} {:>12} {:>12} {:>12} {:>10}",
            "kind", "m_bits", "k", "bytes", "bits/key", "fpr", "fpr_exact", "bit_zero"
        )?;
    }
    for kind in kinds {
        let Some(kind) = kind.bloom() else {
            if a.kind.is_some() {
                cuckoo_row(&mut out, &a, target)?;
            } else if a.hashes.is_none() {
                // listed with the others only where it can meet the target
                if let Err(e) = cuckoo_row(&mut out, &a, target) {
                    eprintln!("cuckoo: not planned: {e:#}");
                }
            }
            continue;
        };
        let p = plan(kind.plan_kind(), a.items, target, a.hashes)?;
        if a.json {
            crate::output::json_line(&mut out, &plan_json(&p))?;
        } else {
            writeln!(
                out,
                "{:<14} {:>14} {:>3} {:>14} {:>12.4} {:>12.6e} {:>12.6e} {:>10.6}",
                p.kind.name(),
                p.m_bits,
                p.k,
                p.bytes,
                p.bits_per_key,
                p.fpr,
                p.fpr_exact,
                p.bit_zero_probability
            )?;
        }
    }
    let mut stdout = crate::output::stdout();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The cuckoo filter's plan: the table's row (k = 2 buckets probed; no bit-zero probability),
/// then its fingerprint width, buckets and load factor.
fn cuckoo_row(out: &mut impl Write, a: &Args, target: Target) -> Result<()> {
    if a.hashes.is_some() {
        anyhow::bail!("--hashes does not apply to a cuckoo filter (a query probes 2 buckets)");
    }
    let p = amq::cuckoo::plan(a.items, target)?;
    if a.json {
        crate::output::json_line(out, &cuckoo_plan_json(&p))?;
    } else {
        writeln!(
            out,
            "{:<14} {:>14} {:>3} {:>14} {:>12.4} {:>12.6e} {:>12.6e} {:>10}",
            "cuckoo", p.m_bits, 2, p.bytes, p.bits_per_key, p.fpr, p.fpr_exact, "-"
        )?;
        writeln!(
            out,
            "  fingerprint {} bits, {} buckets of {} slots, load factor {:.4}",
            p.fingerprint_bits,
            p.buckets,
            amq::cuckoo::SLOTS_PER_BUCKET,
            p.load_factor
        )?;
    }
    Ok(())
}
