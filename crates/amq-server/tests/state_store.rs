//! The Cashu state filter routes' durability, in-process: a reopened store serves the same
//! blocks (and an open block written by several requests keeps every element), a restart
//! keeps an open block's deadline, nothing is served that a failing store did not write, and
//! a kind's gap in service is refused unless the kind is new.

mod common;

use amq::clock::ManualClock;
use amq::formats::cashu_state::Kind;
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
/// reopen, a fourth: count 4). Written against `state/store.rs:127 += -> *=` in
/// `take_pending` (every flush of an open block writes the same batch key, so each
/// request's elements replace the ones before and a reopened block misses them), which the
/// other tests let through: they reopen only blocks written by one request.
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
    let app = open(store, s);
    let r = record(&app, changes[3].clone()).await;
    assert_eq!(
        count(r),
        (json!(0), json!(4)),
        "the three before the reopen"
    );
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
