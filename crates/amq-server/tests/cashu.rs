//! The Cashu mint routes in-process: keysets, the spent and issued feeds, the NUT-23
//! responses (equal to the library's, as `amq cashu build` prints them), caching, errors.

mod common;

use amq::formats::cashu::{CashuFilter, CashuHash, DEFAULT_M, DEFAULT_P};
use amq_server::{app, AppState, Limits};
use axum::http::{Method, StatusCode};
use common::{call, router};
use serde_json::json;

fn ys(n: usize, tag: u8) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            let mut y = vec![2u8; 33];
            y[1] = tag;
            y[2..10].copy_from_slice(&(i as u64).to_le_bytes());
            y
        })
        .collect()
}

fn hexes(items: &[Vec<u8>]) -> Vec<String> {
    items.iter().map(hex::encode).collect()
}

#[tokio::test]
async fn spent_and_issued_filters_are_the_librarys_responses() {
    let app = router();
    let r = call(
        &app,
        Method::PUT,
        "/api/v1/cashu/009a1f293253e41e",
        Some(json!({})),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert_eq!(
        r.json(),
        json!({"keyset_id": "009a1f293253e41e", "hash": "murmur3-128", "p": 19, "m": 784931})
    );
    let spent = ys(1000, 1);
    let issued = ys(300, 2);
    let r = call(
        &app,
        Method::POST,
        "/api/v1/cashu/009a1f293253e41e/spent",
        Some(json!({"items_hex": hexes(&spent)})),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (StatusCode::OK, json!({"added": 1000}))
    );
    let r = call(
        &app,
        Method::POST,
        "/api/v1/cashu/009a1f293253e41e/issued",
        Some(json!({"items_hex": hexes(&issued)})),
    )
    .await;
    assert_eq!(r.json(), json!({"added": 300}));

    for (path, items) in [("spent", &spent), ("issued", &issued)] {
        let r = call(
            &app,
            Method::GET,
            &format!("/v1/filter/{path}/009a1f293253e41e"),
            None,
        )
        .await;
        assert_eq!(r.status, StatusCode::OK);
        assert_eq!(r.headers["content-type"], "application/json");
        let t = r.json()["timestamp"].as_u64().unwrap();
        let want =
            CashuFilter::build(items, CashuHash::Murmur3X64_128, DEFAULT_P, DEFAULT_M).unwrap();
        // byte for byte what `amq cashu build --timestamp T` writes (before its newline)
        assert_eq!(
            r.body.as_ref(),
            serde_json::to_vec(&want.to_response(t)).unwrap().as_slice()
        );
        assert_eq!(r.json()["n"], items.len());
    }
}

#[tokio::test]
async fn each_hash_and_its_key() {
    let app = router();
    let key = "000102030405060708090a0b0c0d0e0f";
    call(
        &app,
        Method::PUT,
        "/api/v1/cashu/sip",
        Some(json!({"hash": "siphash", "key_hex": key})),
    )
    .await;
    call(
        &app,
        Method::PUT,
        "/api/v1/cashu/m32",
        Some(json!({"hash": "murmur3-32x2", "p": 20, "m": 1048576})),
    )
    .await;
    let items = ys(50, 9);
    for (id, hash, p, m) in [
        (
            "sip",
            CashuHash::SipHash24 {
                key: core::array::from_fn(|i| i as u8),
            },
            DEFAULT_P,
            DEFAULT_M,
        ),
        ("m32", CashuHash::Murmur3X86_32x2, 20, 1_048_576),
    ] {
        call(
            &app,
            Method::POST,
            &format!("/api/v1/cashu/{id}/spent"),
            Some(json!({"items_hex": hexes(&items)})),
        )
        .await;
        let r = call(&app, Method::GET, &format!("/v1/filter/spent/{id}"), None).await;
        let t = r.json()["timestamp"].as_u64().unwrap();
        let want = CashuFilter::build(&items, hash, p, m).unwrap();
        assert_eq!(
            r.body.as_ref(),
            serde_json::to_vec(&want.to_response(t)).unwrap().as_slice(),
            "{id}"
        );
    }
}

#[tokio::test]
async fn the_filter_is_cached_until_it_changed_and_aged() {
    // a long refresh: a change is not seen until the cached filter is older than it
    let slow = app(AppState::in_memory(
        Limits {
            cashu_refresh: 3600,
            ..Limits::default()
        },
        None,
    ));
    call(&slow, Method::PUT, "/api/v1/cashu/k", Some(json!({}))).await;
    call(
        &slow,
        Method::POST,
        "/api/v1/cashu/k/spent",
        Some(json!({"items_hex": hexes(&ys(10, 1))})),
    )
    .await;
    let first = call(&slow, Method::GET, "/v1/filter/spent/k", None)
        .await
        .body;
    call(
        &slow,
        Method::POST,
        "/api/v1/cashu/k/spent",
        Some(json!({"items_hex": hexes(&ys(5, 3))})),
    )
    .await;
    assert_eq!(
        call(&slow, Method::GET, "/v1/filter/spent/k", None)
            .await
            .body,
        first
    );

    // refresh 0: rebuilt as soon as the set changed, and only then
    let fast = app(AppState::in_memory(
        Limits {
            cashu_refresh: 0,
            ..Limits::default()
        },
        None,
    ));
    call(&fast, Method::PUT, "/api/v1/cashu/k", Some(json!({}))).await;
    call(
        &fast,
        Method::POST,
        "/api/v1/cashu/k/spent",
        Some(json!({"items_hex": hexes(&ys(10, 1))})),
    )
    .await;
    let a = call(&fast, Method::GET, "/v1/filter/spent/k", None)
        .await
        .json();
    assert_eq!(a["n"], 10);
    call(
        &fast,
        Method::POST,
        "/api/v1/cashu/k/spent",
        Some(json!({"items_hex": hexes(&ys(5, 3))})),
    )
    .await;
    let b = call(&fast, Method::GET, "/v1/filter/spent/k", None)
        .await
        .json();
    assert_eq!(b["n"], 15);
    // an empty set is an empty filter
    let e = call(&fast, Method::GET, "/v1/filter/issued/k", None)
        .await
        .json();
    assert_eq!(
        (e["n"].clone(), e["content"].clone()),
        (json!(0), json!(""))
    );
}

#[tokio::test]
async fn cashu_errors() {
    let app = router();
    let r = call(&app, Method::GET, "/v1/filter/spent/unknown", None).await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(
        r.json(),
        json!({"detail": "keyset is not known: unknown", "code": 12001})
    );
    assert_eq!(
        call(&app, Method::GET, "/v1/filter/issued/unknown", None)
            .await
            .json()["code"],
        12001
    );
    let r = call(
        &app,
        Method::POST,
        "/api/v1/cashu/unknown/spent",
        Some(json!({"items_hex": ["00"]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    call(&app, Method::PUT, "/api/v1/cashu/k", Some(json!({}))).await;
    assert_eq!(
        call(&app, Method::PUT, "/api/v1/cashu/k", Some(json!({})))
            .await
            .status,
        StatusCode::CONFLICT
    );
    for bad in [
        json!({"hash": "md5"}),
        json!({"hash": "murmur3-128", "key_hex": "00"}),
        json!({"hash": "siphash", "key_hex": "0001"}),
        json!({"m": 0}),
        json!({"m": 4294967296u64}),
        json!({"p": 40}),
        json!({"colour": "blue"}),
    ] {
        let r = call(&app, Method::PUT, "/api/v1/cashu/k2", Some(bad.clone())).await;
        assert!(r.status.is_client_error(), "{bad}: {}", r.status);
        r.error();
    }
    let r = call(
        &app,
        Method::POST,
        "/api/v1/cashu/k/spent",
        Some(json!({"items_hex": ["0g"]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn v1_info_advertises_nut_23() {
    let r = call(&router(), Method::GET, "/v1/info", None).await;
    let info = r.json();
    assert_eq!(info["nuts"]["23"], json!({"supported": true}));
    assert_eq!(info["name"], "amq");
    assert!(info["version"].as_str().unwrap().starts_with("amq/"));
}
