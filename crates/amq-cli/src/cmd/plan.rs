//! `amq plan`: size a filter for n items and a target ε, bit budget or memory budget.

use super::{parse_bytes, parse_fpr, FilterKind};
use amq::math::{plan, Plan, PlanDetails, Spec, Target};
use anyhow::{bail, Result};
use std::io::Write;
use std::process::ExitCode;

/// Size a filter: m, k, bytes, bits per key and the expected false-positive rate.
///
/// Without --kind, every kind is planned: bloom, blocked-bloom, cuckoo (unless --hashes is
/// given) and split-block-bloom (unless --hashes asks for a k other than its 8). A kind that
/// cannot meet the target (cuckoo where ε needs fingerprints wider than 16 bits, any kind
/// where n at ε would need more than 2^63 bits) is left out with a line `KIND: not planned:
/// WHY` on stderr; if none can, the command fails.
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
    /// A memory budget: a whole number of bytes with an optional unit (KB, MB, GB, KiB, MiB,
    /// GiB).
    #[arg(long, value_parser = parse_bytes)]
    memory: Option<u64>,
    /// k, the number of hash functions (default: the best for the target).
    #[arg(long)]
    hashes: Option<u32>,
    /// The kind to plan (default: every kind that can meet the target).
    #[arg(long, value_enum)]
    kind: Option<FilterKind>,
    /// Machine-readable output: one JSON object per kind (the library's serialised Plan).
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
        None => FilterKind::ALL.to_vec(),
    };
    // plan every kind first, so that nothing is printed before an error
    let mut plans = Vec::new();
    // the kinds left out, each with why: said on stderr when another kind is planned
    let mut skipped = Vec::new();
    for kind in kinds {
        let name = kind.kind().name();
        let planned = Spec::sized(kind.kind(), a.items, target, a.hashes).and_then(|s| plan(&s));
        match planned {
            Ok(p) => plans.push(p),
            Err(e) if a.kind.is_some() => {
                return Err(anyhow::Error::from(e).context(format!("cannot plan {name}")))
            }
            // they do not take --hashes (split-block-bloom's k is 8): left out unsaid
            Err(_)
                if a.hashes.is_some()
                    && (kind == FilterKind::Cuckoo
                        || (kind == FilterKind::SplitBlockBloom && a.hashes != Some(8))) => {}
            Err(e) => skipped.push((name, e)),
        }
    }
    if plans.is_empty() {
        let why: Vec<String> = skipped.iter().map(|(k, e)| format!("{k}: {e}")).collect();
        bail!("cannot plan any kind: {}", why.join("; "));
    }
    for (name, e) in skipped {
        eprintln!("{name}: not planned: {e}");
    }
    let mut out = crate::output::stdout();
    if !a.json {
        writeln!(
            out,
            "{:<17} {:>11} {:>3} {:>14} {:>12} {:>12} {:>12} {:>10}",
            "kind", "m_bits", "k", "bytes", "bits/key", "fpr", "fpr_exact", "bit_zero"
        )?;
    }
    for p in &plans {
        if a.json {
            crate::output::json_line(&mut out, &serde_json::to_value(p)?)?;
        } else {
            row(&mut out, p)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// One plan in the text table; a cuckoo filter's fingerprint width, buckets and load factor
/// on a second line.
fn row(out: &mut impl Write, p: &Plan) -> Result<()> {
    let bit_zero = match p.details {
        PlanDetails::Bloom {
            bit_zero_probability,
            ..
        }
        | PlanDetails::BlockedBloom {
            bit_zero_probability,
            ..
        } => format!("{bit_zero_probability:.6}"),
        _ => "-".to_string(),
    };
    writeln!(
        out,
        "{:<17} {:>11} {:>3} {:>14} {:>12.4} {:>12.6e} {:>12.6e} {:>10}",
        p.kind().name(),
        p.m_bits,
        p.k,
        p.bytes,
        p.bits_per_key,
        p.fpr,
        p.fpr_exact,
        bit_zero
    )?;
    if let PlanDetails::Cuckoo {
        fingerprint_bits,
        buckets,
        slots_per_bucket,
        load_factor,
    } = p.details
    {
        writeln!(
            out,
            "  fingerprint {fingerprint_bits} bits, {buckets} buckets of {slots_per_bucket} \
             slots, load factor {load_factor:.4}"
        )?;
    }
    Ok(())
}
