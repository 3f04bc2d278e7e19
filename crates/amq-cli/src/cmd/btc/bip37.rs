//! `amq btc bip37 ...`: BIP37 bloom filters as Bitcoin Core builds them (`filterload`).

use amq::formats::bip37::Bip37Filter;
use anyhow::{Context, Result};
use clap::Subcommand;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// The `amq btc bip37` subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Build a filter sized as Bitcoin Core sizes it; print its `filterload` payload as hex.
    Build(BuildArgs),
    /// Ask a `filterload` payload about items: `maybe` or `no` for each.
    Contains(ContainsArgs),
}

/// `amq btc bip37 build`.
///
/// Items are hex, one per line (an optional 0x; an empty line is the empty item).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  printf '99108ad8ed9bb6274d3980bab5a85c048f0950c8\\n' | amq btc bip37 build --elements 3 --fpr 0.01 --tweak 0 --flags 1 -
  amq btc bip37 build --elements 1000 --fpr 0.0001 --tweak 0x2f0a91c3 --json pubkey-hashes.txt")]
pub struct BuildArgs {
    /// n, the number of elements the filter is sized for (Core's nElements).
    #[arg(long, value_name = "N")]
    elements: u32,
    /// ε, the target false-positive rate, in (0, 1] (1 gives the empty, match-all filter).
    #[arg(long, value_name = "E")]
    fpr: f64,
    /// nTweak, added to every hash seed (decimal or 0x hex).
    #[arg(long, value_name = "T", value_parser = parse_u32)]
    tweak: u32,
    /// nFlags: 0 BLOOM_UPDATE_NONE, 1 BLOOM_UPDATE_ALL, 2 BLOOM_UPDATE_P2PUBKEY_ONLY.
    #[arg(long, value_name = "F", default_value_t = 0)]
    flags: u8,
    /// Files of hex items, one per line; `-` or nothing for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
    /// Print one JSON object: filterload hex, bytes, hash_funcs, tweak, flags, elements
    /// inserted, and the expected false-positive rate for the elements inserted
    /// (`expected_fpr`) and for the elements sized for (`expected_fpr_sized`; Core's caps and
    /// rounding make it differ from --fpr).
    #[arg(long)]
    json: bool,
}

/// `amq btc bip37 contains`.
///
/// Exit status 0 if every item may be present, 1 if any is definitely absent.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq btc bip37 contains 03614e9b050000000000000001 99108ad8ed9bb6274d3980bab5a85c048f0950c8
  amq btc bip37 contains --json 03614e9b050000000000000001 0x19108ad8ed9bb6274d3980bab5a85c048f0950c8")]
pub struct ContainsArgs {
    /// The filterload payload, hex (an optional 0x).
    filterload: String,
    /// The items, hex (an optional 0x).
    #[arg(required = true)]
    items: Vec<String>,
    /// One JSON object per item: {"item": ..., "maybe": true|false}.
    #[arg(long)]
    json: bool,
}

fn parse_u32(s: &str) -> Result<u32, String> {
    let t = s.trim();
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16),
        None => t.parse(),
    };
    parsed.map_err(|_| format!("not a 32-bit unsigned integer: {s:?}"))
}

/// Runs `amq btc bip37 ...`.
pub fn run(c: Command) -> Result<ExitCode> {
    match c {
        Command::Build(a) => build(a),
        Command::Contains(a) => contains(a),
    }
}

fn build(a: BuildArgs) -> Result<ExitCode> {
    let mut filter = Bip37Filter::new(a.elements, a.fpr, a.tweak, a.flags)?;
    let mut inserted = 0u64;
    crate::input::for_each_item(&a.files, true, |item| {
        filter.insert_bytes(item);
        inserted += 1;
        Ok(())
    })?;
    let payload = hex::encode(filter.to_filterload());
    let mut out = crate::output::stdout();
    if a.json {
        crate::output::json_line(
            &mut out,
            &serde_json::json!({
                "filterload": payload,
                "bytes": filter.size_bytes(),
                "hash_funcs": filter.k(),
                "tweak": filter.tweak(),
                "flags": filter.flags(),
                "elements_sized_for": a.elements,
                "elements_inserted": inserted,
                "expected_fpr": filter.expected_fpr(inserted),
                "expected_fpr_sized": filter.expected_fpr(u64::from(a.elements)),
            }),
        )?;
    } else {
        writeln!(out, "{payload}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn contains(a: ContainsArgs) -> Result<ExitCode> {
    let bytes = crate::input::parse_hex(&a.filterload).context("the filterload payload")?;
    let filter = Bip37Filter::from_filterload(&bytes).context("the filterload payload")?;
    if let Some(extra) = bytes
        .len()
        .checked_sub(filter.filterload_len())
        .filter(|&e| e > 0)
    {
        eprintln!(
            "note: {extra} bytes after the filterload payload are ignored, as Bitcoin Core \
             ignores them"
        );
    }
    super::super::Answers::maybe(a.json).print(a.items.iter().map(|item| {
        let key = crate::input::parse_hex(item)?;
        Ok((item.as_str(), filter.contains_bytes(&key)))
    }))
}
