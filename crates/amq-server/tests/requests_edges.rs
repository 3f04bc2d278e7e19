//! Edges of request handling that mutation testing of `extract.rs`, `routes/filters.rs`,
//! `layers.rs`, `routes/exchange.rs` and `routes/state.rs` found unpinned: limits at exactly
//! their value (`--max-items` for items and state changes, `--max-filter-bytes` for a create
//! and a merge), the hint a sliding-window cuckoo filter's refusal carries, and the write
//! token compared byte for byte; in-process through `app(...)`, over a reopened `MemoryStore`
//! where a limit changes.

mod common;

use amq_server::store::MemoryStore;
use amq_server::{app, AppState, Limits};
use axum::http::{Method, StatusCode};
use common::{bloom, call, BLOOM};
use serde_json::json;
use std::sync::Arc;

/// `--max-items` is the most items one request may carry ("413 above"): a list of exactly
/// that many is added and queried, one more is refused with a 413 naming the flag. Written
/// against `extract.rs:109` (`list.len() > max` made `>=`), which refused a list at the limit.
#[tokio::test]
async fn a_list_of_exactly_max_items_is_taken() {
    let limits = Limits {
        max_items: 3,
        ..Limits::default()
    };
    let app = app(AppState::in_memory(limits, None));
    bloom(&app).await;
    let three = json!({"items": ["a", "b", "c"]});
    let r = call(
        &app,
        Method::POST,
        &format!("{BLOOM}/items"),
        Some(three.clone()),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.json()["added"], json!([true, true, true]));
    let r = call(
        &app,
        Method::POST,
        &format!("{BLOOM}/contains"),
        Some(three),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    // a Bloom filter has no false negatives: all three were added
    assert_eq!(r.json()["maybe"], json!([true, true, true]));
    let four = json!({"items": ["a", "b", "c", "d"]});
    let r = call(&app, Method::POST, &format!("{BLOOM}/contains"), Some(four)).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(r.error().contains("--max-items"), "{}", r.error());
}

/// `--max-filter-bytes` is the most payload bytes one filter may take ("422 for a filter
/// planned above it"): a filter whose plan (`/api/v1/plan`'s `bytes`) is exactly the cap is
/// created, and with the cap one byte lower the same spec is refused with a 422 naming the
/// flag. Written against `routes/filters.rs:232` (`bytes > cap` made `>=`), which refused a
/// filter at the cap.
#[tokio::test]
async fn a_filter_planned_at_exactly_the_cap_is_created() {
    let planned = call(
        &common::router(),
        Method::GET,
        "/api/v1/plan?kind=bloom&items=1000&fpr=0.01",
        None,
    )
    .await;
    assert_eq!(planned.status, StatusCode::OK, "{:?}", planned.body);
    let bytes = planned.json()["bytes"].as_u64().expect("a plan's bytes");
    let spec = json!({"kind": "bloom", "items": 1000, "fpr": 0.01});
    let capped = |cap: u64| {
        app(AppState::in_memory(
            Limits {
                max_filter_bytes: cap,
                ..Limits::default()
            },
            None,
        ))
    };
    let r = call(&capped(bytes), Method::PUT, BLOOM, Some(spec.clone())).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let r = call(&capped(bytes - 1), Method::PUT, BLOOM, Some(spec)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.error().contains("--max-filter-bytes"), "{}", r.error());
}

/// A sliding-window cuckoo filter answers for its members only at an epoch; asked by item
/// alone (`POST .../contains` without `"epoch"`, `GET .../contains/{item}` without
/// `?epoch=`) it refuses with a 409 whose message says how to ask it here. Written against
/// `routes/filters.rs:203` (the hint's `(SlidingWindowCuckoo, false)` arm deleted), which
/// left the refusal without it.
#[tokio::test]
async fn a_sliding_window_cuckoo_asked_without_an_epoch_is_told_to_give_one() {
    let app = common::router();
    let c = "/api/v1/filters/members";
    let spec = json!({"kind": "sliding-window-cuckoo", "epoch_items": 2, "fpr": 0.001});
    assert_eq!(
        call(&app, Method::PUT, c, Some(spec)).await.status,
        StatusCode::CREATED
    );
    let add = json!({"items": ["alice"]});
    let r = call(&app, Method::POST, &format!("{c}/items"), Some(add)).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let ask = json!({"items": ["alice"]});
    let r = call(&app, Method::POST, &format!("{c}/contains"), Some(ask)).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert!(r.error().contains("\"epoch\": E"), "{}", r.error());
    let r = call(&app, Method::GET, &format!("{c}/contains/alice"), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert!(r.error().contains("?epoch=E"), "{}", r.error());
}

/// With `--token-file`, a write needs `Authorization: Bearer <token>` with exactly the token:
/// a wrong token of the same length is refused with a 401 and the write does not happen,
/// whether one byte differs (`s3cres`) or two are swapped (`3scret`, whose byte differences
/// cancel under XOR). Written against `layers.rs:35` (the comparison's `acc | (x ^ y)` made
/// `&`, which took any token of the right length, and `^`, which took the swapped one).
#[tokio::test]
async fn a_wrong_token_of_the_right_length_is_refused() {
    let app = app(AppState::in_memory(
        Limits::default(),
        Some("s3cret".into()),
    ));
    let create = |token: &str| {
        axum::http::Request::put("/api/v1/filters/f")
            .header("content-type", "application/json")
            .header("authorization", format!("Bearer {token}"))
            .body(axum::body::Body::from(
                r#"{"kind": "bloom", "items": 10, "fpr": 0.1}"#,
            ))
            .unwrap()
    };
    for wrong in ["s3cres", "3scret"] {
        let r = common::send(&app, create(wrong)).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{wrong}");
        assert!(r.error().contains("Bearer"), "{}", r.error());
        // reads need no token: the refused create made no filter
        let r = call(&app, Method::GET, "/api/v1/filters/f", None).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{wrong}");
    }
    let r = common::send(&app, create("s3cret")).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
}

/// A merge is held to `--max-filter-bytes` only where the union grows: it takes the larger
/// of the two, so merging a larger scalable Bloom filter into a smaller one is allowed while
/// the larger is at most the cap (here exactly at it), and merging two of the same size is
/// allowed even under a cap lowered below both (it allocates nothing). Both servers
/// reopen the store the first one filled. Written against `routes/exchange.rs:118`
/// (`size > my_size && size > cap` with `&&` made `||`, the first `>` made `>=`, the second
/// `>` made `>=`), each of which refused one of these merges with a 422.
#[tokio::test]
async fn a_merge_is_refused_only_where_the_union_grows_over_the_cap() {
    let store = Arc::new(MemoryStore::new());
    let open = |cap: u64| {
        let limits = Limits {
            max_filter_bytes: cap,
            ..Limits::default()
        };
        app(AppState::new(store.clone(), limits, None).unwrap())
    };
    let bytes = |r: common::Reply| r.json()["bytes"].as_u64().expect("an Info's bytes");
    let path = |name: &str, rest: &str| format!("/api/v1/filters/{name}{rest}");
    let spec = json!({"kind": "scalable-bloom", "items": 100, "fpr": 0.01, "seed": 1});
    let many: Vec<String> = (0..1000).map(|i| format!("b{i}")).collect();
    let app1 = open(Limits::default().max_filter_bytes);
    for name in ["small", "big", "twin-a", "twin-b"] {
        let r = call(&app1, Method::PUT, &path(name, ""), Some(spec.clone())).await;
        assert_eq!(r.status, StatusCode::CREATED, "{name}: {:?}", r.body);
    }
    let add = |name: &str, items: &[String]| {
        let (app, uri) = (app1.clone(), path(name, "/items"));
        let body = json!({ "items": items });
        async move { call(&app, Method::POST, &uri, Some(body)).await }
    };
    assert_eq!(add("big", &many).await.status, StatusCode::OK);
    assert_eq!(add("twin-b", &["t".into()]).await.status, StatusCode::OK);
    let big = bytes(call(&app1, Method::GET, &path("big", ""), None).await);
    let twin = bytes(call(&app1, Method::GET, &path("twin-a", ""), None).await);
    assert!(
        big > twin,
        "1000 items grew the chain of 100: {big} > {twin}"
    );
    drop(app1);
    let merge = |app: &axum::Router, into: &str, from: &str| {
        let (app, uri) = (app.clone(), path(into, "/merge"));
        let body = json!({ "from": from });
        async move { call(&app, Method::POST, &uri, Some(body)).await }
    };
    // the union takes big's size, which is exactly the cap
    let at_cap = open(big);
    let r = merge(&at_cap, "small", "big").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(bytes(r), big);
    let r = call(
        &at_cap,
        Method::POST,
        &path("small", "/contains"),
        Some(json!({ "items": many })),
    )
    .await;
    assert_eq!(
        r.json()["maybe"],
        json!(vec![true; 1000]),
        "no false negatives"
    );
    drop(at_cap);
    // twins under a cap below both: the union is no larger than either
    let below = open(twin - 1);
    let r = merge(&below, "twin-a", "twin-b").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(bytes(r), twin);
    let r = call(&below, Method::GET, &path("twin-a", "/contains/t"), None).await;
    assert_eq!(r.json()["maybe"], true);
}

/// The state feed holds a list of changes to `--max-items` as the filter routes hold a list
/// of items ("413 above"): exactly that many changes are recorded, one more is refused with a
/// 413 naming the flag. Written against `routes/state.rs:170` (`list.len() > max` made `>=`),
/// which refused a list at the limit.
#[tokio::test]
async fn a_state_feed_list_of_exactly_max_items_is_recorded() {
    use amq::clock::ManualClock;
    use amq::formats::cashu_state::Kind;
    use common::state::{open, record, settings, spent_changes, T0};
    let clock = ManualClock::new(T0);
    let limits = Limits {
        max_items: 3,
        ..Limits::default()
    };
    let app = open(
        Arc::new(MemoryStore::new()),
        amq_server::Settings {
            limits,
            ..settings(&[(Kind::ProofState, 10)], true, &clock)
        },
    );
    let changes = spent_changes();
    assert!(
        changes.len() > 3,
        "the vectors have {} changes",
        changes.len()
    );
    let r = record(&app, json!(changes[..3])).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let inserted = r.json()["inserted"].as_array().expect("inserted").len();
    assert_eq!(inserted, 3);
    let r = record(&app, json!(changes[..4])).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(r.error().contains("--max-items"), "{}", r.error());
}
