//! `amq info`: what a filter file holds.

use amq::clock::{Clock, ManualClock, SystemClock};
use amq::wire::Kind;
use amq::{AgingBloom, NegativeCache, SlidingWindowBloom};
use anyhow::{Context, Result};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Show a filter's kind, shape, fill and estimated false-positive rate. Reads every kind of
/// .amq file: Bloom, blocked Bloom and cuckoo filters, and the sliding-window, aging and
/// negative-cache files (the same fields as `amq window|aging|negative info`).
#[derive(clap::Args, Debug)]
#[command(after_help = "Example:
  amq info --json words.amq")]
pub struct Args {
    /// The .amq filter.
    filter: PathBuf,
    /// One JSON object.
    #[arg(long)]
    json: bool,
    /// For an aging filter: the time in seconds since the Unix epoch (default: the system
    /// clock).
    #[arg(long)]
    now: Option<u64>,
}

/// A figure as JSON: an integer when it is one (a count or a width), else a float.
fn number(x: f64) -> serde_json::Value {
    if x.fract() == 0.0 && x.abs() < 9.007_199_254_740_992e15 {
        serde_json::json!(x as i64)
    } else {
        serde_json::json!(x)
    }
}

/// Runs `amq info`.
pub fn run(a: Args) -> Result<ExitCode> {
    let bytes = crate::input::read_all(&a.filter)?;
    let context = || format!("{}", a.filter.display());
    let kind = amq::wire::decode(&bytes).with_context(context)?.kind;
    let fields = match kind {
        Kind::SlidingWindowBloom => {
            let f = SlidingWindowBloom::from_bytes(&bytes).with_context(context)?;
            Some(super::window::info_fields(&f))
        }
        Kind::AgingBloom => {
            let now = a.now.unwrap_or_else(|| SystemClock.now());
            let f = AgingBloom::from_bytes(&bytes)
                .with_context(context)?
                .with_clock(ManualClock::new(now));
            Some(super::aging::info_fields(&f))
        }
        Kind::NegativeCache => {
            let c = NegativeCache::from_bytes(&bytes)
                .with_context(context)?
                .with_clock(ManualClock::new(SystemClock.now()));
            Some(super::negative::info_fields(&c))
        }
        _ => None,
    };
    if let Some(fields) = fields {
        crate::output::print_fields(&fields, a.json)?;
        return Ok(ExitCode::SUCCESS);
    }
    let filter = amq::AnyFilter::from_bytes(&bytes).with_context(context)?;
    let i = filter.info();
    let mut out = crate::output::stdout();
    if a.json {
        let mut v = serde_json::json!({
            "kind": i.kind,
            "m_bits": i.m_bits,
            "k": i.k,
            "seed": i.seed,
            "items_inserted": i.inserted,
            "fill_ratio": i.fill_ratio,
            "estimated_items": i.estimated_items,
            "estimated_fpr": i.estimated_fpr,
            "bytes": i.bytes,
        });
        for (name, value) in &i.extra {
            v[*name] = number(*value);
        }
        crate::output::json_line(&mut out, &v)?;
    } else {
        writeln!(out, "kind             {}", i.kind)?;
        writeln!(out, "m (bits)         {}", i.m_bits)?;
        writeln!(out, "k                {}", i.k)?;
        writeln!(out, "seed             {}", i.seed)?;
        writeln!(out, "items inserted   {}", i.inserted)?;
        writeln!(out, "fill ratio       {:.6}", i.fill_ratio)?;
        writeln!(out, "estimated items  {:.0}", i.estimated_items)?;
        writeln!(out, "estimated fpr    {:.6e}", i.estimated_fpr)?;
        writeln!(out, "bytes            {}", i.bytes)?;
        for (name, value) in &i.extra {
            let text = match number(*value) {
                serde_json::Value::Number(n) if n.is_i64() => n.to_string(),
                _ => format!("{value:.6}"),
            };
            writeln!(out, "{:<16} {text}", name.replace('_', " "))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
