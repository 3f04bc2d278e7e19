//! The value a key of the module's type holds: a filter of any `.amq` kind, or one being
//! loaded chunk by chunk; its RDB encoding; and the chunked dump that `*.SCANDUMP`,
//! `*.LOADCHUNK` and the AOF rewrite share.
//!
//! Nothing here touches Redis: the callbacks in [`ffi`](crate::ffi) and the commands call
//! these functions with bytes.

use amq::wire::Kind;
use amq::AnyFilter;
use std::cell::RefCell;

/// The version of the RDB encoding this build writes (the module type's `encver`); it reads
/// this version only.
pub const RDB_VERSION: i32 = 1;

/// The most bytes one `*.SCANDUMP` chunk or one AOF `AMQ.LOADCHUNK` carries (RedisBloom cuts
/// at 16 MiB too: <https://redis.io/docs/latest/commands/bf.scandump/>).
pub const CHUNK_BYTES: usize = 16 << 20;

/// The magic of the dump header chunk (iterator 1): `AMQD`.
const DUMP_MAGIC: [u8; 4] = *b"AMQD";
/// The dump header: magic, version (u16), kind code (u16), total length (u64), chunk size
/// (u64), all little-endian.
pub const DUMP_HEADER_LEN: usize = 24;
/// The version of the dump header.
const DUMP_VERSION: u16 = 1;
/// The shortest `.amq` file: its 32-byte header.
const MIN_AMQ_LEN: u64 = 32;

/// A key's value.
#[derive(Debug)]
pub struct Stored {
    /// The filter, or the bytes received so far.
    pub state: State,
    /// The `.amq` bytes of the filter while `*.SCANDUMP` walks them.
    pub dump: RefCell<Walks>,
}

/// The `.amq` bytes `*.SCANDUMP` walks: made when a walk begins (iterator 0), the same for
/// every walk under way, and dropped on any write (a walk under way is then refused, never
/// continued over other bytes) and when every walk begun has reached its end.
#[derive(Debug, Default)]
pub struct Walks {
    /// The bytes, while a walk is under way.
    bytes: Option<Vec<u8>>,
    /// The walks begun and not ended.
    open: u32,
}

/// Why a `*.SCANDUMP` step was refused: no walk of the filter as it is now is under way.
pub const WALK_GONE: &str = "ERR the filter changed since SCANDUMP began with iterator 0, or \
    no walk is under way: begin again with iterator 0";

impl Walks {
    /// Begins a walk over `amq()`, the filter's bytes (made once for the walks under way).
    pub fn begin(&mut self, amq: impl FnOnce() -> Vec<u8>) -> &[u8] {
        self.open = self.open.saturating_add(1);
        self.bytes.get_or_insert_with(amq)
    }

    /// The bytes of the walks under way, if the filter has not changed since they began.
    pub fn bytes(&self) -> Option<&[u8]> {
        self.bytes.as_deref()
    }

    /// One walk reached its end: the bytes go when no other walk is under way.
    pub fn end(&mut self) {
        self.open = self.open.saturating_sub(1);
        if self.open == 0 {
            self.bytes = None;
        }
    }

    /// Bytes of memory the walks hold.
    pub fn memory(&self) -> usize {
        self.bytes.as_ref().map_or(0, Vec::capacity)
    }
}

/// What a key holds.
#[derive(Debug)]
pub enum State {
    /// A filter, ready.
    Ready(Box<AnyFilter>),
    /// A dump being loaded by `*.LOADCHUNK`: the kind its header announced, the `.amq`
    /// length it announced, and the bytes received so far (in order).
    Loading {
        /// The kind the header announced.
        kind: Kind,
        /// The `.amq` length the header announced.
        total: u64,
        /// The bytes received so far.
        bytes: Vec<u8>,
    },
}

impl Stored {
    /// The kind of the filter held or being loaded.
    pub fn kind(&self) -> Kind {
        match &self.state {
            State::Ready(f) => f.kind(),
            State::Loading { kind, .. } => *kind,
        }
    }

    /// A key holding `filter`.
    pub fn ready(filter: AnyFilter) -> Self {
        Stored {
            state: State::Ready(Box::new(filter)),
            dump: RefCell::default(),
        }
    }

    /// Bytes of memory the value takes: the filter's tables or the bytes loaded, the cached
    /// dump, and the structures around them.
    pub fn memory(&self) -> usize {
        let body = match &self.state {
            State::Ready(f) => f.size_bytes() as usize + std::mem::size_of::<AnyFilter>(),
            State::Loading { bytes, .. } => bytes.capacity(),
        };
        let cached = self.dump.borrow().memory();
        std::mem::size_of::<Stored>() + body + cached
    }

    /// The bytes `amq.max-filter-bytes` holds the value to: the filter's
    /// [`size_bytes`](AnyFilter::size_bytes), or the length a load in progress announced.
    pub fn limited_bytes(&self) -> u64 {
        match &self.state {
            State::Ready(f) => f.size_bytes(),
            State::Loading { total, .. } => *total,
        }
    }

    /// Forgets the bytes of the walks under way (after a write): their next steps are refused.
    pub fn touched(&mut self) {
        *self.dump.get_mut() = Walks::default();
    }
}

impl Clone for Stored {
    fn clone(&self) -> Self {
        let state = match &self.state {
            State::Ready(f) => State::Ready(f.clone()),
            State::Loading { kind, total, bytes } => State::Loading {
                kind: *kind,
                total: *total,
                bytes: bytes.clone(),
            },
        };
        Stored {
            state,
            dump: RefCell::default(),
        }
    }
}

/// Why bytes from the RDB, a chunk or `AMQ.RESTORE` were refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The RDB encoding of a value: one string of a tag byte and its body. Tag 0: the filter's
/// `.amq` bytes. Tag 1: a load in progress, the kind code (u16), the announced length (u64)
/// and the bytes received so far.
pub fn rdb_encode(value: &Stored) -> Vec<u8> {
    match &value.state {
        State::Ready(f) => {
            let mut out = vec![0u8];
            out.extend_from_slice(&f.to_bytes());
            out
        }
        State::Loading { kind, total, bytes } => {
            let mut out = vec![1u8];
            out.extend_from_slice(&(*kind as u16).to_le_bytes());
            out.extend_from_slice(&total.to_le_bytes());
            out.extend_from_slice(bytes);
            out
        }
    }
}

/// Decodes [`rdb_encode`]'s bytes of encoding version `encver`, checking everything the
/// `.amq` decoder checks and never trusting a length it reads.
///
/// # Errors
/// [`Refused`] for another version, an unknown tag, or bytes that do not decode.
pub fn rdb_decode(encver: i32, bytes: &[u8]) -> Result<Stored, Refused> {
    if encver != RDB_VERSION {
        return Err(Refused(format!(
            "RDB encoding version {encver} (this build reads {RDB_VERSION})"
        )));
    }
    match bytes.split_first() {
        Some((0, amq)) => AnyFilter::from_bytes(amq)
            .map(Stored::ready)
            .map_err(|e| Refused(e.to_string())),
        Some((1, rest)) if rest.len() >= 10 => {
            let code = u16::from_le_bytes([rest[0], rest[1]]);
            let kind = Kind::from_code(code)
                .ok_or_else(|| Refused(format!("unknown filter kind code {code}")))?;
            let total = u64::from_le_bytes(rest[2..10].try_into().expect("8 bytes"));
            let bytes = &rest[10..];
            // what a header chunk and `load_chunk` allow: at least an `.amq` header
            // announced, and fewer bytes than announced (the last chunk makes a filter)
            if total < MIN_AMQ_LEN {
                return Err(Refused(format!(
                    "a load of {total} bytes announced: too short to be an .amq file"
                )));
            }
            if bytes.len() as u64 >= total {
                return Err(Refused(format!(
                    "{} bytes loaded of an announced {total}: a finished load is a filter",
                    bytes.len()
                )));
            }
            Ok(Stored {
                state: State::Loading {
                    kind,
                    total,
                    bytes: bytes.to_vec(),
                },
                dump: RefCell::default(),
            })
        }
        _ => Err(Refused("unknown RDB value tag".into())),
    }
}

/// The header chunk of a dump of `total` bytes of `.amq` file of a filter of `kind`.
pub fn dump_header(kind: Kind, total: u64) -> Vec<u8> {
    let mut h = Vec::with_capacity(DUMP_HEADER_LEN);
    h.extend_from_slice(&DUMP_MAGIC);
    h.extend_from_slice(&DUMP_VERSION.to_le_bytes());
    h.extend_from_slice(&(kind as u16).to_le_bytes());
    h.extend_from_slice(&total.to_le_bytes());
    h.extend_from_slice(&(CHUNK_BYTES as u64).to_le_bytes());
    h
}

/// Reads a dump header: the kind and the announced `.amq` length.
///
/// # Errors
/// [`Refused`] for anything but a header [`dump_header`] wrote.
pub fn read_dump_header(h: &[u8]) -> Result<(Kind, u64), Refused> {
    let bad = |why: &str| Err(Refused(format!("received bad data ({why})")));
    if h.len() != DUMP_HEADER_LEN || h[..4] != DUMP_MAGIC {
        return bad("not an amq dump header");
    }
    if u16::from_le_bytes([h[4], h[5]]) != DUMP_VERSION {
        return bad("unsupported dump version");
    }
    let code = u16::from_le_bytes([h[6], h[7]]);
    let Some(kind) = Kind::from_code(code) else {
        return bad("unknown filter kind");
    };
    let total = u64::from_le_bytes(h[8..16].try_into().expect("8 bytes"));
    if total < MIN_AMQ_LEN {
        return bad("too short to be an .amq file");
    }
    Ok((kind, total))
}

/// One step of a dump walk: the iterator and bytes of `*.SCANDUMP key it` over the `.amq`
/// bytes `amq`. Iterator 0 gives the header with iterator 1; iterator `it ≥ 1` gives the
/// chunk at offset `it − 1` with iterator `it + len` (RedisBloom's convention: the iterator
/// that comes with a chunk is the one to load it with, and the one to ask for the next);
/// past the end, iterator 0 and no bytes.
pub fn scan(kind: Kind, amq: &[u8], it: i64) -> (i64, Vec<u8>) {
    if it == 0 {
        return (1, dump_header(kind, amq.len() as u64));
    }
    let offset = match it.checked_sub(1).map(usize::try_from) {
        Some(Ok(o)) if o < amq.len() => o,
        _ => return (0, Vec::new()),
    };
    let end = (offset + CHUNK_BYTES).min(amq.len());
    (it + (end - offset) as i64, amq[offset..end].to_vec())
}

/// What a data chunk did to a load in progress.
#[derive(Debug, PartialEq)]
pub enum Loaded {
    /// More chunks to come.
    Partial,
    /// The last chunk arrived: the filter (boxed: a filter is much larger than `Partial`).
    Done(Box<AnyFilter>),
}

/// Appends the chunk that `*.SCANDUMP` gave with iterator `it` to a load in progress.
///
/// # Errors
/// [`Refused`] if the chunk is not the next one (its offset is not the bytes received), runs
/// past the announced length, or completes bytes that do not decode as the announced kind.
pub fn load_chunk(
    kind: Kind,
    total: u64,
    bytes: &mut Vec<u8>,
    it: i64,
    chunk: &[u8],
) -> Result<Loaded, Refused> {
    let end = it
        .checked_sub(1)
        .and_then(|e| u64::try_from(e).ok())
        .ok_or_else(|| Refused("invalid offset - no link found".into()))?;
    let offset = end.checked_sub(chunk.len() as u64);
    if offset != Some(bytes.len() as u64) || chunk.is_empty() {
        return Err(Refused(format!(
            "invalid offset - expected the chunk at byte {}, got iterator {it} with {} bytes",
            bytes.len(),
            chunk.len()
        )));
    }
    if end > total {
        return Err(Refused("invalid chunk - Too big for current filter".into()));
    }
    // grow by doubling as a Vec does, but never past the announced length (checked against
    // the limit): a Vec's own growth could hold twice the limit for the last chunks
    let need = bytes.len() + chunk.len(); // at most `total`, checked above
    if need > bytes.capacity() {
        let target = bytes
            .capacity()
            .saturating_mul(2)
            .min(usize::try_from(total).unwrap_or(usize::MAX))
            .max(need);
        bytes
            .try_reserve_exact(target - bytes.len())
            .map_err(|_| Refused("cannot allocate the chunk".into()))?;
    }
    bytes.extend_from_slice(chunk);
    if (bytes.len() as u64) < total {
        return Ok(Loaded::Partial);
    }
    let f =
        AnyFilter::from_bytes(bytes).map_err(|e| Refused(format!("received bad data ({e})")))?;
    if f.kind() != kind {
        return Err(Refused(format!(
            "received bad data (the header announced {}, the bytes hold {})",
            kind.name(),
            f.kind().name()
        )));
    }
    Ok(Loaded::Done(Box::new(f)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use amq::math::{Spec, Target};

    fn filter() -> AnyFilter {
        let spec = Spec::Bloom {
            items: 1000,
            target: Target::Fpr(0.01),
            k: None,
        };
        let mut f = AnyFilter::new(&spec, 0).unwrap();
        for i in 0..100u32 {
            f.insert(&i.to_le_bytes()).unwrap();
        }
        f
    }

    #[test]
    fn rdb_round_trip_of_both_states() {
        let f = filter();
        let v = Stored::ready(f.clone());
        let back = rdb_decode(1, &rdb_encode(&v)).unwrap();
        assert!(matches!(back.state, State::Ready(ref g) if **g == f));
        let loading = Stored {
            state: State::Loading {
                kind: Kind::Bloom,
                total: 500,
                bytes: vec![1, 2, 3],
            },
            dump: RefCell::default(),
        };
        let back = rdb_decode(1, &rdb_encode(&loading)).unwrap();
        assert!(
            matches!(back.state, State::Loading { total: 500, ref bytes, .. } if bytes == &[1, 2, 3])
        );
        assert!(rdb_decode(2, &rdb_encode(&v)).is_err());
        for cut in 0..12 {
            assert!(rdb_decode(1, &rdb_encode(&loading)[..cut]).is_err() || cut >= 11);
        }
        // a load that announces less than a header, or has all its bytes, is not one
        // `*.LOADCHUNK` or the RDB could have left
        for (total, bytes) in [
            (31u64, vec![]),
            (0, vec![]),
            (3, vec![1, 2, 3]),
            (500, vec![0; 500]),
        ] {
            let odd = Stored {
                state: State::Loading {
                    kind: Kind::Bloom,
                    total,
                    bytes,
                },
                dump: RefCell::default(),
            };
            assert!(rdb_decode(1, &rdb_encode(&odd)).is_err(), "total {total}");
        }
        assert!(rdb_decode(1, &[7, 0, 0]).is_err());
        assert!(rdb_decode(1, &[]).is_err());
    }

    /// The shortest load is one of an `.amq` header alone (32 bytes): a dump header that
    /// announces it is read, one that announces a byte less (or nothing) is refused, and the
    /// RDB takes such a load in progress back. Written against stored.rs:210 (`total <
    /// MIN_AMQ_LEN` made `<=` in `rdb_decode`) and stored.rs:262 (made `==` in
    /// `read_dump_header`), missed.
    #[test]
    fn a_load_may_announce_an_amq_header_alone() {
        let h = dump_header(Kind::Bloom, MIN_AMQ_LEN);
        assert_eq!(read_dump_header(&h), Ok((Kind::Bloom, MIN_AMQ_LEN)));
        for total in [MIN_AMQ_LEN - 1, 1, 0] {
            assert!(
                read_dump_header(&dump_header(Kind::Bloom, total)).is_err(),
                "{total}"
            );
        }
        let loading = Stored {
            state: State::Loading {
                kind: Kind::Bloom,
                total: MIN_AMQ_LEN,
                bytes: vec![7; 31],
            },
            dump: RefCell::default(),
        };
        let back = rdb_decode(RDB_VERSION, &rdb_encode(&loading)).unwrap();
        assert!(matches!(
            back.state,
            State::Loading { kind: Kind::Bloom, total: MIN_AMQ_LEN, ref bytes } if bytes == &[7; 31]
        ));
    }

    #[test]
    fn a_scan_walk_loads_back_the_same_filter() {
        let f = filter();
        let amq = f.to_bytes();
        let (mut it, header) = scan(f.kind(), &amq, 0);
        assert_eq!(it, 1);
        let (kind, total) = read_dump_header(&header).unwrap();
        assert_eq!(total, amq.len() as u64);
        let mut bytes = Vec::new();
        let mut done = None;
        loop {
            let (next, chunk) = scan(kind, &amq, it);
            if next == 0 {
                break;
            }
            match load_chunk(kind, total, &mut bytes, next, &chunk).unwrap() {
                Loaded::Partial => {}
                Loaded::Done(g) => done = Some(*g),
            }
            it = next;
        }
        assert_eq!(done, Some(f));
    }

    /// The bytes of a load never take more memory than the length it announced (a `Vec`'s
    /// doubling took up to twice that).
    #[test]
    fn a_load_holds_at_most_its_announced_length() {
        let total = 10 * 1024 + 1;
        let mut bytes = Vec::new();
        let mut end = 1i64;
        while (bytes.len() as u64) + 1000 < total {
            end += 1000;
            assert_eq!(
                load_chunk(Kind::Bloom, total, &mut bytes, end, &[0; 1000]),
                Ok(Loaded::Partial)
            );
            assert!(bytes.capacity() as u64 <= total, "{}", bytes.capacity());
        }
        assert!(bytes.capacity() as u64 == total);
    }

    /// A load of chunks of uneven sizes holds at most its announced length too: a chunk that
    /// does not fit grows the bytes to twice their capacity or the announced length, whichever
    /// is less, where a `Vec`'s own growth would double past it. Written against stored.rs:324
    /// (`need > bytes.capacity()` made `==` or `<`: the `Vec` grew by itself), missed (the
    /// test above loads equal chunks, which fill the capacity exactly).
    #[test]
    fn a_load_of_uneven_chunks_holds_at_most_its_announced_length() {
        let total = 10 * 1024 + 1;
        let mut bytes = Vec::new();
        let mut end = 1i64;
        for len in [6000, 3000] {
            end += len;
            let chunk = vec![0; len as usize];
            let r = load_chunk(Kind::Bloom, total, &mut bytes, end, &chunk);
            assert_eq!(r, Ok(Loaded::Partial));
            assert!(bytes.capacity() as u64 <= total, "{}", bytes.capacity());
        }
    }

    #[test]
    fn chunks_out_of_order_or_too_long_are_refused() {
        let f = filter();
        let amq = f.to_bytes();
        let total = amq.len() as u64;
        let mut bytes = Vec::new();
        assert!(load_chunk(f.kind(), total, &mut bytes, 5, &amq[..4]).is_ok());
        assert!(load_chunk(f.kind(), total, &mut bytes, 5, &amq[..4]).is_err());
        assert!(load_chunk(f.kind(), total, &mut bytes, i64::MIN, &amq[..4]).is_err());
        assert!(load_chunk(f.kind(), 8, &mut Vec::new(), 10, &[0; 9]).is_err());
        assert_eq!(scan(f.kind(), &amq, i64::MIN), (0, Vec::new()));
        assert_eq!(scan(f.kind(), &amq, -5), (0, Vec::new()));
        assert!(read_dump_header(b"AMQD").is_err());
        assert!(read_dump_header(&[0; 24]).is_err());
        let mut wrong_kind = Vec::new();
        let r = load_chunk(Kind::Cuckoo, total, &mut wrong_kind, total as i64 + 1, &amq);
        assert!(r.is_err());
    }
}
