//! The layers around every route: the write token, the timeout, and JSON for the statuses
//! axum answers itself (no route, wrong method); and ETag matching.

use crate::error::ApiError;
use crate::AppState;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method};
use axum::middleware::Next;
use axum::response::Response;
use tower::BoxError;

/// With a token configured, every write (any method but GET, HEAD and OPTIONS) needs
/// `Authorization: Bearer <token>`; 401 otherwise.
pub async fn auth(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if let Some(token) = state.token() {
        let write = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
        if write {
            let given = req
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "));
            if !given.is_some_and(|g| same(g.as_bytes(), token.as_bytes())) {
                return axum::response::IntoResponse::into_response(ApiError::unauthorized(
                    "this write needs Authorization: Bearer <token> (--token-file)",
                ));
            }
        }
    }
    next.run(req).await
}

/// Compares in time that depends only on the lengths.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The timeout's error as a 408 (any other layer error as a 503).
pub async fn timeout_error(err: BoxError) -> ApiError {
    if err.is::<tower::timeout::error::Elapsed>() {
        ApiError::new(
            axum::http::StatusCode::REQUEST_TIMEOUT,
            "the request took longer than the timeout (--timeout-seconds)",
        )
    } else {
        ApiError::storage(err)
    }
}

/// 404 for a path no route serves.
pub async fn no_route(method: Method, uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no route for {method} {}", uri.path()))
}

/// 405 for a method a route does not take.
pub async fn wrong_method(method: Method, uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        format!("{} does not take {method}", uri.path()),
    )
}

/// `true` if `If-None-Match` lists `etag` (or `*`).
pub fn etag_matches(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == etag || t == "*")
}
