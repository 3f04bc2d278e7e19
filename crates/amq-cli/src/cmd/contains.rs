//! `amq contains`: ask the filter about items given on the command line.

use anyhow::Result;
use std::io::Write;
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
    /// The items.
    #[arg(required = true)]
    items: Vec<String>,
    /// Items are hex (an optional 0x).
    #[arg(long)]
    hex: bool,
    /// One JSON object per item: {"item": ..., "maybe": true|false}.
    #[arg(long)]
    json: bool,
}

/// Runs `amq contains`.
pub fn run(a: Args) -> Result<ExitCode> {
    let filter = super::load_filter(&a.filter)?;
    let mut out = crate::output::stdout();
    let mut all = true;
    for item in &a.items {
        let bytes = if a.hex {
            crate::input::parse_hex(item)?
        } else {
            item.as_bytes().to_vec()
        };
        let maybe = filter.contains(&bytes);
        all &= maybe;
        if a.json {
            crate::output::json_line(&mut out, &serde_json::json!({"item": item, "maybe": maybe}))?;
        } else {
            writeln!(out, "{}\t{item}", if maybe { "maybe" } else { "no" })?;
        }
    }
    out.flush()?;
    Ok(if all {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
