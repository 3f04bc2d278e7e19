//! `amq rln`: the sliding-window cuckoo filter, a membership set by registration epochs
//! (the rate-limiting-nullifier scenario: register is an append, slash a deletion).

use super::parse_fpr;
use crate::input;
use amq::rln::SlidingWindowCuckoo;
use anyhow::{Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The sliding-window cuckoo filter: registrations by epoch (RLN membership sets).
///
/// One cuckoo filter per epoch of B registrations, so the set grows without bound; members
/// are asked for and slashed at the epoch they registered in, and a full epoch shrinks to
/// the members it keeps. A light client downloads an epoch at a time (export-epoch,
/// apply-epoch).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq rln new --epoch-items 15564 --fpr 0.001 -o members.amq
  amq rln register members.amq ids.txt             # prints <epoch>\\t<item> per line
  amq rln contains members.amq --epoch 0 id-17      # maybe (exit 0) or no (exit 1)
  amq rln slash members.amq --epoch 0 id-17         # exit 1 if absent (nothing changed)
  amq rln close members.amq                         # end the open epoch now (a clock's epoch)
  amq rln export-epoch members.amq --epoch 0 -o epoch-0.amq
  amq rln apply-epoch light.amq epoch-0.amq
  amq rln info --epochs members.amq")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    New(NewArgs),
    Register(RegisterArgs),
    Contains(ContainsArgs),
    Slash(SlashArgs),
    Close(CloseArgs),
    Info(InfoArgs),
    ExportEpoch(ExportArgs),
    ApplyEpoch(ApplyArgs),
}

/// Create an empty set of epochs of B registrations with a false-positive rate per query.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq rln new --epoch-items 15564 --fpr 0.001 -o members.amq
  amq rln new --epoch-items 31129 --fpr 0.1% --seed 7 -o members.amq")]
struct NewArgs {
    /// B, the registrations per epoch (7782, 15564, 31129, ... fill their tables best).
    #[arg(long)]
    epoch_items: u64,
    /// ε, the most false-positive rate of a query at any epoch (0.001 or 0.1%).
    #[arg(long, value_parser = parse_fpr)]
    fpr: f64,
    #[command(flatten)]
    out: super::NewOutput,
}

/// Register members (one per line) in the open epoch; print `<epoch>\t<item>` for each.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq rln new --epoch-items 15564 --fpr 0.001 -o members.amq
  printf 'id-17\\nid-18\\n' | amq rln register members.amq -     # prints 0\\tid-17 and 0\\tid-18")]
struct RegisterArgs {
    /// The .amq set, updated in place.
    filter: PathBuf,
    /// Items are hex, one per line (an optional 0x).
    #[arg(long)]
    hex: bool,
    /// One JSON object per item: {"item": ..., "epoch": E}.
    #[arg(long)]
    json: bool,
    /// Input files (default: stdin; `-` is stdin).
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// Ask about members at their registration epoch: `maybe` or `no` (exit 1 if any is `no`).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq rln new --epoch-items 15564 --fpr 0.001 -o members.amq
  printf 'id-17\\n' | amq rln register members.amq -
  amq rln contains members.amq --epoch 0 id-17      # maybe (exit 0)
  amq rln contains members.amq --epoch 0 id-99      # no (exit 1)")]
struct ContainsArgs {
    /// The .amq set (or an epoch export).
    filter: PathBuf,
    /// The epoch the members registered in.
    #[arg(long)]
    epoch: u64,
    #[command(flatten)]
    items: super::ItemArgs,
}

/// Slash members at their epoch (exit 1 if any was absent).
///
/// Prints `slashed`, or `absent` when definitely not there (nothing changed for it), for
/// each member; exit 1 if any was absent.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq rln new --epoch-items 15564 --fpr 0.001 -o members.amq
  printf 'id-17\\n' | amq rln register members.amq -
  amq rln slash members.amq --epoch 0 id-17         # slashed (exit 0)
  amq rln slash members.amq --epoch 0 id-17         # absent (exit 1): nothing changed")]
struct SlashArgs {
    /// The .amq set, updated in place.
    filter: PathBuf,
    /// The epoch the members registered in.
    #[arg(long)]
    epoch: u64,
    /// The items.
    #[arg(required = true)]
    items: Vec<String>,
    /// Items are hex (an optional 0x).
    #[arg(long)]
    hex: bool,
    /// One JSON object per item: {"item": ..., "epoch": E, "slashed": true|false}.
    #[arg(long)]
    json: bool,
}

/// Close the open epoch early (compacting it); the next registration opens a new one.
///
/// For epochs that end on a clock rather than after B registrations.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq rln new --epoch-items 15564 --fpr 0.001 -o members.amq
  printf 'id-17\\n' | amq rln register members.amq -
  amq rln close members.amq        # closed epoch 0; the next registration opens epoch 1")]
struct CloseArgs {
    /// The .amq set, updated in place (unchanged if no epoch is open).
    filter: PathBuf,
    /// JSON: {"closed": E or null, "next_epoch": N}.
    #[arg(long)]
    json: bool,
}

/// Show the shape, the epochs, the members, the bits per member and the false-positive rate.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq rln new --epoch-items 15564 --fpr 0.001 -o members.amq
  printf 'id-17\\n' | amq rln register members.amq -
  amq rln info --epochs members.amq
  amq rln info --json members.amq")]
struct InfoArgs {
    /// The .amq set.
    filter: PathBuf,
    /// Also one line per epoch (its registrations, members, buckets, bytes and ε).
    #[arg(long)]
    epochs: bool,
    /// JSON: one object (and one per epoch with --epochs).
    #[arg(long)]
    json: bool,
}

/// Write one epoch alone (what a light client downloads when it changed).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq rln new --epoch-items 15564 --fpr 0.001 -o members.amq
  printf 'id-17\\n' | amq rln register members.amq -
  amq rln export-epoch members.amq --epoch 0 -o epoch-0.amq
  amq rln contains epoch-0.amq --epoch 0 id-17      # maybe (exit 0)")]
struct ExportArgs {
    /// The .amq set.
    filter: PathBuf,
    /// The epoch to export.
    #[arg(long)]
    epoch: u64,
    /// The .amq file to write.
    #[arg(long, short = 'o')]
    output: PathBuf,
}

/// Put an exported epoch into a copy of the set: it replaces the epoch of its number, or
/// follows the last one.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq rln new --epoch-items 15564 --fpr 0.001 -o members.amq && cp members.amq light.amq
  printf 'id-17\\n' | amq rln register members.amq -
  amq rln export-epoch members.amq --epoch 0 -o epoch-0.amq
  amq rln apply-epoch light.amq epoch-0.amq         # light.amq has id-17 at epoch 0 now")]
struct ApplyArgs {
    /// The .amq set, updated in place.
    filter: PathBuf,
    /// The epoch export (from export-epoch).
    export: PathBuf,
}

fn load(path: &Path) -> Result<SlidingWindowCuckoo> {
    super::load(path, SlidingWindowCuckoo::from_bytes)
}

/// Runs `amq rln`.
pub fn run(a: Args) -> Result<ExitCode> {
    match a.command {
        Command::New(a) => new(a),
        Command::Register(a) => register(a),
        Command::Contains(a) => contains(a),
        Command::Slash(a) => slash(a),
        Command::Close(a) => close(a),
        Command::Info(a) => info(a),
        Command::ExportEpoch(a) => export(a),
        Command::ApplyEpoch(a) => apply(a),
    }
}

fn new(a: NewArgs) -> Result<ExitCode> {
    let set = SlidingWindowCuckoo::with_fpr(a.epoch_items, a.fpr, a.out.seed)?;
    crate::fsio::write(
        &a.out.output,
        &crate::fsio::encode(set.size_bytes(), || set.to_bytes())?,
    )?;
    let (buckets, bytes) = (1u64 << set.log2_buckets(), set.epoch_bytes());
    eprintln!(
        "created sliding-window cuckoo: epochs of {} registrations in {buckets} buckets of 4 x {} bits ({bytes} bytes, {:.2} bits per member when full); fpr at most {:.4}% per query",
        set.epoch_items(),
        set.fingerprint_bits(),
        8.0 * bytes as f64 / set.epoch_items() as f64,
        set.fpr_bound() * 100.0
    );
    Ok(ExitCode::SUCCESS)
}

fn register(a: RegisterArgs) -> Result<ExitCode> {
    let update = crate::fsio::Update::lock(&a.filter)?;
    let mut set = load(&a.filter)?;
    // each item's epoch is printed once the file is written
    let mut out = crate::output::AfterSave::new();
    input::for_each_item(&a.files, a.hex, |item| {
        let epoch = set.register(item)?;
        let shown = input::display_item(item, a.hex);
        if a.json {
            crate::output::json_line(
                &mut out,
                &serde_json::json!({"item": shown, "epoch": epoch}),
            )?;
        } else {
            writeln!(out, "{epoch}\t{shown}")?;
        }
        Ok(())
    })?;
    update.replace(&crate::fsio::encode(set.size_bytes(), || set.to_bytes())?)?;
    out.print(true)?;
    Ok(ExitCode::SUCCESS)
}

fn contains(a: ContainsArgs) -> Result<ExitCode> {
    let set = load(&a.filter)?;
    let answers = super::Answers {
        extra: Some(("epoch", a.epoch.into())),
        ..super::Answers::maybe(false)
    };
    a.items
        .answer(answers, |bytes| set.contains(bytes, a.epoch))
}

fn slash(a: SlashArgs) -> Result<ExitCode> {
    let update = crate::fsio::Update::lock(&a.filter)?;
    let mut set = load(&a.filter)?;
    let answers = super::Answers {
        key: "slashed",
        words: ("slashed", "absent"),
        extra: Some(("epoch", a.epoch.into())),
        ..super::Answers::maybe(a.json)
    };
    answers.print_after_save(
        &mut set,
        &a.items,
        |set, item| Ok(set.slash(&input::item_bytes(item, a.hex)?, a.epoch)),
        |set| update.replace(&crate::fsio::encode(set.size_bytes(), || set.to_bytes())?),
    )
}

fn close(a: CloseArgs) -> Result<ExitCode> {
    let update = crate::fsio::Update::lock(&a.filter)?;
    let mut set = load(&a.filter)?;
    let closed = set.close();
    if closed.is_some() {
        update.replace(&crate::fsio::encode(set.size_bytes(), || set.to_bytes())?)?;
    }
    let next = set.next_epoch();
    let mut out = crate::output::stdout();
    if a.json {
        crate::output::json_line(
            &mut out,
            &serde_json::json!({"closed": closed, "next_epoch": next}),
        )?;
    } else {
        match closed {
            Some(e) => writeln!(
                out,
                "closed epoch {e}; the next registration opens epoch {next}"
            )?,
            None => writeln!(
                out,
                "no epoch was open; the next registration opens epoch {next}"
            )?,
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn info(a: InfoArgs) -> Result<ExitCode> {
    let set = load(&a.filter)?;
    super::info::print_info(&set.info(), a.json)?;
    if a.epochs {
        let mut out = crate::output::stdout();
        let first = set.first_epoch();
        for e in (first..first + set.epochs()).filter_map(|e| set.epoch(e)) {
            if a.json {
                crate::output::json_line(&mut out, &serde_json::to_value(e)?)?;
            } else {
                writeln!(
                    out,
                    "epoch {}\tregistered {}\tmembers {}\tbuckets {}\tbytes {}\tfpr {:.6e}{}",
                    e.epoch,
                    e.registered,
                    e.members,
                    e.buckets,
                    e.bytes,
                    e.fpr,
                    if e.open { "\topen" } else { "" }
                )?;
            }
        }
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

fn export(a: ExportArgs) -> Result<ExitCode> {
    let set = load(&a.filter)?;
    let part = set.export_epoch(a.epoch)?;
    let bytes = part.to_bytes();
    crate::fsio::write(&a.output, &bytes)?;
    eprintln!(
        "exported epoch {} ({} members): {} bytes",
        a.epoch,
        part.members(),
        bytes.len()
    );
    Ok(ExitCode::SUCCESS)
}

fn apply(a: ApplyArgs) -> Result<ExitCode> {
    let update = crate::fsio::Update::lock(&a.filter)?;
    let mut set = load(&a.filter)?;
    let part = load(&a.export)?;
    set.apply_epoch(&part)
        .with_context(|| format!("{}", a.export.display()))?;
    update.replace(&crate::fsio::encode(set.size_bytes(), || set.to_bytes())?)?;
    Ok(ExitCode::SUCCESS)
}
