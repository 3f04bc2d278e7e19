//! A store whose commits wait at a gate ([`Gated`]), so that the changes sent meanwhile
//! share the next commit ([`in_one_commit`]), or fail as on a full disk.

use amq::math::{Spec, Target};
use amq::AnyFilter;
use amq_server::engine::record::Items;
use amq_server::store::{MemoryStore, Rows, Store, StoreError, Write};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::task::Poll;

/// What a failing [`Gated`] store says.
pub const DISK_FULL: &str = "no space left on the test's disk";

/// A [`MemoryStore`] whose commits wait while its gate is closed (and fail while it is
/// failing); it counts the commits that have arrived, so a test can wait until one is held.
#[derive(Debug, Default)]
pub struct Gated {
    pub inner: MemoryStore,
    /// Set: every commit fails (after the gate), as a full disk makes it.
    pub failing: AtomicBool,
    /// (gate closed, commits arrived)
    state: Mutex<(bool, u64)>,
    changed: Condvar,
}

impl Gated {
    pub fn close(&self) {
        self.state.lock().unwrap().0 = true;
    }

    pub fn open(&self) {
        self.state.lock().unwrap().0 = false;
        self.changed.notify_all();
    }

    /// Blocks until `n` commits have arrived in all (ten seconds at most: a commit held
    /// arrives at once, unless the committer has stopped).
    pub fn wait_for_arrivals(&self, n: u64) {
        let guard = self.state.lock().unwrap();
        let (guard, waited) = self
            .changed
            .wait_timeout_while(guard, std::time::Duration::from_secs(10), |s| s.1 < n)
            .unwrap();
        assert!(!waited.timed_out(), "{} commits arrived, not {n}", guard.1);
    }
}

impl Store for Gated {
    fn commit(&self, writes: &[Write]) -> Result<(), StoreError> {
        let mut guard = self.state.lock().unwrap();
        guard.1 += 1;
        self.changed.notify_all();
        drop(self.changed.wait_while(guard, |s| s.0).unwrap());
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError(DISK_FULL.into()));
        }
        self.inner.commit(writes)
    }
    fn scan(&self, prefix: &[u8]) -> Result<Rows, StoreError> {
        self.inner.scan(prefix)
    }
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.inner.get(key)
    }
}

/// The commits a store has received, as the gate counts them.
pub fn arrived(store: &Gated) -> u64 {
    store.state.lock().unwrap().1
}

pub fn items(of: &[&str]) -> Items {
    let mut items = Items::new();
    for item in of {
        items.push(item.as_bytes());
    }
    items
}

/// A change sent to the engine, answered once committed.
pub type Change<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// Holds one commit at the gate (the commit of `held`), sends every change of `batched`
/// while it is held, then opens the gate, so that `batched` all go into the one commit after
/// it. Returns the answers once every change is answered; asserts that exactly those two
/// commits were made.
pub async fn in_one_commit<T: Send + 'static>(
    store: &Arc<Gated>,
    held: Change<T>,
    batched: Vec<Change<T>>,
) -> (T, Vec<T>) {
    let before = arrived(store);
    store.close();
    let held = tokio::spawn(held);
    let waiter = store.clone();
    tokio::task::spawn_blocking(move || waiter.wait_for_arrivals(before + 1))
        .await
        .unwrap();
    // the first poll of a change sends its job to the committer (the queue has room) and
    // waits for the answer; once every job is sent, the gate opens
    let mut batched: Vec<(Change<T>, Option<T>)> = batched.into_iter().map(|f| (f, None)).collect();
    let mut sent = false;
    std::future::poll_fn(|cx| {
        let mut waiting = false;
        for (change, answer) in batched.iter_mut().filter(|(_, a)| a.is_none()) {
            match change.as_mut().poll(cx) {
                Poll::Ready(v) => *answer = Some(v),
                Poll::Pending => waiting = true,
            }
        }
        if !sent {
            sent = true;
            store.open();
        }
        if waiting {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    let held = held.await.unwrap();
    assert_eq!(
        arrived(store) - before,
        2,
        "the changes sent while a commit was held are gathered into the one commit after it"
    );
    (held, batched.into_iter().map(|(_, a)| a.unwrap()).collect())
}

/// A Bloom filter for 1,000 items at ε = 10⁻⁹: a false positive among a handful of queries
/// is a one-in-a-hundred-million event, so "maybe" means inserted.
pub fn bloom() -> AnyFilter {
    let spec = Spec::Bloom {
        items: 1000,
        target: Target::Fpr(1e-9),
        k: None,
    };
    AnyFilter::new(&spec, 7).unwrap()
}
