//! `amq window`: the sliding-window Bloom filter of mutator sets, with positions.

use crate::input;
use amq::window::{SlidingWindowBloom, WindowParams};
use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The sliding-window Bloom filter (Szepieniec and Værge, IACR ePrint 2023/1208): every item
/// has a position L, and its k bits fall in a window of W bits that slides by S bits every B
/// positions. Old chunks are archived and still answered.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq window new --preset neptune -o swbf.amq
  printf 'utxo-a\\nutxo-b\\n' | amq window insert swbf.amq -      # prints each item's position
  amq window contains swbf.amq --at 1 utxo-b                     # maybe (exit 0)
  amq window contains swbf.amq --at 0 utxo-b                     # no (exit 1)
  amq window info --json swbf.amq")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    New(NewArgs),
    Insert(InsertArgs),
    Contains(ContainsArgs),
    Info(InfoArgs),
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum Preset {
    /// Neptune's mutator set: W = 2^20, S = 2^12, B = 8, k = 45.
    Neptune,
}

/// Create an empty sliding-window filter.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq window new --preset neptune -o swbf.amq
  amq window new --window 4096 --chunk 256 --batch 16 --hashes 4 -o small.amq")]
struct NewArgs {
    /// A named shape (the other shape flags override its fields).
    #[arg(long, value_enum)]
    preset: Option<Preset>,
    /// W, the bits of the active window (a multiple of --chunk).
    #[arg(long)]
    window: Option<u64>,
    /// S, the bits of one chunk: the slide step (a multiple of 64).
    #[arg(long)]
    chunk: Option<u64>,
    /// B, the insertions per slide.
    #[arg(long)]
    batch: Option<u64>,
    /// k, the indices per item.
    #[arg(long)]
    hashes: Option<u32>,
    #[command(flatten)]
    out: super::NewOutput,
}

/// Insert items (one per line) at the next positions, or from --at on; print each position.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq window new --preset neptune -o swbf.amq
  printf 'utxo-a\\nutxo-b\\n' | amq window insert swbf.amq -         # positions 0 and 1
  printf 'utxo-c\\n' | amq window insert swbf.amq --at 100 -        # position 100")]
struct InsertArgs {
    /// The .amq filter, updated in place.
    filter: PathBuf,
    /// The position of the first item (the next ones follow); default: the next position.
    #[arg(long)]
    at: Option<u64>,
    /// Items are hex, one per line (an optional 0x).
    #[arg(long)]
    hex: bool,
    /// One JSON object per item: {"item": ..., "position": L}.
    #[arg(long)]
    json: bool,
    /// Input files (default: stdin; `-` is stdin).
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// Ask about items at a position: `maybe` or `no` for each (exit 1 if any is `no`).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq window new --preset neptune -o swbf.amq
  printf 'utxo-a\\nutxo-b\\n' | amq window insert swbf.amq -
  amq window contains swbf.amq --at 1 utxo-b                     # maybe (exit 0)
  amq window contains swbf.amq --at 0 utxo-b                     # no (exit 1)")]
struct ContainsArgs {
    /// The .amq filter.
    filter: PathBuf,
    /// The position L the items were inserted at.
    #[arg(long)]
    at: u64,
    #[command(flatten)]
    items: super::ItemArgs,
}

/// Show the shape, the window position, the archive and the expected false-positive rate.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq window new --preset neptune -o swbf.amq
  amq window info swbf.amq
  amq window info --json swbf.amq")]
struct InfoArgs {
    /// The .amq filter.
    filter: PathBuf,
    /// One JSON object.
    #[arg(long)]
    json: bool,
}

fn load(path: &Path) -> Result<SlidingWindowBloom> {
    super::load(path, SlidingWindowBloom::from_bytes)
}

/// Runs `amq window`.
pub fn run(a: Args) -> Result<ExitCode> {
    match a.command {
        Command::New(a) => new(a),
        Command::Insert(a) => insert(a),
        Command::Contains(a) => contains(a),
        Command::Info(a) => info(a),
    }
}

fn new(a: NewArgs) -> Result<ExitCode> {
    let base = a.preset.map(|preset| match preset {
        Preset::Neptune => WindowParams::NEPTUNE,
    });
    let pick = |flag: Option<u64>, from: Option<u64>, name: &str| -> Result<u64> {
        flag.or(from)
            .with_context(|| format!("give --{name} or a --preset"))
    };
    let params = WindowParams {
        window_bits: pick(a.window, base.map(|p| p.window_bits), "window")?,
        chunk_bits: pick(a.chunk, base.map(|p| p.chunk_bits), "chunk")?,
        batch: pick(a.batch, base.map(|p| p.batch), "batch")?,
        k: pick(
            a.hashes.map(u64::from),
            base.map(|p| u64::from(p.k)),
            "hashes",
        )?
        .try_into()
        .context("--hashes is too large")?,
    };
    let f = SlidingWindowBloom::new(params, a.out.seed)?;
    crate::fsio::write(
        &a.out.output,
        &crate::fsio::encode(f.size_bytes(), || f.to_bytes())?,
    )?;
    eprintln!(
        "created sliding-window bloom: W = {} bits, S = {} bits, B = {}, k = {} ({} bytes of window)",
        params.window_bits,
        params.chunk_bits,
        params.batch,
        params.k,
        params.window_bits / 8
    );
    Ok(ExitCode::SUCCESS)
}

fn insert(a: InsertArgs) -> Result<ExitCode> {
    let update = crate::fsio::Update::lock(&a.filter)?;
    let mut f = load(&a.filter)?;
    // the positions are held back and reach stdout only once the filter is written: a bad
    // item later in the input leaves the file unchanged and prints none
    let mut out = crate::output::AfterSave::new();
    let mut count = 0u64;
    input::for_each_item(&a.files, a.hex, |item| {
        // with --at, the items take consecutive positions from it
        let inserted = match a.at.map(|at| at.checked_add(count)) {
            Some(Some(l)) => f.insert_at(item, l).map(|_| l).map_err(Into::into),
            Some(None) => Err(anyhow::anyhow!("positions exhausted")),
            None => f.insert(item).map_err(Into::into),
        };
        count += 1;
        let position = inserted.with_context(|| {
            format!(
                "item {count} ({}); nothing was written",
                input::display_item(item, a.hex)
            )
        })?;
        if a.json {
            let mut obj = serde_json::json!({ "position": position });
            input::set_item(&mut obj, "item", item, a.hex);
            crate::output::json_line(&mut out, &obj)?;
        } else {
            writeln!(out, "{position}\t{}", input::display_item(item, a.hex))?;
        }
        Ok(())
    })?;
    update.replace(&crate::fsio::encode(f.size_bytes(), || f.to_bytes())?)?;
    out.print(true)?;
    Ok(ExitCode::SUCCESS)
}

fn contains(a: ContainsArgs) -> Result<ExitCode> {
    let f = load(&a.filter)?;
    let answers = super::Answers {
        extra: Some(("position", a.at.into())),
        ..super::Answers::maybe(false)
    };
    a.items.answer(answers, |bytes| f.contains(bytes, a.at))
}

fn info(a: InfoArgs) -> Result<ExitCode> {
    super::info::print_info(&load(&a.filter)?.info(), a.json)?;
    Ok(ExitCode::SUCCESS)
}
