//! Opening the store: every filter from its snapshot and the log after it, every keyset
//! from its settings and its batches of items.

use super::committer::apply_keyset;
use super::keys::{self, Key};
use super::{record, FilterEntry, KeysetEntry, Shared};
use crate::store::{Store, StoreError};
use amq::AnyFilter;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

type Logs = Vec<(u64, Vec<u8>)>;

fn corrupt(what: impl std::fmt::Display) -> StoreError {
    StoreError(format!("the store holds {what}"))
}

/// Reads everything back.
pub(super) fn load(store: &dyn Store) -> Result<Shared, StoreError> {
    let shared = Shared::default();

    let mut filters: BTreeMap<String, (Option<Vec<u8>>, Logs)> = BTreeMap::new();
    for (k, v) in store.scan(b"f/")? {
        match keys::parse(&k, b"f/", b's') {
            Some(Key::Head(name)) => filters.entry(name.to_owned()).or_default().0 = Some(v),
            Some(Key::Log(name, seq)) => {
                filters.entry(name.to_owned()).or_default().1.push((seq, v))
            }
            None => {
                return Err(corrupt(format!(
                    "an unknown key {:?}",
                    String::from_utf8_lossy(&k)
                )))
            }
        }
    }
    for (name, (snapshot, logs)) in filters {
        let snapshot =
            snapshot.ok_or_else(|| corrupt(format!("a log without a snapshot for {name:?}")))?;
        let (seq, amq) = keys::decode_snapshot(&snapshot)
            .ok_or_else(|| corrupt(format!("a short snapshot for {name:?}")))?;
        let mut filter = AnyFilter::from_bytes(amq)
            .map_err(|e| corrupt(format!("a snapshot of {name:?} that does not decode: {e}")))?;
        let mut next = seq;
        let mut log_bytes = 0;
        for (s, rec) in logs {
            if s < seq {
                continue; // folded into the snapshot already
            }
            if s != next {
                return Err(corrupt(format!("a gap in the log of {name:?} at {next}")));
            }
            if record::parse(&rec).is_none() {
                return Err(corrupt(format!("a corrupt record {s} for {name:?}")));
            }
            // a refusal (a full cuckoo filter) happened the same way when it was served
            let _ = record::apply(&mut filter, &rec);
            log_bytes += rec.len() as u64;
            next = s + 1;
        }
        let entry = FilterEntry::new(filter, next);
        entry.log_bytes.store(log_bytes, Ordering::Relaxed);
        super::write(&shared.filters).insert(name, Arc::new(entry));
    }

    let mut keysets: BTreeMap<String, (Option<Vec<u8>>, Logs)> = BTreeMap::new();
    for (k, v) in store.scan(b"c/")? {
        match keys::parse(&k, b"c/", b'm') {
            Some(Key::Head(id)) => keysets.entry(id.to_owned()).or_default().0 = Some(v),
            Some(Key::Log(id, seq)) => keysets.entry(id.to_owned()).or_default().1.push((seq, v)),
            None => {
                return Err(corrupt(format!(
                    "an unknown key {:?}",
                    String::from_utf8_lossy(&k)
                )))
            }
        }
    }
    for (id, (meta, logs)) in keysets {
        let settings = meta
            .as_deref()
            .and_then(keys::decode_settings)
            .ok_or_else(|| corrupt(format!("no readable settings for keyset {id:?}")))?;
        let entry = KeysetEntry::new(settings);
        let mut next = 0;
        for (s, rec) in logs {
            if s != next {
                return Err(corrupt(format!(
                    "a gap in the log of keyset {id:?} at {next}"
                )));
            }
            apply_keyset(&entry, &rec)
                .map_err(|e| corrupt(format!("keyset {id:?}: {}", e.message)))?;
            next = s + 1;
        }
        entry.next_seq.store(next, Ordering::Relaxed);
        super::write(&shared.keysets).insert(id, Arc::new(entry));
    }
    Ok(shared)
}
