//! `amq btc ...`: Bitcoin filter formats.
//!
//! A clap `Subcommand` group. Each subcommand lives in its own module (`cmd/btc/<name>.rs`,
//! declared below with `pub mod`); add it here with ONE line at `// [btc-commands]` and ONE line
//! at `// [btc-dispatch]` (insert your line just above the marker comment).

pub mod bip158;
pub mod bip37;

use anyhow::Result;
use clap::Subcommand;
use std::process::ExitCode;

/// Bitcoin filter formats: BIP37 `filterload` bloom filters (and, beside them, BIP158).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  printf '99108ad8ed9bb6274d3980bab5a85c048f0950c8\\n' | amq btc bip37 build --elements 3 --fpr 0.01 --tweak 0 --flags 1 -
  amq btc bip37 contains 03614e9b050000000000000001 99108ad8ed9bb6274d3980bab5a85c048f0950c8")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

/// The `amq btc` subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// BIP37 bloom filters: build a `filterload` payload, ask it about items.
    #[command(subcommand)]
    #[command(after_help = "Examples:
  printf '99108ad8ed9bb6274d3980bab5a85c048f0950c8\\n' | amq btc bip37 build --elements 3 --fpr 0.01 --tweak 0 --flags 1 -
  amq btc bip37 contains 03614e9b050000000000000001 99108ad8ed9bb6274d3980bab5a85c048f0950c8")]
    Bip37(bip37::Command),
    /// BIP158 block filters: `filter`, `gcs`, `match`.
    #[command(flatten)]
    Bip158(bip158::Command),
    // [btc-commands] further `amq btc` subcommands go here, one line each
}

/// Runs `amq btc ...`.
pub fn run(a: Args) -> Result<ExitCode> {
    match a.command {
        Command::Bip37(c) => bip37::run(c),
        Command::Bip158(c) => bip158::run(c),
        // [btc-dispatch] further `amq btc` subcommands go here, one line each
    }
}
