//! In-process calls to the router (`tower::ServiceExt::oneshot`); [`server`]: a real
//! server process.
#![allow(dead_code)]

pub mod gated;
pub mod server;
pub mod state;

use amq_server::{app, AppState, Limits};
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

/// A response: status, headers, body.
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }
    pub fn error(&self) -> String {
        self.json()["error"]
            .as_str()
            .expect("an error body")
            .to_owned()
    }
}

pub fn router() -> Router {
    app(AppState::in_memory(Limits::default(), None))
}

pub async fn send(app: &Router, req: Request<Body>) -> Reply {
    let r = app.clone().oneshot(req).await.expect("infallible");
    let status = r.status();
    let headers = r.headers().clone();
    let body = r.into_body().collect().await.expect("a body").to_bytes();
    Reply {
        status,
        headers,
        body,
    }
}

pub async fn call(app: &Router, method: Method, uri: &str, body: Option<Value>) -> Reply {
    let req = Request::builder().method(method).uri(uri);
    let req = match body {
        Some(v) => req
            .header("content-type", "application/json")
            .body(Body::from(serde_json::to_vec(&v).unwrap())),
        None => req.body(Body::empty()),
    };
    send(app, req.unwrap()).await
}

pub async fn raw(app: &Router, method: Method, uri: &str, body: Vec<u8>) -> Reply {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .body(Body::from(body));
    send(app, req.unwrap()).await
}

/// The path of the filter [`bloom`] creates.
pub const BLOOM: &str = "/api/v1/filters/names";

/// Creates a classic Bloom filter for 1,000 items at ε = 1% at [`BLOOM`].
pub async fn bloom(app: &axum::Router) {
    let r = call(
        app,
        Method::PUT,
        BLOOM,
        Some(json!({"kind": "bloom", "items": 1000, "fpr": 0.01, "seed": 7})),
    )
    .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
}
