//! Writing results: stdout through one buffered writer; a closed pipe ends the command quietly.

use anyhow::Result;
use std::io::{self, BufWriter, Write};

/// A buffered, locked stdout.
pub fn stdout() -> BufWriter<io::StdoutLock<'static>> {
    BufWriter::with_capacity(1 << 16, io::stdout().lock())
}

/// Prints one JSON value on its own line.
pub fn json_line(out: &mut impl Write, value: &serde_json::Value) -> Result<()> {
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
