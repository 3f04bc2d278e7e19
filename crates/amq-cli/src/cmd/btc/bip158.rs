//! `amq btc filter|gcs|match`: BIP158 basic block filters and BIP157 filter headers.
//!
//! Block hashes and filter headers are read and printed as RPC shows them (display byte order,
//! the reverse of the internal order they are hashed in).

use crate::input;
use amq::formats::bip158::{self, basic_filter_elements, BlockFilter, BlockHasher};
use amq::gcs::{hash_to_range, GcsHash};
use anyhow::{bail, Context, Result};
use clap::Subcommand;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The BIP158 subcommands of `amq btc`.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// BIP158 basic filter of a block: print the filter hex and its BIP157 header.
    Filter(FilterArgs),
    /// Build a BIP158 GCS filter from raw elements (hex, one per line); print its hex.
    Gcs(GcsArgs),
    /// Match elements (hex, one per line) against a BIP158 filter: one JSON line each.
    Match(MatchArgs),
}

/// `amq btc filter`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  bitcoin-cli getblock $(bitcoin-cli getblockhash 0) 0 > block.hex
  amq btc filter --block block.hex --prev-scripts /dev/null
  amq btc filter --block block.hex --prev-scripts spent-scripts.txt --prev-header 18b5c2b0146d2d09d24fb00ff5b52bd0742f36c9e65527abdb9de30c027a4748 --json")]
pub struct FilterArgs {
    /// The raw block: hex text (as `getblock HASH 0` prints it) or binary; `-` for stdin.
    #[arg(long, value_name = "FILE")]
    block: PathBuf,
    /// The scripts the block's inputs spend, hex, one per line, in input order (the coinbase
    /// spends none; an empty line is an empty script).
    #[arg(long, value_name = "FILE")]
    prev_scripts: PathBuf,
    /// The previous block's filter header, as RPC shows it (default: all zero, for the
    /// genesis block).
    #[arg(long, value_name = "HEX")]
    prev_header: Option<String>,
    /// One JSON object: block_hash, n, filter, filter_hash, header.
    #[arg(long)]
    json: bool,
}

/// `--p` and `--m` (BIP158's basic filter by default).
#[derive(clap::Args, Debug)]
pub struct ParamArgs {
    /// P, the Golomb-Rice remainder bits.
    #[arg(long, default_value_t = bip158::P)]
    p: u8,
    /// M, the inverse false-positive rate.
    #[arg(long, default_value_t = bip158::M)]
    m: u64,
}

/// `amq btc gcs`.
///
/// Elements are deduplicated (a set) before N is counted, as BIP158 says. Memory: 8 bytes per
/// element and the filter, plus the distinct elements that occur more than once (a second pass
/// over the input tells them from hash collisions; stdin is kept in a temporary file for it).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq btc gcs --block-hash 000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943 scripts.txt
  printf '51\\n52\\n' | amq btc gcs --block-hash 00000000000000000000000000000000000000000000000000000000000000ff --p 10 --m 1024 -")]
pub struct GcsArgs {
    /// The block hash the filter is keyed by, as RPC shows it.
    #[arg(long, value_name = "HASH")]
    block_hash: String,
    #[command(flatten)]
    params: ParamArgs,
    /// Files of hex elements, one per line; `-` or nothing for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// `amq btc match`.
///
/// Exit status 0 if every element may be in the filter, 1 if any is definitely absent.
/// Memory: the filter and 17 bytes per element (the input is read twice; stdin is kept in a
/// temporary file for the second pass).
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq btc match --block-hash 000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943 --filter 019dfca8 my-scripts.txt
  bitcoin-cli getblockfilter $HASH > filter.json
  amq btc match --block-hash $HASH --filter-file filter.json my-scripts.txt")]
#[command(group(clap::ArgGroup::new("the_filter").required(true).args(["filter", "filter_file"])))]
pub struct MatchArgs {
    /// The block hash the filter is keyed by, as RPC shows it.
    #[arg(long, value_name = "HASH")]
    block_hash: String,
    /// The filter, hex: CompactSize N, then the GCS bytes (as `getblockfilter` prints it).
    #[arg(long, value_name = "HEX")]
    filter: Option<String>,
    /// A file holding the filter: `getblockfilter`'s JSON (`{"filter": HEX, ...}`, as `amq
    /// btc filter --json` prints it too), its hex alone, or its raw bytes. For filters too
    /// large for an argument (Linux allows 128 KiB).
    #[arg(long, value_name = "PATH")]
    filter_file: Option<PathBuf>,
    #[command(flatten)]
    params: ParamArgs,
    /// Files of hex elements, one per line; `-` or nothing for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// Runs `amq btc filter|gcs|match`.
pub fn run(c: Command) -> Result<ExitCode> {
    match c {
        Command::Filter(a) => filter(a),
        Command::Gcs(a) => gcs(a),
        Command::Match(a) => matches(a),
    }
}

/// A 32-byte hash from RPC hex (display order) to internal byte order.
fn parse_display_hash(text: &str, what: &str) -> Result<[u8; 32]> {
    let bytes = input::parse_hex(text).with_context(|| what.to_string())?;
    let mut hash: [u8; 32] = bytes
        .try_into()
        .map_err(|b: Vec<u8>| anyhow::anyhow!("{what} must be 32 bytes, got {}", b.len()))?;
    hash.reverse();
    Ok(hash)
}

/// A 32-byte hash in display order (reversed) as hex.
fn display_hash(hash: &[u8; 32]) -> String {
    let mut h = *hash;
    h.reverse();
    hex::encode(h)
}

fn read_elements(files: &[PathBuf]) -> Result<Vec<Vec<u8>>> {
    let mut elements = Vec::new();
    input::for_each_item(files, true, |e| {
        elements.push(e.to_vec());
        Ok(())
    })?;
    Ok(elements)
}

/// The block's bytes: hex text if the file is hex, binary otherwise.
fn read_block(path: &Path) -> Result<bitcoin::Block> {
    let bytes = hex_or_bytes(input::read_all(path)?, path)?;
    bitcoin::consensus::deserialize(&bytes)
        .with_context(|| format!("{}: not a valid block", path.display()))
}

/// The filter's bytes from `--filter-file`: the `filter` member of a JSON object (text that
/// starts with `{`), hex text, or the bytes themselves.
fn read_filter(path: &Path, element_files: &[PathBuf]) -> Result<Vec<u8>> {
    #[derive(serde::Deserialize)]
    struct GetBlockFilter {
        filter: String,
    }
    let stdin = Path::new("-");
    if path == stdin && (element_files.is_empty() || element_files.iter().any(|f| f == stdin)) {
        bail!("--filter-file - and the elements cannot both be read from stdin");
    }
    let raw = input::read_all(path)?;
    let trimmed = input::without_bom(&raw).trim_ascii();
    // a raw filter of 123 elements starts with '{' too, but its Golomb codes are not UTF-8
    if trimmed.first() == Some(&b'{') && std::str::from_utf8(trimmed).is_ok() {
        let json: GetBlockFilter = serde_json::from_slice(trimmed).with_context(|| {
            format!(
                "{}: not getblockfilter's JSON (an object with \"filter\")",
                path.display()
            )
        })?;
        return input::parse_hex(&json.filter)
            .with_context(|| format!("{}: filter", path.display()));
    }
    hex_or_bytes(raw, path)
}

/// The bytes a file's hex text spells (surrounding white space ignored), or its bytes if it is
/// not hex.
fn hex_or_bytes(raw: Vec<u8>, path: &Path) -> Result<Vec<u8>> {
    let trimmed = raw.trim_ascii();
    if !trimmed.is_empty() && trimmed.iter().all(u8::is_ascii_hexdigit) {
        return hex::decode(trimmed).with_context(|| format!("{}: invalid hex", path.display()));
    }
    Ok(raw)
}

fn filter(a: FilterArgs) -> Result<ExitCode> {
    use bitcoin::hashes::Hash as _;
    let block = read_block(&a.block)?;
    let block_hash = block.block_hash().to_byte_array();
    let prev_header = match &a.prev_header {
        Some(h) => parse_display_hash(h, "--prev-header")?,
        None => [0u8; 32],
    };
    let spent = read_elements(std::slice::from_ref(&a.prev_scripts))?;
    let inputs: usize = block
        .txdata
        .iter()
        .filter(|tx| !tx.is_coinbase())
        .map(|tx| tx.input.len())
        .sum();
    if spent.len() != inputs {
        bail!(
            "the block's transactions have {inputs} inputs besides the coinbase, but {} gives {} spent scripts",
            a.prev_scripts.display(),
            spent.len()
        );
    }
    let outputs = block
        .txdata
        .iter()
        .flat_map(|tx| tx.output.iter().map(|o| o.script_pubkey.as_bytes()));
    let elements = basic_filter_elements(outputs, spent.iter().map(Vec::as_slice));
    let f = BlockFilter::build(&block_hash, &elements)?;
    let header = f.header(&prev_header);
    let mut out = crate::output::stdout();
    if a.json {
        crate::output::json_line(
            &mut out,
            &serde_json::json!({
                "block_hash": display_hash(&block_hash),
                "n": f.n(),
                "filter": hex::encode(f.as_bytes()),
                "filter_hash": display_hash(&f.filter_hash()),
                "header": display_hash(&header),
            }),
        )?;
    } else {
        writeln!(out, "block_hash  {}", display_hash(&block_hash))?;
        writeln!(out, "n           {}", f.n())?;
        writeln!(out, "filter      {}", hex::encode(f.as_bytes()))?;
        writeln!(out, "header      {}", display_hash(&header))?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn gcs(a: GcsArgs) -> Result<ExitCode> {
    let block_hash = parse_display_hash(&a.block_hash, "--block-hash")?;
    amq::gcs::Params::new(0, a.params.p, a.params.m)?;
    let inputs = input::Rereadable::open(&a.files)?;
    let hasher = BlockHasher::new(&block_hash);
    let mut hashes = Vec::new();
    inputs.for_each_item(true, |e| {
        input::push(&mut hashes, hasher.hash64(e), "the element hashes")
    })?;
    amq::gcs::sort_hashes(&mut hashes);
    let ties = bip158::repeated_hashes(&hashes);
    if !ties.is_empty() {
        // the distinct elements behind each repeated hash: duplicates, or a collision
        let mut tied: BTreeMap<u64, Vec<Box<[u8]>>> = BTreeMap::new();
        inputs.for_each_item(true, |e| {
            let h = hasher.hash64(e);
            if ties.binary_search(&h).is_ok() {
                let seen = tied.entry(h).or_default();
                if !seen.iter().any(|s| **s == *e) {
                    seen.push(e.into());
                }
            }
            Ok(())
        })?;
        bip158::dedup_sorted_hashes(&mut hashes, |h| tied.get(&h).map_or(1, Vec::len));
    }
    let f = BlockFilter::from_distinct_hashes(&block_hash, a.params.p, a.params.m, hashes)?;
    let mut out = crate::output::stdout();
    for chunk in f.as_bytes().chunks(1 << 15) {
        out.write_all(hex::encode(chunk).as_bytes())?;
    }
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn matches(a: MatchArgs) -> Result<ExitCode> {
    let block_hash = parse_display_hash(&a.block_hash, "--block-hash")?;
    let (bytes, what) = match (&a.filter, &a.filter_file) {
        (Some(hex), _) => (
            input::parse_hex(hex).context("--filter")?,
            "--filter".into(),
        ),
        (None, Some(path)) => (read_filter(path, &a.files)?, path.display().to_string()),
        (None, None) => bail!("give the filter with --filter or --filter-file"),
    };
    let f = BlockFilter::from_bytes_with(&block_hash, a.params.p, a.params.m, bytes)
        .with_context(|| what.clone())?;
    let (hasher, set_f) = (f.hasher(), f.gcs().f());
    let value = |e: &[u8]| hash_to_range(hasher.hash64(e), set_f);
    let inputs = input::Rereadable::open(&a.files)?;
    let mut targets = super::super::Targets::default();
    inputs.for_each_item(true, |e| targets.push(value(e)))?;
    targets.sort_and_find_repeats();
    let answers = targets.answers(&f.gcs()).context(what)?;
    drop(targets);
    let mut out = crate::output::stdout();
    let mut next = answers.iter();
    let mut all = true;
    inputs.for_each_item(true, |e| {
        let hit = *next.next().context("the input changed while it was read")?;
        all &= hit;
        crate::output::json_line(
            &mut out,
            &serde_json::json!({ "element": hex::encode(e), "match": hit }),
        )
    })?;
    out.flush()?;
    Ok(super::super::exit_all(all))
}
