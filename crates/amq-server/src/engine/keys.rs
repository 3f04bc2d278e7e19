//! The store's keys and the encodings of what is not a change record.
//!
//! - `f/{name}/s`: a filter's snapshot, `[seq: u64 LE][.amq bytes]` (the filter after the
//!   changes numbered below `seq`);
//! - `f/{name}/l/{seq: u64 BE}`: a change record (sorted by `seq`);
//! - `c/{id}/m`: a Cashu keyset's settings as JSON;
//! - `c/{id}/l/{seq: u64 BE}`: a batch of items added to its spent or issued set.
//!
//! Names and keyset ids never contain `/`, so a prefix names one filter or keyset.

use super::KeysetSettings;
use amq::formats::cashu::CashuHash;
use serde::{Deserialize, Serialize};

/// `f/{name}/`.
pub fn filter_prefix(name: &str) -> Vec<u8> {
    format!("f/{name}/").into_bytes()
}

/// `f/{name}/s`.
pub fn snapshot_key(name: &str) -> Vec<u8> {
    format!("f/{name}/s").into_bytes()
}

/// `f/{name}/l/{seq}`.
pub fn log_key(name: &str, seq: u64) -> Vec<u8> {
    let mut k = format!("f/{name}/l/").into_bytes();
    k.extend_from_slice(&seq.to_be_bytes());
    k
}

/// `c/{id}/`.
pub fn keyset_prefix(id: &str) -> Vec<u8> {
    format!("c/{id}/").into_bytes()
}

/// `c/{id}/m`.
pub fn keyset_meta_key(id: &str) -> Vec<u8> {
    format!("c/{id}/m").into_bytes()
}

/// `c/{id}/l/{seq}`.
pub fn keyset_log_key(id: &str, seq: u64) -> Vec<u8> {
    let mut k = format!("c/{id}/l/").into_bytes();
    k.extend_from_slice(&seq.to_be_bytes());
    k
}

/// What a key under `f/` or `c/` names.
#[derive(Debug, PartialEq, Eq)]
pub enum Key<'a> {
    /// A snapshot or keyset settings.
    Head(&'a str),
    /// A log record.
    Log(&'a str, u64),
}

/// Parses a key under `prefix` (`f/` or `c/`) whose head is `f/{name}/{head}`.
pub fn parse<'a>(key: &'a [u8], prefix: &[u8], head: u8) -> Option<Key<'a>> {
    let rest = key.strip_prefix(prefix)?;
    let slash = rest.iter().position(|&b| b == b'/')?;
    let name = std::str::from_utf8(&rest[..slash]).ok()?;
    match &rest[slash + 1..] {
        [h] if *h == head => Some(Key::Head(name)),
        [b'l', b'/', seq @ ..] => Some(Key::Log(name, u64::from_be_bytes(seq.try_into().ok()?))),
        _ => None,
    }
}

/// A snapshot's value.
pub fn encode_snapshot(seq: u64, amq: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(8 + amq.len());
    v.extend_from_slice(&seq.to_le_bytes());
    v.extend_from_slice(amq);
    v
}

/// A snapshot's `seq` and `.amq` bytes.
pub fn decode_snapshot(v: &[u8]) -> Option<(u64, &[u8])> {
    let (seq, amq) = v.split_first_chunk::<8>()?;
    Some((u64::from_le_bytes(*seq), amq))
}

#[derive(Serialize, Deserialize)]
struct StoredSettings {
    hash: String,
    #[serde(default)]
    key_hex: Option<String>,
    p: u8,
    m: u64,
}

/// A keyset's settings as stored (JSON).
///
/// # Panics
/// Never (the record is strings and integers).
pub fn encode_settings(s: &KeysetSettings) -> Vec<u8> {
    let key_hex = match s.hash {
        CashuHash::SipHash24 { key } => Some(hex::encode(key)),
        _ => None,
    };
    serde_json::to_vec(&StoredSettings {
        hash: s.hash.name().to_owned(),
        key_hex,
        p: s.p,
        m: s.m,
    })
    .expect("settings serialise")
}

/// Reads stored settings back.
pub fn decode_settings(v: &[u8]) -> Option<KeysetSettings> {
    let s: StoredSettings = serde_json::from_slice(v).ok()?;
    let hash = match (s.hash.as_str(), s.key_hex) {
        ("murmur3-128", None) => CashuHash::Murmur3X64_128,
        ("murmur3-32x2", None) => CashuHash::Murmur3X86_32x2,
        ("siphash", Some(k)) => CashuHash::SipHash24 {
            key: hex::decode(k).ok()?.try_into().ok()?,
        },
        _ => return None,
    };
    Some(KeysetSettings {
        hash,
        p: s.p,
        m: s.m,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_back() {
        assert_eq!(
            parse(&snapshot_key("a-b"), b"f/", b's'),
            Some(Key::Head("a-b"))
        );
        assert_eq!(parse(&log_key("x", 7), b"f/", b's'), Some(Key::Log("x", 7)));
        assert_eq!(parse(b"f/x/q", b"f/", b's'), None);
        assert!(log_key("a", 1) < log_key("a", 256));
    }

    #[test]
    fn settings_round_trip() {
        for hash in [
            CashuHash::Murmur3X64_128,
            CashuHash::Murmur3X86_32x2,
            CashuHash::SipHash24 { key: [7; 16] },
        ] {
            let s = KeysetSettings {
                hash,
                p: 19,
                m: 784_931,
            };
            assert_eq!(decode_settings(&encode_settings(&s)), Some(s));
        }
    }
}
