//! `amq eth ...`: Ethereum's logsBloom (Yellow Paper §4.3.1, M3:2048).
//!
//! JSON input is what the JSON-RPC API returns (`eth_getTransactionReceipt`,
//! `eth_getBlockReceipts`, `eth_getBlockByNumber`, `eth_getLogs`): one object, an array, or a
//! whole response with its `result`; see `amq::formats::eth::Entries`.

use amq::formats::eth::{hex_array, Entries, Entry, InputBits, LogsBloom};
use anyhow::{bail, Context, Result};
use clap::Subcommand;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Ethereum logsBloom: compute, query, verify and scan the 2048-bit bloom of receipts and
/// blocks.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq eth bloom receipt.json
  amq eth contains 0x0000…0000 0x7a013b21bf13f50fdb9871b3016fd78432f0f742
  amq eth verify block-receipts.json
  amq eth scan --address 0xb1917d669e2a9307d342d04ab74e68ea94c4d11c blocks.jsonl")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

/// The `amq eth` subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the logsBloom of logs read as JSON (blooms of several objects are OR-ed).
    Bloom(BloomArgs),
    /// Ask a logsBloom about inputs: `maybe` or `no` for each.
    Contains(ContainsArgs),
    /// Recompute each receipt's (and block's) logsBloom from its logs and list mismatches.
    Verify(VerifyArgs),
    /// Find the blocks or receipts whose logsBloom may hold an address (and topics).
    Scan(ScanArgs),
}

/// Runs `amq eth ...`.
pub fn run(a: Args) -> Result<ExitCode> {
    match a.command {
        Command::Bloom(a) => bloom(a),
        Command::Contains(a) => contains(a),
        Command::Verify(a) => verify(a),
        Command::Scan(a) => scan(a),
    }
}

/// Arguments of `amq eth bloom`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Input: an array of logs, an object with `logs` (a receipt), a block with \
`receipts` or `logs`, an array of such objects, or a JSON-RPC response holding any of them.
Only each log's address and topics are hashed, never its data.

Examples:
  amq eth bloom receipt.json
  curl -s $RPC -d '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"eth_getBlockReceipts\",\"params\":[\"latest\"]}' | amq eth bloom -"
)]
pub struct BloomArgs {
    /// JSON file, or `-` for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped.
    #[arg(default_value = "-")]
    input: PathBuf,
    /// Print {"logsBloom": ..., "objects": ..., "logs": ..., "bits_set": ...}.
    #[arg(long)]
    json: bool,
}

fn read_entries(path: &Path) -> Result<Entries> {
    let bytes = crate::input::read_all(path)?;
    entries_of(&bytes).with_context(|| path.display().to_string())
}

/// The entries of one JSON text; text that is not JSON at all says so, beside serde's place.
fn entries_of(text: &[u8]) -> Result<Entries> {
    serde_json::from_slice(crate::input::without_bom(text)).map_err(|e| {
        if e.is_syntax() || e.is_eof() {
            anyhow::anyhow!(
                "not JSON (a log, receipt or block, an array of them, or a JSON-RPC response): {e}"
            )
        } else {
            e.into()
        }
    })
}

fn bloom(a: BloomArgs) -> Result<ExitCode> {
    let entries = read_entries(&a.input)?;
    let mut bloom = LogsBloom::new();
    let mut logs = 0usize;
    for (i, e) in entries.0.iter().enumerate() {
        let computed = e.computed_bloom().with_context(|| {
            format!("object {} ({e}) has no logs to compute a bloom from", i + 1)
        })?;
        bloom |= computed;
        logs += e.logs().map_or(0, |l| l.len());
    }
    let mut out = crate::output::stdout();
    if a.json {
        crate::output::json_line(
            &mut out,
            &serde_json::json!({
                "logsBloom": bloom,
                "objects": entries.0.len(),
                "logs": logs,
                "bits_set": bloom.bits_set(),
            }),
        )?;
    } else {
        writeln!(out, "{bloom}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `amq eth contains`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Exit status 0 if every input may be present, 1 if any is definitely absent.

Examples:
  amq eth contains $(amq eth bloom receipt.json) 0x7a013b21bf13f50fdb9871b3016fd78432f0f742
  amq eth contains --hashed $BLOOM 0x62d0b119357c..."
)]
pub struct ContainsArgs {
    /// The logsBloom: 0x and 512 hex digits (either case).
    bloom: String,
    /// Inputs as hex (an address, a topic, any bytes; 0x optional).
    #[arg(required = true)]
    inputs: Vec<String>,
    /// The inputs are already Keccak-256 hashes (32 bytes each).
    #[arg(long)]
    hashed: bool,
    /// One JSON object per input: {"input": ..., "maybe": true|false}.
    #[arg(long)]
    json: bool,
}

fn contains(a: ContainsArgs) -> Result<ExitCode> {
    let bloom = LogsBloom::from_hex(a.bloom.trim()).context("the bloom argument")?;
    let mut bits = Vec::with_capacity(a.inputs.len());
    for input in &a.inputs {
        bits.push(if a.hashed {
            InputBits::from_hash(
                &hex_array::<32>(input.trim())
                    .with_context(|| format!("--hashed input {input:?} is not a 32-byte hash"))?,
            )
        } else {
            InputBits::from_input(&crate::input::parse_hex(input)?)
        });
    }
    let answers = super::Answers {
        item: "input",
        ..super::Answers::maybe(a.json)
    };
    answers.print(
        a.inputs
            .iter()
            .zip(bits)
            .map(|(input, bits)| Ok((input.as_str(), bloom.contains_bits(bits)))),
    )
}

/// Arguments of `amq eth verify`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Checks every receipt that has both `logs` and `logsBloom`, every block \
with `logsBloom` and `receipts` (the OR of the receipts' blooms) or `logs` (all its logs).
Prints one line per mismatch and a summary; exit status 1 on any mismatch.

Examples:
  amq eth verify receipt.json
  jq '[.receipts[].receipt]' tests/vectors/ethereum/execution-apis-receipts.json | amq eth verify"
)]
pub struct VerifyArgs {
    /// JSON file, or `-` for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped.
    #[arg(default_value = "-")]
    input: PathBuf,
    /// One JSON object per checked receipt or block, then a summary object.
    #[arg(long)]
    json: bool,
}

fn verify(a: VerifyArgs) -> Result<ExitCode> {
    let checks = read_entries(&a.input)?.checks();
    if checks.is_empty() {
        bail!(amq::formats::eth::NOTHING_TO_VERIFY);
    }
    let mut out = crate::output::stdout();
    let mut mismatches = 0usize;
    for c in &checks {
        let ok = c.ok();
        mismatches += usize::from(!ok);
        let (missing, extra) = (c.bits_missing_from_stated(), c.bits_extra_in_stated());
        if a.json {
            crate::output::json_line(
                &mut out,
                &serde_json::json!({
                    "object": c.what,
                    "ok": ok,
                    "stated": c.stated,
                    "computed": c.computed,
                    "bits_missing_from_stated": missing,
                    "bits_extra_in_stated": extra,
                }),
            )?;
        } else if !ok {
            writeln!(
                out,
                "mismatch\t{}\tstated lacks bits {missing:?}, has extra bits {extra:?}\n\tstated   {}\n\tcomputed {}",
                c.what, c.stated, c.computed
            )?;
        }
    }
    let blocks = checks.iter().filter(|c| c.block).count();
    let receipts = checks.len() - blocks;
    if a.json {
        crate::output::json_line(
            &mut out,
            &serde_json::json!({"receipts": receipts, "blocks": blocks, "mismatches": mismatches}),
        )?;
    } else {
        writeln!(
            out,
            "verified {receipts} receipts and {blocks} blocks: {mismatches} mismatches"
        )?;
    }
    out.flush()?;
    Ok(super::exit_all(mismatches == 0))
}

/// Arguments of `amq eth scan`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Input: JSON lines, one block or receipt (or a JSON array of them) per line, \
each with `logsBloom` and, when present, `number`/`blockNumber` and `logs` (a block's logs may \
also come as its `receipts`). A candidate is an object whose logsBloom may hold the address and \
every topic. Where its logs are present, the candidate is confirmed when one log was emitted by \
the address and carries every topic (in any position, as the bloom does not record positions), \
and counted as a false positive otherwise.
Prints one line per candidate (block, transaction or block hash, confirmed | false-positive | \
unconfirmed) and a summary line. Exit status 0 if some candidate is not a false positive, else 1.

Examples:
  amq eth scan --address 0xb1917d669e2a9307d342d04ab74e68ea94c4d11c blocks.jsonl
  amq eth scan --address 0x7a01...f742 --topic 0x17307eab...6c31 receipts.jsonl --json"
)]
pub struct ScanArgs {
    /// The contract address (20 bytes of hex).
    #[arg(long)]
    address: String,
    /// A topic (32 bytes of hex); repeat for several.
    #[arg(long = "topic")]
    topics: Vec<String>,
    /// JSON-lines file, or `-` for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped.
    #[arg(default_value = "-")]
    input: PathBuf,
    /// One JSON object per candidate, then a summary object.
    #[arg(long)]
    json: bool,
}

fn scan(a: ScanArgs) -> Result<ExitCode> {
    let address: [u8; 20] = hex_array(a.address.trim()).context("--address")?;
    let topics: Vec<[u8; 32]> = a
        .topics
        .iter()
        .map(|t| hex_array::<32>(t.trim()).with_context(|| format!("--topic {t}")))
        .collect::<Result<_>>()?;
    let mut inputs = vec![InputBits::from_input(&address)];
    inputs.extend(topics.iter().map(|t| InputBits::from_input(t)));

    let reader = crate::input::open(&a.input)?;
    let bar = crate::output::progress(None, "scanning");
    let mut out = crate::output::stdout();
    let (mut scanned, mut candidates, mut confirmed, mut false_positives, mut unconfirmed) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    for (lineno, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", a.input.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        let at = || format!("{}:{}", a.input.display(), lineno + 1);
        let entries = entries_of(line.as_bytes()).with_context(at)?;
        for e in &entries.0 {
            let Some(maybe) = e.may_contain(&inputs) else {
                bail!("{}: {e} has no logsBloom", at());
            };
            scanned += 1;
            bar.inc(1);
            if !maybe {
                continue;
            }
            candidates += 1;
            let status = match e.logs() {
                Some(logs) if logs.iter().any(|l| l.matches(&address, &topics)) => {
                    confirmed += 1;
                    "confirmed"
                }
                Some(_) => {
                    false_positives += 1;
                    "false-positive"
                }
                None => {
                    unconfirmed += 1;
                    "unconfirmed"
                }
            };
            let (block, id) = match e {
                Entry::Receipt(r) => (r.block_number, r.transaction_hash),
                Entry::Block(b) => (b.number, b.hash),
                Entry::Log(_) => (None, None),
            };
            let id = id.map(|h| format!("0x{}", hex::encode(h)));
            if a.json {
                crate::output::json_line(
                    &mut out,
                    &serde_json::json!({"block": block, "id": id, "status": status}),
                )?;
            } else {
                writeln!(
                    out,
                    "{}\t{}\t{status}",
                    block.map_or_else(|| "-".to_string(), |n| n.to_string()),
                    id.as_deref().unwrap_or("-")
                )?;
            }
        }
    }
    bar.finish_and_clear();
    if a.json {
        crate::output::json_line(
            &mut out,
            &serde_json::json!({
                "scanned": scanned,
                "candidates": candidates,
                "confirmed": confirmed,
                "false_positives": false_positives,
                "unconfirmed": unconfirmed,
            }),
        )?;
    } else {
        writeln!(
            out,
            "scanned {scanned}: {candidates} candidates, {confirmed} confirmed, \
             {false_positives} false positives, {unconfirmed} unconfirmed"
        )?;
    }
    out.flush()?;
    Ok(super::exit_all(candidates > false_positives))
}
