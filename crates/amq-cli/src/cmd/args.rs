//! The clap arguments and value parsers that several commands share.

use super::Answers;
use amq::clock::{Clock, SystemClock};
use anyhow::Result;
use std::process::ExitCode;

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

/// `--now`: the time of a command on a structure whose entries age with a clock (the default
/// is the system clock's).
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct Now {
    /// The time in seconds since the Unix epoch (default: the system clock).
    #[arg(long)]
    now: Option<u64>,
}

impl Now {
    /// The time given, else the system clock's.
    pub fn or_clock(self) -> u64 {
        now_or_clock(self.now)
    }
}

/// `now` (seconds since the Unix epoch), else the system clock's time.
pub fn now_or_clock(now: Option<u64>) -> u64 {
    now.unwrap_or_else(|| SystemClock.now())
}

/// `insert` into a structure whose entries age with a clock: items one per line from files
/// or stdin.
#[derive(clap::Args, Debug)]
pub struct ClockedInsertArgs {
    /// The .amq file, updated in place.
    pub filter: std::path::PathBuf,
    #[command(flatten)]
    pub now: Now,
    /// Items are hex, one per line (an optional 0x).
    #[arg(long)]
    pub hex: bool,
    /// Input files (default: stdin; `-` is stdin).
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    pub files: Vec<std::path::PathBuf>,
}

/// `info` of a structure whose entries age with a clock: its figures at a time.
#[derive(clap::Args, Debug)]
pub struct ClockedInfoArgs {
    /// The .amq filter.
    pub filter: std::path::PathBuf,
    #[command(flatten)]
    pub now: Now,
    /// One JSON object.
    #[arg(long)]
    pub json: bool,
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

/// What a size is, for the error that refuses one.
const SIZE_FORM: &str = "a size is a whole number of bytes with an optional unit: B, KB, MB, GB \
     (powers of 1000; K, M, G too) or KiB, MiB, GiB (powers of 1024), as in 1500KB or 2MiB";

/// Parses a byte size: a whole number with an optional unit (B, KB, MB, GB, KiB, MiB, GiB).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '_')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let not_a_size = || SIZE_FORM.to_string();
    let n: u64 = num.replace('_', "").parse().map_err(|_| not_a_size())?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kb" | "k" => 1_000,
        "mb" | "m" => 1_000_000,
        "gb" | "g" => 1_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        _ => return Err(not_a_size()),
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
    /// Split block Bloom filter: one bit in each 64-bit lane of a 512-bit block (k = 8).
    SplitBlockBloom,
}

impl FilterKind {
    /// Every kind, in the order `amq plan` lists them.
    pub const ALL: [FilterKind; 4] = [
        FilterKind::Bloom,
        FilterKind::BlockedBloom,
        FilterKind::Cuckoo,
        FilterKind::SplitBlockBloom,
    ];

    /// The library's kind.
    pub fn kind(self) -> amq::wire::Kind {
        match self {
            FilterKind::Bloom => amq::wire::Kind::Bloom,
            FilterKind::BlockedBloom => amq::wire::Kind::BlockedBloom,
            FilterKind::Cuckoo => amq::wire::Kind::Cuckoo,
            FilterKind::SplitBlockBloom => amq::wire::Kind::SplitBlockBloom,
        }
    }
}
