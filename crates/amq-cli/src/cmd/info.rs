//! `amq info`: what a filter file holds, for every kind, as the library's [`amq::Info`].

use anyhow::{Context, Result};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Show a filter's kind, shape, fill and estimated false-positive rate.
///
/// Reads every kind of .amq file: Bloom, blocked Bloom, split block Bloom and cuckoo filters,
/// scalable and expandable chains, and the sliding-window Bloom, aging, negative-cache, TTL
/// cuckoo and sliding-window cuckoo (RLN) files (the same fields as
/// `amq window|aging|negative|ttl|rln info`).
#[derive(clap::Args, Debug)]
#[command(after_help = "Example:
  amq info --json words.amq")]
pub struct Args {
    /// The .amq filter.
    filter: PathBuf,
    /// One JSON object.
    #[arg(long)]
    json: bool,
    /// For the kinds that read a clock (an aging filter by time, a negative cache, a TTL
    /// cuckoo filter): the time in seconds since the Unix epoch (default: the system clock).
    #[arg(long)]
    now: Option<u64>,
}

/// Runs `amq info`.
pub fn run(a: Args) -> Result<ExitCode> {
    let filter = super::load_filter(&a.filter)?;
    filter.set_now(super::now_or_clock(a.now));
    print_info(&filter.info(), a.json)?;
    if filter.indexing() == Some(amq::hash::Indexing::Unit) {
        eprintln!(
            "note: {} derives its indices by index scheme 1 (written before scheme 2), whose \
             false-positive rate has a floor above the plan in small filters at small ε; \
             rebuild it from its items to get scheme 2",
            a.filter.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The common fields, first and in this order in the text view; the kind's own follow.
const COMMON: [&str; 9] = [
    "kind",
    "m_bits",
    "k",
    "seed",
    "items_inserted",
    "bytes",
    "fill_ratio",
    "estimated_items",
    "estimated_fpr",
];

/// Prints an [`amq::Info`]: its serialised JSON object on one line, or one `name value` line
/// per field (the common fields first).
pub fn print_info(info: &amq::Info, json: bool) -> Result<()> {
    let value = serde_json::to_value(info).context("cannot serialise the filter's info")?;
    let mut out = crate::output::stdout();
    if json {
        crate::output::json_line(&mut out, &value)?;
    } else {
        let obj = value.as_object().context("info is not an object")?;
        let rest = obj.keys().filter(|k| !COMMON.contains(&k.as_str()));
        let rows: Vec<(String, String)> = COMMON
            .iter()
            .copied()
            .chain(rest.map(String::as_str))
            .filter_map(|key| {
                let label = match key {
                    "m_bits" => "m (bits)".to_string(),
                    other => other.replace('_', " "),
                };
                obj.get(key).map(|v| (label, text(key, v)))
            })
            .collect();
        let width = rows
            .iter()
            .map(|(l, _)| l.chars().count())
            .max()
            .unwrap_or(0);
        for (label, value) in rows {
            writeln!(out, "{label:<width$} {value}")?;
        }
    }
    out.flush()?;
    Ok(())
}

/// A field's text: integers as they are; rates (`fpr`, `fnr`) in scientific notation;
/// estimated items to the unit; other fractions to 6 decimals; lists comma-separated; absent
/// values as `-`.
fn text(key: &str, v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => "-".to_string(),
        serde_json::Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if key.contains("fpr") || key.contains("fnr") {
                format!("{x:.6e}")
            } else if key == "estimated_items" {
                format!("{x:.0}")
            } else {
                format!("{x:.6}")
            }
        }
        serde_json::Value::Array(items) => items
            .iter()
            .map(|i| text(key, i))
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    }
}
