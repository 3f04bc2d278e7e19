//! One module per command; each is thin over the library.

pub mod aging;
pub mod algorand;
pub mod args;
pub mod btc;
pub mod btc_bip158;
pub mod btc_bip37;
pub mod build;
pub mod cashu;
pub mod cashu_state;
pub mod contains;
pub mod eth;
pub mod info;
pub mod merge;
pub mod negative;
pub mod plan;
pub mod query;
pub mod remove;
pub mod sim;
pub mod window;
// [modules] further command modules go here, one line each

pub use args::{
    parse_bytes, parse_fpr, BloomKind, ClockedInsertArgs, FilterKind, ItemArgs, NewOutput,
};

use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// How a membership command prints its answers: one line `<word>\t<item>` per item, or one
/// JSON object `{"<item>": ..., <extra>, "<key>": true|false}`; the exit status is 0 if every
/// answer is yes and 1 otherwise.
pub struct Answers {
    /// One JSON object per answer.
    pub json: bool,
    /// The JSON name of the item (`item`, `input`).
    pub item: &'static str,
    /// The JSON name of the answer.
    pub key: &'static str,
    /// The words for yes and no.
    pub words: (&'static str, &'static str),
    /// A field added to every JSON object (a position, say).
    pub extra: Option<(&'static str, serde_json::Value)>,
}

impl Answers {
    /// A filter's answers: `maybe` or `no`, JSON `{"item": ..., "maybe": ...}`.
    pub fn maybe(json: bool) -> Self {
        Answers {
            json,
            item: "item",
            key: "maybe",
            words: ("maybe", "no"),
            extra: None,
        }
    }

    /// Prints each answer as it comes (an error stops the output there) and returns the exit
    /// status.
    pub fn print<'a>(
        &self,
        answers: impl IntoIterator<Item = Result<(&'a str, bool)>>,
    ) -> Result<ExitCode> {
        let mut out = crate::output::stdout();
        let mut all = true;
        for answer in answers {
            let (item, yes) = answer?;
            all &= yes;
            if self.json {
                let mut v = serde_json::json!({ self.item: item });
                if let Some((name, value)) = &self.extra {
                    v[*name] = value.clone();
                }
                v[self.key] = yes.into();
                crate::output::json_line(&mut out, &v)?;
            } else {
                let word = if yes { self.words.0 } else { self.words.1 };
                writeln!(out, "{word}\t{item}")?;
            }
        }
        out.flush()?;
        Ok(exit_all(all))
    }
}

/// Exit status 0 if `all` held, 1 otherwise.
pub fn exit_all(all: bool) -> ExitCode {
    if all {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Reads and decodes an `.amq` file of any kind.
pub fn load_filter(path: &Path) -> Result<amq::AnyFilter> {
    let bytes = crate::input::read_all(path)?;
    amq::AnyFilter::from_bytes(&bytes).with_context(|| format!("{}", path.display()))
}

/// Writes bytes to `path` atomically: a temporary file beside it, then a rename, so an
/// existing file is never left half-written.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().context("output path has no file name")?;
    let tmp = dir.join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
