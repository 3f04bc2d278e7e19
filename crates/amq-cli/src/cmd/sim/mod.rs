//! `amq sim`: experiments that measure error rates as a structure fills, against the formula,
//! and write a CSV and an SVG plot.

mod aging;
mod bloom;
mod cuckoo;
mod negative;
mod plot;
mod rln;
mod ttl;
mod window;

use anyhow::{Context, Result};
use plot::{draw, Plot};
use rand::rngs::StdRng;
use rand::Rng;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Measure error rates as a structure fills and compare them with the formula; writes
/// DIR/<name>.csv and DIR/<name>.svg.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq sim negative --l 16 --b 128 --n 1000000 --domain 100000 --out docs/sim
  amq sim negative --l 16 --b 1 --n 1000000 --domain 100000 --out docs/sim
  amq sim bloom --n 100000 --fpr 0.01 --out docs/sim
  amq sim cuckoo --n 100000 --fingerprint-bits 8 --out docs/sim
  amq sim window --window 4096 --chunk 256 --batch 16 --hashes 4 --n 1536 --out docs/sim
  amq sim aging --window 100000 --generations 4 --fpr 0.01 --n 1000000 --out docs/sim
  amq sim ttl --items 100000 --fpr 0.001 --ttl 600 --tick 60 --out docs/sim
  amq sim rln --members 1000000 --epoch-items 15564 --fpr 0.001 --slash-rate 0.05 --out docs/sim")]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    Negative(negative::NegativeArgs),
    Bloom(bloom::BloomArgs),
    Cuckoo(cuckoo::CuckooArgs),
    Window(window::WindowArgs),
    Aging(aging::AgingArgs),
    Ttl(ttl::TtlArgs),
    Rln(rln::RlnArgs),
}

/// Where the results go and how the run is seeded.
#[derive(clap::Args, Debug)]
struct Common {
    /// The directory for the CSV and the SVG (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// The file name without extension (default: from the parameters).
    #[arg(long)]
    name: Option<String>,
    /// The seed of the random items and of the structure's hash.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    json: bool,
}

/// Runs `amq sim`.
pub fn run(a: Args) -> Result<ExitCode> {
    match a.command {
        Command::Negative(a) => negative::run(a),
        Command::Bloom(a) => bloom::run(a),
        Command::Cuckoo(a) => cuckoo::run(a),
        Command::Window(a) => window::run(a),
        Command::Aging(a) => aging::run(a),
        Command::Ttl(a) => ttl::run(a),
        Command::Rln(a) => rln::run(a),
    }
}

/// A random item to insert: the top bit clear, so it is never one of the fresh queries of
/// [`false_positives`].
fn random_member(rng: &mut StdRng) -> u64 {
    rng.random::<u64>() >> 1
}

/// Asks `maybe` about `queries` fresh random items (the top bit set, so never a member) and
/// returns how many it answered "maybe" to, the false positives, and their rate (0 for no
/// queries).
fn false_positives(
    rng: &mut StdRng,
    queries: u64,
    mut maybe: impl FnMut(u64) -> bool,
) -> (u64, f64) {
    let fp = (0..queries)
        .filter(|_| maybe(rng.random::<u64>() | 1 << 63))
        .count() as u64;
    (fp, fp as f64 / queries.max(1) as f64)
}

/// Writes DIR/<name>.csv and DIR/<name>.svg and reports them, with the files the experiment
/// wrote `before` (its extra plots and tables).
fn finish(
    common: &Common,
    default_name: String,
    csv: String,
    plot: &Plot<'_>,
    summary: serde_json::Value,
    before: &[&Path],
) -> Result<ExitCode> {
    std::fs::create_dir_all(&common.out)
        .with_context(|| format!("cannot create {}", common.out.display()))?;
    let name = common.name.clone().unwrap_or(default_name);
    let csv_path = common.out.join(format!("{name}.csv"));
    let svg_path = common.out.join(format!("{name}.svg"));
    crate::fsio::write(&csv_path, csv.as_bytes())?;
    draw(&svg_path, plot)?;
    let mut summary = summary;
    summary["csv"] = csv_path.display().to_string().into();
    summary["svg"] = svg_path.display().to_string().into();
    crate::output::summary(common.json, &summary, || {
        let mut files: Vec<String> = [csv_path.as_path(), svg_path.as_path()]
            .iter()
            .chain(before)
            .map(|p| p.display().to_string())
            .collect();
        let last = files.pop().unwrap_or_default();
        format!("wrote {} and {last}", files.join(", "))
    })?;
    Ok(ExitCode::SUCCESS)
}
