//! The store: a sorted map of byte keys to byte values whose writes commit atomically and
//! durably. [`RedbStore`] keeps it in one redb file; [`MemoryStore`] in memory, for tests.
//!
//! The server keeps in it, for each filter, a snapshot (the `.amq` bytes and the sequence
//! number of the last change they include) and a log of the changes since; for each Cashu
//! keyset, its settings and the batches of items added to it.

mod redb;

pub use self::redb::RedbStore;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Mutex;

/// One write of a [`Store::commit`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
    /// Sets a key's value.
    Put(Vec<u8>, Vec<u8>),
    /// Removes every key in `start..end`.
    DeleteRange(Vec<u8>, Vec<u8>),
}

impl Write {
    /// Removes every key that starts with `prefix`.
    pub fn delete_prefix(prefix: &[u8]) -> Write {
        Write::DeleteRange(prefix.to_vec(), prefix_end(prefix))
    }

    /// Removes one key.
    pub fn delete(key: &[u8]) -> Write {
        let mut end = key.to_vec();
        end.push(0);
        Write::DeleteRange(key.to_vec(), end)
    }

    /// The bytes this write carries (for sizing group commits).
    pub fn len(&self) -> usize {
        match self {
            Write::Put(k, v) => k.len() + v.len(),
            Write::DeleteRange(a, b) => a.len() + b.len(),
        }
    }

    /// `true` if the write carries no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The first key after every key that starts with `prefix` (`prefix` must not be all `0xff`).
pub fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0xff; prefix.len() + 1]
}

/// Keys and values in key order, as [`Store::scan`] returns them.
pub type Rows = Vec<(Vec<u8>, Vec<u8>)>;

/// A store error: the disk or the database failed (never the client's fault).
#[derive(Debug)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "storage: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

/// A sorted map of byte keys to byte values with atomic, durable batches of writes.
pub trait Store: Send + Sync + std::fmt::Debug + 'static {
    /// Applies `writes` in order, all or none; when it returns `Ok` they are on disk
    /// (fsync'd) and survive a crash.
    ///
    /// # Errors
    /// The disk or the database failed; then none of the writes happened.
    fn commit(&self, writes: &[Write]) -> Result<(), StoreError>;

    /// Every key that starts with `prefix` and its value, in key order.
    ///
    /// # Errors
    /// The disk or the database failed.
    fn scan(&self, prefix: &[u8]) -> Result<Rows, StoreError>;

    /// One key's value.
    ///
    /// # Errors
    /// The disk or the database failed.
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError>;
}

/// A [`Store`] in memory: nothing survives the process (for tests and `--data` less runs).
#[derive(Debug, Default)]
pub struct MemoryStore {
    map: Mutex<BTreeMap<Vec<u8>, Vec<u8>>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Store for MemoryStore {
    fn commit(&self, writes: &[Write]) -> Result<(), StoreError> {
        let mut map = self.map.lock().map_err(|_| StoreError("poisoned".into()))?;
        for w in writes {
            match w {
                Write::Put(k, v) => {
                    map.insert(k.clone(), v.clone());
                }
                Write::DeleteRange(a, b) => {
                    let doomed: Vec<Vec<u8>> = map
                        .range(a.clone()..b.clone())
                        .map(|(k, _)| k.clone())
                        .collect();
                    for k in doomed {
                        map.remove(&k);
                    }
                }
            }
        }
        Ok(())
    }

    fn scan(&self, prefix: &[u8]) -> Result<Rows, StoreError> {
        let map = self.map.lock().map_err(|_| StoreError("poisoned".into()))?;
        Ok(map
            .range(prefix.to_vec()..prefix_end(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let map = self.map.lock().map_err(|_| StoreError("poisoned".into()))?;
        Ok(map.get(key).cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise(s: &dyn Store) {
        s.commit(&[
            Write::Put(b"a/1".to_vec(), b"x".to_vec()),
            Write::Put(b"a/2".to_vec(), b"y".to_vec()),
            Write::Put(b"b/1".to_vec(), b"z".to_vec()),
        ])
        .unwrap();
        assert_eq!(s.scan(b"a/").unwrap().len(), 2);
        assert_eq!(s.get(b"a/2").unwrap(), Some(b"y".to_vec()));
        s.commit(&[Write::delete(b"a/2")]).unwrap();
        assert_eq!(s.get(b"a/2").unwrap(), None);
        assert_eq!(s.get(b"a/1").unwrap(), Some(b"x".to_vec()));
        s.commit(&[Write::delete_prefix(b"a/")]).unwrap();
        assert!(s.scan(b"a/").unwrap().is_empty());
        assert_eq!(s.scan(b"").unwrap(), vec![(b"b/1".to_vec(), b"z".to_vec())]);
    }

    #[test]
    fn memory_store_puts_scans_and_deletes_ranges() {
        exercise(&MemoryStore::new());
    }

    #[test]
    fn redb_store_puts_scans_deletes_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        {
            let s = RedbStore::open(dir.path()).unwrap();
            exercise(&s);
        }
        let s = RedbStore::open(dir.path()).unwrap();
        assert_eq!(s.scan(b"b/").unwrap().len(), 1);
    }

    #[test]
    fn prefix_end_is_the_next_key() {
        assert_eq!(prefix_end(b"a/"), b"a0".to_vec());
        assert_eq!(prefix_end(&[1, 0xff]), vec![2]);
    }
}
