//! The Cashu state filter routes' shared set-up: the vectors of nuts PR #433 revision B, the
//! settings on a clock the test moves, and block requests.

use super::{send, Reply};
use amq::clock::ManualClock;
use amq::formats::cashu_state::Kind;
use amq_server::store::Store;
use amq_server::{app, AppState, ServerClock, Settings, StateFiltersConfig};
use axum::body::Body;
use axum::http::Request;
use serde_json::{json, Value};
use std::sync::Arc;

pub const T0: u64 = 1_701_704_757;

pub fn vectors() -> Value {
    serde_json::from_str(include_str!(
        "../../../../tests/vectors/cashu-state/revision-b.json"
    ))
    .unwrap()
}

/// The five `proof_state` SPENT elements of the vectors, as the feed takes them.
pub fn spent_changes() -> Vec<Value> {
    vectors()["elements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"].as_str().unwrap().starts_with("Test "))
        .map(|e| json!({"kind": "proof_state", "id_hex": e["id_hex"], "state": "SPENT"}))
        .collect()
}

/// A `mint_quote` change whose quote ID is the i-th UUIDv7 of a made-up mint (version 7, the
/// RFC 9562 variant), as a mint publishing filters must generate them.
#[allow(dead_code)] // not every test binary records quotes
pub fn mint_quote(i: u64) -> Value {
    let id = format!("019e6d5a-2347-7000-8afa-{i:012x}");
    serde_json::json!({"kind": "mint_quote", "id_hex": hex::encode(id)})
}

pub fn settings(kinds: &[(Kind, u8)], fold: bool, clock: &ManualClock) -> Settings {
    Settings {
        state_filters: StateFiltersConfig {
            kinds: kinds.to_vec(),
            timeout: 3600,
            open_interval: Some(60),
            fold,
            restart: Vec::new(),
        },
        clock: ServerClock::Manual(clock.clone()),
        ..Settings::default()
    }
}

pub fn open(store: Arc<dyn Store>, s: Settings) -> axum::Router {
    app(AppState::open(store, s).unwrap())
}

/// POSTs state changes (one object or a list) to the feed.
#[allow(dead_code)] // not every test binary records changes
pub async fn record(app: &axum::Router, changes: Value) -> Reply {
    super::call(
        app,
        axum::http::Method::POST,
        "/api/v1/cashu/state",
        Some(changes),
    )
    .await
}

pub async fn get_block(app: &axum::Router, path: &str, etag: Option<&str>) -> Reply {
    let mut r = Request::get(path);
    if let Some(e) = etag {
        r = r.header("if-none-match", e);
    }
    send(app, r.body(Body::empty()).unwrap()).await
}
