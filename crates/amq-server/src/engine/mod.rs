//! The engine: the filters and Cashu keysets in memory, and the one committer thread that
//! changes them.
//!
//! Every change goes through the committer as a job. It takes all the jobs waiting, writes
//! their records in one store commit (group commit: one fsync for many requests and many
//! items), and only then applies them to the in-memory filters, in order, each under the
//! filter's write lock. So a change is on disk before anyone can see it, writes to one filter
//! are serialised, and reads (under read locks) run concurrently and never see half of one.
//!
//! On disk, each filter is a snapshot (its `.amq` bytes and the sequence number of the last
//! change they include) and a log of change records after it (see [`record`]); when a log
//! outgrows its filter the committer writes a new snapshot and drops the log before it.

mod committer;
pub mod keys;
mod load;
pub mod record;

use crate::error::ApiError;
use crate::store::{Store, StoreError};
use amq::formats::cashu::CashuHash;
use amq::AnyFilter;
use record::{Items, Outcome, Tag};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use tokio::sync::{mpsc, oneshot};

/// Seconds since the Unix epoch, by the server's clock.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// A filter served under a name.
#[derive(Debug)]
pub struct FilterEntry {
    /// The filter; the committer alone takes the write lock.
    pub filter: RwLock<AnyFilter>,
    /// The sequence number the next change record gets.
    next_seq: AtomicU64,
    /// Bytes of change records since the last snapshot.
    log_bytes: AtomicU64,
    /// The filter's payload bytes, as of its last change (the growing kinds change size:
    /// the scalable Bloom and expandable cuckoo filters' links, the sliding-window kinds'
    /// archive and epochs).
    pub size: AtomicU64,
    /// Set when the filter has been deleted (a snapshot due must not be written).
    deleted: AtomicBool,
}

impl FilterEntry {
    fn new(filter: AnyFilter, next_seq: u64) -> Self {
        let size = filter.size_bytes();
        FilterEntry {
            filter: RwLock::new(filter),
            next_seq: AtomicU64::new(next_seq),
            log_bytes: AtomicU64::new(0),
            size: AtomicU64::new(size),
            deleted: AtomicBool::new(false),
        }
    }

    /// Runs `f` on the filter under its read lock, with the time set for the kinds that read
    /// one (the aging filter, the negative cache, the TTL cuckoo filter).
    pub fn read<T>(&self, f: impl FnOnce(&AnyFilter) -> T) -> T {
        let guard = self.filter.read().unwrap_or_else(|e| e.into_inner());
        if guard.reads_clock() {
            guard.set_now(unix_now());
        }
        f(&guard)
    }
}

/// How a keyset hashes items and sizes its Golomb-coded sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeysetSettings {
    /// The item hash.
    pub hash: CashuHash,
    /// P, the Golomb-Rice remainder bits.
    pub p: u8,
    /// M, the inverse false-positive rate.
    pub m: u64,
}

/// The items of one set of a keyset, concatenated.
#[derive(Debug, Default, Clone)]
pub struct ItemSet {
    data: Vec<u8>,
    ends: Vec<usize>,
    /// Bumped by every change (the cached filter is rebuilt when it differs).
    pub version: u64,
}

impl ItemSet {
    fn extend(&mut self, items: record::ItemIter<'_>) {
        for item in items {
            self.data.extend_from_slice(item);
            self.ends.push(self.data.len());
        }
        self.version += 1;
    }

    /// The items in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let item = &self.data[start..end];
            start = end;
            item
        })
    }

    /// The number of items (duplicates included).
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// `true` if there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// Which set of a keyset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetKind {
    /// The `Y`s of spent notes.
    Spent,
    /// The blind signatures `B_`.
    Issued,
}

/// A filter response built from a set, cached with its timestamp.
#[derive(Debug, Clone)]
pub struct Cached {
    /// The set's version it was built from.
    pub version: u64,
    /// Its timestamp (seconds since the Unix epoch).
    pub timestamp: u64,
    /// The response body.
    pub body: axum::body::Bytes,
}

/// A Cashu keyset: its settings, its spent and issued sets, and their cached filters.
#[derive(Debug)]
pub struct KeysetEntry {
    /// How it hashes and sizes.
    pub settings: KeysetSettings,
    /// The spent and issued items.
    pub sets: RwLock<[ItemSet; 2]>,
    next_seq: AtomicU64,
    /// The cached responses of the spent and issued filters.
    pub cache: [tokio::sync::Mutex<Option<Cached>>; 2],
}

impl KeysetEntry {
    fn new(settings: KeysetSettings) -> Self {
        KeysetEntry {
            settings,
            sets: RwLock::new([ItemSet::default(), ItemSet::default()]),
            next_seq: AtomicU64::new(0),
            cache: [tokio::sync::Mutex::new(None), tokio::sync::Mutex::new(None)],
        }
    }
}

/// What the handlers read and the committer changes.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    pub filters: RwLock<HashMap<String, Arc<FilterEntry>>>,
    pub keysets: RwLock<HashMap<String, Arc<KeysetEntry>>>,
    /// Commits the store made, since the process started.
    pub commits: AtomicU64,
    /// Commits the store refused (each a 503 for the requests it carried).
    pub commit_failures: AtomicU64,
}

type Reply<T> = oneshot::Sender<Result<T, ApiError>>;

/// A change for the committer.
pub(crate) enum Job {
    CreateFilter {
        name: String,
        filter: Box<AnyFilter>,
        replace: bool,
        reply: Reply<()>,
    },
    DeleteFilter {
        name: String,
        reply: Reply<()>,
    },
    Change {
        name: String,
        record: Vec<u8>,
        reply: Reply<Outcome>,
    },
    CreateKeyset {
        id: String,
        settings: KeysetSettings,
        reply: Reply<()>,
    },
    KeysetItems {
        id: String,
        record: Vec<u8>,
        reply: Reply<usize>,
    },
    /// Fold every filter's log into a snapshot; the answer is how many were folded.
    FoldLogs {
        reply: Reply<usize>,
    },
}

/// The filters and keysets, and the way to change them.
#[derive(Debug)]
pub struct Engine {
    shared: Arc<Shared>,
    jobs: mpsc::Sender<Job>,
}

impl Job {
    /// `true` once the request that sent the job has stopped waiting for its answer (it
    /// timed out).
    fn requester_gone(&self) -> bool {
        match self {
            Job::CreateFilter { reply, .. }
            | Job::DeleteFilter { reply, .. }
            | Job::CreateKeyset { reply, .. } => reply.is_closed(),
            Job::Change { reply, .. } => reply.is_closed(),
            Job::KeysetItems { reply, .. } | Job::FoldLogs { reply } => reply.is_closed(),
        }
    }
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job")
    }
}

fn gone<T>(_: T) -> ApiError {
    ApiError::storage("the committer has stopped")
}

impl Engine {
    /// Loads every filter and keyset from `store` (replaying the logs) and starts the
    /// committer thread.
    ///
    /// # Errors
    /// The store failed or holds records this version cannot read.
    pub fn open(store: Arc<dyn Store>) -> Result<Engine, StoreError> {
        let shared = Arc::new(load::load(store.as_ref())?);
        let (tx, rx) = mpsc::channel(4096);
        let committer = committer::Committer::new(store, shared.clone(), rx);
        std::thread::Builder::new()
            .name("amq-committer".into())
            .spawn(move || committer.run())
            .map_err(|e| StoreError(format!("cannot start the committer: {e}")))?;
        Ok(Engine { shared, jobs: tx })
    }

    async fn submit<T>(&self, job: impl FnOnce(Reply<T>) -> Job) -> Result<T, ApiError> {
        let (tx, rx) = oneshot::channel();
        self.jobs.send(job(tx)).await.map_err(gone)?;
        rx.await.map_err(gone)?
    }

    /// Creates a filter (`replace`: or replaces the one of that name); durable on return.
    ///
    /// # Errors
    /// 409 if the name exists and not `replace`; 503 if the store failed.
    pub async fn create_filter(
        &self,
        name: &str,
        filter: AnyFilter,
        replace: bool,
    ) -> Result<(), ApiError> {
        let name = name.to_owned();
        self.submit(|reply| Job::CreateFilter {
            name,
            filter: Box::new(filter),
            replace,
            reply,
        })
        .await
    }

    /// Deletes a filter; durable on return.
    ///
    /// # Errors
    /// 404 if there is none of that name.
    pub async fn delete_filter(&self, name: &str) -> Result<(), ApiError> {
        let name = name.to_owned();
        self.submit(|reply| Job::DeleteFilter { name, reply }).await
    }

    async fn change(&self, name: &str, record: Vec<u8>) -> Result<Outcome, ApiError> {
        let name = name.to_owned();
        self.submit(|reply| Job::Change {
            name,
            record,
            reply,
        })
        .await
    }

    /// Inserts items into a filter, each only while the filter stays within
    /// `max_filter_bytes`; durable, then visible, on return.
    ///
    /// # Errors
    /// 404 no such filter; 409 the filter is full, 422 an item would take a growing filter
    /// over `max_filter_bytes` (the items before stay in, nothing of the rest is allocated).
    pub async fn insert(
        &self,
        name: &str,
        items: Items,
        max_filter_bytes: u64,
    ) -> Result<Outcome, ApiError> {
        self.change(name, items.into_insert_record(max_filter_bytes))
            .await
    }

    /// Removes an item from a filter.
    ///
    /// # Errors
    /// 404 no such filter; 409 a kind that cannot delete.
    pub async fn remove(&self, name: &str, item: &[u8]) -> Result<Outcome, ApiError> {
        self.change(name, record::record(Tag::Remove, &[item]))
            .await
    }

    /// Slashes a member of a sliding-window cuckoo filter at its epoch.
    ///
    /// # Errors
    /// 404 no such filter; 409 a kind that has no epochs.
    pub async fn slash(&self, name: &str, item: &[u8], epoch: u64) -> Result<Outcome, ApiError> {
        self.change(name, record::slash(item, epoch)).await
    }

    /// Closes a sliding-window cuckoo filter's open epoch early.
    ///
    /// # Errors
    /// 404 no such filter; 409 a kind that has no epochs.
    pub async fn close_epoch(&self, name: &str) -> Result<Outcome, ApiError> {
        self.change(name, record::record(Tag::Close, &[])).await
    }

    /// Merges another filter's `.amq` bytes into a filter.
    ///
    /// # Errors
    /// 404 no such filter; 409 kinds or shapes that do not match.
    pub async fn merge(&self, name: &str, other: &[u8]) -> Result<Outcome, ApiError> {
        self.change(name, record::record(Tag::Merge, &[other]))
            .await
    }

    /// Folds the log of every filter that has one into a new snapshot (`amq serve` does this
    /// when it stops, so that the next start, maybe of another version, replays no record);
    /// durable on return. The answer: how many filters' logs were folded.
    ///
    /// # Errors
    /// 503 if the store failed (the logs stay, and are replayed at the next start).
    pub async fn fold_logs(&self) -> Result<usize, ApiError> {
        self.submit(|reply| Job::FoldLogs { reply }).await
    }

    /// Creates a Cashu keyset; durable on return.
    ///
    /// # Errors
    /// 409 if it exists.
    pub async fn create_keyset(&self, id: &str, settings: KeysetSettings) -> Result<(), ApiError> {
        let id = id.to_owned();
        self.submit(|reply| Job::CreateKeyset {
            id,
            settings,
            reply,
        })
        .await
    }

    /// Adds items to a keyset's spent or issued set; durable, then visible, on return.
    ///
    /// # Errors
    /// 404 no such keyset.
    pub async fn keyset_items(
        &self,
        id: &str,
        set: SetKind,
        items: Items,
    ) -> Result<usize, ApiError> {
        let tag = match set {
            SetKind::Spent => Tag::Spent,
            SetKind::Issued => Tag::Issued,
        };
        let id = id.to_owned();
        let record = items.into_record(tag);
        self.submit(|reply| Job::KeysetItems { id, record, reply })
            .await
    }

    /// The filter of that name.
    pub fn filter(&self, name: &str) -> Option<Arc<FilterEntry>> {
        read(&self.shared.filters).get(name).cloned()
    }

    /// The store's commits since the process started: (made, refused).
    pub fn commit_counts(&self) -> (u64, u64) {
        (
            self.shared.commits.load(Ordering::Relaxed),
            self.shared.commit_failures.load(Ordering::Relaxed),
        )
    }

    /// Every filter, by name.
    pub fn filters(&self) -> Vec<(String, Arc<FilterEntry>)> {
        let mut all: Vec<_> = read(&self.shared.filters)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// The keyset of that id.
    pub fn keyset(&self, id: &str) -> Option<Arc<KeysetEntry>> {
        read(&self.shared.keysets).get(id).cloned()
    }
}

/// A read lock that survives a poisoned lock (the data is only changed by the committer,
/// which applies a change completely or not at all).
pub(crate) fn read<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn write<T>(l: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|e| e.into_inner())
}

impl FilterEntry {
    pub(crate) fn mark_deleted(&self) {
        self.deleted.store(true, Ordering::Relaxed);
    }
}
