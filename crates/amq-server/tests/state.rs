//! The Cashu state filter routes (nuts PR #433, revision B) in-process, on a clock the test
//! moves: info, blocks (sealed, open, ETag, 304, cache policy), the feed, the error codes and
//! the spec's example block. Durability: state_store.rs.

mod common;

use amq::clock::ManualClock;
use amq::formats::cashu_state::{Block, Kind};
use amq_server::store::MemoryStore;
use amq_server::{Settings, StateFiltersConfig};
use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use common::state::{get_block, mint_quote, open, record, settings, spent_changes, vectors, T0};
use common::{call, send};
use serde_json::{json, Value};
use std::sync::Arc;

#[tokio::test]
async fn the_spec_example_block_sealed_and_open() {
    let clock = ManualClock::new(T0);
    let app = open(
        Arc::new(MemoryStore::new()),
        settings(&[(Kind::ProofState, 10)], false, &clock),
    );
    let r = call(&app, Method::GET, "/v1/filters/info/proof_state", None).await;
    assert_eq!(
        r.json(),
        json!({"b": 10, "timeout": 3600, "open_interval": 60, "blocks": [{"start": T0, "end": null}]})
    );

    let r = call(
        &app,
        Method::POST,
        "/api/v1/cashu/state",
        Some(Value::Array(spent_changes())),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let inserted = r.json()["inserted"].as_array().unwrap().clone();
    assert_eq!(inserted.len(), 5);
    assert_eq!(
        inserted[4],
        json!({"kind": "proof_state", "height": 0, "count": 5, "sealed": false})
    );

    let spec = hex::decode(vectors()["spec_example"]["block_hex"].as_str().unwrap()).unwrap();
    // the open block is served as of its last refresh boundary: empty until 60 s pass
    let r = get_block(&app, "/v1/filters/blocks/proof_state/0", None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body.as_ref(), &[0u8; 128][..]);
    assert_eq!(r.headers["cache-control"], "public, max-age=60");
    let empty_etag = r.headers["etag"].to_str().unwrap().to_owned();
    assert_eq!(
        get_block(&app, "/v1/filters/blocks/proof_state/0", Some(&empty_etag))
            .await
            .status,
        StatusCode::NOT_MODIFIED
    );
    clock.advance(60);
    let r = get_block(&app, "/v1/filters/blocks/proof_state/0", Some(&empty_etag)).await;
    assert_eq!(r.status, StatusCode::OK, "the ETag changes with the bytes");
    assert_eq!(r.headers["content-type"], "application/octet-stream");
    assert_eq!(r.body.as_ref(), spec.as_slice());
    assert!(!r.headers["cache-control"]
        .to_str()
        .unwrap()
        .contains("immutable"));

    // the timeout seals it (fold off: b stays 10): the spec's 128 bytes, 76 bits set
    clock.advance(3600);
    let r = get_block(&app, "/v1/filters/blocks/proof_state/0", None).await;
    assert_eq!(r.body.as_ref(), spec.as_slice());
    assert_eq!(
        r.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let etag = r.headers["etag"].to_str().unwrap().to_owned();
    let r = get_block(&app, "/v1/filters/blocks/proof_state/0", Some(&etag)).await;
    assert_eq!(r.status, StatusCode::NOT_MODIFIED);
    assert_eq!(
        r.headers["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let info = call(&app, Method::GET, "/v1/filters/info/proof_state", None)
        .await
        .json();
    assert_eq!(
        info["blocks"],
        json!([{"start": T0, "end": T0 + 3600}, {"start": T0 + 3600, "end": null}])
    );
}

#[tokio::test]
async fn a_timeout_seal_folds_and_capacity_seals_at_once() {
    let clock = ManualClock::new(T0);
    let app = open(
        Arc::new(MemoryStore::new()),
        settings(
            &[(Kind::ProofState, 10), (Kind::MintQuote, 5)],
            true,
            &clock,
        ),
    );
    call(
        &app,
        Method::POST,
        "/api/v1/cashu/state",
        Some(Value::Array(spent_changes())),
    )
    .await;
    clock.advance(3600);
    let r = get_block(&app, "/v1/filters/blocks/proof_state/0", None).await;
    let spec = hex::decode(vectors()["spec_example"]["block_hex"].as_str().unwrap()).unwrap();
    let b = amq::formats::cashu_state::smallest_b(5).unwrap();
    assert!(b < 10);
    let folded = Block::from_bytes(spec).unwrap().fold(b).unwrap();
    assert_eq!(
        r.body.as_ref(),
        folded.as_bytes(),
        "5 insertions fold to b = {b}"
    );

    // b = 5 holds one insertion: each change seals its block (height 0 timed out empty)
    let quotes: Vec<Value> = (0..3).map(mint_quote).collect();
    let r = call(
        &app,
        Method::POST,
        "/api/v1/cashu/state",
        Some(Value::Array(quotes)),
    )
    .await;
    let heights: Vec<(u64, bool)> = r.json()["inserted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["height"].as_u64().unwrap(),
                i["sealed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(heights, [(1, true), (2, true), (3, true)]);
    let info = call(&app, Method::GET, "/v1/filters/info/mint_quote", None)
        .await
        .json();
    assert_eq!(info["blocks"].as_array().unwrap().len(), 5);
    for h in 0..4 {
        let r = get_block(&app, &format!("/v1/filters/blocks/mint_quote/{h}"), None).await;
        assert_eq!((r.status, r.body.len()), (StatusCode::OK, 4));
    }
}

#[tokio::test]
async fn error_codes_40001_and_40002() {
    let clock = ManualClock::new(T0);
    let app = open(
        Arc::new(MemoryStore::new()),
        settings(&[(Kind::ProofState, 10)], true, &clock),
    );
    for path in [
        "/v1/filters/blocks/proof_state/1",
        "/v1/filters/blocks/proof_state/99999999999",
        "/v1/filters/blocks/proof_state/x",
        // block 0 exists, but only under one URL
        "/v1/filters/blocks/proof_state/00",
        "/v1/filters/blocks/proof_state/+0",
    ] {
        let r = call(&app, Method::GET, path, None).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path}");
        assert_eq!(r.json()["code"], 40001, "{path}");
    }
    for path in [
        "/v1/filters/info/melt_quote",
        "/v1/filters/blocks/melt_quote/0",
        "/v1/filters/info/coins",
        "/v1/filters/blocks/Proof_State/0",
    ] {
        let r = call(&app, Method::GET, path, None).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path}");
        assert_eq!(r.json()["code"], 40002, "{path}");
        assert!(r.json()["detail"]
            .as_str()
            .unwrap()
            .starts_with("unknown filter kind"));
    }
    // no open interval: the open height is out of range too
    let s = Settings {
        state_filters: StateFiltersConfig {
            kinds: vec![(Kind::ProofState, 10)],
            open_interval: None,
            ..StateFiltersConfig::default()
        },
        ..Settings::default()
    };
    let closed = open(Arc::new(MemoryStore::new()), s);
    assert_eq!(
        call(
            &closed,
            Method::GET,
            "/v1/filters/blocks/proof_state/0",
            None
        )
        .await
        .json()["code"],
        40001
    );
    assert_eq!(
        call(&closed, Method::GET, "/v1/filters/info/proof_state", None)
            .await
            .json()["open_interval"],
        Value::Null
    );
}

#[tokio::test]
async fn the_feed_refuses_bad_changes_whole() {
    let clock = ManualClock::new(T0);
    let limits = amq_server::Limits {
        max_items: 3,
        ..amq_server::Limits::default()
    };
    let app = open(
        Arc::new(MemoryStore::new()),
        Settings {
            limits,
            ..settings(&[(Kind::ProofState, 10)], true, &clock)
        },
    );
    let y = spent_changes()[0]["id_hex"].clone();
    for (body, status) in [
        (
            json!({"kind": "proof_state", "id_hex": y, "state": "LOST"}),
            422,
        ),
        (
            json!({"kind": "proof_state", "id_hex": "zz", "state": "SPENT"}),
            422,
        ),
        (
            json!({"kind": "proof_state", "id_hex": "02", "state": "SPENT"}),
            422,
        ),
        (
            json!({"kind": "melt_quote", "id_hex": "61", "state": "PAID"}),
            422,
        ),
        (json!({"kind": "coins", "id_hex": "61"}), 422),
        (
            json!({"kind": "proof_state", "id_hex": y, "state": "SPENT", "extra": 1}),
            422,
        ),
        (
            json!([{"kind": "proof_state", "id_hex": y, "state": "SPENT"}, {"kind": "proof_state", "id_hex": y}]),
            422,
        ),
        (json!([{}, {}, {}, {}]), 413),
        (json!([{}]), 422),
    ] {
        let r = call(
            &app,
            Method::POST,
            "/api/v1/cashu/state",
            Some(body.clone()),
        )
        .await;
        assert_eq!(r.status.as_u16(), status, "{body}: {:?}", r.body);
        r.error();
    }
    let r = common::raw(&app, Method::POST, "/api/v1/cashu/state", b"[{".to_vec()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // nothing went in: a refused list is refused whole
    clock.advance(60);
    let r = get_block(&app, "/v1/filters/blocks/proof_state/0", None).await;
    assert!(r.body.iter().all(|&b| b == 0));
    // one change as an object
    let r = call(
        &app,
        Method::POST,
        "/api/v1/cashu/state",
        Some(json!({"kind": "proof_state", "id_hex": y, "state": "SPENT"})),
    )
    .await;
    assert_eq!(r.json()["inserted"][0]["count"], 1);
}

/// A served quote kind takes only UUIDv7 quote IDs: the spec forbids a mint to publish filters
/// of quote IDs generated any other way, so a UUIDv4 or a plain string is a 422 naming the
/// rule, and the list it came in is refused whole.
#[tokio::test]
async fn a_quote_id_that_is_not_a_uuid_v7_is_refused() {
    let clock = ManualClock::new(T0);
    let app = open(
        Arc::new(MemoryStore::new()),
        settings(&[(Kind::MintQuote, 10)], true, &clock),
    );
    for id in ["q1", "550e8400-e29b-41d4-a716-446655440000"] {
        let body = json!([mint_quote(1), {"kind": "mint_quote", "id_hex": hex::encode(id)}]);
        let r = record(&app, body).await;
        assert_eq!(r.status.as_u16(), 422, "{id}");
        let message = r.error();
        assert!(
            message.contains("[1]") && message.contains("UUIDv7"),
            "{message}"
        );
    }
    // nothing of the refused lists went in: this is the block's first insertion
    let r = record(&app, mint_quote(1)).await;
    assert_eq!(r.json()["inserted"][0]["count"], 1);
}

#[tokio::test]
async fn v1_info_lists_the_kinds_under_the_nuts_number() {
    let clock = ManualClock::new(T0);
    let app = open(
        Arc::new(MemoryStore::new()),
        settings(
            &[(Kind::MeltQuote, 12), (Kind::ProofState, 20)],
            true,
            &clock,
        ),
    );
    let info = call(&app, Method::GET, "/v1/info", None).await.json();
    assert_eq!(
        info["nuts"]["XX"],
        json!({"supported": true, "kinds": ["proof_state", "melt_quote"]})
    );
    assert_eq!(info["nuts"]["23"], json!({"supported": true}));
    let plain = call(&common::router(), Method::GET, "/v1/info", None)
        .await
        .json();
    assert!(plain["nuts"].get("XX").is_none());
}

#[tokio::test]
async fn info_is_gzipped_when_asked() {
    let clock = ManualClock::new(T0);
    let app = open(
        Arc::new(MemoryStore::new()),
        settings(
            &[(Kind::MintQuote, 5), (Kind::ProofState, 12)],
            true,
            &clock,
        ),
    );
    let quotes: Vec<Value> = (0..20).map(mint_quote).collect();
    call(
        &app,
        Method::POST,
        "/api/v1/cashu/state",
        Some(Value::Array(quotes)),
    )
    .await;
    let r = send(
        &app,
        Request::get("/v1/filters/info/mint_quote")
            .header("accept-encoding", "gzip")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(r.headers["content-encoding"], "gzip");
    // a block is not: its strong ETag names the plain bytes (512 zero bytes gzip to 30)
    let plain = get_block(&app, "/v1/filters/blocks/proof_state/0", None).await;
    let r = send(
        &app,
        Request::get("/v1/filters/blocks/proof_state/0")
            .header("accept-encoding", "gzip")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(
        r.headers.get("content-encoding").is_none(),
        "{:?}",
        r.headers
    );
    assert_eq!(
        (r.body.len(), &r.headers["etag"]),
        (512, &plain.headers["etag"])
    );
}
