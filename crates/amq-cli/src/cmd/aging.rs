//! `amq aging`: the aging Bloom filter, "seen within the last window".

use super::parse_fpr;
use crate::input;
use amq::clock::ManualClock;
use amq::window::{AgingBloom, Rotation};
use amq::{Filter, Insert};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The aging Bloom filter: g generations rotated by insertions or by time (seconds), so an
/// item is found within the last window and forgotten after it.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq aging new --window 1000000 --generations 4 --fpr 0.01 -o recent.amq
  amq aging new --window-seconds 3600 --items-per-generation 100000 --fpr 0.001 -o hour.amq
  amq aging insert recent.amq ids.txt
  amq aging contains recent.amq id-17        # maybe (exit 0) or no (exit 1)
  amq aging contains --now 1700000000 hour.amq id-17")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    New(NewArgs),
    /// Insert items (one per line) into the current generation.
    #[command(after_help = "Examples:
  amq aging new --window 1000000 --fpr 0.01 -o recent.amq
  printf 'id-1\\nid-17\\n' | amq aging insert recent.amq -      # inserted 2 items")]
    Insert(super::ClockedInsertArgs),
    Contains(ContainsArgs),
    /// Show the shape, the generations and the false-positive rate.
    #[command(after_help = "Examples:
  amq aging new --window 1000000 --fpr 0.01 -o recent.amq
  amq aging info recent.amq
  amq aging info --json recent.amq")]
    Info(super::ClockedInfoArgs),
}

/// Create an empty aging filter, sized for a window and a false-positive rate.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq aging new --window 1000000 --generations 4 --fpr 0.01 -o recent.amq
  amq aging new --window-seconds 3600 --items-per-generation 100000 --fpr 0.001 -o hour.amq")]
struct NewArgs {
    /// Remember at least this many of the latest insertions (rotation by count).
    #[arg(
        long,
        required_unless_present = "window_seconds",
        conflicts_with = "window_seconds"
    )]
    window: Option<u64>,
    /// Remember at least this many seconds (rotation by time).
    #[arg(long, requires = "items_per_generation")]
    window_seconds: Option<u64>,
    /// With --window-seconds: the most items inserted per rotation interval, for sizing.
    #[arg(long)]
    items_per_generation: Option<u64>,
    /// g, the generations (2..=64): more generations waste less window but cost bits.
    #[arg(long, default_value_t = amq::window::DEFAULT_GENERATIONS)]
    generations: u32,
    /// The bound on the false-positive rate ε over all generations (0.01 or 1%).
    #[arg(long, value_parser = parse_fpr)]
    fpr: f64,
    #[command(flatten)]
    out: super::NewOutput,
}

/// Ask whether items were seen within the window: `maybe` or `no` (exit 1 if any is `no`).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq aging new --window-seconds 3600 --items-per-generation 100000 --fpr 0.001 -o hour.amq
  printf 'id-17\\n' | amq aging insert --now 1700000000 hour.amq -
  amq aging contains --now 1700003000 hour.amq id-17        # maybe (exit 0)
  amq aging contains --now 1700005000 hour.amq id-17        # no (exit 1): forgotten")]
struct ContainsArgs {
    /// The .amq filter.
    filter: PathBuf,
    #[command(flatten)]
    items: super::ItemArgs,
    #[command(flatten)]
    now: super::Now,
}

/// The filter at `path`, asked at `now`.
fn load(path: &Path, now: super::Now) -> Result<AgingBloom<ManualClock>> {
    let f = super::load(path, AgingBloom::from_bytes)?;
    let f = f.with_clock(ManualClock::new(now.or_clock()));
    f.check_clock()
        .with_context(|| format!("{}", path.display()))?;
    Ok(f)
}

/// Runs `amq aging`.
pub fn run(a: Args) -> Result<ExitCode> {
    match a.command {
        Command::New(a) => new(a),
        Command::Insert(a) => insert(a),
        Command::Contains(a) => contains(a),
        Command::Info(a) => info(a),
    }
}

fn new(a: NewArgs) -> Result<ExitCode> {
    let f = match (a.window, a.window_seconds, a.items_per_generation) {
        (Some(w), None, _) => AgingBloom::with_window(w, a.generations, a.fpr, a.out.seed)?,
        (None, Some(t), Some(c)) => {
            AgingBloom::with_time_window(t, a.generations, c, a.fpr, a.out.seed)?
        }
        _ => bail!("give --window, or --window-seconds with --items-per-generation"),
    };
    crate::fsio::write(
        &a.out.output,
        &crate::fsio::encode(f.size_bytes(), || f.to_bytes())?,
    )?;
    let rotation = match f.rotation() {
        Rotation::Count(c) => format!("every {c} insertions"),
        Rotation::Time(d) => format!("every {d} s"),
    };
    // a time-rotated filter's bound is as of now: state it at the planned items per interval
    let bound = match a.items_per_generation {
        Some(c) => format!(
            "{} while no interval takes more than {c} items",
            crate::output::rate(f.fpr_bound_at(c))
        ),
        None => crate::output::rate(f.fpr_bound()),
    };
    eprintln!(
        "created aging bloom: {} generations of m = {} bits, k = {}, rotated {rotation}; {} bytes, fpr bound {bound}",
        f.generations(),
        f.m(),
        f.k(),
        f.size_bytes(),
    );
    Ok(ExitCode::SUCCESS)
}

fn insert(a: super::ClockedInsertArgs) -> Result<ExitCode> {
    let update = crate::fsio::Update::lock(&a.filter)?;
    let mut f = load(&a.filter, a.now)?;
    let mut count = 0u64;
    input::for_each_item(&a.files, a.hex, |item| {
        f.insert(item)?;
        count += 1;
        Ok(())
    })?;
    f.expire();
    update.replace(&crate::fsio::encode(f.size_bytes(), || f.to_bytes())?)?;
    eprintln!("inserted {count} items");
    Ok(ExitCode::SUCCESS)
}

fn contains(a: ContainsArgs) -> Result<ExitCode> {
    let f = load(&a.filter, a.now)?;
    a.items
        .answer(super::Answers::maybe(false), |bytes| f.contains(bytes))
}

fn info(a: super::ClockedInfoArgs) -> Result<ExitCode> {
    super::info::print_info(&load(&a.filter, a.now)?.info(), a.json)?;
    Ok(ExitCode::SUCCESS)
}
