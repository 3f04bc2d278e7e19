//! Writing results: stdout through one buffered writer; a closed pipe ends the command quietly.

use anyhow::Result;
use std::io::{self, BufWriter, Write};

/// A buffered, locked stdout.
pub fn stdout() -> BufWriter<io::StdoutLock<'static>> {
    BufWriter::with_capacity(1 << 16, io::stdout().lock())
}

/// Output held back until a file update is on disk, so that nothing says "removed" for a
/// change that then failed to save, and a reader that closes the pipe early cannot stop the
/// save: in memory up to 8 MiB, past that in an anonymous temporary file (tempfile's
/// `SpooledTempFile`), copied to stdout by [`AfterSave::print`].
pub struct AfterSave(BufWriter<tempfile::SpooledTempFile>);

impl AfterSave {
    /// An empty spool.
    pub fn new() -> AfterSave {
        AfterSave(BufWriter::new(tempfile::SpooledTempFile::new(8 << 20)))
    }

    /// Copies what was written to stdout. `saved`: the command wrote its file before, so a
    /// failure here says that the change is made and only its report is lost (a script that
    /// ran the command again on exit status 2 would make it twice).
    ///
    /// # Errors
    /// Reading the spool back, writing stdout (a closed pipe among them).
    pub fn print(self, saved: bool) -> Result<()> {
        use anyhow::Context;
        use std::io::Seek;
        let copy = || -> Result<()> {
            let mut spool = self
                .0
                .into_inner()
                .map_err(io::IntoInnerError::into_error)?;
            spool.rewind()?;
            let mut out = stdout();
            io::copy(&mut spool, &mut out)?;
            out.flush()?;
            Ok(())
        };
        copy().with_context(|| {
            if saved {
                "the file was saved with the change, but printing its output failed (do not \
                 run the command again: the change is made)"
            } else {
                "printing the output failed (the file is unchanged)"
            }
        })
    }
}

impl Write for AfterSave {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// Prints one JSON value on its own line.
pub fn json_line(out: &mut (impl Write + ?Sized), value: &serde_json::Value) -> Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// `true` if the error (or any cause) is a closed pipe, which is not an error for a CLI.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .is_some_and(|e| e.io_error_kind() == Some(io::ErrorKind::BrokenPipe))
    })
}

/// A progress bar on stderr when stderr is a terminal; hidden otherwise.
pub fn progress(len: Option<u64>, what: &str) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    use std::io::IsTerminal;
    let bar = match len {
        Some(n) => ProgressBar::new(n).with_style(
            ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} ({per_sec}, {eta})")
                .expect("valid template"),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{msg} {spinner} {pos} ({per_sec})")
                .expect("valid template"),
        ),
    };
    bar.set_message(what.to_string());
    if !io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}

/// A command's closing summary: one JSON line on stdout with `--json`, else `text()` as one
/// line on stderr (stdout stays free for results).
pub fn summary(json: bool, value: &serde_json::Value, text: impl FnOnce() -> String) -> Result<()> {
    if json {
        let mut out = stdout();
        json_line(&mut out, value)?;
        out.flush()?;
    } else {
        eprintln!("{}", text());
    }
    Ok(())
}

/// A rate for people: a percentage with 4 decimals (`0.8194%`), or in scientific notation
/// below 0.01% (`1.234e-7`), where the percentage would print as `0.0000%`.
pub fn rate(p: f64) -> String {
    if p >= 1e-4 || p == 0.0 {
        format!("{:.4}%", p * 100.0)
    } else {
        format!("{p:.3e}")
    }
}

/// Prints named figures: one JSON object (in this order) or one `name  value` line each.
pub fn print_fields(fields: &[(&str, serde_json::Value)], json: bool) -> Result<()> {
    let mut out = stdout();
    if json {
        let obj: serde_json::Map<String, serde_json::Value> = fields
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        json_line(&mut out, &serde_json::Value::Object(obj))?;
    } else {
        for (name, value) in fields {
            let text = match value {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Null => "-".to_string(),
                other => other.to_string(),
            };
            writeln!(out, "{:<22} {text}", name.replace('_', " "))?;
        }
    }
    out.flush()?;
    Ok(())
}
