//! The Cashu compact state filters (cashubtc/nuts PR #433, revision B) on the mint side: one
//! [`Sequence`] of Bloom blocks per configured kind, over the server's store
//! ([`StateStore`]), with an injectable clock ([`ServerClock`]).
//!
//! Every call here may write (a timeout seal, a snapshot at a refresh boundary), so the
//! handlers run them on the blocking pool.

mod store;

pub use store::{StateError, StateStore};

use crate::store::{Store, Write};
use amq::clock::{Clock, ManualClock, SystemClock};
use amq::formats::cashu_state::{
    FiltersInfo, Inserted, Kind, Sequence, SequenceConfig, Served, RECOMMENDED_TIMEOUT,
};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The key of the kinds the last run served: their names, comma-separated.
const SERVED: &[u8] = b"s/served";

/// The kinds the last run served; `None` for a store without the record.
fn served_kinds(store: &dyn Store) -> Result<Option<Vec<Kind>>, StateError> {
    let Some(v) = store.get(SERVED)? else {
        return Ok(None);
    };
    let text = std::str::from_utf8(&v)
        .map_err(|_| StateError::Lib(amq::Error::corrupt(0, "the served kinds are not text")))?;
    let kinds = (text.split(',').filter(|k| !k.is_empty()))
        .map(|k| k.parse::<Kind>())
        .collect::<Result<_, _>>()?;
    Ok(Some(kinds))
}

/// The NUT number the setting is advertised under in `GET /v1/info`: the spec's own
/// placeholder (`"nuts": {"XX": ...}`) until the NUT is numbered.
pub const NUT: &str = "XX";

/// The clock of the state filters: the system's, or one a test moves.
#[derive(Debug, Clone, Default)]
pub enum ServerClock {
    /// Seconds since the Unix epoch.
    #[default]
    System,
    /// A clock that moves only when told (tests).
    Manual(ManualClock),
}

impl Clock for ServerClock {
    fn now(&self) -> u64 {
        match self {
            ServerClock::System => SystemClock.now(),
            ServerClock::Manual(c) => c.now(),
        }
    }
}

/// Which kinds get a sequence, and how their blocks seal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateFiltersConfig {
    /// The kinds served and the width b of their blocks (none: the routes answer 40002).
    pub kinds: Vec<(Kind, u8)>,
    /// Seconds after which an unsaturated block seals (at least 3600).
    pub timeout: u64,
    /// Seconds between refreshes of the served open block; `None` serves no open block.
    pub open_interval: Option<u64>,
    /// Fold a block sealed on timeout to the smallest width that holds it.
    pub fold: bool,
    /// Kinds whose stored sequence is dropped and begun anew at height 0: the way back for
    /// a kind the last run did not serve (see [`StateFilters::open`]).
    pub restart: Vec<Kind>,
}

impl Default for StateFiltersConfig {
    fn default() -> Self {
        StateFiltersConfig {
            kinds: Vec::new(),
            timeout: RECOMMENDED_TIMEOUT,
            open_interval: Some(60),
            fold: true,
            restart: Vec::new(),
        }
    }
}

/// A block as served: its bytes, its ETag, and whether it is sealed (immutable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedBlock {
    /// The bitmap, 2^b / 8 bytes.
    pub bytes: Vec<u8>,
    /// Its ETag.
    pub etag: String,
    /// `true` for a sealed block, `false` for the open block's snapshot.
    pub sealed: bool,
}

type Seq = Sequence<StateStore, ServerClock>;

/// The sequences of the configured kinds.
#[derive(Debug)]
pub struct StateFilters {
    store: Arc<dyn Store>,
    clock: ServerClock,
    configs: BTreeMap<Kind, SequenceConfig>,
    seqs: Mutex<BTreeMap<Kind, Seq>>,
}

impl StateFilters {
    /// Opens (or begins) the sequence of every configured kind, and records the kinds served.
    ///
    /// **A kind the last run did not serve** has missed every event since, so its stored
    /// sequence cannot go on: its next blocks would present that time as covered (the spec,
    /// "Sequences": a mint MUST NOT present a sequence as covering events that occurred before
    /// it began maintaining it), and a wallet would read a proof spent then as unspent. Such a
    /// kind is refused unless it is in `restart`, which drops its blocks and begins it anew
    /// at height 0 (a wallet holding the old blocks notices the restart). A store written
    /// before this record existed has no last run to compare with: its sequences go on.
    ///
    /// # Errors
    /// A bad configuration (b outside 5..=26, a timeout below 3600, a kind given twice, a
    /// restart of a kind not served), a kind the last run did not serve, the store's errors.
    pub fn open(
        store: Arc<dyn Store>,
        config: &StateFiltersConfig,
        clock: ServerClock,
    ) -> Result<Self, StateError> {
        let invalid =
            |what: &'static str, why: String| StateError::Lib(amq::Error::invalid(what, why));
        if let Some(k) =
            (config.restart.iter()).find(|k| !config.kinds.iter().any(|(s, _)| s == *k))
        {
            return Err(invalid(
                "restart",
                format!("{k} is restarted but not served (--state-filter {k})"),
            ));
        }
        // every check before any write: a refused start leaves the store as it was
        let served_before = served_kinds(&*store)?;
        let mut configs = BTreeMap::new();
        for &(kind, b) in &config.kinds {
            if configs.contains_key(&kind) {
                // (the second width would serve the first's blocks under its own)
                return Err(invalid(
                    "kinds",
                    format!("{kind} is given twice: one width b per kind"),
                ));
            }
            let gap = served_before
                .as_ref()
                .is_some_and(|before| !before.contains(&kind));
            if gap && !config.restart.contains(&kind) && StateStore::holds_sequence(&*store, kind)?
            {
                return Err(invalid(
                    "kinds",
                    format!(
                        "{kind} has a stored sequence, but the last run did not serve it: the \
                         events since are not in it, and going on would present that time as \
                         covered. Begin it anew at height 0 with --state-filter-restart {kind} \
                         (its blocks are dropped)"
                    ),
                ));
            }
            let c = SequenceConfig {
                kind,
                b,
                timeout: config.timeout,
                open_interval: config.open_interval,
                fold: config.fold,
            };
            c.validate()?;
            configs.insert(kind, c);
        }
        let served: Vec<Kind> = configs.keys().copied().collect();
        let mut writes: Vec<Write> = (config.restart.iter())
            .map(|&k| Write::delete_prefix(&StateStore::prefix(k)))
            .collect();
        if served_before.unwrap_or_default() != served {
            let names: Vec<&str> = served.iter().map(|k| k.name()).collect();
            writes.push(Write::Put(SERVED.to_vec(), names.join(",").into_bytes()));
        }
        if !writes.is_empty() {
            store.commit(&writes)?;
        }
        let mut seqs = BTreeMap::new();
        for (&kind, &c) in &configs {
            let seq = Sequence::open(c, StateStore::new(store.clone(), kind), clock.clone())?;
            seqs.insert(kind, seq);
        }
        Ok(StateFilters {
            store,
            clock,
            configs,
            seqs: Mutex::new(seqs),
        })
    }

    /// The kinds served.
    pub fn kinds(&self) -> Vec<Kind> {
        self.configs.keys().copied().collect()
    }

    /// `true` if `kind` has a sequence here.
    pub fn serves(&self, kind: Kind) -> bool {
        self.configs.contains_key(&kind)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<Kind, Seq>> {
        self.seqs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Drops a sequence after a failed write: the next call reopens it from the store, so
    /// what the failed write left in memory is never served.
    fn reopen(&self, seqs: &mut BTreeMap<Kind, Seq>, kind: Kind) {
        seqs.remove(&kind);
        let _ = Self::get(self, seqs, kind);
    }

    /// The sequence of `kind` (reopened from the store if a failed write dropped it);
    /// `None` if the kind is not served.
    fn get<'a>(
        &self,
        seqs: &'a mut BTreeMap<Kind, Seq>,
        kind: Kind,
    ) -> Result<Option<&'a mut Seq>, StateError> {
        let Some(&config) = self.configs.get(&kind) else {
            return Ok(None);
        };
        Ok(Some(match seqs.entry(kind) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(v) => v.insert(Sequence::open(
                config,
                StateStore::new(self.store.clone(), kind),
                self.clock.clone(),
            )?),
        }))
    }

    /// The `GetFiltersInfoResponse` of `kind`; `None` if it is not served.
    ///
    /// # Errors
    /// The store's (a seal or snapshot that came due could not be written).
    pub fn info(&self, kind: Kind) -> Result<Option<FiltersInfo>, StateError> {
        let mut seqs = self.lock();
        let Some(seq) = self.get(&mut seqs, kind)? else {
            return Ok(None);
        };
        let r = seq.info();
        if r.is_err() {
            self.reopen(&mut seqs, kind);
        }
        r.map(Some)
    }

    /// The block of `kind` at `height` as served now; `None` if the kind is not served or
    /// the height is out of range (error 40001).
    ///
    /// # Errors
    /// The store's.
    pub fn block(&self, kind: Kind, height: u64) -> Result<Option<ServedBlock>, StateError> {
        let mut seqs = self.lock();
        let Some(seq) = self.get(&mut seqs, kind)? else {
            return Ok(None);
        };
        let served = match seq.block(height) {
            Ok(Some(Served::Sealed(bytes))) => Some(ServedBlock {
                etag: amq::formats::cashu_state::etag(&bytes),
                bytes,
                sealed: true,
            }),
            Ok(Some(Served::Open(snap))) => Some(ServedBlock {
                bytes: snap.as_bytes().to_vec(),
                etag: snap.etag().to_owned(),
                sealed: false,
            }),
            Ok(None) => None,
            Err(e) => {
                self.reopen(&mut seqs, kind);
                return Err(e);
            }
        };
        Ok(served)
    }

    /// Inserts elements in order, each into its kind's sequence, and writes them all before
    /// it returns (one commit per kind touched, plus any seal or snapshot that came due).
    /// Nothing is served from these sequences until then.
    ///
    /// # Errors
    /// A kind not served; the store's. The sequences are then reopened from the store, so
    /// they serve only what is on disk.
    pub fn insert(&self, changes: &[(Kind, [u8; 32])]) -> Result<Vec<Inserted>, StateError> {
        let mut seqs = self.lock();
        let mut out = Vec::with_capacity(changes.len());
        let mut touched: Vec<Kind> = Vec::new();
        let mut result = Ok(());
        for (kind, e) in changes {
            let seq = match self.get(&mut seqs, *kind) {
                Ok(Some(seq)) => seq,
                Ok(None) => {
                    result =
                        Err(amq::Error::invalid("kind", format!("no {kind} sequence here")).into());
                    break;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            if !touched.contains(kind) {
                touched.push(*kind);
            }
            match seq.insert(e) {
                Ok(i) => out.push(i),
                Err(err) => {
                    result = Err(err);
                    break;
                }
            }
        }
        if result.is_ok() {
            for kind in &touched {
                let flushed = seqs.get(kind).map_or(Ok(()), |s| s.store().flush());
                if let Err(e) = flushed {
                    result = Err(e.into());
                    break;
                }
            }
        }
        match result {
            Ok(()) => Ok(out),
            Err(e) => {
                for kind in touched {
                    self.reopen(&mut seqs, kind);
                }
                Err(e)
            }
        }
    }
}
