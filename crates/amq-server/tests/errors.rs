//! The `/api/v1/filters` routes' error statuses in-process: 400 for a malformed request, 404 and
//! 405, 409, 413 past the limits, 422 for parameters no filter can take; each with its message.

mod common;

use amq_server::{app, AppState, Limits};
use axum::http::{Method, StatusCode};
use common::{bloom, call, raw, router, BLOOM};
use serde_json::json;

#[tokio::test]
async fn bad_requests_get_400() {
    let app = router();
    bloom(&app).await;
    let r = raw(
        &app,
        Method::POST,
        &format!("{BLOOM}/items"),
        b"{\"items\": [".to_vec(),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(r.error().starts_with("invalid JSON"), "{}", r.error());
    let r = call(
        &app,
        Method::POST,
        &format!("{BLOOM}/items"),
        Some(json!({"items_hex": ["xyz"]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(
        r.error().contains("items_hex[0]: invalid hex"),
        "{}",
        r.error()
    );
    let r = call(
        &app,
        Method::POST,
        &format!("{BLOOM}/items"),
        Some(json!({"items_base64": ["%%%"]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = call(
        &app,
        Method::PUT,
        "/api/v1/filters/.hidden",
        Some(json!({"kind": "bloom", "items": 10, "fpr": 0.1})),
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = call(
        &app,
        Method::GET,
        &format!("{BLOOM}/contains/zz?encoding=hex"),
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = call(
        &app,
        Method::GET,
        &format!("{BLOOM}/contains/x?encoding=rot13"),
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn missing_things_get_404_and_wrong_methods_405() {
    let app = router();
    let r = call(&app, Method::GET, "/api/v1/filters/none", None).await;
    assert_eq!(
        (r.status, r.error()),
        (StatusCode::NOT_FOUND, "no filter \"none\"".into())
    );
    for (m, uri) in [
        (Method::POST, "/api/v1/filters/none/items"),
        (Method::POST, "/api/v1/filters/none/contains"),
    ] {
        let r = call(&app, m, uri, Some(json!({"items": ["x"]}))).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{uri}");
    }
    for uri in [
        "/api/v1/filters/none/contains/x",
        "/api/v1/filters/none/export",
        "/nowhere",
    ] {
        let r = call(&app, Method::GET, uri, None).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{uri}");
        r.error();
    }
    let r = call(&app, Method::PATCH, BLOOM, None).await;
    assert_eq!(r.status, StatusCode::METHOD_NOT_ALLOWED);
    r.error();
}

#[tokio::test]
async fn conflicts_get_409() {
    let app = router();
    bloom(&app).await;
    let r = call(
        &app,
        Method::PUT,
        BLOOM,
        Some(json!({"kind": "cuckoo", "items": 10, "fpr": 0.1})),
    )
    .await;
    assert_eq!(
        (r.status, r.error()),
        (StatusCode::CONFLICT, "filter \"names\" exists".into())
    );
}

#[tokio::test]
async fn oversized_requests_get_413() {
    let limits = Limits {
        max_body_bytes: 1000,
        max_items: 3,
        ..Limits::default()
    };
    let app = app(AppState::in_memory(limits, None));
    bloom(&app).await;
    let r = call(
        &app,
        Method::POST,
        &format!("{BLOOM}/items"),
        Some(json!({"items": ["a", "b", "c", "d"]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(r.error().contains("--max-items"), "{}", r.error());
    let r = call(
        &app,
        Method::POST,
        &format!("{BLOOM}/contains"),
        Some(json!({"items": ["x".repeat(2000)]})),
    )
    .await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(r.error().contains("--max-body-bytes"), "{}", r.error());
    let r = raw(
        &app,
        Method::PUT,
        "/api/v1/filters/big/import",
        vec![0; 5000],
    )
    .await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test]
async fn unacceptable_parameters_get_422() {
    let limits = Limits {
        max_filter_bytes: 1 << 20,
        ..Limits::default()
    };
    let app = app(AppState::in_memory(limits, None));
    for body in [
        json!({"kind": "bloom", "items": 1000}),
        json!({"kind": "bloom", "items": 1000, "fpr": 1.5}),
        json!({"kind": "teapot", "items": 1000, "fpr": 0.01}),
        json!({"kind": "bloom", "items": 1000, "fpr": 0.01, "seed": -1}),
        json!([1, 2]),
        json!({"kind": "bloom", "items": 100000000, "fpr": 0.01}),
    ] {
        let r = call(&app, Method::PUT, "/api/v1/filters/x", Some(body.clone())).await;
        assert_eq!(
            r.status,
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}: {:?}",
            r.body
        );
        r.error();
    }
    let r = call(
        &app,
        Method::PUT,
        "/api/v1/filters/x",
        Some(json!({"kind": "bloom", "items": 100000000, "fpr": 0.01})),
    )
    .await;
    assert!(r.error().contains("--max-filter-bytes"), "{}", r.error());
    bloom(&app).await;
    for body in [
        json!({"items": ["a"], "items_hex": ["00"]}),
        json!({}),
        json!({"items": [1]}),
        json!({"itemz": []}),
    ] {
        let r = call(
            &app,
            Method::POST,
            &format!("{BLOOM}/items"),
            Some(body.clone()),
        )
        .await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    }
}

/// A spec value of the wrong type is refused with its field named: serde reads a spec's
/// fields through its `kind` tag and its message ("invalid type: sequence, expected u64")
/// names none, so the server names the field whose value the message quotes. In a body it
/// is a "field", in `/api/v1/plan`'s query a "parameter".
#[tokio::test]
async fn a_spec_value_of_the_wrong_type_names_its_field() {
    let app = app(AppState::in_memory(Limits::default(), None));
    for (body, expected) in [
        (
            json!({"kind": "bloom", "items": [1], "fpr": 0.01}),
            r#"field "items": invalid type: sequence, expected u64"#,
        ),
        (
            json!({"kind": "cuckoo", "items": 1000, "fpr": "1%"}),
            r#"field "fpr": invalid type: string "1%", expected f64"#,
        ),
        (
            json!({"kind": "bloom", "items": 1000, "fpr": 0.01, "k": -2}),
            r#"field "k": invalid value: integer `-2`, expected u32"#,
        ),
    ] {
        let r = call(&app, Method::PUT, "/api/v1/filters/x", Some(body.clone())).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_eq!(r.error(), expected, "{body}");
    }
    let r = call(
        &app,
        Method::GET,
        "/api/v1/plan?kind=bloom&items=many&fpr=0.01",
        None,
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        r.error(),
        r#"parameter "items": invalid type: string "many", expected u64"#
    );
}
