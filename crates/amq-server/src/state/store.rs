//! [`StateStore`]: the library's [`BlockStore`] over the server's [`Store`], one per kind.
//!
//! Keys, under `s/{kind}/`:
//! - `o`: the open block's header, `[height: u64 LE][start: u64 LE][b: u8]`;
//! - `n`: its last snapshot record, `[height][taken_at][count]` (u64 LE each);
//! - `e/{height: u64 BE}{batch: u64 BE}`: elements appended to the open block, 32 bytes each;
//! - `b/{height: u64 BE}`: a sealed block, `[start: u64 LE][end: u64 LE][bitmap]`.
//!
//! **Group commit.** [`append`](BlockStore::append) keeps the element in a buffer; the buffer
//! is written by the next [`flush`](StateStore::flush), or with the next snapshot, seal or
//! begin (in the same transaction). The server holds the sequence's lock from the first
//! append of a request to its flush, and serves nothing from the sequence in between, so no
//! served block and no 2xx ever shows an element that is not on disk. If a flush fails, the
//! server reopens the sequence from the store, dropping what was not written.

use crate::store::{Store, StoreError, Write};
use amq::formats::cashu_state::{
    BlockInterval, BlockStore, Kind, OpenHeader, SealedBlock, SnapshotRecord, StoredSequence,
};
use std::sync::{Arc, Mutex};

/// An error of a [`StateStore`]: the library's (a corrupt record, a bad element) or the
/// store's.
#[derive(Debug)]
pub enum StateError {
    /// The library refused.
    Lib(amq::Error),
    /// The store failed.
    Store(StoreError),
}

impl From<amq::Error> for StateError {
    fn from(e: amq::Error) -> Self {
        StateError::Lib(e)
    }
}

impl From<StoreError> for StateError {
    fn from(e: StoreError) -> Self {
        StateError::Store(e)
    }
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StateError::Lib(e) => e.fmt(f),
            StateError::Store(e) => e.fmt(f),
        }
    }
}

/// Appended elements not yet written.
#[derive(Debug, Default)]
struct Pending {
    height: u64,
    elements: Vec<u8>,
    /// The batch number the next write of elements gets (within the open block).
    next_batch: u64,
}

/// One kind's [`BlockStore`] over the server's store.
#[derive(Debug)]
pub struct StateStore {
    store: Arc<dyn Store>,
    kind: Kind,
    pending: Mutex<Pending>,
}

fn key(kind: Kind, rest: &[u8]) -> Vec<u8> {
    let mut k = format!("s/{}/", kind.name()).into_bytes();
    k.extend_from_slice(rest);
    k
}

fn height_key(kind: Kind, tag: &[u8], height: u64) -> Vec<u8> {
    let mut k = key(kind, tag);
    k.extend_from_slice(&height.to_be_bytes());
    k
}

fn le(v: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(v.get(at..at + 8)?.try_into().ok()?))
}

fn corrupt(kind: Kind, what: &str) -> StateError {
    StateError::Store(StoreError(format!(
        "the {kind} sequence's {what} is corrupt"
    )))
}

impl StateStore {
    /// The prefix of every key of `kind`'s sequence.
    pub fn prefix(kind: Kind) -> Vec<u8> {
        key(kind, b"")
    }

    /// `true` if the store holds a sequence of `kind` (its open block's header).
    ///
    /// # Errors
    /// The store's.
    pub fn holds_sequence(store: &dyn Store, kind: Kind) -> Result<bool, StoreError> {
        Ok(store.get(&key(kind, b"o"))?.is_some())
    }

    /// The store of `kind`'s sequence.
    pub fn new(store: Arc<dyn Store>, kind: Kind) -> Self {
        StateStore {
            store,
            kind,
            pending: Mutex::new(Pending::default()),
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The write of the buffered elements, if any (and the buffer emptied).
    fn take_pending(&self) -> Option<Write> {
        let mut p = self.pending();
        if p.elements.is_empty() {
            return None;
        }
        let mut k = height_key(self.kind, b"e/", p.height);
        k.extend_from_slice(&p.next_batch.to_be_bytes());
        p.next_batch += 1;
        Some(Write::Put(k, std::mem::take(&mut p.elements)))
    }

    /// Writes the buffered elements (one commit, one fsync).
    ///
    /// # Errors
    /// The store failed: the elements are not on disk (and are dropped from the buffer).
    pub fn flush(&self) -> Result<(), StoreError> {
        match self.take_pending() {
            Some(w) => self.store.commit(&[w]),
            None => Ok(()),
        }
    }

    /// Commits `writes` after the buffered elements, in one transaction.
    fn commit(&self, writes: Vec<Write>) -> Result<(), StateError> {
        let mut all: Vec<Write> = self.take_pending().into_iter().collect();
        all.extend(writes);
        Ok(self.store.commit(&all)?)
    }

    /// The open header's value: height and start (u64 LE), b, and the timeout it opened
    /// under (u64 LE; a value of 17 bytes, written before the timeout was kept, reads as 0:
    /// the configured timeout applies).
    fn open_value(open: &OpenHeader) -> Vec<u8> {
        let mut v = Vec::with_capacity(25);
        v.extend_from_slice(&open.height.to_le_bytes());
        v.extend_from_slice(&open.start.to_le_bytes());
        v.push(open.b);
        v.extend_from_slice(&open.timeout.to_le_bytes());
        v
    }
}

impl BlockStore for StateStore {
    type Error = StateError;

    fn load(&mut self, kind: Kind) -> Result<Option<StoredSequence>, StateError> {
        let rows = self.store.scan(&key(kind, b""))?;
        let prefix = key(kind, b"").len();
        let Some(open) = rows.iter().find(|(k, _)| &k[prefix..] == b"o") else {
            return Ok(None);
        };
        let v = &open.1;
        let open = OpenHeader {
            height: le(v, 0).ok_or_else(|| corrupt(kind, "open header"))?,
            start: le(v, 8).ok_or_else(|| corrupt(kind, "open header"))?,
            b: *v.get(16).ok_or_else(|| corrupt(kind, "open header"))?,
            timeout: match v.len() {
                17 => 0,
                _ => le(v, 17).ok_or_else(|| corrupt(kind, "open header"))?,
            },
        };
        let mut sealed = Vec::new();
        let mut elements = Vec::new();
        let mut snapshot = None;
        let mut next_batch = 0;
        for (k, v) in &rows {
            let rest = &k[prefix..];
            if let Some(h) = rest.strip_prefix(b"b/") {
                let height =
                    u64::from_be_bytes(h.try_into().map_err(|_| corrupt(kind, "block key"))?);
                if height != sealed.len() as u64 {
                    return Err(corrupt(kind, "run of sealed heights"));
                }
                sealed.push(BlockInterval {
                    start: le(v, 0).ok_or_else(|| corrupt(kind, "sealed block"))?,
                    end: Some(le(v, 8).ok_or_else(|| corrupt(kind, "sealed block"))?),
                });
            } else if let Some(hb) = rest.strip_prefix(b"e/") {
                let (h, batch) = hb
                    .split_at_checked(8)
                    .ok_or_else(|| corrupt(kind, "element key"))?;
                let h = u64::from_be_bytes(h.try_into().map_err(|_| corrupt(kind, "element key"))?);
                let batch =
                    u64::from_be_bytes(batch.try_into().map_err(|_| corrupt(kind, "element key"))?);
                if h == open.height {
                    if v.len() % 32 != 0 {
                        return Err(corrupt(kind, "element batch"));
                    }
                    elements.extend(
                        v.chunks_exact(32)
                            .map(|c| <[u8; 32]>::try_from(c).expect("32 bytes")),
                    );
                    next_batch = next_batch.max(batch + 1);
                }
            } else if rest == b"n" {
                let (h, at, count) = (le(v, 0), le(v, 8), le(v, 16));
                let (h, taken_at, count) = h
                    .zip(at)
                    .zip(count)
                    .map(|((h, a), c)| (h, a, c))
                    .ok_or_else(|| corrupt(kind, "snapshot record"))?;
                if h == open.height {
                    snapshot = Some(SnapshotRecord { taken_at, count });
                }
            }
        }
        *self.pending() = Pending {
            height: open.height,
            elements: Vec::new(),
            next_batch,
        };
        Ok(Some(StoredSequence {
            sealed,
            open,
            elements,
            snapshot,
        }))
    }

    fn begin(&mut self, kind: Kind, open: &OpenHeader) -> Result<(), StateError> {
        *self.pending() = Pending {
            height: open.height,
            ..Pending::default()
        };
        self.commit(vec![Write::Put(key(kind, b"o"), Self::open_value(open))])
    }

    fn append(&mut self, _kind: Kind, height: u64, element: &[u8; 32]) -> Result<(), StateError> {
        let mut p = self.pending();
        if p.height != height {
            return Err(amq::Error::invalid(
                "height",
                format!("the open block is at {}, not {height}", p.height),
            )
            .into());
        }
        p.elements.extend_from_slice(element);
        Ok(())
    }

    fn snapshot(
        &mut self,
        kind: Kind,
        height: u64,
        record: &SnapshotRecord,
    ) -> Result<(), StateError> {
        let mut v = Vec::with_capacity(24);
        for x in [height, record.taken_at, record.count] {
            v.extend_from_slice(&x.to_le_bytes());
        }
        self.commit(vec![Write::Put(key(kind, b"n"), v)])
    }

    fn seal(
        &mut self,
        kind: Kind,
        sealed: &SealedBlock<'_>,
        next: &OpenHeader,
    ) -> Result<(), StateError> {
        // the buffered elements are in the sealed bytes, and the open block's elements go
        self.pending().elements.clear();
        let mut value = Vec::with_capacity(16 + sealed.bytes.len());
        value.extend_from_slice(&sealed.start.to_le_bytes());
        value.extend_from_slice(&sealed.end.to_le_bytes());
        value.extend_from_slice(sealed.bytes);
        let writes = vec![
            Write::Put(height_key(kind, b"b/", sealed.height), value),
            Write::DeleteRange(
                height_key(kind, b"e/", sealed.height),
                height_key(kind, b"e/", sealed.height + 1),
            ),
            Write::delete(&key(kind, b"n")),
            Write::Put(key(kind, b"o"), Self::open_value(next)),
        ];
        self.commit(writes)?;
        *self.pending() = Pending {
            height: next.height,
            ..Pending::default()
        };
        Ok(())
    }

    fn sealed(&self, kind: Kind, height: u64) -> Result<Option<Vec<u8>>, StateError> {
        match self.store.get(&height_key(kind, b"b/", height))? {
            None => Ok(None),
            Some(v) if v.len() >= 16 => Ok(Some(v[16..].to_vec())),
            Some(_) => Err(corrupt(kind, "sealed block")),
        }
    }
}
