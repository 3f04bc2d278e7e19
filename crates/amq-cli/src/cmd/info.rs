//! `amq info`: what a filter file holds.

use anyhow::Result;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Show a filter's kind, shape, fill and estimated false-positive rate.
#[derive(clap::Args, Debug)]
#[command(after_help = "Example:
  amq info --json words.amq")]
pub struct Args {
    /// The .amq filter.
    filter: PathBuf,
    /// One JSON object.
    #[arg(long)]
    json: bool,
}

/// Runs `amq info`.
pub fn run(a: Args) -> Result<ExitCode> {
    let filter = super::load_filter(&a.filter)?;
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
            v[*name] = serde_json::json!(value);
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
            writeln!(out, "{:<16} {}", name.replace('_', " "), value)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
