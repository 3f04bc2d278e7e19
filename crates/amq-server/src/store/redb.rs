//! [`RedbStore`]: the [`Store`] in one redb file (`DIR/amq.redb`).
//!
//! redb is a pure-Rust embedded key-value store with ACID transactions: a commit with
//! `Durability::Immediate` (its default) returns after the data and the new root are fsync'd,
//! and a crash at any point leaves the last committed state (copy-on-write B-trees with a
//! checksummed commit slot). Commits are two-phase (see `open_db`). The file is locked
//! while open, so two servers cannot share it.
//!
//! After an I/O error (a full disk, say) redb refuses every later transaction ("Previous I/O
//! error occurred") until the database is opened again. The store reopens it at once, which
//! puts it back at its last commit (the state the server holds, since a failed commit changes
//! nothing), so each later write reports its own cause and writes go through again once the
//! disk has room.

use super::{Store, StoreError, Write};
use redb::{Database, TableDefinition};
use std::path::{Path, PathBuf};
use std::sync::{RwLock, RwLockReadGuard};

const TABLE: TableDefinition<'static, &[u8], &[u8]> = TableDefinition::new("amq");

/// A [`Store`] in `DIR/amq.redb`.
#[derive(Debug)]
pub struct RedbStore {
    path: PathBuf,
    /// The open database; `None` after a reopen failed, until the next one succeeds.
    db: RwLock<Option<Database>>,
    /// `amq.lock` in the store's directory, locked (`flock`) for the store's life. redb's
    /// own lock on `amq.redb` lapses while the database is reopened after an I/O error, and
    /// another server started then would take the store and acknowledge writes that this
    /// one's next commit overwrites.
    _lock: std::fs::File,
}

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

/// Opens (or creates) the database at `path` with its one table.
///
/// A file that exists but is empty is refused (redb would make a fresh store of it: a store
/// whose bytes were lost would come back empty without a word). A file redb cannot open
/// (truncated below its header's layout, say; redb 2.6 asserts there) is an error, not a
/// panic. After an unclean stop redb verifies the latest commit: every commit is written in
/// two phases, so a latest commit that does not verify was damaged after it was
/// acknowledged, and redb refuses the file ("Primary is corrupted despite 2-phase commit")
/// where a one-phase commit would roll back to the one before without a word. A store
/// last written by an older amq (one-phase commits) may still be rolled back: that is said
/// on standard error.
fn open_db(path: &Path) -> Result<Database, StoreError> {
    let at = |e: &dyn std::fmt::Display| err(format!("{}: {e}", path.display()));
    if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0) {
        return Err(at(
            &"the store file is empty (0 bytes): a store that never committed, \
             or one whose bytes were lost; restore it from a backup, or remove it to start an \
             empty store",
        ));
    }
    let shown = path.display().to_string();
    let open = move || {
        redb::Builder::new()
            .set_repair_callback(move |session| {
                // progress 0.3 is the step that rolls a latest commit that does not verify
                // back to the one before (redb 2.6 db.rs, do_repair)
                if (session.progress() - 0.3).abs() < 1e-9 {
                    eprintln!(
                        "amq serve: {shown}: the latest commit does not verify and is rolled \
                         back to the one before: it was a one-phase commit being written when \
                         the server stopped (nothing acknowledged is lost), or the file was \
                         damaged since (what that commit acknowledged is lost)"
                    );
                }
            })
            .create(path)
    };
    let db = match without_panic_message(open) {
        Ok(Err(e @ redb::DatabaseError::Storage(redb::StorageError::Corrupted(_)))) => {
            return Err(at(&format!(
                "{e}: the file was damaged after its last commit was written; restore it from \
                 a backup"
            )))
        }
        Ok(result) => result.map_err(|e| at(&e))?,
        Err(_) => return Err(at(
            &"redb cannot open it (truncated or corrupt: redb stopped on an assertion); restore \
                 it from a backup",
        )),
    };
    let mut tx = db.begin_write().map_err(err)?;
    tx.set_two_phase_commit(true);
    tx.open_table(TABLE).map_err(err)?;
    tx.commit().map_err(err)?;
    Ok(db)
}

/// Runs `f`, catching a panic and keeping its message (and backtrace) off standard error for
/// this thread only: a panic on another thread meanwhile still goes to the hook it had.
fn without_panic_message<T>(f: impl FnOnce() -> T + std::panic::UnwindSafe) -> Result<T, ()> {
    use std::sync::Arc;
    let me = std::thread::current().id();
    let previous: Arc<dyn Fn(&std::panic::PanicHookInfo<'_>) + Send + Sync> =
        Arc::from(std::panic::take_hook());
    let others = previous.clone();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() != me {
            others(info)
        }
    }));
    let result = std::panic::catch_unwind(f);
    std::panic::set_hook(Box::new(move |info| previous(info)));
    result.map_err(|_| ())
}

/// fsyncs directory `dir`, so that an entry just made in it (a file, a directory) survives a
/// power loss.
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| err(format!("{}: {e}", dir.display())))
}

/// Creates `amq.lock` in `dir` if needed and locks it (`flock`, std's `File::try_lock`),
/// for as long as the returned file is open.
fn lock_store(dir: &Path) -> Result<std::fs::File, StoreError> {
    let path = dir.join("amq.lock");
    let at = |e: &dyn std::fmt::Display| err(format!("{}: {e}", path.display()));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| at(&e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(at(
            &"another process holds this store (an amq serve running on the same directory)",
        )),
        Err(std::fs::TryLockError::Error(e)) => Err(at(&e)),
    }
}

impl RedbStore {
    /// Opens (or creates) the store in directory `dir`, creating the directory if needed.
    ///
    /// # Errors
    /// `dir` is not a directory, it cannot be created, another process holds its lock file
    /// (`amq.lock`) or the redb file, the file cannot be opened, or it is not a redb file.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        // create_dir_all says only "File exists" of a file in the way
        if dir.exists() && !dir.is_dir() {
            return Err(err(format!(
                "{}: not a directory (the store is a directory, which holds amq.redb)",
                dir.display()
            )));
        }
        let made_dir = !dir.exists();
        std::fs::create_dir_all(dir).map_err(|e| err(format!("{}: {e}", dir.display())))?;
        let lock = lock_store(dir)?;
        let path = dir.join("amq.redb");
        let made_file = !path.exists();
        let db = open_db(&path)?;
        // the entries just made must outlive a power loss as the first commit does
        if made_file {
            sync_dir(dir)?;
        }
        if made_dir {
            // a relative name of one component has the parent "", which is "."
            match dir.parent() {
                Some(p) if !p.as_os_str().is_empty() => sync_dir(p)?,
                _ if dir.is_relative() => sync_dir(Path::new("."))?,
                _ => {}
            }
        }
        Ok(RedbStore {
            path,
            db: RwLock::new(Some(db)),
            _lock: lock,
        })
    }

    /// Runs `f` on the open database (reopening it first if a reopen failed before); after an
    /// I/O error, reopens it for the next call.
    fn with_db<T>(
        &self,
        f: impl FnOnce(&Database) -> Result<T, redb::Error>,
    ) -> Result<T, StoreError> {
        let result = {
            let guard = self.open_guard()?;
            let Some(db) = guard.as_ref() else {
                return Err(err("the store is closed"));
            };
            f(db)
        };
        result.map_err(|e| {
            if matches!(e, redb::Error::Io(_) | redb::Error::PreviousIo) {
                // the error stands either way; a failed reopen is retried by the next call
                match self.reopen() {
                    Ok(()) => eprintln!(
                        "amq serve: storage error ({e}); the store was reopened at its last commit"
                    ),
                    Err(r) => eprintln!("amq serve: storage error ({e}); {r}"),
                }
            }
            err(e)
        })
    }

    /// A read guard on the database, reopened first if a reopen failed before.
    fn open_guard(&self) -> Result<RwLockReadGuard<'_, Option<Database>>, StoreError> {
        let poisoned = |_| err("the store's lock is poisoned");
        if self.db.read().map_err(poisoned)?.is_none() {
            self.reopen()?;
        }
        self.db.read().map_err(poisoned)
    }

    /// Closes the database and opens it again (redb repairs a file left dirty).
    fn reopen(&self) -> Result<(), StoreError> {
        let mut guard = self
            .db
            .write()
            .map_err(|_| err("the store's lock is poisoned"))?;
        // drop the old handle first: it holds the file's lock
        *guard = None;
        let db = open_db(&self.path)
            .map_err(|e| err(format!("reopening after an I/O error: {}", e.0)))?;
        *guard = Some(db);
        Ok(())
    }
}

// redb's own error (160 bytes) crosses one closure return per call; boxing it would cost
// every `?` a conversion for an error path taken only when the disk fails.
#[allow(clippy::result_large_err)]
impl Store for RedbStore {
    fn commit(&self, writes: &[Write]) -> Result<(), StoreError> {
        self.with_db(|db| {
            let mut tx = db.begin_write()?;
            // two fsyncs, not one: a latest commit that does not verify at the next start is
            // then damage, refused, not a half-written commit silently rolled back
            tx.set_two_phase_commit(true);
            {
                let mut table = tx.open_table(TABLE)?;
                for w in writes {
                    match w {
                        Write::Put(k, v) => {
                            table.insert(k.as_slice(), v.as_slice())?;
                        }
                        Write::DeleteRange(a, b) => {
                            table.retain_in(a.as_slice()..b.as_slice(), |_, _| false)?;
                        }
                    }
                }
            }
            tx.commit()?;
            Ok(())
        })
    }

    fn scan(&self, prefix: &[u8]) -> Result<super::Rows, StoreError> {
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let table = tx.open_table(TABLE)?;
            let end = super::prefix_end(prefix);
            let mut out = Vec::new();
            for row in table.range(prefix..end.as_slice())? {
                let (k, v) = row?;
                out.push((k.value().to_vec(), v.value().to_vec()));
            }
            Ok(out)
        })
    }

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.with_db(|db| {
            let tx = db.begin_read()?;
            let table = tx.open_table(TABLE)?;
            Ok(table.get(key)?.map(|v| v.value().to_vec()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A second store on the same directory is refused while the first is open, also while
    /// the first has no database open (as between the close and the open of a reopen after
    /// an I/O error, when redb's own lock on the file has lapsed).
    #[test]
    fn a_second_store_on_the_directory_is_refused_even_mid_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let first = RedbStore::open(dir.path()).unwrap();
        let e = RedbStore::open(dir.path()).err().unwrap();
        assert!(e.0.contains("another process holds this store"), "{}", e.0);
        *first.db.write().unwrap() = None;
        let e = RedbStore::open(dir.path()).err().unwrap();
        assert!(e.0.contains("another process holds this store"), "{}", e.0);
        first.reopen().unwrap();
        drop(first);
        RedbStore::open(dir.path()).unwrap();
    }
}
