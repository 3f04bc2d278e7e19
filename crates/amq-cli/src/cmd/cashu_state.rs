//! `amq cashu element|block|epoch ...`: Cashu compact state filters (cashubtc/nuts PR #433),
//! revision B's Bloom blocks and revision A's Golomb-Rice epochs.

use crate::input;
use amq::formats::cashu_state::{
    capacity, smallest_b, Block, Element, Epoch, Kind, Words, MIN_RECOMMENDED_P,
};
use anyhow::{bail, Context, Result};
use clap::Subcommand;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `amq cashu element`: E of a state change, as hex.
///
/// KIND is proof_state, mint_quote, melt_quote or blind_signature. ID_HEX is the id's bytes
/// as hex (an optional 0x): the 33-byte point Y or B_, or the quote ID's UTF-8 bytes (or give
/// the quote ID as it is with --text-id). STATE is UNSPENT, PENDING or SPENT (proof_state),
/// UNPAID, PENDING or PAID (melt_quote), and left out for mint_quote and blind_signature.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu element proof_state 024cce997d3b518f739663b757deaec95bcd9473c30a14ac2fd04023a739d1a725 SPENT
  amq cashu element --text-id melt_quote 019e6d5a-2347-7000-8afa-051ae571f334 PAID
  amq cashu element --json mint_quote 30313965366435612d323334372d373030302d386166612d303531616535373166333334")]
pub struct ElementArgs {
    /// The kind.
    kind: String,
    /// The id as hex (or as text with --text-id).
    id_hex: String,
    /// The state (none for mint_quote and blind_signature).
    state: Option<String>,
    /// The id is the quote ID's text, not hex.
    #[arg(long)]
    text_id: bool,
    /// One JSON object: kind, id_hex, state, preimage, element.
    #[arg(long)]
    json: bool,
}

/// `amq cashu block ...`: revision B's Bloom blocks.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu block build --b 10 spent-elements.txt
  amq cashu block match --block 5.bin my-candidates.txt
  amq cashu block info 5.bin")]
pub struct BlockArgs {
    #[command(subcommand)]
    command: BlockCommand,
}

#[derive(Subcommand, Debug)]
enum BlockCommand {
    /// Build a block from elements (E as hex, one per line); print its bitmap as hex.
    Build(BlockBuildArgs),
    /// Fold a block to a smaller width b'; print the bitmap as hex.
    Fold(BlockFoldArgs),
    /// Test elements (E as hex, one per line) against a block: one JSON line each.
    Match(BlockMatchArgs),
    /// A block's b, popcount, fill, estimated false-positive rate f^16 and count estimate.
    Info(BlockInfoArgs),
}

/// How a command prints a block.
#[derive(clap::Args, Debug)]
struct BlockOutput {
    /// Write the raw bitmap (as served, application/octet-stream) instead of hex.
    #[arg(long, conflicts_with = "json")]
    raw: bool,
    /// One JSON object: b, count (build only), popcount, fill, fpr, hex.
    #[arg(long)]
    json: bool,
}

/// `amq cashu block build`.
///
/// Every line is one insertion operation and counts once, repeats included. With --fold the
/// block is folded to the smallest b that holds that count, as a mint folds a block sealed on
/// timeout.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu block build --b 10 spent-elements.txt
  amq cashu block build --b 20 --fold --raw - < elements.txt > block.bin")]
struct BlockBuildArgs {
    /// The width b: 2^b bits, b from 5 to 26.
    #[arg(long)]
    b: u8,
    /// Fold to the smallest b that holds the count of insertions.
    #[arg(long)]
    fold: bool,
    #[command(flatten)]
    out: BlockOutput,
    /// Files of elements (64 hex digits each), one per line; `-` or nothing for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// `amq cashu block fold`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu block fold --to 6 block.bin
  amq cashu block fold --to 6 0x0008...0800")]
struct BlockFoldArgs {
    /// The width to fold to, b' ≤ b.
    #[arg(long, value_name = "B")]
    to: u8,
    #[command(flatten)]
    out: BlockOutput,
    #[command(flatten)]
    block: BlockInput,
}

/// `amq cashu block match`.
///
/// Prints {"element": ..., "match": true|false} per element. Exit status 0 if every element
/// may be in the block, 1 if any is definitely not.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu block match --block 5.bin candidates.txt
  amq cashu element proof_state 02... SPENT | amq cashu block match --block 5.bin -")]
struct BlockMatchArgs {
    /// The block: hex, or a file holding its raw bytes as served, or their hex (a file named
    /// *.hex, or hex text with a 0x or a line end).
    #[arg(long, value_name = "HEX|FILE")]
    block: String,
    /// Files of elements (64 hex digits each), one per line; `-` or nothing for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// `amq cashu block info`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu block info 5.bin
  amq cashu block info --block 5.bin
  amq cashu block info --json 3abb2204")]
struct BlockInfoArgs {
    /// One JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    block: BlockInput,
}

/// The block of `block fold` and `block info`: an argument, or `--block` as `block match`
/// takes it.
#[derive(clap::Args, Debug)]
#[group(required = true, multiple = false)]
struct BlockInput {
    /// The block: hex, or a file holding its raw bytes as served, or their hex (a file named
    /// *.hex, or hex text with a 0x or a line end).
    #[arg(value_name = "BLOCK")]
    block: Option<String>,
    /// The block, as `block match` takes it (instead of BLOCK).
    #[arg(long = "block", id = "block_option", value_name = "HEX|FILE")]
    block_option: Option<String>,
}

impl BlockInput {
    /// The block given, read.
    fn read(&self) -> Result<Block> {
        match self.block.as_deref().or(self.block_option.as_deref()) {
            Some(block) => read_block(block),
            None => bail!("give the block: BLOCK or --block"),
        }
    }
}

/// `amq cashu epoch ...`: revision A's Golomb-Rice epoch filters.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu epoch build --p 28 changes.txt
  amq cashu epoch match --p 28 --filter 047ea0665b049eabb17be54217aa442744d190 candidates.txt")]
pub struct EpochArgs {
    #[command(subcommand)]
    command: EpochCommand,
}

#[derive(Subcommand, Debug)]
enum EpochCommand {
    /// Build an epoch's filter from elements (E as hex, one per line); print its data as hex.
    Build(EpochBuildArgs),
    /// Test elements against an epoch's filter (N is what decoding finds): one JSON line each.
    Match(EpochMatchArgs),
}

/// `amq cashu epoch build`.
///
/// Duplicate elements are removed; N is the number that remain. An epoch without elements
/// prints an empty line (empty data).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu epoch build --p 28 changes.txt
  amq cashu epoch build --p 28 --json - < changes.txt")]
struct EpochBuildArgs {
    /// P, the Golomb-Rice parameter (7 to 31; 28 recommended, below 24 discouraged).
    #[arg(long)]
    p: u8,
    /// One JSON object: p, n, data.
    #[arg(long)]
    json: bool,
    /// Files of elements (64 hex digits each), one per line; `-` or nothing for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// `amq cashu epoch match`.
///
/// Prints {"element": ..., "n": N, "position": ..., "match": true|false} per element. Exit
/// status 0 if every element may be in the filter, 1 if any is definitely not.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq cashu epoch match --p 28 --filter 047ea0665b049eabb17be54217aa442744d190 candidates.txt
  amq cashu epoch match --p 28 --filter epoch.hex -")]
struct EpochMatchArgs {
    /// P, the mint's Golomb-Rice parameter.
    #[arg(long)]
    p: u8,
    /// The filter's data: hex ("" for an empty epoch), or a file holding it raw or as hex
    /// (a file named *.hex, or hex text with a 0x or a line end).
    #[arg(long, value_name = "HEX|FILE")]
    filter: String,
    /// Files of elements (64 hex digits each), one per line; `-` or nothing for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// Runs `amq cashu element`.
pub fn element(a: ElementArgs) -> Result<ExitCode> {
    let kind = Kind::parse(&a.kind)?;
    let id = if a.text_id {
        a.id_hex.as_bytes().to_vec()
    } else {
        input::parse_hex(&a.id_hex).context("ID_HEX")?
    };
    let state = a.state.as_deref().unwrap_or("");
    let element = Element::parse(kind, &id, state)?;
    let e = hex::encode(element.hash());
    let mut out = crate::output::stdout();
    if a.json {
        crate::output::json_line(
            &mut out,
            &serde_json::json!({
                "kind": kind.name(),
                "id_hex": hex::encode(&id),
                "state": state,
                "preimage": hex::encode(element.preimage()),
                "element": e,
            }),
        )?;
    } else {
        writeln!(out, "{e}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `amq cashu block ...`.
pub fn block(a: BlockArgs) -> Result<ExitCode> {
    match a.command {
        BlockCommand::Build(a) => block_build(a),
        BlockCommand::Fold(a) => block_fold(a),
        BlockCommand::Match(a) => block_match(a),
        BlockCommand::Info(a) => block_info(a),
    }
}

/// Runs `amq cashu epoch ...`.
pub fn epoch(a: EpochArgs) -> Result<ExitCode> {
    match a.command {
        EpochCommand::Build(a) => epoch_build(a),
        EpochCommand::Match(a) => epoch_match(a),
    }
}

/// Elements, one per line as hex: each must be 32 bytes.
fn read_elements(files: &[PathBuf]) -> Result<Vec<[u8; 32]>> {
    let mut out = Vec::new();
    input::for_each_item(files, true, |bytes| {
        let e: [u8; 32] = bytes.try_into().map_err(|_| {
            anyhow::anyhow!(
                "element {}: an element is 32 bytes (64 hex digits), got {} bytes",
                out.len() + 1,
                bytes.len()
            )
        })?;
        out.push(e);
        Ok(())
    })?;
    Ok(out)
}

/// A block or filter given as hex, or as a file (or `-`) holding its raw bytes or their hex.
/// A file is read as hex when its name ends in `.hex`, or when its text is hex digits marked
/// as text: with a 0x, or with a line end or spaces around them (as `amq cashu block build`
/// prints it). Any other file is the raw bytes, as a mint serves them: a served body may
/// consist of bytes that happen to be hex digits (`ffffffff` is an 8-byte block), and read
/// as hex it would be another block. (An empty file is zero bytes.)
fn read_bytes(arg: &str, what: &str) -> Result<Vec<u8>> {
    let path = Path::new(arg);
    if arg == "-" || path.is_file() {
        let bytes = input::read_all(path)?;
        let named_hex = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("hex"));
        return match std::str::from_utf8(&bytes) {
            Ok(text) if named_hex || is_marked_hex(text) => {
                input::parse_hex(text.trim()).with_context(|| format!("{what} {arg}"))
            }
            _ => Ok(bytes),
        };
    }
    input::parse_hex(arg).with_context(|| format!("{what}: {arg:?} is neither a file nor hex"))
}

/// `true` for hex digits with a 0x, or with white space around them.
fn is_marked_hex(text: &str) -> bool {
    let trimmed = text.trim();
    let digits = trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"));
    let marked = digits.is_some() || trimmed.len() != text.len();
    marked
        && digits
            .unwrap_or(trimmed)
            .bytes()
            .all(|c| c.is_ascii_hexdigit())
}

fn read_block(arg: &str) -> Result<Block> {
    Block::from_bytes(read_bytes(arg, "block")?).context("block")
}

fn print_block(block: &Block, count: Option<u64>, out: &BlockOutput) -> Result<()> {
    let mut w = crate::output::stdout();
    if out.raw {
        w.write_all(block.as_bytes())?;
    } else if out.json {
        let mut v = serde_json::json!({ "b": block.b() });
        if let Some(n) = count {
            v["count"] = n.into();
        }
        v["popcount"] = block.popcount().into();
        v["fill"] = block.fill().into();
        v["fpr"] = block.fpr().into();
        v["hex"] = hex::encode(block.as_bytes()).into();
        crate::output::json_line(&mut w, &v)?;
    } else {
        writeln!(w, "{}", hex::encode(block.as_bytes()))?;
    }
    w.flush()?;
    Ok(())
}

fn block_build(a: BlockBuildArgs) -> Result<ExitCode> {
    let mut block = Block::new(a.b)?;
    let elements = read_elements(&a.files)?;
    for e in &elements {
        block.insert(&Words::from_element(e));
    }
    let count = elements.len() as u64;
    let cap = capacity(a.b)?;
    if count > cap {
        eprintln!(
            "warning: {count} insertions exceed the capacity {cap} of b = {}; a mint seals a block at capacity",
            a.b
        );
    }
    if a.fold {
        let to = smallest_b(count).map_or(a.b, |b| b.min(a.b));
        block = block.fold(to)?;
    }
    print_block(&block, Some(count), &a.out)?;
    Ok(ExitCode::SUCCESS)
}

fn block_fold(a: BlockFoldArgs) -> Result<ExitCode> {
    let block = a.block.read()?.fold(a.to)?;
    print_block(&block, None, &a.out)?;
    Ok(ExitCode::SUCCESS)
}

fn block_match(a: BlockMatchArgs) -> Result<ExitCode> {
    let block = read_block(&a.block)?;
    let elements = read_elements(&a.files)?;
    let mut out = crate::output::stdout();
    let mut all = true;
    for e in &elements {
        let hit = block.contains(&Words::from_element(e));
        all &= hit;
        crate::output::json_line(
            &mut out,
            &serde_json::json!({ "element": hex::encode(e), "match": hit }),
        )?;
    }
    out.flush()?;
    Ok(super::exit_all(all))
}

fn block_info(a: BlockInfoArgs) -> Result<ExitCode> {
    let block = a.block.read()?;
    crate::output::print_fields(
        &[
            ("b", block.b().into()),
            ("bits", block.bit_len().into()),
            ("bytes", block.as_bytes().len().into()),
            ("capacity", capacity(block.b())?.into()),
            ("popcount", block.popcount().into()),
            ("fill", block.fill().into()),
            ("fpr", block.fpr().into()),
            ("count_estimate", block.count_estimate().into()),
        ],
        a.json,
    )?;
    Ok(ExitCode::SUCCESS)
}

fn epoch_build(a: EpochBuildArgs) -> Result<ExitCode> {
    let elements = read_elements(&a.files)?;
    let epoch = Epoch::build(elements, a.p)?;
    if a.p < MIN_RECOMMENDED_P {
        eprintln!(
            "warning: P = {} is below {MIN_RECOMMENDED_P}, which revision A says mints should not use",
            a.p
        );
    }
    let data = hex::encode(epoch.as_bytes());
    let mut out = crate::output::stdout();
    if a.json {
        crate::output::json_line(
            &mut out,
            &serde_json::json!({ "p": a.p, "n": epoch.n(), "data": data }),
        )?;
    } else {
        writeln!(out, "{data}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn epoch_match(a: EpochMatchArgs) -> Result<ExitCode> {
    let data = read_bytes(&a.filter, "--filter")?;
    let epoch = Epoch::decode(data, a.p).context("--filter")?;
    let elements = read_elements(&a.files)?;
    let hits = epoch.match_many(&elements)?;
    let mut out = crate::output::stdout();
    for (e, &hit) in elements.iter().zip(&hits) {
        crate::output::json_line(
            &mut out,
            &serde_json::json!({
                "element": hex::encode(e),
                "n": epoch.n(),
                "position": epoch.position(e),
                "match": hit,
            }),
        )?;
    }
    out.flush()?;
    Ok(super::exit_all(hits.iter().all(|&h| h)))
}
