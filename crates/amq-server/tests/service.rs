//! The rest in-process: the write token, plan, the OpenAPI document, the page, durability
//! over a reopened store, group commit, snapshots, and reads during writes.

mod common;

use amq_server::store::{MemoryStore, Store};
use amq_server::{app, AppState, Limits};
use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use common::{call, router, send};
use serde_json::json;
use std::sync::Arc;

#[tokio::test]
async fn writes_need_the_token_and_reads_do_not() {
    let app = app(AppState::in_memory(
        Limits::default(),
        Some("s3cret".into()),
    ));
    let create = |auth: Option<&str>| {
        let mut r = Request::put("/api/v1/filters/f").header("content-type", "application/json");
        if let Some(a) = auth {
            r = r.header("authorization", a);
        }
        r.body(Body::from(r#"{"kind": "bloom", "items": 10, "fpr": 0.1}"#))
            .unwrap()
    };
    for bad in [
        None,
        Some("Bearer nope"),
        Some("s3cret"),
        Some("Bearer s3cret2"),
    ] {
        let r = send(&app, create(bad)).await;
        assert_eq!(r.status, StatusCode::UNAUTHORIZED, "{bad:?}");
        assert_eq!(r.headers["www-authenticate"], "Bearer");
        assert!(r.error().contains("Bearer"));
    }
    assert_eq!(
        send(&app, create(Some("Bearer s3cret"))).await.status,
        StatusCode::CREATED
    );
    for (m, uri) in [
        (Method::POST, "/api/v1/filters/f/items"),
        (Method::DELETE, "/api/v1/filters/f/items/x"),
        (Method::DELETE, "/api/v1/filters/f"),
        (Method::PUT, "/api/v1/filters/g/import"),
        (Method::POST, "/api/v1/filters/f/merge"),
        (Method::PUT, "/api/v1/cashu/k1"),
        (Method::POST, "/api/v1/cashu/k1/spent"),
        (Method::POST, "/api/v1/cashu/state"),
    ] {
        assert_eq!(
            call(&app, m, uri, Some(json!({}))).await.status,
            StatusCode::UNAUTHORIZED,
            "{uri}"
        );
    }
    // reads are open, including the batch query (a POST that changes nothing is still a write
    // route by method; reads by GET are open)
    assert_eq!(
        call(&app, Method::GET, "/api/v1/filters/f", None)
            .await
            .status,
        StatusCode::OK
    );
    assert_eq!(
        call(&app, Method::GET, "/api/v1/filters/f/contains/x", None)
            .await
            .status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn plan_is_the_library_plan() {
    let app = router();
    let r = call(
        &app,
        Method::GET,
        "/api/v1/plan?kind=bloom&items=1000000&fpr=0.01",
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let spec = amq::math::Spec::Bloom {
        items: 1_000_000,
        target: amq::math::Target::Fpr(0.01),
        k: None,
    };
    assert_eq!(
        r.json(),
        serde_json::to_value(amq::math::plan(&spec).unwrap()).unwrap()
    );
    let r = call(
        &app,
        Method::GET,
        "/api/v1/plan?kind=cuckoo&items=1000&fpr=0.001",
        None,
    )
    .await;
    assert_eq!(
        (r.status, r.json()["k"].clone()),
        (StatusCode::OK, json!(2))
    );
    let r = call(
        &app,
        Method::GET,
        "/api/v1/plan?kind=negative-cache&l=10&b=16&ways=4",
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    for bad in [
        "kind=bloom&items=10",
        "kind=nope&items=1&fpr=0.1",
        "items=1&fpr=0.1",
        "kind=bloom&items=-3&fpr=0.1",
    ] {
        let r = call(&app, Method::GET, &format!("/api/v1/plan?{bad}"), None).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    }
}

#[tokio::test]
async fn the_openapi_document_lists_every_route() {
    let app = router();
    let r = call(&app, Method::GET, "/api/v1/openapi.json", None).await;
    assert_eq!(r.status, StatusCode::OK);
    let doc = r.json();
    assert_eq!(doc["info"]["title"], "amq serve");
    let paths = doc["paths"].as_object().unwrap();
    for (path, methods) in [
        ("/api/v1/filters", &["get"][..]),
        ("/api/v1/filters/{name}", &["put", "get", "delete"]),
        ("/api/v1/filters/{name}/items", &["post"]),
        ("/api/v1/filters/{name}/contains", &["post"]),
        ("/api/v1/filters/{name}/contains/{item}", &["get"]),
        ("/api/v1/filters/{name}/items/{item}", &["delete"]),
        ("/api/v1/filters/{name}/export", &["get"]),
        ("/api/v1/filters/{name}/import", &["put"]),
        ("/api/v1/filters/{name}/merge", &["post"]),
        ("/api/v1/filters/{name}/close", &["post"]),
        ("/api/v1/plan", &["get"]),
        ("/api/v1/openapi.json", &["get"]),
        ("/healthz", &["get"]),
        ("/metrics", &["get"]),
        ("/api/v1/cashu/{keyset_id}", &["put"]),
        ("/api/v1/cashu/{keyset_id}/spent", &["post"]),
        ("/api/v1/cashu/{keyset_id}/issued", &["post"]),
        ("/v1/filter/spent/{keyset_id}", &["get"]),
        ("/v1/filter/issued/{keyset_id}", &["get"]),
        ("/v1/info", &["get"]),
        ("/v1/filters/info/{kind}", &["get"]),
        ("/v1/filters/blocks/{kind}/{height}", &["get"]),
        ("/api/v1/cashu/state", &["post"]),
    ] {
        for m in methods {
            assert!(
                paths.get(path).and_then(|p| p.get(*m)).is_some(),
                "{m} {path}"
            );
        }
    }
    assert!(doc["components"]["schemas"]["ItemList"].is_object());
    assert!(doc["components"]["schemas"]["Closed"].is_object());
    // the document matches the one the library function builds
    assert_eq!(doc, serde_json::to_value(amq_server::openapi()).unwrap());
}

#[tokio::test]
async fn healthz_and_the_page() {
    let app = router();
    assert_eq!(
        call(&app, Method::GET, "/healthz", None).await.json(),
        json!({"status": "ok"})
    );
    let r = call(&app, Method::GET, "/", None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    let html = String::from_utf8(r.body.to_vec()).unwrap();
    assert!(html.contains("<input id=\"name\"") && html.contains("/page.js"));
    let js = call(&app, Method::GET, "/page.js", None).await;
    assert!(String::from_utf8_lossy(&js.body).contains("/contains/"));
    assert_eq!(
        call(&app, Method::GET, "/page.css", None).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn gzip_when_asked() {
    let app = router();
    let req = Request::get("/api/v1/openapi.json")
        .header("accept-encoding", "gzip")
        .body(Body::empty())
        .unwrap();
    let r = send(&app, req).await;
    assert_eq!(r.headers["content-encoding"], "gzip");
}

async fn fill(app: &axum::Router) {
    call(
        app,
        Method::PUT,
        "/api/v1/filters/b",
        Some(json!({"kind": "bloom", "items": 1000, "fpr": 0.01, "seed": 3})),
    )
    .await;
    call(
        app,
        Method::PUT,
        "/api/v1/filters/c",
        Some(json!({"kind": "cuckoo", "items": 1000, "fpr": 0.001})),
    )
    .await;
    call(
        app,
        Method::PUT,
        "/api/v1/filters/a",
        Some(json!({"kind": "aging-bloom", "window": 100, "generations": 4, "fpr": 0.01})),
    )
    .await;
    call(app, Method::PUT, "/api/v1/filters/w", Some(json!({"kind": "sliding-window-bloom", "window_bits": 4096, "chunk_bits": 1024, "batch": 8, "k": 4}))).await;
    call(
        app,
        Method::PUT,
        "/api/v1/filters/r",
        Some(json!({"kind": "sliding-window-cuckoo", "epoch_items": 100, "fpr": 0.001})),
    )
    .await;
    for f in ["b", "c", "a", "w", "r"] {
        let items: Vec<String> = (0..300).map(|i| format!("{f}{i}")).collect();
        let r = call(
            app,
            Method::POST,
            &format!("/api/v1/filters/{f}/items"),
            Some(json!({"items": items})),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK);
    }
    call(app, Method::DELETE, "/api/v1/filters/c/items/c7", None).await;
    // r150 was registered in epoch 1 (100 members per epoch)
    let r = call(
        app,
        Method::DELETE,
        "/api/v1/filters/r/items/r150?epoch=1",
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    // r300 opens epoch 3, which closes early; r301 goes to epoch 4
    for (item, epoch) in [("r300", 3), ("r301", 4)] {
        let path = "/api/v1/filters/r/items";
        let r = call(app, Method::POST, path, Some(json!({"items": [item]}))).await;
        assert_eq!(r.json()["epochs"], json!([epoch]));
        if item == "r300" {
            let r = call(app, Method::POST, "/api/v1/filters/r/close", None).await;
            assert_eq!(r.json(), json!({"closed": 3, "next_epoch": 4}));
        }
    }
    call(
        app,
        Method::PUT,
        "/api/v1/filters/gone",
        Some(json!({"kind": "bloom", "items": 10, "fpr": 0.1})),
    )
    .await;
    call(app, Method::DELETE, "/api/v1/filters/gone", None).await;
}

async fn exports(app: &axum::Router) -> Vec<(String, Vec<u8>)> {
    let list = call(app, Method::GET, "/api/v1/filters", None).await.json();
    let mut out = Vec::new();
    for f in list["filters"].as_array().unwrap() {
        let name = f["name"].as_str().unwrap().to_owned();
        let r = call(
            app,
            Method::GET,
            &format!("/api/v1/filters/{name}/export"),
            None,
        )
        .await;
        out.push((name, r.body.to_vec()));
    }
    out
}

#[tokio::test]
async fn a_reopened_store_serves_the_same_filters() {
    let store = Arc::new(MemoryStore::new());
    let app1 = app(AppState::new(store.clone(), Limits::default(), None).unwrap());
    fill(&app1).await;
    let before = exports(&app1).await;
    assert_eq!(
        before.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["a", "b", "c", "r", "w"]
    );
    drop(app1);
    let app2 = app(AppState::new(store.clone(), Limits::default(), None).unwrap());
    assert_eq!(exports(&app2).await, before);
    let r = call(&app2, Method::GET, "/api/v1/filters/c/contains/c7", None).await;
    assert_eq!(r.json()["maybe"], false);
    // the slash was replayed; the members around it were not touched
    for (item, maybe) in [("r150", false), ("r149", true), ("r151", true)] {
        let path = format!("/api/v1/filters/r/contains/{item}?epoch=1");
        let r = call(&app2, Method::GET, &path, None).await;
        assert_eq!(r.json()["maybe"], maybe, "{item}");
    }
    // and so was the close: r302 goes to epoch 4, with r301
    let path = "/api/v1/filters/r/items";
    let r = call(&app2, Method::POST, path, Some(json!({"items": ["r302"]}))).await;
    assert_eq!(r.json()["epochs"], json!([4]));
}

#[tokio::test]
async fn a_log_is_folded_into_a_snapshot_and_reopens_the_same() {
    let store = Arc::new(MemoryStore::new());
    let app1 = app(AppState::new(store.clone(), Limits::default(), None).unwrap());
    call(
        &app1,
        Method::PUT,
        "/api/v1/filters/s",
        Some(json!({"kind": "bloom", "items": 100000, "fpr": 0.01})),
    )
    .await;
    // 6 MB of records: over the 4 MiB at which the log is folded
    for round in 0..6 {
        let items: Vec<String> = (0..10_000)
            .map(|i| format!("{round}-{i}-{}", "x".repeat(90)))
            .collect();
        call(
            &app1,
            Method::POST,
            "/api/v1/filters/s/items",
            Some(json!({"items": items})),
        )
        .await;
    }
    let before = exports(&app1).await;
    // the fold happens on the committer after the reply; wait for it (bounded)
    let mut logs = usize::MAX;
    for _ in 0..200 {
        logs = store.scan(b"f/s/l/").unwrap().len();
        if logs < 6 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(logs < 6, "the log was not folded: {logs} records");
    drop(app1);
    let app2 = app(AppState::new(store.clone(), Limits::default(), None).unwrap());
    assert_eq!(exports(&app2).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_adds_share_commits() {
    let state = AppState::new(Arc::new(MemoryStore::new()), Limits::default(), None).unwrap();
    let app = app(state.clone());
    call(
        &app,
        Method::PUT,
        "/api/v1/filters/g",
        Some(json!({"kind": "bloom", "items": 100000, "fpr": 0.01})),
    )
    .await;
    let (before, _) = state.engine().commit_counts();
    let mut tasks = Vec::new();
    for t in 0..64 {
        let app = app.clone();
        tasks.push(tokio::spawn(async move {
            for j in 0..10 {
                let r = call(
                    &app,
                    Method::POST,
                    "/api/v1/filters/g/items",
                    Some(json!({"items": [format!("{t}-{j}")]})),
                )
                .await;
                assert_eq!(r.status, StatusCode::OK);
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let commits = state.engine().commit_counts().0 - before;
    // at least one commit carried several adds (seen: 84 to 289 commits for the 640)
    assert!(commits < 640, "{commits}");
    let info = call(&app, Method::GET, "/api/v1/filters/g", None)
        .await
        .json();
    assert_eq!(info["items_inserted"], 640);
    eprintln!("640 adds in {commits} commits");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn readers_never_see_half_a_batch() {
    let app = router();
    // k ≈ 30: a false positive among 500 queries is a one-in-a-million event
    call(
        &app,
        Method::PUT,
        "/api/v1/filters/h",
        Some(json!({"kind": "bloom", "items": 100000, "fpr": 1e-9})),
    )
    .await;
    let batch = |b: usize| -> Vec<String> { (0..500).map(|i| format!("{b}:{i}")).collect() };
    let writer = {
        let app = app.clone();
        tokio::spawn(async move {
            for b in 0..40 {
                call(
                    &app,
                    Method::POST,
                    "/api/v1/filters/h/items",
                    Some(json!({"items": batch(b)})),
                )
                .await;
            }
        })
    };
    let mut seen_partial = 0;
    let mut reads = 0;
    while !writer.is_finished() && reads < 5000 {
        for b in 0..40 {
            let r = call(
                &app,
                Method::POST,
                "/api/v1/filters/h/contains",
                Some(json!({"items": batch(b)})),
            )
            .await;
            let maybe = r.json()["maybe"].as_array().unwrap().clone();
            let hits = maybe.iter().filter(|m| m.as_bool().unwrap()).count();
            if hits != 0 && hits != maybe.len() {
                seen_partial += 1;
            }
            reads += 1;
        }
    }
    writer.await.unwrap();
    assert_eq!(seen_partial, 0, "{reads} reads");
}

/// A store whose commits take half a second.
#[derive(Debug, Default)]
struct Slow(MemoryStore);

impl Store for Slow {
    fn commit(
        &self,
        writes: &[amq_server::store::Write],
    ) -> Result<(), amq_server::store::StoreError> {
        std::thread::sleep(std::time::Duration::from_millis(500));
        self.0.commit(writes)
    }
    fn scan(
        &self,
        prefix: &[u8],
    ) -> Result<amq_server::store::Rows, amq_server::store::StoreError> {
        self.0.scan(prefix)
    }
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, amq_server::store::StoreError> {
        self.0.get(key)
    }
}

#[tokio::test]
async fn a_request_over_the_timeout_gets_408() {
    let limits = Limits {
        timeout: std::time::Duration::from_millis(50),
        ..Limits::default()
    };
    let app = app(AppState::new(Arc::new(Slow::default()), limits, None).unwrap());
    let r = call(
        &app,
        Method::PUT,
        "/api/v1/filters/t",
        Some(json!({"kind": "bloom", "items": 10, "fpr": 0.1})),
    )
    .await;
    assert_eq!(r.status, StatusCode::REQUEST_TIMEOUT);
    assert!(r.error().contains("--timeout-seconds"), "{}", r.error());
    // reads that need no commit are quick
    assert_eq!(
        call(&app, Method::GET, "/healthz", None).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_change_that_timed_out_in_the_queue_is_not_made() {
    let limits = Limits {
        timeout: std::time::Duration::from_millis(100),
        ..Limits::default()
    };
    let app = app(AppState::new(Arc::new(Slow::default()), limits, None).unwrap());
    let create = |name: &str| {
        let app = app.clone();
        let uri = format!("/api/v1/filters/{name}");
        async move {
            call(
                &app,
                Method::PUT,
                &uri,
                Some(json!({"kind": "bloom", "items": 10, "fpr": 0.1})),
            )
            .await
        }
    };
    // the first is being committed (half a second) when the second joins the queue; both
    // time out, but only the first had been logged
    let first = tokio::spawn(create("first"));
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let second = create("second").await;
    assert_eq!(second.status, StatusCode::REQUEST_TIMEOUT);
    assert_eq!(first.await.unwrap().status, StatusCode::REQUEST_TIMEOUT);
    // once the committer has caught up, the first exists and the second does not
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let get = |name: &'static str| {
        let app = app.clone();
        async move {
            call(&app, Method::GET, &format!("/api/v1/filters/{name}"), None)
                .await
                .status
        }
    };
    assert_eq!(get("first").await, StatusCode::OK);
    assert_eq!(get("second").await, StatusCode::NOT_FOUND);
}
