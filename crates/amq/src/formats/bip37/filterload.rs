//! The `filterload` message ([`Bip37Filter::to_filterload`], [`Bip37Filter::from_filterload`])
//! and the `filteradd` message ([`filteradd_payload`], [`Bip37Filter::filteradd`]).

use super::filter::check_caps;
use super::{Bip37Filter, MAX_SCRIPT_ELEMENT_SIZE};
use crate::error::{Error, Result};
use crate::formats::compact_size::{compact_size_len, read_compact_size, write_compact_size};
use alloc::vec::Vec;

impl Bip37Filter {
    /// The `filterload` payload: `CompactSize(bytes) ‖ data ‖ nHashFuncs (u32 LE) ‖
    /// nTweak (u32 LE) ‖ nFlags (u8)`.
    pub fn to_filterload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.filterload_len());
        write_compact_size(self.data.len() as u64, &mut out);
        out.extend_from_slice(&self.data);
        out.extend_from_slice(&self.k.to_le_bytes());
        out.extend_from_slice(&self.tweak.to_le_bytes());
        out.push(self.flags);
        out
    }

    /// The bytes of the `filterload` payload ([`to_filterload`](Self::to_filterload)'s
    /// length): the CompactSize, the filter's bytes and 9 bytes of nHashFuncs, nTweak and
    /// nFlags.
    pub fn filterload_len(&self) -> usize {
        let n = self.data.len();
        compact_size_len(n as u64) + n + 9
    }

    /// Decodes a `filterload` payload. Bytes after nFlags are ignored, as Bitcoin Core
    /// ignores them: its `FILTERLOAD` handler (net_processing.cpp) reads the filter and
    /// checks only its size limits, never that the message ended
    /// ([`filterload_len`](Self::filterload_len) says where it did).
    ///
    /// # Errors
    /// [`Error::Truncated`] if the bytes end early; [`Error::Corrupt`] for a non-canonical
    /// CompactSize (as Core's `ReadCompactSize` refuses);
    /// [`Error::TooLarge`] for more than [`MAX_BLOOM_FILTER_SIZE`](super::MAX_BLOOM_FILTER_SIZE)
    /// bytes or more than [`MAX_HASH_FUNCS`](super::MAX_HASH_FUNCS) hash functions. The length
    /// is checked before anything is allocated.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_filterload(bytes: &[u8]) -> Result<Self> {
        let (len, mut at) = read_compact_size(bytes)?;
        check_caps(len, 0)?; // the size, before anything is allocated
        let len = len as usize;
        let data = take(bytes, at, len, "filter data")?.to_vec();
        at += len;
        let k = u32::from_le_bytes(take4(bytes, at, "nHashFuncs")?);
        at += 4;
        let tweak = u32::from_le_bytes(take4(bytes, at, "nTweak")?);
        at += 4;
        let flags = take(bytes, at, 1, "nFlags")?[0];
        check_caps(len as u64, k)?;
        Ok(Bip37Filter {
            data,
            k,
            tweak,
            flags,
        })
    }
}

/// The `filteradd` payload that adds `data` to a peer's filter: `CompactSize(len) ‖ data`.
///
/// # Errors
/// [`Error::TooLarge`] for more than [`MAX_SCRIPT_ELEMENT_SIZE`] (520) bytes, which Core
/// refuses (and holds against the peer).
///
/// # Example
/// ```
/// use amq::formats::bip37::{filteradd_payload, Bip37Filter};
/// let mut f = Bip37Filter::new(10, 0.01, 0, 0)?;
/// assert!(f.filteradd(&filteradd_payload(b"an element")?)?);
/// assert!(f.contains_bytes(b"an element"));
/// assert!(filteradd_payload(&[0; 521]).is_err());
/// # Ok::<(), amq::Error>(())
/// ```
pub fn filteradd_payload(data: &[u8]) -> Result<Vec<u8>> {
    check_element(data.len() as u64)?;
    let mut out = Vec::with_capacity(compact_size_len(data.len() as u64) + data.len());
    write_compact_size(data.len() as u64, &mut out);
    out.extend_from_slice(data);
    Ok(out)
}

fn check_element(len: u64) -> Result<()> {
    if len > MAX_SCRIPT_ELEMENT_SIZE as u64 {
        return Err(Error::TooLarge {
            what: "BIP37 filteradd data in bytes",
            value: len,
            limit: MAX_SCRIPT_ELEMENT_SIZE as u64,
        });
    }
    Ok(())
}

impl Bip37Filter {
    /// Applies a `filteradd` payload (`CompactSize(len) ‖ data`) as Core's `FILTERADD`
    /// handler does: the data is inserted ([`insert_bytes`](Self::insert_bytes)); `true` if
    /// some bit changed. Bytes after the data are ignored, as Core ignores them.
    ///
    /// # Errors
    /// [`Error::TooLarge`] for more than [`MAX_SCRIPT_ELEMENT_SIZE`] (520) bytes of data,
    /// which Core refuses; [`Error::Truncated`] if the payload ends early;
    /// [`Error::Corrupt`] for a non-canonical CompactSize. The filter is unchanged then.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn filteradd(&mut self, payload: &[u8]) -> Result<bool> {
        let (len, at) = read_compact_size(payload)?;
        check_element(len)?;
        let data = take(payload, at, len as usize, "filteradd data")?;
        Ok(self.insert_bytes(data))
    }
}

fn take<'a>(bytes: &'a [u8], at: usize, n: usize, what: &'static str) -> Result<&'a [u8]> {
    bytes
        .get(at..)
        .and_then(|rest| rest.get(..n))
        .ok_or(Error::Truncated {
            what,
            offset: at,
            needed: n,
            available: bytes.len().saturating_sub(at),
        })
}

fn take4(bytes: &[u8], at: usize, what: &'static str) -> Result<[u8; 4]> {
    let s = take(bytes, at, 4, what)?;
    Ok([s[0], s[1], s[2], s[3]])
}

#[cfg(test)]
mod tests {
    use super::super::MAX_BLOOM_FILTER_SIZE;
    use super::*;
    use alloc::vec;

    #[test]
    fn caps_refused_on_decode() {
        let big = Bip37Filter {
            data: vec![0; MAX_BLOOM_FILTER_SIZE + 1],
            k: 1,
            tweak: 0,
            flags: 0,
        };
        assert!(matches!(
            Bip37Filter::from_filterload(&big.to_filterload()),
            Err(Error::TooLarge { value: 36_001, .. })
        ));
        let many = Bip37Filter {
            data: vec![0; 1],
            k: 51,
            tweak: 0,
            flags: 0,
        };
        assert!(matches!(
            Bip37Filter::from_filterload(&many.to_filterload()),
            Err(Error::TooLarge { value: 51, .. })
        ));
        // a length over the cap is refused before the data is read (no allocation)
        assert!(matches!(
            Bip37Filter::from_filterload(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            Err(Error::TooLarge { .. })
        ));
    }
}
