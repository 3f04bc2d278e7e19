//! Where a [`Sequence`](super::Sequence) keeps its blocks: the [`BlockStore`] trait and the
//! in-memory [`MemoryStore`].

use super::element::Kind;
use super::info::BlockInterval;
use crate::error::{Error, Result};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec::Vec;

/// The block now filling: its height, when it opened (Unix seconds) and its width b.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpenHeader {
    /// The height (index in the sequence).
    pub height: u64,
    /// When it opened.
    pub start: u64,
    /// Its width b.
    pub b: u8,
    /// The timeout it opened under (seconds): it seals at `start + timeout` at the latest,
    /// whatever timeout is configured later, so that its interval holds every insertion it
    /// took. 0 if not recorded (a store written before the field): the configured timeout
    /// then applies.
    pub timeout: u64,
}

/// A block being sealed: its height, interval and final bytes (2^b / 8, possibly folded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SealedBlock<'a> {
    /// The height.
    pub height: u64,
    /// When it opened.
    pub start: u64,
    /// When it sealed (the next block's start).
    pub end: u64,
    /// The bitmap, served for this height from now on, byte for byte.
    pub bytes: &'a [u8],
}

/// The open block's snapshot, as stored: when it was taken (a refresh boundary) and how many
/// of the open block's insertions, in order, it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SnapshotRecord {
    /// The boundary it was taken at, Unix seconds.
    pub taken_at: u64,
    /// The number of the open block's insertions it holds (a prefix of them).
    pub count: u64,
}

/// What a store holds for one kind, as [`BlockStore::load`] gives it back.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StoredSequence {
    /// The intervals of the sealed heights, height 0 first (every `end` is `Some`).
    pub sealed: Vec<BlockInterval>,
    /// The block now filling.
    pub open: OpenHeader,
    /// The elements inserted into it, in order (one per insertion operation, repeats kept).
    pub elements: Vec<[u8; 32]>,
    /// Its last snapshot, if one was recorded.
    pub snapshot: Option<SnapshotRecord>,
}

/// The durable state of block sequences, one per kind.
///
/// A [`Sequence`](super::Sequence) calls a method and changes what it serves only after the
/// method returned `Ok`, so `Ok` must mean *durable*: a served block never shows an
/// insertion the store could lose. Each method is one atomic change.
///
/// The open block is kept as its list of elements (32 bytes per insertion, at most
/// [`capacity`](super::capacity) of them), from which [`load`](Self::load)'s caller rebuilds
/// the bitmap; sealed blocks as their bytes, which never change. [`MemoryStore`] is the
/// implementation for tests; a server implements this over its own database.
pub trait BlockStore {
    /// The store's error. Library errors (a corrupt record) convert into it.
    type Error: From<Error>;

    /// The sequence of `kind`, or `None` if it never began.
    ///
    /// # Errors
    /// The store's error if it cannot be read, or a corrupt record ([`Error`]).
    fn load(&mut self, kind: Kind) -> core::result::Result<Option<StoredSequence>, Self::Error>;

    /// Begins the sequence of `kind` with its first block (height 0).
    ///
    /// # Errors
    /// The store's error if it refuses the change (a height out of turn) or cannot make it
    /// durable; nothing changed then.
    fn begin(&mut self, kind: Kind, open: &OpenHeader) -> core::result::Result<(), Self::Error>;

    /// Appends one insertion of `element` to the open block at `height`.
    ///
    /// # Errors
    /// The store's error if it refuses the change (a height out of turn) or cannot make it
    /// durable; nothing changed then.
    fn append(
        &mut self,
        kind: Kind,
        height: u64,
        element: &[u8; 32],
    ) -> core::result::Result<(), Self::Error>;

    /// Records the open block's snapshot (replacing the previous one).
    ///
    /// # Errors
    /// The store's error if it refuses the change (a height out of turn) or cannot make it
    /// durable; nothing changed then.
    fn snapshot(
        &mut self,
        kind: Kind,
        height: u64,
        record: &SnapshotRecord,
    ) -> core::result::Result<(), Self::Error>;

    /// Seals the open block as `sealed` and opens `next` in one atomic change: the open
    /// block's elements and snapshot are dropped, and `sealed.bytes` are kept for its height
    /// for ever.
    ///
    /// # Errors
    /// The store's error if it refuses the change (a height out of turn) or cannot make it
    /// durable; nothing changed then.
    fn seal(
        &mut self,
        kind: Kind,
        sealed: &SealedBlock<'_>,
        next: &OpenHeader,
    ) -> core::result::Result<(), Self::Error>;

    /// The bytes of the sealed block at `height`, `None` if that height is not sealed.
    ///
    /// # Errors
    /// The store's error if it cannot be read.
    fn sealed(&self, kind: Kind, height: u64)
        -> core::result::Result<Option<Vec<u8>>, Self::Error>;
}

/// A [`BlockStore`] in memory: for tests and for mints that rebuild their state elsewhere.
/// It refuses changes that would break a sequence (a height out of turn, an overwrite).
///
/// # Example
/// ```
/// use amq::clock::ManualClock;
/// use amq::formats::cashu_state::{Kind, MemoryStore, Sequence, SequenceConfig};
/// let clock = ManualClock::new(1_700_000_000);
/// let config = SequenceConfig::new(Kind::ProofState, 10);
/// let mut seq = Sequence::open(config, MemoryStore::default(), clock.clone())?;
/// seq.insert(&[7; 32])?;
/// // restart from the same store: the open block comes back
/// let store = seq.into_store();
/// let seq = Sequence::open(config, store, clock)?;
/// assert_eq!(seq.open_count(), 1);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryStore {
    kinds: BTreeMap<Kind, Stored>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Stored {
    sealed: Vec<(BlockInterval, Vec<u8>)>,
    open: OpenHeader,
    elements: Vec<[u8; 32]>,
    snapshot: Option<SnapshotRecord>,
}

impl MemoryStore {
    fn get_mut(&mut self, kind: Kind, height: u64) -> Result<&mut Stored> {
        let s = self
            .kinds
            .get_mut(&kind)
            .ok_or_else(|| Error::invalid("kind", format!("the {kind} sequence has not begun")))?;
        if s.open.height != height {
            return Err(Error::invalid(
                "height",
                format!(
                    "the open {kind} block is at height {}, not {height}",
                    s.open.height
                ),
            ));
        }
        Ok(s)
    }
}

impl BlockStore for MemoryStore {
    type Error = Error;

    fn load(&mut self, kind: Kind) -> Result<Option<StoredSequence>> {
        Ok(self.kinds.get(&kind).map(|s| StoredSequence {
            sealed: s.sealed.iter().map(|(i, _)| *i).collect(),
            open: s.open,
            elements: s.elements.clone(),
            snapshot: s.snapshot,
        }))
    }

    fn begin(&mut self, kind: Kind, open: &OpenHeader) -> Result<()> {
        if self.kinds.contains_key(&kind) || open.height != 0 {
            return Err(Error::invalid(
                "height",
                format!("the {kind} sequence begins once, at height 0"),
            ));
        }
        self.kinds.insert(
            kind,
            Stored {
                sealed: Vec::new(),
                open: *open,
                elements: Vec::new(),
                snapshot: None,
            },
        );
        Ok(())
    }

    fn append(&mut self, kind: Kind, height: u64, element: &[u8; 32]) -> Result<()> {
        self.get_mut(kind, height)?.elements.push(*element);
        Ok(())
    }

    fn snapshot(&mut self, kind: Kind, height: u64, record: &SnapshotRecord) -> Result<()> {
        self.get_mut(kind, height)?.snapshot = Some(*record);
        Ok(())
    }

    fn seal(&mut self, kind: Kind, sealed: &SealedBlock<'_>, next: &OpenHeader) -> Result<()> {
        let s = self.get_mut(kind, sealed.height)?;
        if next.height != sealed.height + 1 || next.start != sealed.end {
            return Err(Error::invalid(
                "height",
                "the next block opens at the next height, when the sealed one ends",
            ));
        }
        s.sealed.push((
            BlockInterval {
                start: sealed.start,
                end: Some(sealed.end),
            },
            sealed.bytes.to_vec(),
        ));
        s.open = *next;
        s.elements.clear();
        s.snapshot = None;
        Ok(())
    }

    fn sealed(&self, kind: Kind, height: u64) -> Result<Option<Vec<u8>>> {
        Ok(self
            .kinds
            .get(&kind)
            .and_then(|s| s.sealed.get(usize::try_from(height).ok()?))
            .map(|(_, bytes)| bytes.clone()))
    }
}
