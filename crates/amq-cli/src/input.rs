//! Reading items: one per line from files or stdin (`-`), as DESIGN.md fixes it.
//!
//! The line's bytes without its ending (`\n` or `\r\n`, and on a last line without `\n` a
//! final `\r`) are the item, so an empty line is the empty item and items may be any bytes.
//! With `--hex`, each line is hex (an optional `0x`; an empty line is zero bytes). A UTF-8
//! byte-order mark (EF BB BF) at the start of an input is dropped, not made part of its first
//! item (or hex): editors on Windows write one.

use anyhow::{anyhow, bail, Context, Result};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek};
use std::path::{Path, PathBuf};

/// Opens a file, or stdin for `-`.
pub fn open(path: &Path) -> Result<BufReader<Box<dyn Read>>> {
    let inner: Box<dyn Read> = if path == Path::new("-") {
        Box::new(io::stdin().lock())
    } else {
        Box::new(File::open(path).with_context(|| format!("cannot open {}", path.display()))?)
    };
    Ok(BufReader::with_capacity(1 << 16, inner))
}

/// Reads a whole file (or stdin for `-`) as bytes; memory it cannot get is an error, not an
/// abort.
pub fn read_all(path: &Path) -> Result<Vec<u8>> {
    let mut reader = open(path)?;
    let mut out: Vec<u8> = Vec::new();
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let mut want = usize::try_from(size)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    loop {
        if out.len() == out.capacity() {
            out.try_reserve_exact(want).map_err(|_| {
                cannot_allocate(out.len().saturating_add(want), &path.display().to_string())
            })?;
            want = out.capacity().max(1 << 16);
        }
        let len = out.len();
        out.resize(out.capacity(), 0);
        let read = loop {
            match reader.read(&mut out[len..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        out.truncate(len + read.as_ref().map_or(0, |&n| n));
        if read.with_context(|| format!("cannot read {}", path.display()))? == 0 {
            return Ok(out);
        }
    }
}

/// The error for memory that could not be allocated: `cannot allocate N bytes for WHAT`.
pub fn cannot_allocate(bytes: usize, what: &str) -> anyhow::Error {
    anyhow!("cannot allocate {bytes} bytes for {what}")
}

/// Appends to a vector that grows with the input; memory it cannot get is an error naming
/// `what`, not an abort.
pub fn push<T>(v: &mut Vec<T>, x: T, what: &str) -> Result<()> {
    if v.len() == v.capacity() {
        let more = v.capacity().max(1024);
        v.try_reserve_exact(more)
            .map_err(|_| cannot_allocate((v.len() + more) * std::mem::size_of::<T>(), what))?;
    }
    v.push(x);
    Ok(())
}

/// The inputs to read: the given paths, or stdin when none is given.
pub fn paths_or_stdin(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        paths.to_vec()
    }
}

/// The UTF-8 byte-order mark some editors write at the start of a text file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `text` without a leading UTF-8 byte-order mark: for text inputs (items, JSON), never for
/// binary ones.
pub fn without_bom(text: &[u8]) -> &[u8] {
    text.strip_prefix(BOM).unwrap_or(text)
}

/// Decodes hex text with an optional `0x`/`0X` prefix; surrounding whitespace is ignored. A
/// character that is not a hex digit is named with its place in `text` (the whole line, the
/// whitespace and `0x` included), counted in characters from 1.
pub fn parse_hex(text: &str) -> Result<Vec<u8>> {
    let trimmed = text.trim();
    let t = trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"))
        .unwrap_or(trimmed);
    let invalid = |why: String| anyhow!("invalid hex {:?}: {why}", shorten(text));
    if let Some((i, c)) = t.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
        // the digits' offset in `text`: the whitespace and the 0x before them
        let at = (text.len() - text.trim_start().len()) + (trimmed.len() - t.len()) + i;
        let column = text.get(..at).map_or(at, |before| before.chars().count()) + 1;
        return Err(invalid(format!(
            "{c:?} at character {column} (counting from 1) is not a hex digit"
        )));
    }
    if t.len() % 2 == 1 {
        return Err(invalid(format!(
            "an odd number of hex digits ({})",
            t.len()
        )));
    }
    hex::decode(t).map_err(|e| invalid(e.to_string()))
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
    f: impl FnMut(&[u8]) -> Result<()>,
) -> Result<()> {
    for_each_item_or_wait(paths, hex, f, || Ok(()))
}

/// [`for_each_item`], calling `waiting` whenever the items read so far are all the input has
/// sent (the next read would wait for more: a pipe fed slowly, a terminal), so that a caller
/// that batches its answers can give them before it waits.
pub fn for_each_item_or_wait(
    paths: &[PathBuf],
    hex: bool,
    mut f: impl FnMut(&[u8]) -> Result<()>,
    mut waiting: impl FnMut() -> Result<()>,
) -> Result<()> {
    for path in paths_or_stdin(paths) {
        items_of(open(&path)?, &path, hex, &mut f, &mut waiting)?;
    }
    Ok(())
}

/// Calls `f` with every item (line) of one input.
fn items_of<R: Read>(
    mut reader: BufReader<R>,
    path: &Path,
    hex: bool,
    f: &mut impl FnMut(&[u8]) -> Result<()>,
    waiting: &mut impl FnMut() -> Result<()>,
) -> Result<()> {
    let mut line = Vec::with_capacity(256);
    let mut lineno = 0u64;
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            return Ok(());
        }
        lineno += 1;
        if lineno == 1 && line.starts_with(BOM) {
            line.drain(..BOM.len());
            if line.is_empty() {
                // the mark was all the input held: no item, as for an empty file
                return Ok(());
            }
        }
        // the ending is `\n` or `\r\n`; a last line without `\n` loses a final `\r` too
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if hex {
            let Ok(text) = std::str::from_utf8(&line) else {
                bail!("{}:{lineno}: not hex text", path.display());
            };
            let bytes = parse_hex(text).with_context(|| format!("{}:{lineno}", path.display()))?;
            f(&bytes)?;
        } else {
            f(&line)?;
        }
        // nothing buffered: the next line needs a read, which may wait
        if reader.buffer().is_empty() {
            waiting()?;
        }
    }
}

/// Inputs that can be read more than once (a command that streams its items in two or three
/// passes, keeping a few bytes per item instead of the items): files by path; stdin and other
/// inputs that are not regular files (pipes) are first copied to an anonymous temporary file
/// (in `$TMPDIR`, deleted when the command ends).
pub struct Rereadable {
    sources: Vec<(PathBuf, Option<File>)>,
}

impl Rereadable {
    /// Opens the inputs (stdin when there are none), copying those that are not regular files.
    pub fn open(paths: &[PathBuf]) -> Result<Rereadable> {
        let mut sources = Vec::new();
        for path in paths_or_stdin(paths) {
            let regular = path != Path::new("-")
                && std::fs::metadata(&path).is_ok_and(|m| m.file_type().is_file());
            let spool = if regular {
                None
            } else {
                let mut spool =
                    tempfile::tempfile().context("cannot create a temporary file for the input")?;
                io::copy(&mut open(&path)?, &mut spool).with_context(|| {
                    format!("cannot copy {} to a temporary file", path.display())
                })?;
                Some(spool)
            };
            sources.push((path, spool));
        }
        Ok(Rereadable { sources })
    }

    /// Calls `f` with every item of every input, in order, as [`for_each_item`].
    pub fn for_each_item(&self, hex: bool, mut f: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
        for (path, spool) in &self.sources {
            match spool {
                None => items_of(open(path)?, path, hex, &mut f, &mut || Ok(()))?,
                Some(file) => {
                    let mut file = file.try_clone()?;
                    file.rewind()?;
                    let reader = BufReader::with_capacity(1 << 16, file);
                    items_of(reader, path, hex, &mut f, &mut || Ok(()))?;
                }
            }
        }
        Ok(())
    }
}

/// An item's JSON fields: `"<key>"` with [`display_item`]'s text and, when that text is the
/// `0x` hex of bytes that are not UTF-8, `"<key>_hex"` with their plain hex too, so that a
/// reader never takes bytes for text (`"0x6869"` may be either; the `_hex` field says which).
pub fn item_json(key: &str, item: &[u8], hex: bool) -> Vec<(String, serde_json::Value)> {
    let mut fields = vec![(key.to_string(), display_item(item, hex).into())];
    if !hex && std::str::from_utf8(item).is_err() {
        fields.push((format!("{key}_hex"), hex::encode(item).into()));
    }
    fields
}

/// Sets an item's fields ([`item_json`]) in a JSON object.
pub fn set_item(obj: &mut serde_json::Value, key: &str, item: &[u8], hex: bool) {
    for (k, v) in item_json(key, item, hex) {
        obj[k] = v;
    }
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

    fn items(text: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let push = &mut |item: &[u8]| {
            out.push(item.to_vec());
            Ok(())
        };
        items_of(
            BufReader::new(text),
            Path::new("-"),
            false,
            push,
            &mut || Ok(()),
        )
        .unwrap();
        out
    }

    #[test]
    fn line_endings_are_lf_or_crlf_on_every_line() {
        let v = |items: &[&str]| -> Vec<Vec<u8>> {
            items.iter().map(|s| s.as_bytes().to_vec()).collect()
        };
        assert_eq!(items(b"a\r\nb\r\n"), v(&["a", "b"]));
        assert_eq!(items(b"a\r\nb\r"), v(&["a", "b"]));
        assert_eq!(items(b"a\nb"), v(&["a", "b"]));
        assert_eq!(items(b"a\r\r\n\n\r"), v(&["a\r", "", ""]));
        assert_eq!(items(b"x\ry\n"), v(&["x\ry"]));
        assert!(items(b"").is_empty());
    }

    #[test]
    fn a_leading_byte_order_mark_is_dropped() {
        assert_eq!(
            items(b"\xEF\xBB\xBFa\r\nb\n"),
            [b"a".to_vec(), b"b".to_vec()]
        );
        // a file of the mark alone holds no item, as an empty one; a mark and a line end, one
        assert!(items(b"\xEF\xBB\xBF").is_empty());
        assert_eq!(items(b"\xEF\xBB\xBF\n"), [Vec::<u8>::new()]);
        // only at the start of the input
        assert_eq!(items(b"a\n\xEF\xBB\xBFb\n")[1], b"\xEF\xBB\xBFb");
    }

    #[test]
    fn hex_prefix_is_optional() {
        assert_eq!(parse_hex("0xAbcd").unwrap(), vec![0xab, 0xcd]);
        assert_eq!(parse_hex("abcd\r").unwrap(), vec![0xab, 0xcd]);
        assert_eq!(parse_hex("").unwrap(), Vec::<u8>::new());
        assert!(parse_hex("0xabc").is_err());
    }

    #[test]
    fn a_bad_hex_character_is_placed_in_the_whole_text() {
        let why = |t: &str| parse_hex(t).unwrap_err().to_string();
        assert_eq!(
            why("0xzz"),
            r#"invalid hex "0xzz": 'z' at character 3 (counting from 1) is not a hex digit"#
        );
        assert!(
            why("ab zzz").contains("' ' at character 3 "),
            "{}",
            why("ab zzz")
        );
        assert!(
            why(" 0Xabé0").contains("'é' at character 6 "),
            "{}",
            why(" 0Xabé0")
        );
        assert!(why("0xabc").ends_with("an odd number of hex digits (3)"));
    }
}
