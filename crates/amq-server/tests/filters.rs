//! Every `/api/v1/filters` route in-process: what each does when it succeeds, a full cuckoo
//! filter's 409, and conditional export. The error statuses of every route are in `errors.rs`.

mod common;

use amq::math::{Spec, Target};
use amq::AnyFilter;
use axum::http::{Method, StatusCode};
use common::{bloom, call, raw, router, BLOOM};
use serde_json::json;

#[tokio::test]
async fn create_add_query_describe_list_delete() {
    let app = router();
    let r = call(
        &app,
        Method::PUT,
        BLOOM,
        Some(json!({"kind": "bloom", "items": 1000, "fpr": 0.01, "seed": 7})),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let info = r.json();
    assert_eq!(info["kind"], "bloom");
    assert_eq!(info["seed"], 7);
    assert_eq!(info["items_inserted"], 0);
    assert_eq!(r.headers["location"], BLOOM);
    // the same Info the library gives
    let spec = Spec::Bloom {
        items: 1000,
        target: Target::Fpr(0.01),
        k: None,
    };
    let local = AnyFilter::new(&spec, 7).unwrap();
    assert_eq!(info, serde_json::to_value(local.info()).unwrap());

    let r = call(
        &app,
        Method::POST,
        &format!("{BLOOM}/items"),
        Some(json!({"items": ["alice", "bob", "alice"]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json(), json!({"added": [true, true, false]}));
    let r = call(
        &app,
        Method::POST,
        &format!("{BLOOM}/items"),
        Some(json!({"items_hex": ["0x00ff"]})),
    )
    .await;
    assert_eq!(r.json(), json!({"added": [true]}));
    let r = call(
        &app,
        Method::POST,
        &format!("{BLOOM}/items"),
        Some(json!({"items_base64": ["Y2Fyb2w="]})),
    )
    .await;
    assert_eq!(r.json(), json!({"added": [true]}));

    let r = call(
        &app,
        Method::POST,
        &format!("{BLOOM}/contains"),
        Some(json!({"items": ["alice", "bob", "carol", "mallory"]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let mut expect = [false; 4];
    let mut mine = local.clone();
    for it in [&b"alice"[..], b"bob", b"alice", b"\x00\xff", b"carol"] {
        mine.insert(it).unwrap();
    }
    for (i, it) in ["alice", "bob", "carol", "mallory"].iter().enumerate() {
        expect[i] = mine.contains(it.as_bytes()).unwrap();
    }
    assert_eq!(r.json(), json!({"maybe": expect}));
    assert_eq!(&expect[..3], &[true, true, true]);

    let r = call(&app, Method::GET, &format!("{BLOOM}/contains/alice"), None).await;
    assert_eq!(r.json(), json!({"item": "alice", "maybe": true}));
    let r = call(
        &app,
        Method::GET,
        &format!("{BLOOM}/contains/mallory"),
        None,
    )
    .await;
    assert_eq!(r.json(), json!({"item": "mallory", "maybe": expect[3]}));
    let r = call(
        &app,
        Method::GET,
        &format!("{BLOOM}/contains/00ff?encoding=hex"),
        None,
    )
    .await;
    assert_eq!(r.json()["maybe"], true);
    let r = call(
        &app,
        Method::GET,
        &format!("{BLOOM}/contains/a%20b%2Fc"),
        None,
    )
    .await;
    assert_eq!(r.json()["item"], "a b/c");

    let r = call(&app, Method::GET, BLOOM, None).await;
    assert_eq!(r.json(), serde_json::to_value(mine.info()).unwrap());
    let r = call(&app, Method::GET, "/api/v1/filters", None).await;
    let list = r.json();
    assert_eq!(list["filters"].as_array().unwrap().len(), 1);
    assert_eq!(list["filters"][0]["name"], "names");
    assert_eq!(list["filters"][0]["items_inserted"], 5);

    let r = call(&app, Method::DELETE, BLOOM, None).await;
    assert_eq!(
        (r.status, r.json()),
        (StatusCode::OK, json!({"deleted": "names"}))
    );
    assert_eq!(
        call(&app, Method::GET, BLOOM, None).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        call(&app, Method::DELETE, BLOOM, None).await.status,
        StatusCode::NOT_FOUND
    );
    // the name is free again
    bloom(&app).await;
}

#[tokio::test]
async fn every_kind_is_created_from_its_own_parameters() {
    let app = router();
    for (name, spec) in [
        (
            "b",
            json!({"kind": "bloom", "items": 100, "m_bits": 4096, "k": 3}),
        ),
        (
            "bb",
            json!({"kind": "blocked-bloom", "items": 100, "fpr": 0.01}),
        ),
        ("c", json!({"kind": "cuckoo", "items": 100, "fpr": 0.001})),
        (
            "s",
            json!({"kind": "split-block-bloom", "items": 100, "fpr": 0.01}),
        ),
        (
            "w",
            json!({"kind": "sliding-window-bloom", "window_bits": 4096, "chunk_bits": 1024, "batch": 64, "k": 4}),
        ),
        (
            "a",
            json!({"kind": "aging-bloom", "window_seconds": 3600, "items_per_generation": 1000, "generations": 4, "fpr": 0.01}),
        ),
        (
            "n",
            json!({"kind": "negative-cache", "l": 10, "b": 16, "ways": 4, "ttl": 60}),
        ),
    ] {
        let r = call(
            &app,
            Method::PUT,
            &format!("/api/v1/filters/{name}"),
            Some(spec.clone()),
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED, "{spec}: {:?}", r.body);
        assert_eq!(r.json()["kind"], spec["kind"]);
        let r = call(
            &app,
            Method::POST,
            &format!("/api/v1/filters/{name}/items"),
            Some(json!({"items": ["x", "y"]})),
        )
        .await;
        assert_eq!(r.status, StatusCode::OK, "{name}: {:?}", r.body);
        assert_eq!(r.json()["added"].as_array().unwrap().len(), 2);
    }
    // the split block filter holds what it was given
    let r = call(&app, Method::GET, "/api/v1/filters/s/contains/y", None).await;
    assert_eq!(r.json()["maybe"], true);
    // an aging filter stamped its items with the server's clock: found now
    let r = call(&app, Method::GET, "/api/v1/filters/a/contains/x", None).await;
    assert_eq!(r.json()["maybe"], true);
    assert_eq!(
        call(&app, Method::GET, "/api/v1/filters/a", None)
            .await
            .json()["items_inserted"],
        2
    );
    // a sliding-window filter answers for positions
    let r = call(&app, Method::GET, "/api/v1/filters/w/contains/x", None).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    // a negative cache the other way round: "definitely present" or "maybe absent"
    let r = call(&app, Method::GET, "/api/v1/filters/n/contains/x", None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json(), json!({"item": "x", "definitely_present": true}));
}

#[tokio::test]
async fn cuckoo_deletes_and_bloom_cannot() {
    let app = router();
    let c = "/api/v1/filters/c";
    call(
        &app,
        Method::PUT,
        c,
        Some(json!({"kind": "cuckoo", "items": 100, "fpr": 0.001})),
    )
    .await;
    call(
        &app,
        Method::POST,
        &format!("{c}/items"),
        Some(json!({"items": ["x"]})),
    )
    .await;
    let r = call(&app, Method::DELETE, &format!("{c}/items/x"), None).await;
    assert_eq!(
        (r.status, r.json()),
        (StatusCode::OK, json!({"item": "x", "removed": true}))
    );
    let r = call(&app, Method::DELETE, &format!("{c}/items/x"), None).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(r.error().contains("definitely absent"), "{}", r.error());
    assert_eq!(
        call(&app, Method::GET, &format!("{c}/contains/x"), None)
            .await
            .json()["maybe"],
        false
    );

    bloom(&app).await;
    let r = call(&app, Method::DELETE, &format!("{BLOOM}/items/x"), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert!(r.error().contains("cannot delete"), "{}", r.error());
}

#[tokio::test]
async fn a_full_cuckoo_filter_is_a_409_and_keeps_what_fit() {
    let app = router();
    let c = "/api/v1/filters/small";
    call(
        &app,
        Method::PUT,
        c,
        Some(json!({"kind": "cuckoo", "items": 8, "fpr": 0.01})),
    )
    .await;
    let items: Vec<String> = (0..5000).map(|i| format!("item-{i}")).collect();
    let r = call(
        &app,
        Method::POST,
        &format!("{c}/items"),
        Some(json!({"items": items})),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert!(r.error().contains("full"), "{}", r.error());
    let held = call(&app, Method::GET, c, None).await.json()["items_inserted"]
        .as_u64()
        .unwrap();
    assert!(held > 0 && held < 5000, "{held}");
}

#[tokio::test]
async fn export_is_the_amq_file_with_an_etag_and_import_takes_it() {
    let app = router();
    bloom(&app).await;
    call(
        &app,
        Method::POST,
        &format!("{BLOOM}/items"),
        Some(json!({"items": ["alice", "bob"]})),
    )
    .await;
    let r = call(&app, Method::GET, &format!("{BLOOM}/export"), None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers["content-type"], "application/octet-stream");
    let spec = Spec::Bloom {
        items: 1000,
        target: Target::Fpr(0.01),
        k: None,
    };
    let mut local = AnyFilter::new(&spec, 7).unwrap();
    local.insert(b"alice").unwrap();
    local.insert(b"bob").unwrap();
    assert_eq!(r.body.as_ref(), local.to_bytes().as_slice());
    let etag = r.headers["etag"].to_str().unwrap().to_owned();

    let req = axum::http::Request::get(format!("{BLOOM}/export"))
        .header("if-none-match", &etag)
        .body(axum::body::Body::empty())
        .unwrap();
    assert_eq!(
        common::send(&app, req).await.status,
        StatusCode::NOT_MODIFIED
    );
    call(
        &app,
        Method::POST,
        &format!("{BLOOM}/items"),
        Some(json!({"items": ["carol"]})),
    )
    .await;
    let r2 = call(&app, Method::GET, &format!("{BLOOM}/export"), None).await;
    assert_ne!(r2.headers["etag"].to_str().unwrap(), etag);

    let r = raw(
        &app,
        Method::PUT,
        "/api/v1/filters/copy/import",
        r2.body.to_vec(),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    assert_eq!(r.json()["items_inserted"], 3);
    let r = call(
        &app,
        Method::GET,
        "/api/v1/filters/copy/contains/carol",
        None,
    )
    .await;
    assert_eq!(r.json()["maybe"], true);
    let r = raw(
        &app,
        Method::PUT,
        "/api/v1/filters/copy/import",
        r2.body.to_vec(),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    let r = raw(
        &app,
        Method::PUT,
        "/api/v1/filters/junk/import",
        b"not an amq file".to_vec(),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.error().starts_with("not an .amq file"), "{}", r.error());
    let mut flipped = r2.body.to_vec();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 1;
    let r = raw(&app, Method::PUT, "/api/v1/filters/junk/import", flipped).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn merge_takes_the_union_of_the_same_shape_only() {
    let app = router();
    for (name, item) in [("a", "left"), ("b", "right")] {
        call(
            &app,
            Method::PUT,
            &format!("/api/v1/filters/{name}"),
            Some(json!({"kind": "bloom", "items": 1000, "fpr": 0.01})),
        )
        .await;
        call(
            &app,
            Method::POST,
            &format!("/api/v1/filters/{name}/items"),
            Some(json!({"items": [item]})),
        )
        .await;
    }
    let r = call(
        &app,
        Method::POST,
        "/api/v1/filters/a/merge",
        Some(json!({"from": "b"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.json()["kind"], "bloom");
    let r = call(
        &app,
        Method::POST,
        "/api/v1/filters/a/contains",
        Some(json!({"items": ["left", "right"]})),
    )
    .await;
    assert_eq!(r.json(), json!({"maybe": [true, true]}));

    call(
        &app,
        Method::PUT,
        "/api/v1/filters/other-seed",
        Some(json!({"kind": "bloom", "items": 1000, "fpr": 0.01, "seed": 1})),
    )
    .await;
    let r = call(
        &app,
        Method::POST,
        "/api/v1/filters/a/merge",
        Some(json!({"from": "other-seed"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{:?}", r.body);
    call(
        &app,
        Method::PUT,
        "/api/v1/filters/c",
        Some(json!({"kind": "cuckoo", "items": 1000, "fpr": 0.01})),
    )
    .await;
    let r = call(
        &app,
        Method::POST,
        "/api/v1/filters/a/merge",
        Some(json!({"from": "c"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    let r = call(
        &app,
        Method::POST,
        "/api/v1/filters/a/merge",
        Some(json!({"from": "nope"})),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
}
