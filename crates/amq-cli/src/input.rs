//! Reading items: one per line from files or stdin (`-`), as DESIGN.md fixes it.
//!
//! The line's bytes without its ending (`\n` or `\r\n`) are the item, so an empty line is the
//! empty item and items may be any bytes. With `--hex`, each line is hex (an optional `0x`;
//! an empty line is zero bytes).

use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Opens a file, or stdin for `-`.
pub fn open(path: &Path) -> Result<Box<dyn BufRead>> {
    if path == Path::new("-") {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            io::stdin().lock(),
        )))
    } else {
        let f = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        Ok(Box::new(BufReader::with_capacity(1 << 16, f)))
    }
}

/// Reads a whole file (or stdin for `-`) as bytes.
pub fn read_all(path: &Path) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    open(path)?
        .read_to_end(&mut out)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(out)
}

/// The inputs to read: the given paths, or stdin when none is given.
pub fn paths_or_stdin(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        paths.to_vec()
    }
}

/// Decodes hex text with an optional `0x`/`0X` prefix; surrounding whitespace is ignored.
pub fn parse_hex(text: &str) -> Result<Vec<u8>> {
    let t = text.trim();
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    hex::decode(t).with_context(|| format!("invalid hex {:?}", shorten(text)))
}

/// An item given on the command line: its UTF-8 bytes, or the bytes its hex spells.
pub fn item_bytes(item: &str, hex: bool) -> Result<Vec<u8>> {
    if hex {
        parse_hex(item)
    } else {
        Ok(item.as_bytes().to_vec())
    }
}

fn shorten(s: &str) -> String {
    if s.len() > 40 {
        format!(
            "{}...",
            &s[..s.char_indices().nth(40).map_or(s.len(), |(i, _)| i)]
        )
    } else {
        s.to_string()
    }
}

/// Calls `f` with every item of every input, in order. Stops at the first error.
///
/// `f` gets the item's bytes (decoded from hex when `hex` is set).
pub fn for_each_item(
    paths: &[PathBuf],
    hex: bool,
    mut f: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    let mut line = Vec::with_capacity(256);
    for path in paths_or_stdin(paths) {
        let mut reader = open(&path)?;
        let mut lineno = 0u64;
        loop {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .with_context(|| format!("cannot read {}", path.display()))?;
            if n == 0 {
                break;
            }
            lineno += 1;
            if line.last() == Some(&b'\n') {
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
            }
            if hex {
                let Ok(text) = std::str::from_utf8(&line) else {
                    bail!("{}:{lineno}: not hex text", path.display());
                };
                let bytes =
                    parse_hex(text).with_context(|| format!("{}:{lineno}", path.display()))?;
                f(&bytes)?;
            } else {
                f(&line)?;
            }
        }
    }
    Ok(())
}

/// Shows an item as text: UTF-8 as is, anything else as `0x` hex.
pub fn display_item(item: &[u8], hex: bool) -> String {
    if hex {
        return hex::encode(item);
    }
    match std::str::from_utf8(item) {
        Ok(s) => s.to_string(),
        Err(_) => format!("0x{}", hex::encode(item)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_prefix_is_optional() {
        assert_eq!(parse_hex("0xAbcd").unwrap(), vec![0xab, 0xcd]);
        assert_eq!(parse_hex("abcd\r").unwrap(), vec![0xab, 0xcd]);
        assert_eq!(parse_hex("").unwrap(), Vec::<u8>::new());
        assert!(parse_hex("0xabc").is_err());
    }
}
