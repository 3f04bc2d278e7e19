//! `amq algorand ...`: the Algorand unit-name registry's Bloom filter (box bytes) off-chain.

use amq::formats::algorand::{
    self, AlgorandBloom, AvmHash, UnitNameRegistry, BOX_NAME, DEFAULT_BOX_BYTES, DEFAULT_K,
};
use anyhow::{bail, Context, Result};
use base64::Engine as _;
use clap::Subcommand;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The unit-name registry contract's Bloom filter: bit indices, availability, replay, sizing.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq algorand indices 'The GOAT'
  amq algorand check --box bloom.b64 'The GOAT' BAYC1
  printf 'The GOAT\\nThe GOAT\\n' | amq algorand replay --max-supply 10000 -
  amq algorand plan --supply 10000 --fpr 0.01")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

/// The `amq algorand` subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// One JSON line per name with its bit indices h1, h2 (h3, h4 for k > 2).
    Indices(IndicesArgs),
    /// `available` or `taken` per name, read from the box bytes.
    Check(CheckArgs),
    /// Replay `buy_nft` calls, one unit name per line, as the contract runs them.
    Replay(ReplayArgs),
    /// The smallest box and k for a supply and false-positive rate, with its minimum balance.
    Plan(PlanArgs),
}

/// Shape of a (generalised) contract: box size and k.
#[derive(clap::Args, Debug, Clone, Copy)]
struct Shape {
    /// k, the number of hashes (1 to 4: sha512_256, sha3_256, sha256, keccak256 in that
    /// order); the seed contract uses 2.
    #[arg(long, default_value_t = DEFAULT_K)]
    k: u8,
}

/// `amq algorand indices`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq algorand indices 'The GOAT' BAYC1
  amq algorand indices --hex 54686520474f4154")]
pub struct IndicesArgs {
    /// Unit names (text, or hex with --hex).
    #[arg(required = true)]
    names: Vec<String>,
    /// Names are hex bytes (an optional 0x).
    #[arg(long)]
    hex: bool,
    /// Box size in bytes: m = 8 × this (the seed contract: 4096).
    #[arg(long, default_value_t = DEFAULT_BOX_BYTES)]
    box_bytes: usize,
    #[command(flatten)]
    shape: Shape,
}

/// `amq algorand check`.
///
/// Exit status 0 if every name is available, 1 if any is taken (the contract would refuse
/// it), 2 on error.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq algorand check --box bloom.bin 'The GOAT' BAYC1
  amq algorand check --box box.json --json BAYC1    # algod's box response, {\"value\": base64}")]
pub struct CheckArgs {
    /// The box bytes: raw, base64 text (as algod's box API returns the value), or algod's
    /// JSON response with a base64 `value`; `-` for stdin.
    #[arg(long = "box", value_name = "FILE")]
    box_file: PathBuf,
    /// How to read --box: auto (JSON if it starts with `{`, else base64 if it is valid base64
    /// text, else raw), raw or base64.
    #[arg(long, value_enum, default_value_t = BoxFormat::Auto)]
    format: BoxFormat,
    /// Unit names (text, or hex with --hex).
    #[arg(required = true)]
    names: Vec<String>,
    /// Names are hex bytes (an optional 0x).
    #[arg(long)]
    hex: bool,
    /// One JSON object per name: {"unit_name", "available", "h1", "h2", ...}.
    #[arg(long)]
    json: bool,
    /// The contract's box size in bytes (the seed contract: 4096); a box of another size is
    /// an error, as the contract would index it differently.
    #[arg(long, default_value_t = DEFAULT_BOX_BYTES)]
    box_bytes: usize,
    #[command(flatten)]
    shape: Shape,
}

/// How the box file is written.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoxFormat {
    /// Guess: JSON, then base64 text, then raw bytes.
    Auto,
    /// The raw box bytes.
    Raw,
    /// Base64 text of the box bytes.
    Base64,
}

/// `amq algorand replay`.
///
/// Prints one JSON line per call, {"unit_name": ..., "result": "ok" | "fail: <message>"},
/// then {"minted": ..., "box_base64": ..., "box_sha256": ...} (null box fields if the box was
/// never created). Exit status 0 (failed calls are results, not errors), 2 on error.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  printf 'The GOAT\\nThe GOAT\\nNINEBYTES\\n' | amq algorand replay --max-supply 10000 -
  amq algorand replay --max-supply 3 --hex names.hex")]
pub struct ReplayArgs {
    /// The `max_supply` given to the contract's `new`.
    #[arg(long, value_name = "N")]
    max_supply: u64,
    /// Do not call `create_bloom_filter` first (every buy then fails "Application not
    /// bootstrapped").
    #[arg(long)]
    not_bootstrapped: bool,
    /// Lines are hex bytes (an optional 0x), so names need not be UTF-8.
    #[arg(long)]
    hex: bool,
    /// Box size in bytes (the seed contract: 4096).
    #[arg(long, default_value_t = DEFAULT_BOX_BYTES)]
    box_bytes: usize,
    #[command(flatten)]
    shape: Shape,
    /// Files of unit names, one per line (an empty line is the empty name); `-` or nothing
    /// for stdin.
    ///
    /// A leading UTF-8 byte-order mark is dropped; CRLF line ends are read as LF.
    files: Vec<PathBuf>,
}

/// `amq algorand plan`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq algorand plan --supply 10000 --fpr 0.01
  amq algorand plan --supply 2000 --fpr 1e-4 --json")]
pub struct PlanArgs {
    /// n, the supply (names the filter must hold).
    #[arg(long, value_name = "N")]
    supply: u64,
    /// ε at full supply (a number in (0, 1) or a percentage like 1%).
    #[arg(long, value_name = "E", value_parser = super::parse_fpr)]
    fpr: f64,
    /// The box name's length in bytes (1 to 64), for the minimum balance (the seed's
    /// `bloom`: 5).
    #[arg(long, default_value_t = BOX_NAME.len())]
    box_name_len: usize,
    /// Print the plan as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `amq algorand ...`.
pub fn run(a: Args) -> Result<ExitCode> {
    match a.command {
        Command::Indices(a) => indices(a),
        Command::Check(a) => check(a),
        Command::Replay(a) => replay(a),
        Command::Plan(a) => plan(a),
    }
}

fn name_bytes(name: &str, hex: bool) -> Result<Vec<u8>> {
    if hex {
        crate::input::parse_hex(name)
    } else {
        Ok(name.as_bytes().to_vec())
    }
}

/// The JSON fields h1..hk of a name.
fn index_fields(obj: &mut Vec<(String, serde_json::Value)>, indices: &[u64]) {
    for (i, h) in indices.iter().enumerate() {
        obj.push((format!("h{}", i + 1), (*h).into()));
    }
}

/// Prints one JSON object on its own line with its fields in the order given (serde_json's
/// map would sort them).
fn ordered_json_line(out: &mut impl Write, fields: &[(String, serde_json::Value)]) -> Result<()> {
    out.write_all(b"{")?;
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, key)?;
        out.write_all(b":")?;
        serde_json::to_writer(&mut *out, value)?;
    }
    out.write_all(b"}\n")?;
    Ok(())
}

fn indices(a: IndicesArgs) -> Result<ExitCode> {
    let bloom = AlgorandBloom::with_size(a.box_bytes, a.shape.k)?;
    let mut out = crate::output::stdout();
    for name in &a.names {
        let bytes = name_bytes(name, a.hex)?;
        let mut obj = crate::input::item_json("unit_name", &bytes, a.hex);
        index_fields(&mut obj, &bloom.indices(&bytes));
        ordered_json_line(&mut out, &obj)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Reads the box bytes from a file: raw, base64, or algod's JSON with a base64 `value`.
fn read_box(path: &Path, format: BoxFormat) -> Result<Vec<u8>> {
    let raw = crate::input::read_all(path)?;
    let b64 = base64::engine::general_purpose::STANDARD;
    let decode_text = |text: &[u8]| -> Result<Vec<u8>> {
        let t: Vec<u8> = text
            .iter()
            .copied()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        b64.decode(&t).context("the box is not valid base64")
    };
    match format {
        BoxFormat::Raw => Ok(raw),
        BoxFormat::Base64 => decode_text(crate::input::without_bom(&raw)),
        BoxFormat::Auto => {
            let trimmed = crate::input::without_bom(&raw).trim_ascii();
            if trimmed.first() == Some(&b'{') {
                let v: serde_json::Value =
                    serde_json::from_slice(trimmed).context("the box file is not valid JSON")?;
                let Some(value) = v.get("value").and_then(|x| x.as_str()) else {
                    bail!("the box JSON has no string field \"value\" (algod's box response)");
                };
                return decode_text(value.as_bytes());
            }
            let is_text = !trimmed.is_empty()
                && trimmed
                    .iter()
                    .all(|&c| c.is_ascii_alphanumeric() || b"+/=\r\n\t ".contains(&c));
            match is_text.then(|| decode_text(trimmed)) {
                Some(Ok(bytes)) => Ok(bytes),
                _ => Ok(raw),
            }
        }
    }
}

fn check(a: CheckArgs) -> Result<ExitCode> {
    let bytes = read_box(&a.box_file, a.format)?;
    let bloom = AlgorandBloom::from_box(&bytes, a.shape.k)
        .with_context(|| format!("the box in {}", a.box_file.display()))?;
    if bytes.len() != a.box_bytes {
        bail!(
            "the box in {} has {} bytes, but the contract's box has {} (give --box-bytes if its box is another size)",
            a.box_file.display(),
            bytes.len(),
            a.box_bytes
        );
    }
    let mut out = crate::output::stdout();
    let mut all_available = true;
    for name in &a.names {
        let n = name_bytes(name, a.hex)?;
        let available = !bloom.contains_name(&n);
        all_available &= available;
        if a.json {
            let mut obj = crate::input::item_json("unit_name", &n, a.hex);
            obj.push(("available".to_string(), available.into()));
            index_fields(&mut obj, &bloom.indices(&n));
            ordered_json_line(&mut out, &obj)?;
        } else {
            writeln!(
                out,
                "{}\t{name}",
                if available { "available" } else { "taken" }
            )?;
        }
    }
    out.flush()?;
    Ok(super::exit_all(all_available))
}

fn replay(a: ReplayArgs) -> Result<ExitCode> {
    let mut app = UnitNameRegistry::with_shape(a.max_supply, a.box_bytes, a.shape.k)?;
    if !a.not_bootstrapped {
        app.create_bloom_filter();
    }
    let mut out = crate::output::stdout();
    crate::input::for_each_item(&a.files, a.hex, |name| {
        let result = match app.buy_nft(name) {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("fail: {}", e.message()),
        };
        let mut obj = crate::input::item_json("unit_name", name, a.hex);
        obj.push(("result".to_string(), result.into()));
        ordered_json_line(&mut out, &obj)
    })?;
    let (box_base64, box_sha256) = match app.bloom() {
        Some(b) => (
            serde_json::Value::from(base64::engine::general_purpose::STANDARD.encode(b.as_bytes())),
            serde_json::Value::from(hex::encode(AvmHash::Sha256.digest(b.as_bytes()))),
        ),
        None => (serde_json::Value::Null, serde_json::Value::Null),
    };
    ordered_json_line(
        &mut out,
        &[
            ("minted".to_string(), app.minted().into()),
            ("box_base64".to_string(), box_base64),
            ("box_sha256".to_string(), box_sha256),
        ],
    )?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn plan(a: PlanArgs) -> Result<ExitCode> {
    let p = algorand::plan(a.supply, a.fpr, a.box_name_len)?;
    let hashes: Vec<&str> = p.hashes.iter().map(|h| h.opcode()).collect();
    let mut out = crate::output::stdout();
    if a.json {
        crate::output::json_line(
            &mut out,
            &serde_json::json!({
                "supply": p.supply,
                "target_fpr": p.target_fpr,
                "box_bytes": p.box_bytes,
                "m_bits": p.m_bits,
                "k": p.k,
                "hashes": hashes,
                "fpr": p.fpr,
                "fpr_classic": p.fpr_classic,
                "expected_refusals_to_mint": p.expected_refusals_to_mint,
                "min_balance_microalgos": p.min_balance_microalgos,
                "fits_on_stack": p.fits_on_stack,
                "box_references": p.box_references,
                "app_calls_for_box_references": p.app_calls_for_box_references,
            }),
        )?;
    } else {
        writeln!(out, "supply           {}", p.supply)?;
        writeln!(
            out,
            "box              {} bytes (m = {} bits)",
            p.box_bytes, p.m_bits
        )?;
        writeln!(out, "k                {} ({})", p.k, hashes.join(", "))?;
        writeln!(
            out,
            "fpr at supply    {:.6} (target {}; {:.6} if no name had been refused on the way)",
            p.fpr, p.target_fpr, p.fpr_classic
        )?;
        writeln!(
            out,
            "refused to mint  {:.1} fresh names expected while minting the supply",
            p.expected_refusals_to_mint
        )?;
        writeln!(
            out,
            "min balance      {} microAlgos ({:.6} Algo) = 2500 + 400 x ({} + {})",
            p.min_balance_microalgos,
            p.min_balance_microalgos as f64 / 1e6,
            a.box_name_len,
            p.box_bytes
        )?;
        writeln!(
            out,
            "box references   {} of {} bytes each, pooled across the group; at most {} per app call: {}",
            p.box_references,
            algorand::BYTES_PER_BOX_REFERENCE,
            algorand::MAX_APP_BOX_REFERENCES,
            match p.app_calls_for_box_references {
                1 => "one app call".to_string(),
                c => format!("a group of at least {c} app calls"),
            }
        )?;
        if !p.fits_on_stack {
            writeln!(
                out,
                "note             over 4096 bytes: the contract must use box_extract/box_replace, not box_get/box_put"
            )?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
