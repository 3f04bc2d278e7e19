//! `amq ttl`: the TTL cuckoo filter, a cuckoo filter whose entries expire one by one.

use super::parse_fpr;
use crate::input;
use amq::ttl::{TtlCuckooFilter, TtlSpec};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The TTL cuckoo filter: each item is forgotten on its own, ttl seconds after its insert.
///
/// Every slot holds a fingerprint and an expiry stamp, so each item is forgotten between
/// ttl − tick and ttl seconds after its insert. Times are seconds since the Unix epoch
/// (--now, default the system clock), so runs can be replayed.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq ttl new --items 100000 --fpr 0.001 --tick 60 --max-ttl 3600 -o cache.amq
  amq ttl insert cache.amq --now 1700000000 --ttl 300 names.txt
  amq ttl contains cache.amq --now 1700000240 example.com   # maybe (exit 0) or no (exit 1)
  amq ttl remove cache.amq --now 1700000240 example.com
  amq ttl info --now 1700000240 cache.amq")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    New(NewArgs),
    Insert(InsertArgs),
    Contains(ContainsArgs),
    Remove(RemoveArgs),
    /// Show the shape, the live and expired entries and the false-positive rate now.
    #[command(after_help = "Examples:
  amq ttl new --items 100000 --fpr 0.001 --tick 60 --max-ttl 3600 -o cache.amq
  amq ttl info cache.amq
  amq ttl info --json --now 1700000240 cache.amq")]
    Info(super::ClockedInfoArgs),
}

/// Create an empty TTL cuckoo filter for n live items and a false-positive rate.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq ttl new --items 100000 --fpr 0.001 --tick 60 --max-ttl 3600 -o cache.amq
  amq ttl new --items 1000000 --fpr 0.1% --tick 1 --stamp-bits 8 -o short.amq   # TTLs up to 256 s")]
struct NewArgs {
    /// n, the most items live at any time.
    #[arg(long)]
    items: u64,
    /// ε, the false-positive rate at n live items (0.001 or 0.1%).
    #[arg(long, value_parser = parse_fpr)]
    fpr: f64,
    /// The tick in seconds: the precision of expiry (an item lives between ttl − tick and ttl).
    #[arg(long)]
    tick: u64,
    /// The longest TTL in seconds inserts will use (sets the stamp bits so that a sweep runs at
    /// most once per that time); also the default TTL.
    #[arg(long)]
    max_ttl: Option<u64>,
    /// s, the stamp bits (1..=16; default: from --max-ttl, else 4): TTLs up to tick · 2^s.
    #[arg(long)]
    stamp_bits: Option<u32>,
    #[command(flatten)]
    out: super::NewOutput,
}

/// Insert items (one per line) with a time-to-live; an item already live gets the later
/// expiry.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq ttl new --items 100000 --fpr 0.001 --tick 60 --max-ttl 3600 -o cache.amq
  printf 'example.com\\nexample.org\\n' | amq ttl insert cache.amq --ttl 300 -
  printf 'example.net\\n' | amq ttl insert cache.amq -         # the default TTL: 3600 s")]
struct InsertArgs {
    #[command(flatten)]
    clocked: super::ClockedInsertArgs,
    /// The time-to-live in seconds (default: the filter's default TTL, its --max-ttl when
    /// it was created, else half the longest TTL its stamps hold).
    #[arg(long)]
    ttl: Option<u64>,
}

/// Ask whether items are live: `maybe` or `no` for each (exit 1 if any is `no`).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq ttl new --items 100000 --fpr 0.001 --tick 60 --max-ttl 3600 -o cache.amq
  printf 'example.com\\n' | amq ttl insert cache.amq --now 1700000000 --ttl 300 -
  amq ttl contains cache.amq --now 1700000240 example.com   # maybe (exit 0)
  amq ttl contains cache.amq --now 1700000300 example.com   # no (exit 1): expired")]
struct ContainsArgs {
    /// The .amq filter.
    filter: PathBuf,
    #[command(flatten)]
    now: super::Now,
    #[command(flatten)]
    items: super::ItemArgs,
}

/// Remove items' live entries: `removed` or `absent` for each (exit 1 if any is absent).
///
/// An item that shares its fingerprint and buckets with a removed one goes with it.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq ttl new --items 100000 --fpr 0.001 --tick 60 --max-ttl 3600 -o cache.amq
  printf 'example.com\\n' | amq ttl insert cache.amq --ttl 300 -
  amq ttl remove cache.amq example.com example.org    # removed, absent (exit 1)")]
struct RemoveArgs {
    /// The .amq filter, updated in place.
    filter: PathBuf,
    #[command(flatten)]
    now: super::Now,
    /// The items.
    #[arg(required = true)]
    items: Vec<String>,
    /// Items are hex (an optional 0x).
    #[arg(long)]
    hex: bool,
    /// One JSON object per item: {"item": ..., "removed": true|false}.
    #[arg(long)]
    json: bool,
}

fn load(path: &Path) -> Result<TtlCuckooFilter> {
    super::load(path, TtlCuckooFilter::from_bytes)
}

/// Runs `amq ttl`.
pub fn run(a: Args) -> Result<ExitCode> {
    match a.command {
        Command::New(a) => new(a),
        Command::Insert(a) => insert(a),
        Command::Contains(a) => contains(a),
        Command::Remove(a) => remove(a),
        Command::Info(a) => info(a),
    }
}

fn new(a: NewArgs) -> Result<ExitCode> {
    let spec = TtlSpec {
        items: a.items,
        fpr: a.fpr,
        tick: a.tick,
        stamp_bits: a.stamp_bits,
        max_ttl: a.max_ttl,
    };
    let f = match amq::AnyFilter::new(&amq::math::Spec::TtlCuckoo(spec), a.out.seed)? {
        amq::AnyFilter::TtlCuckoo(f) => f,
        other => bail!("planned a {} filter", other.kind().name()),
    };
    crate::fsio::write(
        &a.out.output,
        &crate::fsio::encode(f.size_bytes(), || f.to_bytes())?,
    )?;
    eprintln!(
        "created ttl cuckoo: {} buckets of 4 slots of {} + {} bits ({} bytes), tick {} s, TTLs up to {} s (default {} s); fpr {:.4}% at {} live items",
        f.buckets(),
        f.fingerprint_bits(),
        f.stamp_bits(),
        f.size_bytes(),
        f.tick(),
        f.max_ttl(),
        f.default_ttl(),
        f.expected_fpr(a.items) * 100.0,
        a.items
    );
    Ok(ExitCode::SUCCESS)
}

fn insert(a: InsertArgs) -> Result<ExitCode> {
    let c = a.clocked;
    let update = crate::fsio::Update::lock(&c.filter)?;
    let mut f = load(&c.filter)?;
    let now = c.now.or_clock();
    let ttl = a.ttl.unwrap_or(f.default_ttl());
    let (mut count, mut new) = (0u64, 0u64);
    input::for_each_item(&c.files, c.hex, |item| {
        let stored = f.insert(item, now, ttl).with_context(|| {
            format!(
                "item {} ({}); nothing was written",
                count + 1,
                input::display_item(item, c.hex)
            )
        })?;
        count += 1;
        new += u64::from(stored);
        Ok(())
    })?;
    update.replace(&crate::fsio::encode(f.size_bytes(), || f.to_bytes())?)?;
    eprintln!(
        "inserted {count} items ({new} new entries), live until {}",
        amq::ttl::expiry(now, ttl, f.tick())
    );
    Ok(ExitCode::SUCCESS)
}

fn contains(a: ContainsArgs) -> Result<ExitCode> {
    let f = load(&a.filter)?;
    let now = a.now.or_clock();
    a.items
        .answer(super::Answers::maybe(false), |bytes| f.contains(bytes, now))
}

fn remove(a: RemoveArgs) -> Result<ExitCode> {
    let update = crate::fsio::Update::lock(&a.filter)?;
    let mut f = load(&a.filter)?;
    let now = a.now.or_clock();
    let answers = super::Answers {
        key: "removed",
        words: ("removed", "absent"),
        ..super::Answers::maybe(a.json)
    };
    answers.print_after_save(
        &mut f,
        &a.items,
        |f, item| Ok(f.remove(&input::item_bytes(item, a.hex)?, now)),
        |f| update.replace(&crate::fsio::encode(f.size_bytes(), || f.to_bytes())?),
    )
}

fn info(a: super::ClockedInfoArgs) -> Result<ExitCode> {
    let f = load(&a.filter)?.with_clock(amq::clock::ManualClock::new(a.now.or_clock()));
    super::info::print_info(&f.info(), a.json)?;
    Ok(ExitCode::SUCCESS)
}
