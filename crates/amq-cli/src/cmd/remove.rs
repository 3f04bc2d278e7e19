//! `amq remove`: delete items from a cuckoo filter.

use amq::clock::{Clock, SystemClock};
use anyhow::{bail, Result};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Remove one copy of each item from a cuckoo filter and write the filter back (atomically).
///
/// Prints `removed` or `absent` for each item (a tab, then the item). Exit status 0 if every
/// item was there, 1 if any was not (the others are still removed). Only remove items that
/// were inserted: removing an item never inserted may remove another item with the same
/// fingerprint and buckets.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq build --kind cuckoo --fpr 0.001 -o ids.amq ids.txt
  amq remove ids.amq id-17 id-18
  amq remove --hex ids.amq 0xdeadbeef
  amq remove ids.amq --file revoked.txt")]
pub struct Args {
    /// The .amq cuckoo filter (rewritten in place).
    filter: PathBuf,
    /// The items.
    #[arg(required_unless_present = "file")]
    items: Vec<String>,
    /// Also remove the items of these files, one per line (`-` is stdin).
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    #[arg(long)]
    file: Vec<PathBuf>,
    /// Items are hex (an optional 0x).
    #[arg(long)]
    hex: bool,
    /// One JSON object per item: {"item": ..., "removed": true|false}.
    #[arg(long)]
    json: bool,
}

/// Runs `amq remove`.
pub fn run(a: Args) -> Result<ExitCode> {
    let update = crate::fsio::Update::lock(&a.filter)?;
    let mut filter = super::load_filter(&a.filter)?;
    if !filter.deletes() {
        let slash = match filter.kind() {
            amq::wire::Kind::SlidingWindowCuckoo => {
                "; slash a member with `amq rln slash --epoch E`"
            }
            _ => "",
        };
        bail!(
            "{}: a {} filter cannot remove items (only a cuckoo filter, a TTL cuckoo filter or a \
             negative cache can){slash}",
            a.filter.display(),
            filter.kind().name()
        );
    }
    filter.set_now(SystemClock.now());
    // the answers are printed once the file is written
    let mut out = crate::output::AfterSave::new();
    let mut all = true;
    let mut changed = false;
    // `shown`: the item as given on the command line, or as read from a file
    let mut report =
        |shown: &str, bytes: &[u8], removed: bool, out: &mut dyn Write| -> Result<()> {
            all &= removed;
            changed |= removed;
            if a.json {
                let mut obj = serde_json::json!({ "removed": removed });
                crate::input::set_item(&mut obj, "item", bytes, a.hex);
                obj["item"] = shown.into();
                let mut line = Vec::new();
                crate::output::json_line(&mut line, &obj)?;
                out.write_all(&line)?;
            } else {
                writeln!(
                    out,
                    "{}\t{shown}",
                    if removed { "removed" } else { "absent" }
                )?;
            }
            Ok(())
        };
    for item in &a.items {
        let bytes = crate::input::item_bytes(item, a.hex)?;
        let removed = filter.remove(&bytes)?;
        report(item, &bytes, removed, &mut out)?;
    }
    if !a.file.is_empty() {
        // the items of files are read as bytes: --hex was applied by for_each_item
        crate::input::for_each_item(&a.file, a.hex, |bytes| {
            let removed = filter.remove(bytes)?;
            let shown = crate::input::display_item(bytes, a.hex);
            report(&shown, bytes, removed, &mut out)
        })?;
    }
    if changed {
        update.replace(&crate::fsio::encode(filter.size_bytes(), || {
            filter.to_bytes()
        })?)?;
    } else {
        // nothing to write: let the next writer in while the answers are printed (to a pipe
        // that may not be read for a while)
        drop(update);
    }
    out.print(changed)?;
    Ok(super::exit_all(all))
}
