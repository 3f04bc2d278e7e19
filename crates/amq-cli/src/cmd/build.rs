//! `amq build`: build a filter from items, one per line.

use super::{parse_fpr, FilterKind};
use crate::input;
use amq::math::{plan, Spec, Target};
use amq::wire::Kind;
use amq::{AnyFilter, CuckooFilter};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;

/// Build a filter from items (one per line) and write it as an .amq file.
///
/// Without --items the distinct items are counted first (in one pass: each item is hashed
/// once, the hashes are kept and deduplicated), so the filter is sized for the real n.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq build --fpr 0.01 -o words.amq /usr/share/dict/american-english-insane
  amq build --kind blocked-bloom --fpr 0.001 --items 1000000 -o ids.amq ids.txt
  printf 'a\\nb\\n' | amq build --bits 1024 --hashes 3 -o small.amq -
  amq build --kind cuckoo --fpr 0.001 -o ids.amq ids.txt   (then: amq remove ids.amq ID)
  amq build --kind split-block-bloom --fpr 0.01 -o ids.amq ids.txt")]
pub struct Args {
    /// The kind of filter.
    #[arg(long, value_enum, default_value = "bloom")]
    kind: FilterKind,
    /// Target false-positive rate ε (0.01 or 1%).
    #[arg(long, value_parser = parse_fpr, required_unless_present = "bits", conflicts_with = "bits")]
    fpr: Option<f64>,
    /// n, the number of items to size for (default: count the distinct items).
    #[arg(long, short = 'n')]
    items: Option<u64>,
    /// m, the number of bits (instead of --fpr).
    #[arg(long)]
    bits: Option<u64>,
    /// k, the number of hash functions (default: the best for n and m).
    #[arg(long)]
    hashes: Option<u32>,
    /// The hash seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Items are hex, one per line (an optional 0x).
    #[arg(long)]
    hex: bool,
    /// Print the summary as JSON on stdout (instead of text on stderr).
    #[arg(long)]
    json: bool,
    /// The .amq file to write.
    #[arg(long, short = 'o')]
    output: PathBuf,
    /// Input files (default: stdin; `-` is stdin).
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// Calls `f` with the item hash (under --seed) of every input item and how many items came
/// before it, moving the progress bar along; returns the number of items. The hash is the
/// kind's: XXH3-64 for a split block filter, XXH3-128 for the others.
fn for_each_hash(
    a: &Args,
    bar: &indicatif::ProgressBar,
    mut f: impl FnMut(u128, u64) -> Result<()>,
) -> Result<u64> {
    let mut count = 0u64;
    input::for_each_item(&a.files, a.hex, |item| {
        let h = if a.kind == FilterKind::SplitBlockBloom {
            u128::from(amq::hash::hash64(item, a.seed))
        } else {
            amq::hash::hash128(item, a.seed)
        };
        f(h, count)?;
        count += 1;
        if count.is_multiple_of(65_536) {
            bar.set_position(count);
        }
        Ok(())
    })?;
    Ok(count)
}

/// The distinct item hashes of the input, sorted: n without --items.
fn distinct_hashes(a: &Args, bar: &indicatif::ProgressBar) -> Result<Vec<u128>> {
    let mut hashes = Vec::new();
    for_each_hash(a, bar, |h, _| {
        hashes.push(h);
        Ok(())
    })?;
    hashes.sort_unstable();
    hashes.dedup();
    Ok(hashes)
}

/// The estimated distinct items and false-positive rate of a filter from its fill.
fn from_fill(f: &AnyFilter) -> (f64, f64) {
    let info = f.info();
    (info.estimated_items, info.estimated_fpr)
}

/// Inserts a hash; `true` if it set a bit (the item was not there yet).
fn insert_hash(f: &mut AnyFilter, h: u128) -> bool {
    match f {
        AnyFilter::Bloom(b) => b.insert_hash(h),
        AnyFilter::BlockedBloom(b) => b.insert_hash(h),
        AnyFilter::SplitBlockBloom(b) => b.insert_hash(h as u64), // the XXH3-64 hash
        _ => unreachable!("build makes Bloom kinds only"),
    }
}

/// Runs `amq build`.
pub fn run(a: Args) -> Result<ExitCode> {
    if a.json && a.output == std::path::Path::new("-") {
        bail!("--json and -o - would both write to stdout: give -o a file, or drop --json");
    }
    if a.items == Some(0) {
        bail!(
            "--items must be at least 1 (the number of items to size for; amq plan refuses 0 too)"
        );
    }
    let kind = a.kind.kind();
    if kind == Kind::Cuckoo {
        return run_cuckoo(a);
    }
    let output = crate::fsio::Output::open(&a.output)?;
    let bar = crate::output::progress(None, "reading items");
    // With n known up front the items stream straight into the filter; otherwise their hashes
    // are collected, deduplicated and counted first.
    let streaming = a.items.is_some() || (a.bits.is_some() && a.hashes.is_some());
    // n planned: --items, else the items counted (distinct ones, unless --bits and --hashes
    // streamed every line in); and the n the summary's figures are taken at: the planned one,
    // or the distinct items estimated to have gone in when they are more
    let (filter, planned, at) = if streaming {
        let mut f = AnyFilter::new(&spec(&a, kind, a.items.unwrap_or(1))?, a.seed)?;
        let (m, k) = (f.info().m_bits, f.info().k);
        // items that set a bit: the distinct items, less the few that were false positives
        let mut new = 0u64;
        let count = for_each_hash(&a, &bar, |h, _| {
            new += u64::from(insert_hash(&mut f, h));
            Ok(())
        })?;
        match a.items {
            Some(planned) if new > planned => {
                // n from the filter's fill (every bit set: the lines read, duplicates and all)
                let (items, _) = from_fill(&f);
                let n = if items.is_finite() {
                    (items.round() as u64).clamp(new, count)
                } else {
                    count
                };
                eprintln!(
                    "warning: about {n} distinct items went in, more than the {planned} planned (--items): the filter's fpr is now {} (planned {})",
                    crate::output::rate(from_fill(&f).1),
                    crate::output::rate(expected_fpr(kind, planned, m, k)?)
                );
                (f, planned, n)
            }
            Some(planned) => (f, planned, planned),
            None => (f, count, count),
        }
    } else {
        let hashes = distinct_hashes(&a, &bar)?;
        let n = hashes.len() as u64;
        let mut f = AnyFilter::new(&spec(&a, kind, n.max(1))?, a.seed)?;
        for h in hashes {
            insert_hash(&mut f, h);
        }
        (f, n, n)
    };
    bar.finish_and_clear();
    output.write(&crate::fsio::encode(filter.size_bytes(), || {
        filter.to_bytes()
    })?)?;
    let info = filter.info();
    // the n the filter is sized for: an empty input is sized for 1 item
    let (planned, at) = (planned.max(1), at.max(1));
    let expected = expected_fpr(kind, at, info.m_bits, info.k)?;
    let bits_per_key = info.m_bits as f64 / at as f64;
    let summary = serde_json::json!({
        "output": a.output.display().to_string(),
        "kind": info.kind().name(),
        "items_inserted": info.inserted,
        "items_planned": planned,
        "m_bits": info.m_bits,
        "k": info.k,
        "seed": info.seed,
        "bytes": info.bytes,
        "expected_at_items": at,
        "bits_per_key": bits_per_key,
        "expected_fpr": expected,
    });
    crate::output::summary(a.json, &summary, || {
        format!(
            "built {}: {}: m = {} bits, k = {}, {} bytes; {}",
            info.kind().name(),
            inserted_and_planned(info.inserted, planned),
            info.m_bits,
            info.k,
            info.bytes,
            at_items(at, bits_per_key, expected)
        )
    })?;
    Ok(ExitCode::SUCCESS)
}

/// `1 item`, `N items`.
fn items(n: u64) -> String {
    if n == 1 {
        "1 item".to_string()
    } else {
        format!("{n} items")
    }
}

/// The summary's `N items inserted, sized for P items`. An empty input gives a filter sized
/// for 1 item (`0 items inserted, sized for 1 item`): m and k are the plan's for n = 1.
fn inserted_and_planned(inserted: u64, planned: u64) -> String {
    format!("{} inserted, sized for {}", items(inserted), items(planned))
}

/// The summary's `at N items: B bits per key, expected fpr X`: what the filter gives when it
/// holds N items (the n it is sized for, or the items that went in when they are more).
fn at_items(n: u64, bits_per_key: f64, fpr: f64) -> String {
    format!(
        "at {}: {bits_per_key:.2} bits per key, expected fpr {}",
        items(n),
        crate::output::rate(fpr)
    )
}

/// The model's ε of a Bloom kind of m bits and k after n items.
fn expected_fpr(kind: Kind, n: u64, m: u64, k: u32) -> Result<f64> {
    Ok(plan(&Spec::sized(kind, n, Target::Bits(m), Some(k))?)?.fpr)
}

/// The filter to build for n items, from the flags.
fn spec(a: &Args, kind: Kind, n: u64) -> Result<Spec> {
    let target = match (a.fpr, a.bits) {
        (Some(e), None) => Target::Fpr(e),
        (None, Some(m)) => Target::Bits(m),
        _ => bail!("give either --fpr or --bits"),
    };
    Ok(Spec::sized(kind, n, target, a.hashes)?)
}

/// `amq build --kind cuckoo`: f from --fpr, buckets for n items at load 0.95. Items are a
/// multiset, as in the filter: with --items every line is inserted (a repeated line is a
/// second copy); without, the distinct items are counted first and each is inserted once.
fn run_cuckoo(a: Args) -> Result<ExitCode> {
    if a.bits.is_some() || a.hashes.is_some() {
        bail!("a cuckoo filter is sized with --fpr (and --items), not --bits or --hashes");
    }
    let Some(fpr) = a.fpr else {
        bail!("give --fpr");
    };
    let output = crate::fsio::Output::open(&a.output)?;
    let bar = crate::output::progress(None, "reading items");
    let (filter, planned) = if let Some(n) = a.items {
        let mut f = CuckooFilter::with_fpr(n, fpr, a.seed)?;
        for_each_hash(&a, &bar, |h, before| {
            f.insert_hash(h).with_context(|| {
                format!("after {before} items (sized for {n}; give a larger --items)")
            })?;
            Ok(())
        })?;
        (f, n)
    } else {
        let hashes = distinct_hashes(&a, &bar)?;
        let n = hashes.len() as u64;
        let mut f = CuckooFilter::with_fpr(n.max(1), fpr, a.seed)?;
        for h in hashes {
            f.insert_hash(h)?;
        }
        (f, n)
    };
    bar.finish_and_clear();
    output.write(&crate::fsio::encode(filter.size_bytes(), || {
        filter.to_bytes()
    })?)?;
    let info = filter.info();
    // the n the filter is sized for: an empty input is sized for 1 item
    let planned = planned.max(1);
    // the fpr at the planned load, as `amq plan` gives it
    let mut expected =
        plan(&Spec::sized(Kind::Cuckoo, planned, Target::Fpr(fpr), None)?)?.fpr_exact;
    if info.inserted > planned {
        eprintln!(
            "warning: {} items went in, more than the {planned} planned (--items): the filter's fpr is now {} (planned {})",
            info.inserted,
            crate::output::rate(filter.estimated_fpr()),
            crate::output::rate(expected)
        );
        expected = filter.estimated_fpr();
    }
    let at = planned.max(info.inserted);
    let bits_per_key = filter.m() as f64 / at as f64;
    let summary = serde_json::json!({
        "output": a.output.display().to_string(),
        "kind": "cuckoo",
        "items_inserted": info.inserted,
        "items_planned": planned,
        "m_bits": filter.m(),
        "k": 2,
        "seed": filter.seed(),
        "bytes": filter.size_bytes(),
        "expected_at_items": at,
        "bits_per_key": bits_per_key,
        "expected_fpr": expected,
        "fingerprint_bits": filter.fingerprint_bits(),
        "buckets": filter.buckets(),
        "load_factor": filter.load_factor(),
    });
    crate::output::summary(a.json, &summary, || {
        format!(
            "built cuckoo: {} (load factor {:.4}): {}-bit fingerprints in {} bucket{} of 4, {} bytes; {}",
            inserted_and_planned(info.inserted, planned),
            filter.load_factor(),
            filter.fingerprint_bits(),
            filter.buckets(),
            if filter.buckets() == 1 { "" } else { "s" },
            filter.size_bytes(),
            at_items(at, bits_per_key, expected)
        )
    })?;
    Ok(ExitCode::SUCCESS)
}
