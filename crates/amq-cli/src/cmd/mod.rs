//! One module per command; each is thin over the library.

pub mod aging;
pub mod algorand;
pub mod btc;
pub mod btc_bip158;
pub mod btc_bip37;
pub mod build;
pub mod cashu;
pub mod contains;
pub mod eth;
pub mod info;
pub mod merge;
pub mod negative;
pub mod plan;
pub mod query;
pub mod remove;
pub mod serve;
pub mod sim;
pub mod window;
// [modules] further command modules go here, one line each

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

/// Where `new` writes an empty structure, and its hash seed.
#[derive(clap::Args, Debug)]
pub struct NewOutput {
    /// The hash seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The .amq file to write.
    #[arg(long, short = 'o')]
    pub output: std::path::PathBuf,
}

/// `insert` into a structure whose entries age with a clock: items one per line from files
/// or stdin.
#[derive(clap::Args, Debug)]
pub struct ClockedInsertArgs {
    /// The .amq file, updated in place.
    pub filter: std::path::PathBuf,
    /// The time in seconds since the Unix epoch (default: the system clock).
    #[arg(long)]
    pub now: Option<u64>,
    /// Items are hex, one per line (an optional 0x).
    #[arg(long)]
    pub hex: bool,
    /// Input files (default: stdin; `-` is stdin).
    pub files: Vec<std::path::PathBuf>,
}

/// Items given on the command line, for the `contains` commands.
#[derive(clap::Args, Debug)]
pub struct ItemArgs {
    /// The items.
    #[arg(required = true)]
    pub items: Vec<String>,
    /// Items are hex (an optional 0x).
    #[arg(long)]
    pub hex: bool,
    /// One JSON object per item, {"item": ..., and the answer}.
    #[arg(long)]
    pub json: bool,
}

impl ItemArgs {
    /// Asks `test` about each item (its bytes) and prints the answers as `answers` says.
    pub fn answer(
        &self,
        answers: Answers,
        mut test: impl FnMut(&[u8]) -> bool,
    ) -> Result<ExitCode> {
        Answers {
            json: self.json,
            ..answers
        }
        .print(self.items.iter().map(|item| {
            let bytes = crate::input::item_bytes(item, self.hex)?;
            Ok((item.as_str(), test(&bytes)))
        }))
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

/// Parses a byte size: a number with an optional unit (B, KB, MB, GB, KiB, MiB, GiB).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '_')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .replace('_', "")
        .parse()
        .map_err(|_| format!("not a size: {s:?}"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" | "k" => 1_000,
        "mb" | "m" => 1_000_000,
        "gb" | "g" => 1_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        other => {
            return Err(format!(
                "unknown size unit {other:?} (use B, KB, MB, GB, KiB, MiB, GiB)"
            ))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("size too large: {s:?}"))
}

/// Parses a false-positive rate: a number strictly between 0 and 1, or a percentage (`1%`).
pub fn parse_fpr(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let v: f64 = match t.strip_suffix('%') {
        Some(p) => {
            p.trim()
                .parse::<f64>()
                .map_err(|_| format!("not a rate: {s:?}"))?
                / 100.0
        }
        None => t.parse().map_err(|_| format!("not a rate: {s:?}"))?,
    };
    if v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err(format!(
            "the false-positive rate must be strictly between 0 and 1, got {s}"
        ))
    }
}

/// The Bloom kinds `amq sim bloom` knows.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BloomKind {
    /// Classic Bloom filter over m bits.
    Bloom,
    /// Cache-line blocked Bloom filter (512-bit blocks).
    BlockedBloom,
}

impl BloomKind {
    /// The library's kind.
    pub fn plan_kind(self) -> amq::wire::Kind {
        match self {
            BloomKind::Bloom => amq::wire::Kind::Bloom,
            BloomKind::BlockedBloom => amq::wire::Kind::BlockedBloom,
        }
    }
}

/// The kinds `plan` and `build` size from n items and a target: the Bloom kinds and the
/// cuckoo filter.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterKind {
    /// Classic Bloom filter over m bits.
    Bloom,
    /// Cache-line blocked Bloom filter (512-bit blocks).
    BlockedBloom,
    /// Cuckoo filter: 4-slot buckets of 8-, 12- or 16-bit fingerprints, with deletion.
    Cuckoo,
}

impl FilterKind {
    /// Every kind, in the order `amq plan` lists them.
    pub const ALL: [FilterKind; 3] = [
        FilterKind::Bloom,
        FilterKind::BlockedBloom,
        FilterKind::Cuckoo,
    ];

    /// The library's kind.
    pub fn kind(self) -> amq::wire::Kind {
        match self {
            FilterKind::Bloom => amq::wire::Kind::Bloom,
            FilterKind::BlockedBloom => amq::wire::Kind::BlockedBloom,
            FilterKind::Cuckoo => amq::wire::Kind::Cuckoo,
        }
    }
}
