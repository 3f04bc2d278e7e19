//! `amq cashu ...`: Cashu spent-note filters, the Golomb-coded sets of the NUT-23 draft.

use crate::input;
use amq::formats::cashu::{
    bulk_all_negative, CashuFilter, CashuHash, GetFilterResponse, DEFAULT_M, DEFAULT_P,
};
use amq::gcs::hash_to_range;
use anyhow::{bail, Context, Result};
use clap::Subcommand;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Cashu spent-note filters (NUT-23 draft GCS): build a mint's GetFilterResponse, match a
/// wallet's notes against one, and the bulk false-positive table; compact state filters
/// (nuts PR #433): elements, revision B's blocks, revision A's epochs.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu build --timestamp 1700000000 spent-ys.txt > filter.json
  amq cashu match --filter filter.json my-ys.txt
  amq cashu fpr --m 784931 --queries 5000
  amq cashu element proof_state 024cce997d3b518f739663b757deaec95bcd9473c30a14ac2fd04023a739d1a725 SPENT
  amq cashu block build --b 10 elements.txt
  amq cashu epoch match --p 28 --filter 047ea0665b049eabb17be54217aa442744d190 elements.txt")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

/// The `amq cashu` subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Build a filter from items (hex, one per line); print the GetFilterResponse JSON.
    Build(BuildArgs),
    /// Match items (hex, one per line) against a GetFilterResponse: one JSON line each.
    Match(MatchArgs),
    /// The draft's bulk table: the chance (1 − 1/M)^x that x lookups of non-members all
    /// come back negative.
    Fpr(FprArgs),
    /// Compact state filters (nuts PR #433): E of a state change, as hex.
    Element(super::cashu_state::ElementArgs),
    /// Compact state filters, revision B: build, fold, match and inspect Bloom blocks.
    Block(super::cashu_state::BlockArgs),
    /// Compact state filters, revision A: build and match Golomb-Rice epoch filters.
    Epoch(super::cashu_state::EpochArgs),
}

/// The item hash, as the three published vectors use them.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashName {
    /// MurmurHash3 x64_128, seed 0, first 64-bit word (the draft's text; the default).
    #[value(name = "murmur3-128")]
    Murmur3_128,
    /// Two MurmurHash3 x86_32 (seed 0, then seed h1): the draft's test vectors and its pull
    /// requests to nutshell, cashu-ts and cdk.
    #[value(name = "murmur3-32x2")]
    Murmur3_32x2,
    /// SipHash-2-4 with a 16-byte --key, digest read big-endian (the draft's first version).
    #[value(name = "siphash")]
    Siphash,
}

/// `--hash` and `--key`.
#[derive(clap::Args, Debug)]
pub struct HashArgs {
    /// The item hash.
    #[arg(long, value_enum, default_value = "murmur3-128")]
    hash: HashName,
    /// The SipHash key, 16 bytes as hex (default all zero); only with --hash siphash.
    #[arg(long, value_name = "HEX")]
    key: Option<String>,
}

impl HashArgs {
    fn hash(&self) -> Result<CashuHash> {
        match (self.hash, &self.key) {
            (HashName::Siphash, key) => {
                let key =
                    match key {
                        Some(k) => input::parse_hex(k).context("--key")?.try_into().map_err(
                            |k: Vec<u8>| anyhow::anyhow!("--key must be 16 bytes, got {}", k.len()),
                        )?,
                        None => [0u8; 16],
                    };
                Ok(CashuHash::SipHash24 { key })
            }
            (_, Some(_)) => bail!("--key is only for --hash siphash"),
            (HashName::Murmur3_128, None) => Ok(CashuHash::Murmur3X64_128),
            (HashName::Murmur3_32x2, None) => Ok(CashuHash::Murmur3X86_32x2),
        }
    }
}

/// `amq cashu build`.
///
/// Items are hex, one per line (an optional 0x; an empty line is the empty item); they are
/// hashed as raw bytes. Duplicates are kept. Memory: 8 bytes per item and the filter.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu build --timestamp 1700000000 spent-ys.txt
  amq cashu build --hash murmur3-32x2 --p 19 --m 784931 - < spent-ys.txt
  amq cashu build --hash siphash --key 000102030405060708090a0b0c0d0e0f spent-ys.txt")]
pub struct BuildArgs {
    #[command(flatten)]
    hash: HashArgs,
    /// P, the Golomb-Rice remainder bits.
    #[arg(long, default_value_t = DEFAULT_P)]
    p: u8,
    /// M, the inverse false-positive rate (below 2^32).
    #[arg(long, default_value_t = DEFAULT_M)]
    m: u64,
    /// The response's timestamp, seconds since the Unix epoch (default: now).
    #[arg(long, value_name = "T")]
    timestamp: Option<u64>,
    /// Files of hex items, one per line; `-` or nothing for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// `amq cashu match`.
///
/// Exit status 0 if every item may be in the filter, 1 if any is definitely absent. Memory:
/// the filter and 17 bytes per item (the input is read twice; stdin is kept in a temporary file
/// for the second pass).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu match --filter filter.json my-ys.txt
  amq cashu match --filter filter.json --hash murmur3-32x2 - < my-ys.txt")]
pub struct MatchArgs {
    /// The mint's GetFilterResponse JSON (null p/m mean 19/784931).
    #[arg(long, value_name = "RESPONSE.json")]
    filter: PathBuf,
    #[command(flatten)]
    hash: HashArgs,
    /// Files of hex items, one per line; `-` or nothing for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// `amq cashu fpr`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu fpr --queries 1      # 0.999998726
  amq cashu fpr --m 784931 --queries 5000 --json")]
pub struct FprArgs {
    /// M, the inverse false-positive rate.
    #[arg(long, default_value_t = DEFAULT_M)]
    m: u64,
    /// x, the number of lookups.
    #[arg(long, value_name = "X")]
    queries: u64,
    /// One JSON object: m, queries, all_negative = (1 − 1/M)^x, any_false_positive = 1 − that.
    #[arg(long)]
    json: bool,
}

/// Runs `amq cashu ...`.
pub fn run(a: Args) -> Result<ExitCode> {
    match a.command {
        Command::Build(a) => build(a),
        Command::Match(a) => matches(a),
        Command::Fpr(a) => fpr(a),
        Command::Element(a) => super::cashu_state::element(a),
        Command::Block(a) => super::cashu_state::block(a),
        Command::Epoch(a) => super::cashu_state::epoch(a),
    }
}

fn build(a: BuildArgs) -> Result<ExitCode> {
    let hash = a.hash.hash()?;
    amq::gcs::Params::new(0, a.p, a.m)?;
    let mut hashes = Vec::new();
    input::for_each_item(&a.files, true, |item| {
        input::push(&mut hashes, hash.hash(item), "the item hashes")
    })?;
    let filter = CashuFilter::from_hashes(hashes, hash, a.p, a.m)?;
    let timestamp = match a.timestamp {
        Some(t) => t,
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .context("the clock is before 1970")?
            .as_secs(),
    };
    let mut out = crate::output::stdout();
    write_response(&mut out, &filter, timestamp)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The GetFilterResponse JSON as `serde_json` writes `filter.to_response(timestamp)` (in the
/// spec's field order: n, p, m, content, timestamp), with the base64 content written in pieces
/// rather than built as one string beside the filter.
fn write_response(out: &mut impl Write, filter: &CashuFilter, timestamp: u64) -> Result<()> {
    use base64::Engine as _;
    write!(
        out,
        r#"{{"n":{},"p":{},"m":{},"content":""#,
        filter.n(),
        filter.p(),
        filter.m()
    )?;
    // whole groups of 3 bytes encode without padding, so the pieces join into one base64
    for piece in filter.content().chunks(3 << 13) {
        out.write_all(
            base64::engine::general_purpose::STANDARD
                .encode(piece)
                .as_bytes(),
        )?;
    }
    writeln!(out, r#"","timestamp":{timestamp}}}"#)?;
    Ok(())
}

fn matches(a: MatchArgs) -> Result<ExitCode> {
    let hash = a.hash.hash()?;
    let text = input::read_all(&a.filter)?;
    let response: GetFilterResponse = serde_json::from_slice(input::without_bom(&text))
        .with_context(|| format!("{}: not a valid GetFilterResponse", a.filter.display()))?;
    drop(text);
    let filter = response.into_filter(hash)?;
    let set_f = filter.gcs().f();
    let value = |item: &[u8]| hash_to_range(hash.hash(item), set_f);
    let inputs = input::Rereadable::open(&a.files)?;
    let mut targets = super::Targets::default();
    inputs.for_each_item(true, |item| targets.push(value(item)))?;
    // the draft refuses repeated targets: compare the items behind repeated values
    let ties = targets.sort_and_find_repeats();
    if !ties.is_empty() {
        let mut tied: BTreeMap<u64, Vec<Box<[u8]>>> = BTreeMap::new();
        inputs.for_each_item(true, |item| {
            let v = value(item);
            if ties.binary_search(&v).is_ok() {
                let seen = tied.entry(v).or_default();
                if seen.iter().any(|s| **s == *item) {
                    bail!("invalid targets: match targets are not unique entries");
                }
                seen.push(item.into());
            }
            Ok(())
        })?;
    }
    let answers = targets
        .answers(filter.gcs())
        .with_context(|| format!("{}: the filter's content", a.filter.display()))?;
    drop(targets);
    let mut out = crate::output::stdout();
    let mut next = answers.iter();
    let mut all = true;
    inputs.for_each_item(true, |item| {
        let hit = *next.next().context("the input changed while it was read")?;
        all &= hit;
        crate::output::json_line(
            &mut out,
            &serde_json::json!({ "item": hex::encode(item), "match": hit }),
        )
    })?;
    out.flush()?;
    Ok(super::exit_all(all))
}

fn fpr(a: FprArgs) -> Result<ExitCode> {
    if a.m == 0 {
        bail!("--m must be at least 1");
    }
    let all_negative = bulk_all_negative(a.m, a.queries);
    let mut out = crate::output::stdout();
    if a.json {
        crate::output::json_line(
            &mut out,
            &serde_json::json!({
                "m": a.m,
                "queries": a.queries,
                "all_negative": all_negative,
                "any_false_positive": 1.0 - all_negative,
            }),
        )?;
    } else {
        writeln!(out, "{all_negative:.9}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use amq::formats::cashu::CashuHash;

    #[test]
    fn the_streamed_response_is_what_serde_writes() {
        // 20,000 items: about 52 KB of content, three pieces
        for n in [0u32, 1, 2, 3, 200, 20_000] {
            let items: Vec<[u8; 4]> = (0..n).map(u32::to_be_bytes).collect();
            let f = CashuFilter::build(&items, CashuHash::default(), 19, 784_931).unwrap();
            let mut ours = Vec::new();
            write_response(&mut ours, &f, 1_700_000_000).unwrap();
            let mut theirs = serde_json::to_vec(&f.to_response(1_700_000_000)).unwrap();
            theirs.push(b'\n');
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                String::from_utf8(theirs).unwrap()
            );
        }
    }
}
