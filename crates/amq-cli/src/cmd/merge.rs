//! `amq merge`: the union of filters of identical kind and shape.

use anyhow::{bail, Context, Result};
use same_file::Handle;
use std::path::{Path, PathBuf};
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
    refuse_repeats(&a.filters)?;
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

/// Refuses a file given twice: the same path, two paths to one file (`./f.amq` and `f.amq`, a
/// hard link, a symbolic link), or `-` with stdin redirected from one of the files. A filter
/// merged with itself is not the union (a cuckoo filter would hold every fingerprint twice).
/// Files are told apart by identity, not by name. Only regular files are compared (opening a
/// named pipe to compare it would take its data; stdin is `/dev/stdin`'s file); a path that
/// cannot be opened is left for the load to report.
fn refuse_repeats(paths: &[PathBuf]) -> Result<()> {
    let mut seen = std::collections::HashMap::new();
    for path in paths {
        let file = if path == Path::new("-") {
            Path::new("/dev/stdin")
        } else {
            path
        };
        if !std::fs::metadata(file).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let Ok(handle) = Handle::from_path(file) else {
            continue;
        };
        if let Some(first) = seen.insert(identity(handle), path) {
            if first == path {
                bail!(
                    "{} is given twice: a filter cannot be merged with itself",
                    path.display()
                );
            }
            bail!(
                "{} and {} are the same file: a filter cannot be merged with itself",
                first.display(),
                path.display()
            );
        }
    }
    Ok(())
}

/// What tells files apart: on Unix the device and inode numbers, so that no file stays open
/// (a merge of more files than the open-file limit still works).
#[cfg(unix)]
fn identity(handle: Handle) -> (u64, u64) {
    (handle.dev(), handle.ino())
}

/// What tells files apart elsewhere: the handle itself (it keeps the file open).
#[cfg(not(unix))]
fn identity(handle: Handle) -> Handle {
    handle
}
