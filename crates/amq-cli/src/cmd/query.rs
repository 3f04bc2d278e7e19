//! `amq query`: like grep, the items that may be in the filter.

use crate::input;
use amq::clock::{Clock, SystemClock};
use anyhow::Result;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Print the items (one per line) that may be present in the filter.
///
/// Exit status 0 if any item was selected, 1 if none.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq query words.amq candidates.txt
  amq query --invert --count words.amq british-only.txt
  echo apple | amq query --json words.amq")]
pub struct Args {
    /// The .amq filter.
    filter: PathBuf,
    /// Items are hex, one per line (an optional 0x).
    #[arg(long)]
    hex: bool,
    /// Select the definitely absent items instead.
    #[arg(long, short = 'v')]
    invert: bool,
    /// Print only the number of selected items.
    #[arg(long, short = 'c')]
    count: bool,
    /// One JSON object per item: {"item": ..., "maybe": true|false}.
    #[arg(long)]
    json: bool,
    /// Input files (default: stdin; `-` is stdin).
    files: Vec<PathBuf>,
}

/// Items per batched query.
const CHUNK: usize = 1024;

/// Runs `amq query`.
pub fn run(a: Args) -> Result<ExitCode> {
    let filter = super::load_filter(&a.filter)?;
    filter.set_now(SystemClock.now());
    let mut out = crate::output::stdout();
    let mut selected = 0u64;
    let mut total = 0u64;
    let mut buf: Vec<Vec<u8>> = Vec::with_capacity(CHUNK);
    let mut answers = vec![false; CHUNK];
    let mut flush = |buf: &mut Vec<Vec<u8>>, out: &mut dyn Write| -> Result<()> {
        let refs: Vec<&[u8]> = buf.iter().map(Vec::as_slice).collect();
        let answers = &mut answers[..refs.len()];
        filter
            .contains_batch(&refs, answers)
            .map_err(|e| super::refused(&a.filter, &filter, e))?;
        for (item, &maybe) in buf.iter().zip(answers.iter()) {
            total += 1;
            let pick = maybe != a.invert;
            selected += u64::from(pick);
            if a.json {
                let mut obj = serde_json::json!({ "maybe": maybe });
                input::set_item(&mut obj, "item", item, a.hex);
                serde_json::to_writer(&mut *out, &obj)?;
                out.write_all(b"\n")?;
            } else if pick && !a.count {
                if a.hex {
                    out.write_all(hex::encode(item).as_bytes())?;
                } else {
                    out.write_all(item)?;
                }
                out.write_all(b"\n")?;
            }
        }
        buf.clear();
        Ok(())
    };
    input::for_each_item(&a.files, a.hex, |item| {
        buf.push(item.to_vec());
        if buf.len() == CHUNK {
            flush(&mut buf, &mut out)?;
        }
        Ok(())
    })?;
    flush(&mut buf, &mut out)?;
    if a.count {
        if a.json {
            crate::output::json_line(
                &mut out,
                &serde_json::json!({"count": selected, "items": total}),
            )?;
        } else {
            writeln!(out, "{selected}")?;
        }
    }
    out.flush()?;
    Ok(super::exit_all(selected > 0))
}
