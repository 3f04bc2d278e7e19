//! The sliding-window kinds through `/api/v1/filters`: a sliding-window Bloom filter is asked
//! for an item at the position it was given, a sliding-window cuckoo filter for a member at
//! its epoch, where it is also slashed.

mod common;

use axum::http::{Method, StatusCode};
use common::{call, router};
use serde_json::json;

#[tokio::test]
async fn sliding_window_kinds_answer_at_positions_and_epochs() {
    let app = router();
    let w = "/api/v1/filters/w";
    let spec = json!({"kind": "sliding-window-bloom", "window_bits": 4096, "chunk_bits": 1024, "batch": 64, "k": 4});
    assert_eq!(
        call(&app, Method::PUT, w, Some(spec)).await.status,
        StatusCode::CREATED
    );
    let r = call(
        &app,
        Method::POST,
        &format!("{w}/items"),
        Some(json!({"items": ["x", "y", "z"]})),
    )
    .await;
    assert_eq!(
        r.json(),
        json!({"added": [true, true, true], "positions": [0, 1, 2]})
    );
    // each item at its own position; at another, or never added, definitely absent
    let r = call(
        &app,
        Method::POST,
        &format!("{w}/contains"),
        Some(json!({"items": ["x", "y", "z", "y", "q"], "positions": [0, 1, 2, 0, 3]})),
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            StatusCode::OK,
            json!({"maybe": [true, true, true, false, false]})
        )
    );
    let r = call(
        &app,
        Method::GET,
        &format!("{w}/contains/y?position=1"),
        None,
    )
    .await;
    assert_eq!(r.json(), json!({"item": "y", "maybe": true}));
    let r = call(&app, Method::GET, &format!("{w}/contains/y"), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert!(r.error().contains("?position=L"), "{}", r.error());
    let r = call(&app, Method::GET, &format!("{w}/contains/y?epoch=1"), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert!(
        r.error().contains("does not support an epoch"),
        "{}",
        r.error()
    );
    let r = call(
        &app,
        Method::GET,
        &format!("{w}/contains/y?position=1&epoch=1"),
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    let r = call(
        &app,
        Method::POST,
        &format!("{w}/contains"),
        Some(json!({"items": ["x", "y"], "positions": [0]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.error().contains("one per item"), "{}", r.error());

    let c = "/api/v1/filters/members";
    let spec = json!({"kind": "sliding-window-cuckoo", "epoch_items": 2, "fpr": 0.001});
    assert_eq!(
        call(&app, Method::PUT, c, Some(spec)).await.status,
        StatusCode::CREATED
    );
    let r = call(
        &app,
        Method::POST,
        &format!("{c}/items"),
        Some(json!({"items": ["alice", "bob", "carol"]})),
    )
    .await;
    assert_eq!(
        r.json(),
        json!({"added": [true, true, true], "epochs": [0, 0, 1]})
    );
    let contains = format!("{c}/contains");
    let ask = |epoch: u64| {
        call(
            &app,
            Method::POST,
            &contains,
            Some(json!({"items": ["alice", "bob", "carol"], "epoch": epoch})),
        )
    };
    assert_eq!(ask(0).await.json(), json!({"maybe": [true, true, false]}));
    assert_eq!(ask(1).await.json(), json!({"maybe": [false, false, true]}));
    let r = call(&app, Method::DELETE, &format!("{c}/items/bob"), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert!(r.error().contains("?epoch=E"), "{}", r.error());
    let r = call(
        &app,
        Method::DELETE,
        &format!("{c}/items/bob?epoch=0"),
        None,
    )
    .await;
    assert_eq!(
        (r.status, r.json()),
        (
            StatusCode::OK,
            json!({"item": "bob", "removed": true, "epoch": 0})
        )
    );
    let r = call(
        &app,
        Method::DELETE,
        &format!("{c}/items/bob?epoch=0"),
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(ask(0).await.json(), json!({"maybe": [true, false, false]}));
    let r = call(
        &app,
        Method::GET,
        &format!("{c}/contains/carol?epoch=1"),
        None,
    )
    .await;
    assert_eq!(r.json(), json!({"item": "carol", "maybe": true}));
    // carol's epoch 1 closes early; again, none is open; dave opens epoch 2
    let close = format!("{c}/close");
    let r = call(&app, Method::POST, &close, None).await;
    assert_eq!(
        (r.status, r.json()),
        (StatusCode::OK, json!({"closed": 1, "next_epoch": 2}))
    );
    let r = call(&app, Method::POST, &close, None).await;
    assert_eq!(r.json(), json!({"closed": null, "next_epoch": 2}));
    let r = call(
        &app,
        Method::POST,
        &format!("{c}/items"),
        Some(json!({"items": ["dave"]})),
    )
    .await;
    assert_eq!(r.json(), json!({"added": [true], "epochs": [2]}));
    assert_eq!(ask(1).await.json(), json!({"maybe": [false, false, true]}));
    // a kind without epochs refuses a slash and a close, and nothing is logged for them
    let bloom = "/api/v1/filters/names";
    let spec = json!({"kind": "bloom", "items": 1000, "fpr": 0.01});
    assert_eq!(
        call(&app, Method::PUT, bloom, Some(spec)).await.status,
        StatusCode::CREATED
    );
    let before = call(&app, Method::GET, &format!("{bloom}/export"), None).await;
    let r = call(
        &app,
        Method::DELETE,
        &format!("{bloom}/items/x?epoch=0"),
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert!(
        r.error().contains("does not support an epoch"),
        "{}",
        r.error()
    );
    let r = call(&app, Method::POST, &format!("{bloom}/close"), None).await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert!(
        r.error().contains("only a sliding-window cuckoo"),
        "{}",
        r.error()
    );
    let after = call(&app, Method::GET, &format!("{bloom}/export"), None).await;
    assert_eq!(before.body, after.body);
}
