//! Revision B's mint side: one kind's sequence of blocks, sealed on capacity or on timeout.

use super::block::{capacity_unchecked, check_b, smallest_b, Block};
use super::element::{Element, Kind, Words};
use super::info::{BlockInterval, FiltersInfo, MIN_TIMEOUT, RECOMMENDED_TIMEOUT};
use super::store::{BlockStore, OpenHeader, SealedBlock, SnapshotRecord};
use crate::clock::Clock;
use crate::error::{Error, Result};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use sha2::{Digest, Sha256};

/// The parameters of one kind's sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SequenceConfig {
    /// The kind the sequence covers.
    pub kind: Kind,
    /// The width of the blocks opened from now on (the open block keeps the width it opened
    /// with).
    pub b: u8,
    /// Seconds after which an unsaturated block seals, at least [`MIN_TIMEOUT`], for the
    /// blocks opened from now on: the open block keeps the timeout it opened under (it is in
    /// its [`OpenHeader`]), as it keeps its width. A block opened under a week and reopened
    /// under an hour, days later, would otherwise seal with an `end` before insertions it
    /// holds, and a wallet restoring from a seed date after that `end` would skip them.
    pub timeout: u64,
    /// Seconds between refreshes of the open block's snapshot, or `None` to serve no open
    /// block.
    pub open_interval: Option<u64>,
    /// Fold a block sealed on timeout to the smallest width that holds its count (the
    /// spec's SHOULD); `false` keeps b.
    pub fold: bool,
}

impl SequenceConfig {
    /// Blocks of width b, the recommended timeout (one week), no open block, folding on.
    pub fn new(kind: Kind, b: u8) -> Self {
        SequenceConfig {
            kind,
            b,
            timeout: RECOMMENDED_TIMEOUT,
            open_interval: None,
            fold: true,
        }
    }

    /// Checks b, the timeout and the open interval.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if b is outside 5..=26 (`b`), the timeout is below
    /// [`MIN_TIMEOUT`] (`timeout`), or the open interval is 0 (`open_interval`).
    pub fn validate(&self) -> Result<()> {
        check_b(self.b)?;
        if self.timeout < MIN_TIMEOUT {
            return Err(Error::invalid(
                "timeout",
                format!(
                    "must be at least {MIN_TIMEOUT} seconds, got {}",
                    self.timeout
                ),
            ));
        }
        if self.open_interval == Some(0) {
            return Err(Error::invalid("open_interval", "must be at least 1 second"));
        }
        Ok(())
    }
}

/// The ETag of a served body: `"` + the first 8 bytes of its SHA-256 as hex + `"` (a strong
/// validator; it changes whenever the bytes do, but for a 2^-64 collision).
///
/// # Example
/// ```
/// let a = amq::formats::cashu_state::etag(&[0; 32]);
/// assert_eq!(a.len(), 18);
/// assert_ne!(a, amq::formats::cashu_state::etag(&[1; 32]));
/// ```
pub fn etag(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    format!("\"{}\"", hex::encode(&digest[..8]))
}

/// The open block as served: the bitmap as of the last refresh boundary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    height: u64,
    taken_at: u64,
    count: u64,
    block: Block,
    etag: String,
}

impl Snapshot {
    fn new(height: u64, taken_at: u64, count: u64, block: Block) -> Self {
        let etag = etag(block.as_bytes());
        Snapshot {
            height,
            taken_at,
            count,
            block,
            etag,
        }
    }
    /// The height of the open block it shows.
    pub fn height(&self) -> u64 {
        self.height
    }
    /// The refresh boundary it shows the block at (Unix seconds): it holds exactly the
    /// insertions made before then.
    pub fn taken_at(&self) -> u64 {
        self.taken_at
    }
    /// How many insertions it holds.
    pub fn count(&self) -> u64 {
        self.count
    }
    /// The bitmap.
    pub fn block(&self) -> &Block {
        &self.block
    }
    /// The body: the bitmap's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.block.as_bytes()
    }
    /// The ETag of the body ([`etag`]).
    pub fn etag(&self) -> &str {
        &self.etag
    }
}

/// What `GET /v1/filters/blocks/{kind}/{height}` serves ([`Sequence::block`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Served<'a> {
    /// A sealed block: these bytes for ever (an immutable cache policy).
    Sealed(Vec<u8>),
    /// The open block's snapshot (`max-age` = open interval, an ETag, never `immutable`).
    Open(&'a Snapshot),
}

/// What an insertion did ([`Sequence::insert`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Inserted {
    /// The height of the block it went into.
    pub height: u64,
    /// That block's count after it.
    pub count: u64,
    /// `true` if it filled the block, which then sealed.
    pub sealed: bool,
}

/// One kind's sequence of blocks on the mint side (revision B, "Blocks" and "Sequences").
///
/// **Count.** Every insertion operation adds one to the open block's count, whatever it
/// sets: a repeat, noise, colliding positions. No set of elements is kept to deduplicate.
///
/// **Seal.** The open block seals when its count reaches [`capacity`](super::capacity)`(b)` (at the
/// time of that insertion, at width b), or when `timeout` seconds have passed since it opened (the
/// timeout it opened under; at exactly start + timeout, folded to [`smallest_b`]`(count)` if
/// [`SequenceConfig::fold`]), whichever comes first. A block that times out empty still seals
/// (at b = 5 when folded). The next block opens when the previous one ends, at the next height,
/// so `end` of one is `start` of the next. Sealed blocks never change; the count never exceeds
/// capacity. If the clock jumped past several deadlines, each passes in turn: a run of empty
/// blocks, one per timeout.
///
/// **Open block.** With an open interval i, the open block is served as a snapshot taken at
/// the boundaries `start + k·i`: it holds exactly the insertions made before the boundary, and
/// its [ETag](Snapshot::etag) changes when its bytes do.
///
/// **Time and durability.** Every call reads the injected [`Clock`] (seconds) and first
/// passes the deadlines and boundaries that are due; a clock going backwards is held at the
/// latest time seen. Every change is committed to the [`BlockStore`] before it is applied, so
/// nothing served shows an insertion the store could lose; a failed store call leaves the
/// sequence as it was (and the call can be retried).
///
/// Source: cashubtc/nuts PR #433, revision B (crodas, 2026-09-18).
///
/// # Example
/// ```
/// use amq::clock::ManualClock;
/// use amq::formats::cashu_state::{Kind, MemoryStore, Sequence, SequenceConfig, Served};
/// let clock = ManualClock::new(1_000_000);
/// let config = SequenceConfig { open_interval: Some(60), ..SequenceConfig::new(Kind::MeltQuote, 12) };
/// let mut seq = Sequence::open(config, MemoryStore::default(), clock.clone())?;
/// seq.insert(&[1; 32])?;
/// clock.advance(604_800); // a week: the block times out and folds
/// let info = seq.info()?;
/// assert_eq!(info.blocks.len(), 2);
/// assert_eq!(info.blocks[0].end, Some(1_604_800));
/// match seq.block(0)? {
///     Some(Served::Sealed(bytes)) => assert_eq!(bytes.len(), 4), // one insertion: b = 5
///     other => panic!("{other:?}"),
/// }
/// assert!(matches!(seq.block(1)?, Some(Served::Open(_))));
/// assert!(seq.block(2)?.is_none()); // error 40001
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug)]
pub struct Sequence<S, C> {
    config: SequenceConfig,
    store: S,
    clock: C,
    now: u64,
    sealed: Vec<BlockInterval>,
    open: OpenHeader,
    count: u64,
    bitmap: Block,
    /// The time of the insertion that filled the open block, while its seal is still due.
    full_at: Option<u64>,
    snapshot: Option<Snapshot>,
}

impl<S: BlockStore, C: Clock> Sequence<S, C> {
    /// Opens the sequence of `config.kind` in `store`: loads it (rebuilding the open block
    /// and its snapshot from their elements), or begins it at height 0 now. Then passes what
    /// is due, as every call does.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a bad config; [`Error::Corrupt`] if the stored open
    /// block has a bad width or more elements than its capacity; the store's errors.
    pub fn open(config: SequenceConfig, mut store: S, clock: C) -> Result<Self, S::Error> {
        config.validate()?;
        let now = clock.now();
        let kind = config.kind;
        let (sealed, mut open, elements, record) = match store.load(kind)? {
            Some(s) => (s.sealed, s.open, s.elements, s.snapshot),
            None => {
                let open = OpenHeader {
                    height: 0,
                    start: now,
                    b: config.b,
                    timeout: config.timeout,
                };
                store.begin(kind, &open)?;
                (Vec::new(), open, Vec::new(), None)
            }
        };
        check_b(open.b).map_err(|e| Error::corrupt(0, format!("stored open {kind} block: {e}")))?;
        match open.timeout {
            0 => open.timeout = config.timeout, // not recorded: the configured one
            t if t < MIN_TIMEOUT => {
                return Err(Error::corrupt(
                    0,
                    format!("stored open {kind} block: a timeout of {t} seconds"),
                )
                .into())
            }
            _ => {}
        }
        let count = elements.len() as u64;
        if count > capacity_unchecked(open.b) || open.height != sealed.len() as u64 {
            return Err(Error::corrupt(
                0,
                format!(
                    "stored open {kind} block: height {} after {} sealed, {count} insertions at b = {}",
                    open.height,
                    sealed.len(),
                    open.b
                ),
            )
            .into());
        }
        let mut bitmap = Block::new(open.b)?;
        let mut snap = Block::new(open.b)?;
        let upto = record.map_or(0, |r| r.count);
        for (i, e) in elements.iter().enumerate() {
            let words = Words::from_element(e);
            bitmap.insert(&words);
            if (i as u64) < upto {
                snap.insert(&words);
            }
        }
        let snapshot = config.open_interval.map(|_| {
            let (at, n) = record.map_or((open.start, 0), |r| (r.taken_at, r.count.min(count)));
            Snapshot::new(open.height, at, n, snap)
        });
        let mut seq = Sequence {
            config,
            store,
            clock,
            now: now.max(open.start),
            sealed,
            open,
            count,
            bitmap,
            full_at: (count == capacity_unchecked(open.b)).then_some(now.max(open.start)),
            snapshot,
        };
        seq.tick()?;
        Ok(seq)
    }

    /// The configuration.
    pub fn config(&self) -> &SequenceConfig {
        &self.config
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Gives the store back (to reopen the sequence from it, say).
    pub fn into_store(self) -> S {
        self.store
    }

    /// Sets the width of the blocks opened from now on (the spec allows changing b for
    /// blocks not yet opened).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`b`) if b is outside 5..=26.
    pub fn set_b(&mut self, b: u8) -> Result<()> {
        check_b(b)?;
        self.config.b = b;
        Ok(())
    }

    /// The height of the block now filling.
    pub fn open_height(&self) -> u64 {
        self.open.height
    }

    /// The open block's count of insertion operations (never above its capacity).
    pub fn open_count(&self) -> u64 {
        self.count
    }

    /// The open block's live bitmap (not what is served: see [`block`](Self::block)).
    pub fn open_block(&self) -> &Block {
        &self.bitmap
    }

    /// Passes what is due at the clock's time: a seal still owed to a full block, every
    /// timeout deadline, and the open block's snapshot boundary.
    ///
    /// # Errors
    /// The store's errors; what was committed before the error stays applied.
    pub fn tick(&mut self) -> Result<(), S::Error> {
        let now = self.clock.now().max(self.now);
        self.now = now;
        if let Some(at) = self.full_at {
            self.seal(at, false)?;
        }
        while now.saturating_sub(self.open.start) >= self.open.timeout {
            let end = self.open.start.saturating_add(self.open.timeout);
            self.seal(end, self.config.fold)?;
        }
        self.refresh(now)
    }

    /// Inserts `E` into the open block: commits it to the store, sets its 16 bits, counts
    /// one operation, and seals the block if that filled it.
    ///
    /// # Errors
    /// The store's errors. If the insertion was committed but the seal that follows failed,
    /// the error is returned and the seal is owed: the next call makes it, with the time of
    /// this insertion as its end.
    pub fn insert(&mut self, e: &[u8; 32]) -> Result<Inserted, S::Error> {
        self.tick()?;
        let words = Words::from_element(e);
        self.store.append(self.config.kind, self.open.height, e)?;
        self.bitmap.insert(&words);
        self.count += 1;
        let height = self.open.height;
        let count = self.count;
        let full = count >= capacity_unchecked(self.open.b);
        if full {
            self.full_at = Some(self.now);
            self.seal(self.now, false)?;
        }
        Ok(Inserted {
            height,
            count,
            sealed: full,
        })
    }

    /// Inserts a typed element of this sequence's kind.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`kind`) if the element is of another kind; as
    /// [`insert`](Self::insert).
    pub fn insert_element(&mut self, element: &Element<'_>) -> Result<Inserted, S::Error> {
        if element.kind() != self.config.kind {
            return Err(Error::invalid(
                "kind",
                format!(
                    "a {} element does not go into the {} sequence",
                    element.kind(),
                    self.config.kind
                ),
            )
            .into());
        }
        self.insert(&element.hash())
    }

    /// The `GetFiltersInfoResponse` for this kind, as of now.
    ///
    /// # Errors
    /// As [`tick`](Self::tick).
    pub fn info(&mut self) -> Result<FiltersInfo, S::Error> {
        self.tick()?;
        let mut blocks = Vec::with_capacity(self.sealed.len() + 1);
        blocks.extend_from_slice(&self.sealed);
        blocks.push(BlockInterval {
            start: self.open.start,
            end: None,
        });
        Ok(FiltersInfo {
            b: self.open.b,
            timeout: self.open.timeout,
            open_interval: self.config.open_interval,
            blocks,
        })
    }

    /// The block at `height` as served now: a sealed block's bytes, or the open block's
    /// snapshot; `None` (error 40001) above the open height, and at it when there is no
    /// open interval.
    ///
    /// # Errors
    /// As [`tick`](Self::tick); [`Error::Corrupt`] if the store lost a sealed block.
    pub fn block(&mut self, height: u64) -> Result<Option<Served<'_>>, S::Error> {
        self.tick()?;
        if height < self.open.height {
            return match self.store.sealed(self.config.kind, height)? {
                Some(bytes) => Ok(Some(Served::Sealed(bytes))),
                None => Err(Error::corrupt(
                    0,
                    format!("the store lost sealed {} block {height}", self.config.kind),
                )
                .into()),
            };
        }
        Ok(self
            .snapshot
            .as_ref()
            .filter(|_| height == self.open.height)
            .map(Served::Open))
    }

    /// Seals the open block with `end`, folded if asked, and opens the next one at `end`.
    fn seal(&mut self, end: u64, fold: bool) -> Result<(), S::Error> {
        let b = if fold {
            smallest_b(self.count).map_or(self.open.b, |s| s.min(self.open.b))
        } else {
            self.open.b
        };
        let folded = if b < self.open.b {
            Some(self.bitmap.fold(b)?)
        } else {
            None
        };
        let next = OpenHeader {
            height: self.open.height + 1,
            start: end,
            b: self.config.b,
            timeout: self.config.timeout,
        };
        let fresh = Block::new(next.b)?;
        let empty = self
            .config
            .open_interval
            .map(|_| Block::new(next.b))
            .transpose()?;
        let sealed = SealedBlock {
            height: self.open.height,
            start: self.open.start,
            end,
            bytes: folded.as_ref().unwrap_or(&self.bitmap).as_bytes(),
        };
        self.store.seal(self.config.kind, &sealed, &next)?;
        self.sealed.push(BlockInterval {
            start: self.open.start,
            end: Some(end),
        });
        self.open = next;
        self.count = 0;
        self.bitmap = fresh;
        self.full_at = None;
        self.snapshot = empty.map(|block| Snapshot::new(next.height, next.start, 0, block));
        Ok(())
    }

    /// Takes the snapshot of the latest boundary `start + k·interval` ≤ now, if it is newer
    /// than the one held. Every insertion passes here first, so the bitmap holds exactly the
    /// insertions made before that boundary.
    fn refresh(&mut self, now: u64) -> Result<(), S::Error> {
        let Some(interval) = self.config.open_interval else {
            self.snapshot = None;
            return Ok(());
        };
        let start = self.open.start;
        let boundary = start + (now.saturating_sub(start) / interval) * interval;
        if let Some(s) = &self.snapshot {
            if s.height == self.open.height && s.taken_at >= boundary {
                return Ok(());
            }
        }
        let record = SnapshotRecord {
            taken_at: boundary,
            count: self.count,
        };
        let block = self.bitmap.clone();
        self.store
            .snapshot(self.config.kind, self.open.height, &record)?;
        self.snapshot = Some(Snapshot::new(self.open.height, boundary, self.count, block));
        Ok(())
    }
}
