//! The Cashu state filter routes' durability, in-process: a reopened store serves the same
//! blocks (an open block written by several requests keeps every element, its snapshot stays
//! the same), a restart keeps an open block's deadline (an older header without one takes
//! the configured timeout), nothing is served that a failing store did not write, a short
//! sealed block is an error, and a kind's gap in service is refused unless the kind is new.

mod common;

use amq::clock::ManualClock;
use amq::formats::cashu_state::Kind;
use amq_server::state::StateStore;
use amq_server::store::{MemoryStore, Store, StoreError, Write};
use amq_server::AppState;
use axum::http::{Method, StatusCode};
use common::call;
use common::state::{get_block, mint_quote, open, record, settings, spent_changes, vectors, T0};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

#[tokio::test]
async fn a_reopened_store_serves_the_same_blocks() {
    let clock = ManualClock::new(T0);
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let s = settings(
        &[(Kind::ProofState, 10), (Kind::MintQuote, 5)],
        false,
        &clock,
    );
    let app1 = open(store.clone(), s.clone());
    let changes = spent_changes();
    call(
        &app1,
        Method::POST,
        "/api/v1/cashu/state",
        Some(Value::Array(changes[..3].to_vec())),
    )
    .await;
    clock.advance(3600); // height 0 seals with three
    call(
        &app1,
        Method::POST,
        "/api/v1/cashu/state",
        Some(Value::Array(changes[3..].to_vec())),
    )
    .await;
    call(
        &app1,
        Method::POST,
        "/api/v1/cashu/state",
        Some(mint_quote(0)),
    )
    .await;
    clock.advance(60);
    let info = call(&app1, Method::GET, "/v1/filters/info/proof_state", None)
        .await
        .json();
    let b0 = get_block(&app1, "/v1/filters/blocks/proof_state/0", None)
        .await
        .body;
    let b1 = get_block(&app1, "/v1/filters/blocks/proof_state/1", None)
        .await
        .body;
    assert!(b1.iter().any(|&b| b != 0));
    drop(app1);
    let app2 = open(store, s);
    assert_eq!(
        call(&app2, Method::GET, "/v1/filters/info/proof_state", None)
            .await
            .json(),
        info
    );
    assert_eq!(
        get_block(&app2, "/v1/filters/blocks/proof_state/0", None)
            .await
            .body,
        b0
    );
    assert_eq!(
        get_block(&app2, "/v1/filters/blocks/proof_state/1", None)
            .await
            .body,
        b1
    );
    // mint_quote: height 0 timed out empty, height 1 filled with one insertion (b = 5)
    let quotes = call(&app2, Method::GET, "/v1/filters/info/mint_quote", None)
        .await
        .json();
    assert_eq!(quotes["blocks"].as_array().unwrap().len(), 3);
}

/// A restart under a shorter `--state-timeout` keeps the open block's own deadline (the
/// timeout it opened under is in the store), so the block's interval holds its insertions;
/// before, it sealed at start + the new timeout, before an insertion it held. A kind given
/// twice is refused.
#[tokio::test]
async fn a_restart_under_another_timeout_keeps_the_open_blocks_deadline() {
    let clock = ManualClock::new(T0);
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let mut s = settings(&[(Kind::ProofState, 10)], false, &clock);
    s.state_filters.timeout = 7200;
    let app1 = open(store.clone(), s.clone());
    clock.advance(5000);
    let change = spent_changes()[0].clone();
    call(&app1, Method::POST, "/api/v1/cashu/state", Some(change)).await;
    drop(app1);
    s.state_filters.timeout = 3600;
    let app2 = open(store.clone(), s.clone());
    clock.advance(1000);
    let info = call(&app2, Method::GET, "/v1/filters/info/proof_state", None)
        .await
        .json();
    assert_eq!(info["blocks"].as_array().unwrap().len(), 1, "{info}");
    assert_eq!(info["timeout"], 7200);
    clock.set(T0 + 7200 + 3600);
    let info = call(&app2, Method::GET, "/v1/filters/info/proof_state", None)
        .await
        .json();
    assert_eq!(info["blocks"][0]["end"], T0 + 7200, "{info}");
    assert_eq!(info["blocks"][1]["end"], T0 + 7200 + 3600, "{info}");
    assert_eq!(info["timeout"], 3600);

    let mut twice = settings(
        &[(Kind::ProofState, 10), (Kind::ProofState, 12)],
        false,
        &clock,
    );
    twice.state_filters.timeout = 3600;
    let Err(e) = AppState::open(store, twice) else {
        panic!("a kind given twice is refused")
    };
    assert!(e.to_string().contains("proof_state is given twice"), "{e}");
}

/// A store whose commits fail while `failing` is set.
#[derive(Debug, Default)]
struct Flaky {
    inner: MemoryStore,
    failing: AtomicBool,
}

impl Store for Flaky {
    fn commit(&self, writes: &[Write]) -> Result<(), StoreError> {
        if self.failing.load(Ordering::SeqCst) {
            return Err(StoreError("disk on fire".into()));
        }
        self.inner.commit(writes)
    }
    fn scan(&self, prefix: &[u8]) -> Result<amq_server::store::Rows, StoreError> {
        self.inner.scan(prefix)
    }
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.inner.get(key)
    }
}

#[tokio::test]
async fn nothing_is_served_that_did_not_reach_the_disk() {
    let clock = ManualClock::new(T0);
    let store = Arc::new(Flaky::default());
    let app = open(
        store.clone(),
        settings(&[(Kind::ProofState, 10)], false, &clock),
    );
    let changes = spent_changes();
    store.failing.store(true, Ordering::SeqCst);
    let r = call(
        &app,
        Method::POST,
        "/api/v1/cashu/state",
        Some(Value::Array(changes.clone())),
    )
    .await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(r.error().contains("disk on fire"));
    store.failing.store(false, Ordering::SeqCst);
    clock.advance(60);
    let r = get_block(&app, "/v1/filters/blocks/proof_state/0", None).await;
    assert!(
        r.body.iter().all(|&b| b == 0),
        "an element that failed to commit is served"
    );
    // and the filters of amq's own API answer 503 the same way
    store.failing.store(true, Ordering::SeqCst);
    let r = call(
        &app,
        Method::PUT,
        "/api/v1/filters/x",
        Some(json!({"kind": "bloom", "items": 10, "fpr": 0.1})),
    )
    .await;
    assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE);
    store.failing.store(false, Ordering::SeqCst);
    assert_eq!(
        call(&app, Method::GET, "/api/v1/filters/x", None)
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    // once the disk is back, the same changes go in
    let r = call(
        &app,
        Method::POST,
        "/api/v1/cashu/state",
        Some(Value::Array(changes)),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    clock.advance(60);
    let spec = hex::decode(vectors()["spec_example"]["block_hex"].as_str().unwrap()).unwrap();
    assert_eq!(
        get_block(&app, "/v1/filters/blocks/proof_state/0", None)
            .await
            .body
            .as_ref(),
        spec.as_slice()
    );
}

/// A kind the last run did not serve missed its events since, so its stored sequence does not
/// go on: reopening with it is refused, naming the way back, and nothing is recorded; with
/// `restart` it begins anew at height 0, empty. A kind served throughout goes on, and a
/// restart of a kind not served is refused. (A store written before the record of served
/// kinds has no last run to compare with: its sequences go on.)
#[tokio::test]
async fn a_kind_served_again_after_a_gap_restarts_or_is_refused() {
    let clock = ManualClock::new(T0);
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let both = settings(
        &[(Kind::ProofState, 10), (Kind::MintQuote, 5)],
        true,
        &clock,
    );
    let app = open(store.clone(), both.clone());
    let r = record(&app, mint_quote(0)).await;
    assert_eq!(r.json()["inserted"][0]["count"], 1);
    let r = record(&app, spent_changes()[0].clone()).await;
    assert_eq!(r.json()["inserted"][0]["count"], 1);
    drop(app);

    // a run without mint_quote; proof_state goes on
    let proofs = settings(&[(Kind::ProofState, 10)], true, &clock);
    let app = open(store.clone(), proofs.clone());
    let r = call(&app, Method::GET, "/v1/filters/info/mint_quote", None).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    drop(app);
    clock.advance(7200);

    // mint_quote again: refused, and the store is as it was
    let before = store.scan(b"").unwrap();
    let e = AppState::open(store.clone(), both.clone()).expect_err("refused");
    let e = e.to_string();
    assert!(
        e.contains("mint_quote") && e.contains("--state-filter-restart mint_quote"),
        "{e}"
    );
    assert_eq!(store.scan(b"").unwrap(), before);

    // a restart of a kind not served is refused too
    let mut wrong = proofs.clone();
    wrong.state_filters.restart = vec![Kind::MintQuote];
    assert!(AppState::open(store.clone(), wrong).is_err());

    // restarted: height 0, empty; proof_state still holds its insertion
    let mut again = both.clone();
    again.state_filters.restart = vec![Kind::MintQuote];
    let app = open(store.clone(), again);
    let r = record(&app, mint_quote(1)).await;
    let inserted = &r.json()["inserted"][0];
    assert_eq!(
        (inserted["height"].clone(), inserted["count"].clone()),
        (json!(0), json!(1))
    );
    let b0 = get_block(&app, "/v1/filters/blocks/proof_state/0", None).await;
    assert_eq!(b0.status, StatusCode::OK);
    assert!(
        b0.body.iter().any(|&b| b != 0),
        "proof_state keeps its sealed block"
    );
    drop(app);
    // and a later run serving both goes on without a restart
    let app = open(store.clone(), both);
    let r = call(&app, Method::GET, "/v1/filters/info/mint_quote", None).await;
    assert_eq!(r.status, StatusCode::OK);
}

/// The elements of an open block recorded by separate requests are separate writes to the
/// store, each kept: after a reopen the open block still counts every insertion, and the
/// next one is counted after them (three requests of one `proof_state` element each, a
/// reopen, a fourth: count 4; another reopen, a fifth: count 5). Written against
/// `state/store.rs:127 += -> *=` in `take_pending` (every flush of an open block writes the
/// same batch key, so each request's elements replace the ones before) and `:212 + -> *` in
/// `load` (a reopened sequence's next batch takes the last one's key, so the first request
/// after a reopen replaces it), which the other tests let through: they reopen only blocks
/// written by one request.
#[tokio::test]
async fn an_open_block_written_by_several_requests_reopens_with_every_element() {
    let clock = ManualClock::new(T0);
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let s = settings(&[(Kind::ProofState, 10)], false, &clock);
    let changes = spent_changes();
    let count = |r: common::Reply| {
        let inserted = &r.json()["inserted"][0];
        (inserted["height"].clone(), inserted["count"].clone())
    };
    let app = open(store.clone(), s.clone());
    for (i, change) in changes[..3].iter().enumerate() {
        let r = record(&app, change.clone()).await;
        assert_eq!(count(r), (json!(0), json!(i + 1)));
    }
    drop(app);
    let app = open(store.clone(), s.clone());
    let r = record(&app, changes[3].clone()).await;
    assert_eq!(count(r), (json!(0), json!(4)), "the three before");
    // the request after a reopen is a write of its own too
    drop(app);
    let app = open(store, s);
    let r = record(&app, changes[4].clone()).await;
    assert_eq!(count(r), (json!(0), json!(5)), "the four before");
}

/// A kind served for the first time, added to a store whose last run served other kinds,
/// begins at height 0: it has no stored sequence, so the gap in its service since the last run
/// hides nothing and no `--state-filter-restart` is needed. Written against `state/store.rs:103
/// StateStore::holds_sequence -> Ok(true)` (every kind the last run did not serve is taken to
/// hold a sequence, and the start is refused), which the other tests let through: they add
/// back only kinds served before.
#[tokio::test]
async fn a_kind_served_for_the_first_time_begins_without_a_restart() {
    let clock = ManualClock::new(T0);
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let proofs = settings(&[(Kind::ProofState, 10)], true, &clock);
    let app = open(store.clone(), proofs);
    let r = record(&app, spent_changes()[0].clone()).await;
    assert_eq!(r.status, StatusCode::OK);
    drop(app);
    let both = settings(
        &[(Kind::ProofState, 10), (Kind::MintQuote, 5)],
        true,
        &clock,
    );
    let state = AppState::open(store, both);
    let app = amq_server::app(state.unwrap_or_else(|e| panic!("refused: {e}")));
    let r = record(&app, mint_quote(0)).await;
    let inserted = &r.json()["inserted"][0];
    assert_eq!(
        (&inserted["height"], &inserted["count"]),
        (&json!(0), &json!(1))
    );
}

/// The open block `GET /v1/filters/blocks/proof_state/0` serves, at the clock's time.
async fn open_block(app: &axum::Router) -> Vec<u8> {
    let r = get_block(app, "/v1/filters/blocks/proof_state/0", None).await;
    assert_eq!(r.status, StatusCode::OK);
    r.body.to_vec()
}

/// The open block is served as its snapshot at the last refresh boundary, holding exactly the
/// insertions made before it, and a reopen serves the same snapshot: two elements before the
/// boundary at start + 60 s, one after, a reopen at start + 70 s, and the block served is the
/// one of the first two (not the three the open block holds). Written against
/// `state/store.rs:266 snapshot -> Ok(())` and `load`'s `:214 rest == b"n"` and `:221 h ==
/// open.height` (`== -> !=`): the snapshot record is not written or not read back, so the
/// reopened sequence takes a new snapshot of all three; the other tests let them through.
#[tokio::test]
async fn a_reopen_serves_the_same_snapshot_of_the_open_block() {
    let clock = ManualClock::new(T0);
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let s = settings(&[(Kind::ProofState, 10)], false, &clock);
    let changes = spent_changes();
    let app = open(store.clone(), s.clone());
    record(&app, Value::Array(changes[..2].to_vec())).await;
    let empty = open_block(&app).await;
    clock.advance(70);
    let two = open_block(&app).await;
    assert_ne!(two, empty, "the snapshot at start + 60 s holds the two");
    record(&app, changes[2].clone()).await;
    assert_eq!(
        open_block(&app).await,
        two,
        "the third is after the boundary"
    );
    drop(app);
    let app = open(store, s);
    assert_eq!(open_block(&app).await, two, "reopened");
}

/// A store written before the open block's header kept its timeout (a 17-byte header:
/// height, start, b) opens, and its open block times out after the configured timeout: one
/// element recorded under 3600 s, the header cut to its first 17 bytes, a reopen under
/// 7200 s, and the block is open at start + 3600 s and seals at start + 7200 s. Written
/// against `state/store.rs:177`, the `17 => 0` arm deleted (the older header read as
/// corrupt: the start refused), which the other tests let through.
#[tokio::test]
async fn an_open_block_header_without_its_timeout_opens_under_the_configured_one() {
    let clock = ManualClock::new(T0);
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let s = settings(&[(Kind::ProofState, 10)], false, &clock);
    let app = open(store.clone(), s.clone());
    record(&app, spent_changes()[0].clone()).await;
    drop(app);
    let key = [StateStore::prefix(Kind::ProofState), b"o".to_vec()].concat();
    let header = store.get(&key).unwrap().expect("the open block's header");
    assert_eq!(header.len(), 25, "height, start, b and timeout");
    store
        .commit(&[Write::Put(key, header[..17].to_vec())])
        .unwrap();
    let mut longer = s;
    longer.state_filters.timeout = 7200;
    let state = AppState::open(store, longer).unwrap_or_else(|e| panic!("refused: {e}"));
    let app = amq_server::app(state);
    let info = |at: u64| {
        clock.set(at);
        let app = app.clone();
        async move {
            call(&app, Method::GET, "/v1/filters/info/proof_state", None)
                .await
                .json()
        }
    };
    let open = info(T0 + 3600).await;
    assert_eq!(open["blocks"][0]["end"], Value::Null, "{open}");
    let sealed = info(T0 + 7200).await;
    assert_eq!(sealed["blocks"][0]["end"], T0 + 7200, "{sealed}");
}

/// A sealed block whose stored value is shorter than its interval (16 bytes) is an error
/// that names it, not a panic: block 0 sealed, its value cut to 8 bytes under the running
/// server, and `GET` of it answers a 5xx. Written against `state/store.rs:305`, the match
/// guard `v.len() >= 16 -> true` (`v[16..]` of 8 bytes panics), which the other tests let
/// through.
#[tokio::test]
async fn a_short_sealed_block_is_an_error_not_a_panic() {
    let clock = ManualClock::new(T0);
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let s = settings(&[(Kind::ProofState, 10)], false, &clock);
    let app = open(store.clone(), s);
    record(&app, spent_changes()[0].clone()).await;
    clock.advance(3600);
    let r = get_block(&app, "/v1/filters/blocks/proof_state/0", None).await;
    assert_eq!(r.status, StatusCode::OK);
    let mut key = [StateStore::prefix(Kind::ProofState), b"b/".to_vec()].concat();
    key.extend_from_slice(&0u64.to_be_bytes());
    assert!(store.get(&key).unwrap().is_some(), "block 0 is sealed");
    store.commit(&[Write::Put(key, vec![0; 8])]).unwrap();
    let r = get_block(&app, "/v1/filters/blocks/proof_state/0", None).await;
    assert!(r.status.is_server_error(), "{}", r.status);
    let body = String::from_utf8_lossy(&r.body);
    assert!(body.contains("sealed block is corrupt"), "{body}");
}
