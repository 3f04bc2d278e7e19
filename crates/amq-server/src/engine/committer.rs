//! The committer thread: group commit, then apply in order, then reply.

use super::record::{self, Outcome, Tag};
use super::{keys, read, unix_now, write, FilterEntry, Job, KeysetEntry, Shared};
use crate::error::ApiError;
use crate::store::{Store, Write};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Stop gathering jobs into one commit past this many bytes of records.
const GROUP_BYTES: usize = 64 << 20;
/// ... or this many jobs.
const GROUP_JOBS: usize = 4096;
/// A filter's log is folded into a new snapshot once it holds more bytes than the filter
/// and at least this many.
const SNAPSHOT_MIN_LOG_BYTES: u64 = 4 << 20;

pub(super) struct Committer {
    store: Arc<dyn Store>,
    shared: Arc<Shared>,
    jobs: mpsc::Receiver<Job>,
    /// The last commit's time: records are stamped with a clock that never goes back.
    last_time: u64,
    /// Filters whose log is due to be folded into a snapshot.
    snapshots_due: Vec<(String, Arc<FilterEntry>)>,
    /// Callers of [`Engine::fold_logs`](super::Engine::fold_logs), answered once the
    /// snapshots due are durable.
    folds_waiting: Vec<super::Reply<usize>>,
}

/// A job planned into the commit, applied once the commit is durable.
enum Step {
    /// The requester stopped waiting before the job was planned: nothing to do or answer.
    Dropped,
    Fail(Box<dyn FnOnce(ApiError) + Send>, ApiError),
    CreateFilter(String, Arc<FilterEntry>, super::Reply<()>),
    DeleteFilter(String, Arc<FilterEntry>, super::Reply<()>),
    Change(String, Arc<FilterEntry>, usize, super::Reply<Outcome>),
    CreateKeyset(String, Arc<KeysetEntry>, super::Reply<()>),
    KeysetItems(Arc<KeysetEntry>, usize, super::Reply<usize>),
    FoldLogs(super::Reply<usize>),
}

fn fail<T: Send + 'static>(reply: super::Reply<T>, e: ApiError) -> Step {
    Step::Fail(
        Box::new(move |e| {
            let _ = reply.send(Err(e));
        }),
        e,
    )
}

impl Committer {
    pub(super) fn new(
        store: Arc<dyn Store>,
        shared: Arc<Shared>,
        jobs: mpsc::Receiver<Job>,
    ) -> Self {
        Committer {
            store,
            shared,
            jobs,
            last_time: 0,
            snapshots_due: Vec::new(),
            folds_waiting: Vec::new(),
        }
    }

    pub(super) fn run(mut self) {
        while let Some(first) = self.jobs.blocking_recv() {
            let mut batch = vec![first];
            let mut bytes = 0;
            while batch.len() < GROUP_JOBS && bytes < GROUP_BYTES {
                match self.jobs.try_recv() {
                    Ok(job) => {
                        bytes += match &job {
                            Job::Change { record, .. } | Job::KeysetItems { record, .. } => {
                                record.len()
                            }
                            _ => 0,
                        };
                        batch.push(job);
                    }
                    Err(_) => break,
                }
            }
            self.process(batch);
            if !self.snapshots_due.is_empty() && self.jobs.is_empty() {
                self.process(Vec::new());
            }
        }
    }

    fn process(&mut self, batch: Vec<Job>) {
        let now = unix_now().max(self.last_time);
        self.last_time = now;
        let mut writes: Vec<Write> = Vec::new();
        // snapshots first: they describe the filters before this batch's records
        let due = std::mem::take(&mut self.snapshots_due);
        let folds = std::mem::take(&mut self.folds_waiting);
        let mut snapshotted = Vec::new();
        for (name, entry) in due {
            if entry.deleted.load(Ordering::Relaxed) {
                continue;
            }
            let seq = entry.next_seq.load(Ordering::Relaxed);
            let amq = read(&entry.filter).to_bytes();
            writes.push(Write::Put(
                keys::snapshot_key(&name),
                keys::encode_snapshot(seq, &amq),
            ));
            writes.push(Write::DeleteRange(
                keys::log_key(&name, 0),
                keys::log_key(&name, seq),
            ));
            snapshotted.push((name, entry));
        }

        // the names and sequence numbers as this batch leaves them
        let mut filters: HashMap<String, Option<Arc<FilterEntry>>> = HashMap::new();
        let mut keysets: HashMap<String, Option<Arc<KeysetEntry>>> = HashMap::new();
        let mut seqs: HashMap<*const FilterEntry, u64> = HashMap::new();
        let mut kseqs: HashMap<*const KeysetEntry, u64> = HashMap::new();
        let mut steps = Vec::with_capacity(batch.len());
        for job in batch {
            steps.push(self.plan(
                job,
                now,
                &mut writes,
                &mut filters,
                &mut keysets,
                &mut seqs,
                &mut kseqs,
            ));
        }

        if !writes.is_empty() {
            if let Err(e) = self.store.commit(&writes) {
                self.shared.commit_failures.fetch_add(1, Ordering::Relaxed);
                for step in steps {
                    step.fail_with(ApiError::storage(&e));
                }
                for reply in folds {
                    let _ = reply.send(Err(ApiError::storage(&e)));
                }
                // try the snapshots again later
                self.snapshots_due.extend(snapshotted);
                return;
            }
            self.shared.commits.fetch_add(1, Ordering::Relaxed);
        }
        for reply in folds {
            let _ = reply.send(Ok(snapshotted.len()));
        }
        for (_, entry) in snapshotted {
            entry.log_bytes.store(0, Ordering::Relaxed);
        }
        for step in steps {
            self.apply(step, &writes);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn plan(
        &self,
        job: Job,
        now: u64,
        writes: &mut Vec<Write>,
        filters: &mut HashMap<String, Option<Arc<FilterEntry>>>,
        keysets: &mut HashMap<String, Option<Arc<KeysetEntry>>>,
        seqs: &mut HashMap<*const FilterEntry, u64>,
        kseqs: &mut HashMap<*const KeysetEntry, u64>,
    ) -> Step {
        let shared = &self.shared;
        let filter_of =
            |filters: &HashMap<String, Option<Arc<FilterEntry>>>, name: &str| match filters
                .get(name)
            {
                Some(e) => e.clone(),
                None => read(&shared.filters).get(name).cloned(),
            };
        if job.requester_gone() {
            // the request timed out (408) before its change was logged: it is dropped, so a
            // 408 from waiting in the queue means the change was not made
            return Step::Dropped;
        }
        match job {
            Job::CreateFilter {
                name,
                filter,
                replace,
                reply,
            } => {
                let existing = filter_of(filters, &name);
                if existing.is_some() && !replace {
                    return fail(reply, ApiError::conflict(format!("filter {name:?} exists")));
                }
                writes.push(Write::delete_prefix(&keys::filter_prefix(&name)));
                writes.push(Write::Put(
                    keys::snapshot_key(&name),
                    keys::encode_snapshot(0, &filter.to_bytes()),
                ));
                let entry = Arc::new(FilterEntry::new(*filter, 0));
                filters.insert(name.clone(), Some(entry.clone()));
                Step::CreateFilter(name, entry, reply)
            }
            Job::DeleteFilter { name, reply } => match filter_of(filters, &name) {
                None => fail(reply, ApiError::not_found(format!("no filter {name:?}"))),
                Some(entry) => {
                    writes.push(Write::delete_prefix(&keys::filter_prefix(&name)));
                    filters.insert(name.clone(), None);
                    Step::DeleteFilter(name, entry, reply)
                }
            },
            Job::Change {
                name,
                mut record,
                reply,
            } => match filter_of(filters, &name) {
                None => fail(reply, ApiError::not_found(format!("no filter {name:?}"))),
                Some(entry) => {
                    // an insert whose first item would take the filter over its limit is
                    // answered now and not logged; the filter is as the record would find it
                    // unless an earlier change of this batch is still to be applied to it
                    if !seqs.contains_key(&Arc::as_ptr(&entry)) {
                        if let Some(e) = record::refused_whole(&read(&entry.filter), &record) {
                            return fail(reply, e);
                        }
                    }
                    let seq = seqs
                        .entry(Arc::as_ptr(&entry))
                        .or_insert_with(|| entry.next_seq.load(Ordering::Relaxed));
                    record::set_time(&mut record, now);
                    writes.push(Write::Put(keys::log_key(&name, *seq), record));
                    *seq += 1;
                    Step::Change(name, entry, writes.len() - 1, reply)
                }
            },
            Job::FoldLogs { reply } => Step::FoldLogs(reply),
            Job::CreateKeyset {
                id,
                settings,
                reply,
            } => {
                let exists = match keysets.get(&id) {
                    Some(e) => e.is_some(),
                    None => read(&shared.keysets).contains_key(&id),
                };
                if exists {
                    return fail(reply, ApiError::conflict(format!("keyset {id:?} exists")));
                }
                writes.push(Write::delete_prefix(&keys::keyset_prefix(&id)));
                writes.push(Write::Put(
                    keys::keyset_meta_key(&id),
                    keys::encode_settings(&settings),
                ));
                let entry = Arc::new(KeysetEntry::new(settings));
                keysets.insert(id.clone(), Some(entry.clone()));
                Step::CreateKeyset(id, entry, reply)
            }
            Job::KeysetItems {
                id,
                mut record,
                reply,
            } => {
                let entry = match keysets.get(&id) {
                    Some(e) => e.clone(),
                    None => read(&shared.keysets).get(&id).cloned(),
                };
                match entry {
                    None => fail(reply, ApiError::not_found(format!("no keyset {id:?}"))),
                    Some(entry) => {
                        let seq = kseqs
                            .entry(Arc::as_ptr(&entry))
                            .or_insert_with(|| entry.next_seq.load(Ordering::Relaxed));
                        record::set_time(&mut record, now);
                        writes.push(Write::Put(keys::keyset_log_key(&id, *seq), record));
                        *seq += 1;
                        Step::KeysetItems(entry, writes.len() - 1, reply)
                    }
                }
            }
        }
    }

    fn apply(&mut self, step: Step, writes: &[Write]) {
        let record_at = |i: usize| match &writes[i] {
            Write::Put(_, v) => v.as_slice(),
            Write::DeleteRange(..) => unreachable!("steps point at puts"),
        };
        match step {
            Step::Dropped => {}
            Step::Fail(reply, e) => reply(e),
            Step::CreateFilter(name, entry, reply) => {
                if let Some(old) = write(&self.shared.filters).insert(name, entry) {
                    old.mark_deleted();
                }
                let _ = reply.send(Ok(()));
            }
            Step::DeleteFilter(name, entry, reply) => {
                let mut map = write(&self.shared.filters);
                if map.get(&name).is_some_and(|e| Arc::ptr_eq(e, &entry)) {
                    map.remove(&name);
                }
                entry.mark_deleted();
                let _ = reply.send(Ok(()));
            }
            Step::Change(name, entry, i, reply) => {
                let rec = record_at(i);
                let outcome = {
                    let mut f = write(&entry.filter);
                    let outcome = record::apply(&mut f, rec);
                    if f.grows() {
                        entry.size.store(f.size_bytes(), Ordering::Relaxed);
                    }
                    outcome
                };
                entry.next_seq.fetch_add(1, Ordering::Relaxed);
                let log = entry
                    .log_bytes
                    .fetch_add(rec.len() as u64, Ordering::Relaxed)
                    + rec.len() as u64;
                let size = entry.size.load(Ordering::Relaxed);
                if log >= size.max(SNAPSHOT_MIN_LOG_BYTES)
                    && !self
                        .snapshots_due
                        .iter()
                        .any(|(_, e)| Arc::ptr_eq(e, &entry))
                {
                    self.snapshots_due.push((name, entry));
                }
                let _ = reply.send(outcome);
            }
            Step::CreateKeyset(id, entry, reply) => {
                write(&self.shared.keysets).insert(id, entry);
                let _ = reply.send(Ok(()));
            }
            Step::KeysetItems(entry, i, reply) => {
                let n = apply_keyset(&entry, record_at(i));
                entry.next_seq.fetch_add(1, Ordering::Relaxed);
                let _ = reply.send(n);
            }
            Step::FoldLogs(reply) => {
                // every filter with records since its snapshot, answered once the next
                // commit has written their snapshots (the run loop makes one at once)
                for (name, entry) in read(&self.shared.filters).iter() {
                    if entry.log_bytes.load(Ordering::Relaxed) > 0
                        && !self
                            .snapshots_due
                            .iter()
                            .any(|(_, e)| Arc::ptr_eq(e, entry))
                    {
                        self.snapshots_due.push((name.clone(), entry.clone()));
                    }
                }
                if self.snapshots_due.is_empty() {
                    let _ = reply.send(Ok(0));
                } else {
                    self.folds_waiting.push(reply);
                }
            }
        }
    }
}

/// Adds a keyset record's items to its set; the number added.
pub(super) fn apply_keyset(entry: &KeysetEntry, rec: &[u8]) -> Result<usize, ApiError> {
    let r = record::parse(rec).ok_or_else(|| ApiError::internal("a corrupt keyset record"))?;
    let set = match r.tag {
        Tag::Spent => 0,
        Tag::Issued => 1,
        _ => return Err(ApiError::internal("a filter record in a keyset log")),
    };
    let items = record::ItemIter::new(r.payload);
    let mut sets = write(&entry.sets);
    let before = sets[set].len();
    sets[set].extend(items);
    Ok(sets[set].len() - before)
}

impl Step {
    fn fail_with(self, e: ApiError) {
        match self {
            Step::Dropped => {}
            // the job was refused whatever the store did
            Step::Fail(reply, original) => reply(original),
            Step::CreateFilter(_, _, r)
            | Step::DeleteFilter(_, _, r)
            | Step::CreateKeyset(_, _, r) => {
                let _ = r.send(Err(e));
            }
            Step::Change(_, _, _, r) => {
                let _ = r.send(Err(e));
            }
            Step::KeysetItems(_, _, r) | Step::FoldLogs(r) => {
                let _ = r.send(Err(e));
            }
        }
    }
}
