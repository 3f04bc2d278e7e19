//! `amq contains`: ask the filter about items given on the command line.

use amq::clock::{Clock, SystemClock};
use anyhow::Result;
use std::path::PathBuf;
use std::process::ExitCode;

/// Print `maybe` or `no` for each item (a tab, then the item).
///
/// Exit status 0 if every item may be present, 1 if any is definitely absent.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq contains words.amq apple zyzzyva
  amq contains --hex ids.amq 0xdeadbeef")]
pub struct Args {
    /// The .amq filter.
    filter: PathBuf,
    #[command(flatten)]
    items: super::ItemArgs,
}

/// Runs `amq contains`.
pub fn run(a: Args) -> Result<ExitCode> {
    let filter = super::load_filter(&a.filter)?;
    filter.set_now(SystemClock.now());
    // the kinds that cannot answer "maybe present" say so before any answer is printed
    filter
        .contains(b"")
        .map_err(|e| super::refused(&a.filter, &filter, e))?;
    a.items.answer(super::Answers::maybe(false), |bytes| {
        matches!(filter.contains(bytes), Ok(true))
    })
}
