//! `amq negative`: the negative cache, "definitely present" or "maybe absent".

use crate::input;
use amq::clock::ManualClock;
use amq::negative::NegativeCache;
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The negative cache: a table of b-bit fingerprints that never says "present" wrongly (at
/// large b) and forgets instead. Answers `present` (definitely) or `absent` (maybe).
///
/// Exit status of `contains`: 0 if every item is present, 1 if any is (maybe) absent.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq negative new --l 16 --b 128 -o missing.amq             # the seed's 1MB ApproxSet: 1,056,768 bytes
  amq negative new --l 20 --b 64 --ways 8 --ttl 300 -o missing.amq
  amq negative insert missing.amq not-found-keys.txt
  amq negative contains missing.amq key-17                  # present (exit 0) or absent (exit 1)
  amq negative remove missing.amq key-17                    # the key exists now")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    New(NewArgs),
    /// Insert items (one per line).
    #[command(after_help = "Examples:
  amq negative new --l 16 --b 128 -o missing.amq
  printf 'key-17\\nkey-42\\n' | amq negative insert missing.amq -")]
    Insert(super::ClockedInsertArgs),
    Contains(ContainsArgs),
    Remove(RemoveArgs),
    #[command(after_help = "Examples:
  amq negative new --l 20 --b 64 --ways 8 --ttl 300 -o missing.amq
  amq negative info missing.amq
  amq negative info --json --now 1700000000 missing.amq")]
    Info(super::ClockedInfoArgs),
}

/// Create an empty negative cache of 2^l slots of b-bit fingerprints.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq negative new --l 16 --b 128 -o missing.amq
  amq negative new --l 20 --b 64 --ways 8 --ttl 300 -o missing.amq")]
struct NewArgs {
    /// l: the cache has 2^l slots.
    #[arg(long)]
    l: u32,
    /// b, the fingerprint bits (1..=128): false positives at most ways·2^-b.
    #[arg(long, default_value_t = 64)]
    b: u32,
    /// w, the slots per set (a power of two): 1 is direct-mapped, 8 cuts false negatives by
    /// orders of magnitude at the same memory.
    #[arg(long, default_value_t = 1)]
    ways: u32,
    /// Entries expire this many seconds after their insertion (costs 8 bytes per slot).
    #[arg(long)]
    ttl: Option<u64>,
    #[command(flatten)]
    out: super::NewOutput,
}

/// Ask about items: `present` (definitely) or `absent` (maybe) for each.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq negative new --l 16 --b 128 -o missing.amq
  printf 'key-17\\n' | amq negative insert missing.amq -
  amq negative contains missing.amq key-17         # present (exit 0)
  amq negative contains missing.amq key-99         # absent (exit 1)")]
struct ContainsArgs {
    /// The .amq cache.
    filter: PathBuf,
    #[command(flatten)]
    items: super::ItemArgs,
    #[command(flatten)]
    now: super::Now,
}

/// Forget items (exit 1 if any was not held).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq negative new --l 16 --b 128 -o missing.amq
  printf 'key-17\\n' | amq negative insert missing.amq -
  amq negative remove missing.amq key-17           # exit 0: it was held
  amq negative remove missing.amq key-17           # exit 1: not held any more")]
struct RemoveArgs {
    /// The .amq cache, updated in place.
    filter: PathBuf,
    /// The items.
    #[arg(required = true)]
    items: Vec<String>,
    #[command(flatten)]
    now: super::Now,
    /// Items are hex (an optional 0x).
    #[arg(long)]
    hex: bool,
}

/// The cache at `path`, asked at `now`.
fn load(path: &Path, now: super::Now) -> Result<NegativeCache<ManualClock>> {
    let c = super::load(path, NegativeCache::from_bytes)?;
    Ok(c.with_clock(ManualClock::new(now.or_clock())))
}

/// Runs `amq negative`.
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
    let mut c = NegativeCache::new(a.l, a.b, a.ways, a.out.seed)?;
    if let Some(ttl) = a.ttl {
        c = c.with_ttl(ttl)?;
    }
    crate::fsio::write(
        &a.out.output,
        &crate::fsio::encode(c.size_bytes(), || c.to_bytes())?,
    )?;
    eprintln!(
        "created negative cache: 2^{} slots of {} bits in sets of {}, {} bytes, false positives at most {:.3e}",
        a.l,
        a.b,
        a.ways,
        c.size_bytes(),
        c.fpr_bound()
    );
    Ok(ExitCode::SUCCESS)
}

fn insert(a: super::ClockedInsertArgs) -> Result<ExitCode> {
    let update = crate::fsio::Update::lock(&a.filter)?;
    let mut c = load(&a.filter, a.now)?;
    let mut count = 0u64;
    input::for_each_item(&a.files, a.hex, |item| {
        c.insert(item);
        count += 1;
        Ok(())
    })?;
    update.replace(&crate::fsio::encode(c.size_bytes(), || c.to_bytes())?)?;
    eprintln!("inserted {count} items; occupancy {:.4}", c.occupancy());
    Ok(ExitCode::SUCCESS)
}

fn contains(a: ContainsArgs) -> Result<ExitCode> {
    let c = load(&a.filter, a.now)?;
    let answers = super::Answers {
        key: "present",
        words: ("present", "absent"),
        ..super::Answers::maybe(false)
    };
    a.items.answer(answers, |bytes| c.contains(bytes))
}

fn remove(a: RemoveArgs) -> Result<ExitCode> {
    let update = crate::fsio::Update::lock(&a.filter)?;
    let mut c = load(&a.filter, a.now)?;
    let mut all = true;
    for item in &a.items {
        all &= c.remove(&input::item_bytes(item, a.hex)?);
    }
    update.replace(&crate::fsio::encode(c.size_bytes(), || c.to_bytes())?)?;
    Ok(super::exit_all(all))
}

fn info(a: super::ClockedInfoArgs) -> Result<ExitCode> {
    super::info::print_info(&load(&a.filter, a.now)?.info(), a.json)?;
    Ok(ExitCode::SUCCESS)
}
