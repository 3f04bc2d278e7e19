//! [`RedbStore`]: the [`Store`] in one redb file (`DIR/amq.redb`).
//!
//! redb is a pure-Rust embedded key-value store with ACID transactions: a commit with
//! `Durability::Immediate` (its default) returns after the data and the new root are fsync'd,
//! and a crash at any point leaves the last committed state (copy-on-write B-trees with a
//! checksummed commit slot). The file is locked while open, so two servers cannot share it.

use super::{Store, StoreError, Write};
use redb::{Database, TableDefinition};
use std::path::Path;

const TABLE: TableDefinition<'static, &[u8], &[u8]> = TableDefinition::new("amq");

/// A [`Store`] in `DIR/amq.redb`.
#[derive(Debug)]
pub struct RedbStore {
    db: Database,
}

fn err(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

impl RedbStore {
    /// Opens (or creates) the store in directory `dir`, creating the directory if needed.
    ///
    /// # Errors
    /// The directory cannot be created, the file cannot be opened (another server holds it),
    /// or it is not a redb file.
    pub fn open(dir: &Path) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| err(format!("{}: {e}", dir.display())))?;
        let path = dir.join("amq.redb");
        let db = Database::create(&path).map_err(|e| err(format!("{}: {e}", path.display())))?;
        let tx = db.begin_write().map_err(err)?;
        tx.open_table(TABLE).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(RedbStore { db })
    }
}

impl Store for RedbStore {
    fn commit(&self, writes: &[Write]) -> Result<(), StoreError> {
        let tx = self.db.begin_write().map_err(err)?;
        {
            let mut table = tx.open_table(TABLE).map_err(err)?;
            for w in writes {
                match w {
                    Write::Put(k, v) => {
                        table.insert(k.as_slice(), v.as_slice()).map_err(err)?;
                    }
                    Write::DeleteRange(a, b) => {
                        table
                            .retain_in(a.as_slice()..b.as_slice(), |_, _| false)
                            .map_err(err)?;
                    }
                }
            }
        }
        tx.commit().map_err(err)
    }

    fn scan(&self, prefix: &[u8]) -> Result<super::Rows, StoreError> {
        let tx = self.db.begin_read().map_err(err)?;
        let table = tx.open_table(TABLE).map_err(err)?;
        let end = super::prefix_end(prefix);
        let mut out = Vec::new();
        for row in table.range(prefix..end.as_slice()).map_err(err)? {
            let (k, v) = row.map_err(err)?;
            out.push((k.value().to_vec(), v.value().to_vec()));
        }
        Ok(out)
    }

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let tx = self.db.begin_read().map_err(err)?;
        let table = tx.open_table(TABLE).map_err(err)?;
        Ok(table.get(key).map_err(err)?.map(|v| v.value().to_vec()))
    }
}
