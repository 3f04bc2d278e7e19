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
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// Items per batched query.
const CHUNK: usize = 1024;

/// The items read and not yet answered, and the counts so far.
struct Batch<W> {
    items: Vec<Vec<u8>>,
    answers: Vec<bool>,
    selected: u64,
    total: u64,
    out: W,
}

impl<W: Write> Batch<W> {
    /// Answers the items held and prints what is selected.
    fn answer(&mut self, a: &Args, filter: &amq::AnyFilter) -> Result<()> {
        let refs: Vec<&[u8]> = self.items.iter().map(Vec::as_slice).collect();
        let answers = &mut self.answers[..refs.len()];
        filter
            .contains_batch(&refs, answers)
            .map_err(|e| super::refused(&a.filter, filter, e))?;
        let out = &mut self.out;
        for (item, &maybe) in self.items.iter().zip(answers.iter()) {
            self.total += 1;
            let pick = maybe != a.invert;
            self.selected += u64::from(pick);
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
        self.items.clear();
        Ok(())
    }
}

/// Runs `amq query`.
///
/// Items are answered 1,024 at a time, and whenever the input pauses (a pipe fed line by line,
/// `tail -f`): what was read is answered and printed before the next read waits. An input
/// error (a line that is not hex) comes after the answers to the lines before it, as grep's.
pub fn run(a: Args) -> Result<ExitCode> {
    let filter = super::load_filter(&a.filter)?;
    filter.set_now(SystemClock.now());
    let batch = std::cell::RefCell::new(Batch {
        items: Vec::with_capacity(CHUNK),
        answers: vec![false; CHUNK],
        selected: 0,
        total: 0,
        out: crate::output::stdout(),
    });
    let read = input::for_each_item_or_wait(
        &a.files,
        a.hex,
        |item| {
            let mut b = batch.borrow_mut();
            b.items.push(item.to_vec());
            if b.items.len() == CHUNK {
                b.answer(&a, &filter)?;
            }
            Ok(())
        },
        || {
            let mut b = batch.borrow_mut();
            if !b.items.is_empty() && !a.count {
                b.answer(&a, &filter)?;
                b.out.flush()?;
            }
            Ok(())
        },
    );
    let mut b = batch.into_inner();
    b.answer(&a, &filter)?;
    if let Err(e) = read {
        b.out.flush()?;
        return Err(e);
    }
    if a.count {
        let (selected, total) = (b.selected, b.total);
        if a.json {
            crate::output::json_line(
                &mut b.out,
                &serde_json::json!({"count": selected, "items": total}),
            )?;
        } else {
            writeln!(b.out, "{selected}")?;
        }
    }
    b.out.flush()?;
    Ok(super::exit_all(b.selected > 0))
}
