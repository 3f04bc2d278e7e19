//! The engine at its edges, against the mutants of `engine/mod.rs`, `engine/keys.rs` and
//! `engine/load.rs` that the other tests let through; each test names its mutant. In-process,
//! over a [`MemoryStore`] that a second [`AppState`] opens again (a restart: every filter
//! and keyset loaded back from its snapshot and log), and the store's keys read directly.

mod common;

use amq_server::engine::record::Items;
use amq_server::engine::{keys, SetKind};
use amq_server::store::{MemoryStore, Store};
use amq_server::{app, AppState, Limits};
use axum::http::{Method, StatusCode};
use common::gated::{bloom, in_one_commit, items, Change, Gated};
use common::{call, BLOOM};
use serde_json::json;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// A keyset id of the NUT-02 shape (version byte 00, 7 bytes).
const KEYSET: &str = "009a1f293253e41e";

/// Seconds since the Unix epoch, by the test's clock.
fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// The state over `store` (a second call over the same store is a restart).
fn open(store: &Arc<MemoryStore>) -> AppState {
    AppState::new(store.clone(), Limits::default(), None).expect("the store opens")
}

/// `n` distinct 33-byte compressed points (`Y`s) tagged `tag`.
fn ys(n: usize, tag: u8) -> Vec<String> {
    (0..n)
        .map(|i| {
            let mut y = vec![2u8; 33];
            y[1] = tag;
            y[2..10].copy_from_slice(&(i as u64).to_le_bytes());
            hex::encode(y)
        })
        .collect()
}

/// The NUT-23 filter response of a keyset is stamped with the server's clock, the seconds
/// since the Unix epoch: between the test's clock before the request and after it. Written
/// against `engine/mod.rs:31 unix_now -> 0` and `-> 1`, which the other tests let through:
/// they compare the response with the library's built at the timestamp it carries.
#[tokio::test]
async fn a_cashu_filter_is_stamped_with_the_servers_clock() {
    let app = common::router();
    let path = format!("/api/v1/cashu/{KEYSET}");
    assert_eq!(
        call(&app, Method::PUT, &path, Some(json!({}))).await.status,
        StatusCode::CREATED
    );
    let r = call(
        &app,
        Method::POST,
        &format!("{path}/spent"),
        Some(json!({"items_hex": ys(10, 1)})),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let before = now();
    let r = call(
        &app,
        Method::GET,
        &format!("/v1/filter/spent/{KEYSET}"),
        None,
    )
    .await;
    let after = now();
    assert_eq!(r.status, StatusCode::OK);
    let t = r.json()["timestamp"].as_u64().expect("a timestamp");
    assert!(
        (before..=after).contains(&t),
        "{t} not in {before}..={after}"
    );
}

/// A keyset's spent and issued sets say whether they hold items: both empty when the keyset
/// is created, then only the set fed is not, and it iterates its items in the order added.
/// Written against `engine/mod.rs:123 ItemSet::is_empty -> true` and `-> false`, which the
/// other tests let through (the server itself asks only for `len`).
#[tokio::test]
async fn an_item_set_is_empty_until_items_are_added() {
    let state = AppState::in_memory(Limits::default(), None);
    let app = app(state.clone());
    let path = format!("/api/v1/cashu/{KEYSET}");
    call(&app, Method::PUT, &path, Some(json!({}))).await;
    let keyset = state.engine().keyset(KEYSET).expect("the keyset");
    {
        let sets = keyset.sets.read().unwrap();
        assert!(sets[SetKind::Spent as usize].is_empty());
        assert!(sets[SetKind::Issued as usize].is_empty());
    }
    let items = ys(3, 2);
    let r = call(
        &app,
        Method::POST,
        &format!("{path}/issued"),
        Some(json!({"items_hex": items})),
    )
    .await;
    assert_eq!(r.json(), json!({"added": 3}));
    let sets = keyset.sets.read().unwrap();
    assert!(sets[SetKind::Spent as usize].is_empty());
    let issued = &sets[SetKind::Issued as usize];
    assert!(!issued.is_empty());
    assert_eq!(issued.len(), 3);
    let got: Vec<String> = issued.iter().map(hex::encode).collect();
    assert_eq!(got, items);
}

/// The store's keys under `f/{name}/`: its snapshot, then its log records in order.
fn filter_keys(store: &MemoryStore, name: &str) -> Vec<Vec<u8>> {
    (store.scan(&keys::filter_prefix(name)).unwrap().into_iter())
        .map(|(k, _)| k)
        .collect()
}

/// A log replayed at a restart still counts as a log: the restarted engine's fold writes it
/// into a new snapshot (the fold answers 1, and the filter is its snapshot alone), and the
/// filter holds its n items after another restart. Written against `engine/load.rs:59 += ->
/// *=` (the bytes of a replayed log counted as 0, so the fold, and `amq serve`'s stop, leaves
/// it to be replayed again), which the other tests let through: they fold only logs written
/// since the start.
#[tokio::test]
async fn a_log_replayed_at_a_restart_is_folded() {
    let store = Arc::new(MemoryStore::new());
    {
        let app = app(open(&store));
        common::bloom(&app).await;
        for batch in [["alice", "bob"], ["carol", "dave"]] {
            let r = call(
                &app,
                Method::POST,
                &format!("{BLOOM}/items"),
                Some(json!({ "items": batch })),
            )
            .await;
            assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
        }
    }
    // the snapshot and the two records
    assert_eq!(filter_keys(&store, "names").len(), 3);
    let state = open(&store);
    assert_eq!(state.engine().fold_logs().await.unwrap(), 1);
    assert_eq!(
        filter_keys(&store, "names"),
        vec![keys::snapshot_key("names")]
    );
    let app = app(open(&store));
    let r = call(
        &app,
        Method::POST,
        &format!("{BLOOM}/contains"),
        Some(json!({"items": ["alice", "bob", "carol", "dave"]})),
    )
    .await;
    assert_eq!(r.json()["maybe"], json!([true, true, true, true]));
}

/// Inserts five items of 1 MiB into filter `name`: a log record of 5 MiB, over the 4 MiB (and
/// the filter's size) at which the filter's log is due to be folded into a snapshot.
fn insert_5_mib(state: &AppState, name: &'static str) -> Change<()> {
    let state = state.clone();
    Box::pin(async move {
        let mut items = Items::new();
        for i in 0..5u8 {
            items.push(&vec![i; 1 << 20]);
        }
        let r = state.engine().insert(name, items, u64::MAX).await;
        r.map(drop).unwrap_or_else(|e| panic!("{}", e.message))
    })
}

/// Deletes filter `name`.
fn delete(state: &AppState, name: &'static str) -> Change<()> {
    let state = state.clone();
    Box::pin(async move {
        let r = state.engine().delete_filter(name).await;
        r.unwrap_or_else(|e| panic!("{}", e.message))
    })
}

/// A filter deleted in the commit whose insert made its snapshot due stays deleted: the
/// snapshot the committer writes after that commit skips it, so the store holds no key of it
/// and a restart does not bring it back. Written against `engine/mod.rs:444 mark_deleted ->
/// ()` (the snapshot of the deleted filter is written, and the filter is back after a
/// restart), which the other tests let through: none deletes a filter with a snapshot due.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filter_deleted_with_its_snapshot_due_stays_deleted() {
    let store = Arc::new(Gated::default());
    let state = AppState::new(store.clone(), Limits::default(), None).unwrap();
    for name in ["doomed", "other"] {
        state
            .engine()
            .create_filter(name, bloom(), false)
            .await
            .unwrap();
    }
    let held: Change<()> = {
        let state = state.clone();
        Box::pin(async move {
            let r = state
                .engine()
                .insert("other", items(&["held"]), u64::MAX)
                .await;
            r.map(drop).unwrap_or_else(|e| panic!("{}", e.message))
        })
    };
    in_one_commit(
        &store,
        held,
        vec![insert_5_mib(&state, "doomed"), delete(&state, "doomed")],
    )
    .await;
    // a fold is answered after the commit of the snapshots due, which came first
    assert_eq!(state.engine().fold_logs().await.unwrap(), 1);
    assert!(state.engine().filter("doomed").is_none());
    assert_eq!(filter_keys(&store.inner, "doomed"), Vec::<Vec<u8>>::new());
    let reopened = AppState::new(store.clone(), Limits::default(), None).unwrap();
    assert!(reopened.engine().filter("doomed").is_none());
    assert!(reopened.engine().filter("other").is_some());
}

/// Creating a keyset clears only its own keys, `c/{id}/`: a filter and another keyset
/// created before it, with their items, are all there after a restart. Written against
/// `engine/keys.rs:34 keyset_prefix -> vec![]` (the keyset's creation deletes the range of
/// the empty prefix, the whole store), which the other tests let through: none restarts a
/// store where a keyset was created after something else.
#[tokio::test]
async fn creating_a_keyset_keeps_what_the_store_held() {
    let store = Arc::new(MemoryStore::new());
    let spent = ys(4, 1);
    {
        let app = app(open(&store));
        common::bloom(&app).await;
        for id in ["00aa00aa00aa00aa", KEYSET] {
            let path = format!("/api/v1/cashu/{id}");
            assert_eq!(
                call(&app, Method::PUT, &path, Some(json!({}))).await.status,
                StatusCode::CREATED
            );
            if id != KEYSET {
                let r = call(
                    &app,
                    Method::POST,
                    &format!("{path}/spent"),
                    Some(json!({ "items_hex": spent })),
                )
                .await;
                assert_eq!(r.json(), json!({"added": 4}));
            }
        }
    }
    let state = open(&store);
    assert!(state.engine().filter("names").is_some());
    assert!(state.engine().keyset(KEYSET).is_some());
    let first = state
        .engine()
        .keyset("00aa00aa00aa00aa")
        .expect("the first keyset");
    let sets = first.sets.read().unwrap();
    let got: Vec<String> = sets[SetKind::Spent as usize]
        .iter()
        .map(hex::encode)
        .collect();
    assert_eq!(got, spent);
}
