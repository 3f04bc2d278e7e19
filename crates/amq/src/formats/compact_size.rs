//! Bitcoin's CompactSize integer encoding, shared by the BIP37 and BIP158 formats.

use crate::error::{Error, Result};
use alloc::vec::Vec;

/// Appends n as a Bitcoin CompactSize: one byte below 0xfd, else 0xfd/0xfe/0xff and 2/4/8
/// bytes little-endian.
///
/// # Example
/// ```
/// let mut out = vec![];
/// amq::formats::bip158::write_compact_size(253, &mut out);
/// assert_eq!(out, [0xfd, 0xfd, 0x00]);
/// ```
pub fn write_compact_size(n: u64, out: &mut Vec<u8>) {
    match n {
        0..=0xfc => out.push(n as u8),
        0xfd..=0xffff => {
            out.push(0xfd);
            out.extend_from_slice(&(n as u16).to_le_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(0xfe);
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        _ => {
            out.push(0xff);
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
}

/// The bytes [`write_compact_size`] takes for n: 1, 3, 5 or 9.
pub(crate) fn compact_size_len(n: u64) -> usize {
    match n {
        0..=0xfc => 1,
        0xfd..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

/// Reads a CompactSize from the start of `bytes`: the value and the bytes it took.
///
/// # Errors
/// [`Error::Truncated`] if the bytes end inside it; [`Error::Corrupt`] if it is not minimal
/// (Bitcoin Core refuses those: "non-canonical ReadCompactSize()").
///
/// # Panics
/// Never, for any input.
///
/// # Example
/// ```
/// assert_eq!(amq::formats::bip158::read_compact_size(&[0xfd, 0x00, 0x01])?, (256, 3));
/// assert!(amq::formats::bip158::read_compact_size(&[0xfd, 0x01, 0x00]).is_err()); // 1 in 3 bytes
/// # Ok::<(), amq::Error>(())
/// ```
pub fn read_compact_size(bytes: &[u8]) -> Result<(u64, usize)> {
    let truncated = |needed: usize| Error::Truncated {
        what: "compactsize",
        offset: 0,
        needed,
        available: bytes.len(),
    };
    let first = *bytes.first().ok_or_else(|| truncated(1))?;
    let (len, min) = match first {
        0..=0xfc => return Ok((u64::from(first), 1)),
        0xfd => (2, 0xfd),
        0xfe => (4, 0x1_0000),
        0xff => (8, 0x1_0000_0000),
    };
    let body = bytes.get(1..1 + len).ok_or_else(|| truncated(1 + len))?;
    let mut word = [0u8; 8];
    word[..len].copy_from_slice(body);
    let n = u64::from_le_bytes(word);
    if n < min {
        return Err(Error::corrupt(
            0,
            alloc::format!("non-minimal compactsize for {n}"),
        ));
    }
    Ok((n, 1 + len))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every width round-trips, in the length `compact_size_len` says; every truncation is an
    /// error; a value in a wider form than it needs is refused as Bitcoin Core refuses it.
    #[test]
    fn round_trips_truncations_and_non_canonical_forms() {
        for n in [
            0u64,
            1,
            0xfc,
            0xfd,
            0xffff,
            0x1_0000,
            0xffff_ffff,
            0x1_0000_0000,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            write_compact_size(n, &mut out);
            assert_eq!(read_compact_size(&out).unwrap(), (n, out.len()));
            assert_eq!(compact_size_len(n), out.len());
            assert!(read_compact_size(&out[..out.len() - 1]).is_err());
            // every cut of the encoding says the whole width it needs and what was left
            for cut in 0..out.len() {
                assert_eq!(
                    read_compact_size(&out[..cut]),
                    Err(Error::Truncated {
                        what: "compactsize",
                        offset: 0,
                        needed: if cut == 0 { 1 } else { out.len() },
                        available: cut,
                    }),
                    "{n} cut to {cut} bytes"
                );
            }
        }
        assert!(read_compact_size(&[0xfe, 0xff, 0xff, 0, 0]).is_err());
        assert!(matches!(
            read_compact_size(&[0xfd, 0xfc, 0x00]),
            Err(Error::Corrupt { .. })
        ));
        assert!(matches!(
            read_compact_size(&[0xfd, 0x00]),
            Err(Error::Truncated { .. })
        ));
    }
}
