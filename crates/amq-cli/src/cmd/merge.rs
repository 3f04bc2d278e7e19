//! `amq merge`: the union of filters of identical kind and shape.

use anyhow::{Context, Result};
use std::path::PathBuf;
use std::process::ExitCode;

/// Write the union of two or more filters (same kind, m, k and seed).
#[derive(clap::Args, Debug)]
#[command(after_help = "Example:
  amq merge monday.amq tuesday.amq -o week.amq")]
pub struct Args {
    /// The filters to merge.
    #[arg(required = true, num_args = 2..)]
    filters: Vec<PathBuf>,
    /// The .amq file to write.
    #[arg(long, short = 'o')]
    output: PathBuf,
}

/// Runs `amq merge`.
pub fn run(a: Args) -> Result<ExitCode> {
    // an existing output (perhaps one of the inputs) stays locked until it is replaced
    let output = crate::fsio::Output::open(&a.output)?;
    let mut acc = super::load_filter(&a.filters[0])?;
    for path in &a.filters[1..] {
        let f = super::load_filter(path)?;
        acc.merge(&f).with_context(|| {
            format!(
                "cannot merge {} into {}",
                path.display(),
                a.filters[0].display()
            )
        })?;
    }
    output.write(&crate::fsio::encode(acc.info().bytes, || acc.to_bytes())?)?;
    let i = acc.info();
    eprintln!(
        "merged {} filters: {} m = {} bits, k = {}, {} items inserted",
        a.filters.len(),
        i.kind().name(),
        i.m_bits,
        i.k,
        i.inserted
    );
    Ok(ExitCode::SUCCESS)
}
