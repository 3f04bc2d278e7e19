//! One module per command; each is thin over the library.

pub mod aging;
pub mod algorand;
pub mod btc;
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

/// The targets of a GCS match: each one's value in `[0, F)` and its place in the input, as
/// `value << 64 | index`, 16 bytes each (the items themselves are read again to print them).
#[derive(Debug, Default)]
pub struct Targets(Vec<u128>);

impl Targets {
    /// Adds the next target's value.
    pub fn push(&mut self, value: u64) -> Result<()> {
        let index = self.0.len() as u128;
        crate::input::push(&mut self.0, u128::from(value) << 64 | index, "the targets")
    }

    /// Sorts by value and returns the values that occur more than once, each once.
    pub fn sort_and_find_repeats(&mut self) -> Vec<u64> {
        self.0.sort_unstable();
        let mut repeats: Vec<u64> = Vec::new();
        for w in self.0.windows(2) {
            let (a, b) = ((w[0] >> 64) as u64, (w[1] >> 64) as u64);
            if a == b && repeats.last() != Some(&a) {
                repeats.push(a);
            }
        }
        repeats
    }

    /// Whether each target (sorted) may be in the set, by input index: one pass over the set,
    /// and one byte per target.
    pub fn answers<B: AsRef<[u8]>>(&self, set: &amq::gcs::Gcs<B>) -> Result<Vec<bool>> {
        let mut answers = Vec::new();
        answers
            .try_reserve_exact(self.0.len())
            .map_err(|_| crate::input::cannot_allocate(self.0.len(), "the answers"))?;
        answers.resize(self.0.len(), false);
        let mut values = set.values();
        let mut current = if self.0.is_empty() {
            None
        } else {
            values.next_value()?
        };
        for &pair in &self.0 {
            let value = (pair >> 64) as u64;
            while current.is_some_and(|c| c < value) {
                current = values.next_value()?;
            }
            if current.is_none() {
                break;
            }
            answers[pair as u64 as usize] = current == Some(value);
        }
        Ok(answers)
    }
}

/// Reads and decodes an `.amq` file of any kind.
pub fn load_filter(path: &Path) -> Result<amq::AnyFilter> {
    let bytes = crate::input::read_all(path)?;
    amq::AnyFilter::from_bytes(&bytes).with_context(|| format!("{}", path.display()))
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

/// The Bloom kinds `plan` and `build` know.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BloomKind {
    /// Classic Bloom filter over m bits.
    Bloom,
    /// Cache-line blocked Bloom filter (512-bit blocks).
    BlockedBloom,
}

impl BloomKind {
    /// The planner's kind.
    pub fn plan_kind(self) -> amq::math::PlanKind {
        match self {
            BloomKind::Bloom => amq::math::PlanKind::Bloom,
            BloomKind::BlockedBloom => amq::math::PlanKind::BlockedBloom,
        }
    }
}

/// The kinds `plan` and `build` know: the Bloom kinds and the cuckoo filter.
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
    /// The Bloom kind, or `None` for a cuckoo filter.
    pub fn bloom(self) -> Option<BloomKind> {
        match self {
            FilterKind::Bloom => Some(BloomKind::Bloom),
            FilterKind::BlockedBloom => Some(BloomKind::BlockedBloom),
            FilterKind::Cuckoo => None,
        }
    }
}

/// A cuckoo filter plan as JSON (the fields `amq plan --kind cuckoo --json` prints): the
/// Bloom plan's fields where they have a meaning (k = 2: a query probes two buckets), and the
/// fingerprint width, buckets and load factor.
pub fn cuckoo_plan_json(p: &amq::cuckoo::CuckooPlan) -> serde_json::Value {
    serde_json::json!({
        "kind": "cuckoo",
        "items": p.items,
        "m_bits": p.m_bits,
        "k": 2,
        "bytes": p.bytes,
        "bits_per_key": p.bits_per_key,
        "fpr": p.fpr,
        "fpr_exact": p.fpr_exact,
        "fingerprint_bits": p.fingerprint_bits,
        "buckets": p.buckets,
        "slots_per_bucket": amq::cuckoo::SLOTS_PER_BUCKET,
        "load_factor": p.load_factor,
    })
}

/// A plan as JSON (the fields `amq plan --json` prints).
pub fn plan_json(p: &amq::math::Plan) -> serde_json::Value {
    serde_json::json!({
        "kind": p.kind.name(),
        "items": p.items,
        "m_bits": p.m_bits,
        "k": p.k,
        "bytes": p.bytes,
        "bits_per_key": p.bits_per_key,
        "fpr": p.fpr,
        "fpr_exact": p.fpr_exact,
        "bit_zero_probability": p.bit_zero_probability,
        "optimal_k": p.optimal_k,
    })
}
