//! The router: every route, registered once with utoipa-axum so that the OpenAPI document
//! is generated from the same list the server serves.

pub mod cashu;
pub mod exchange;
pub mod filters;
pub mod meta;
pub mod metrics;
pub mod state;

use crate::layers;
use crate::AppState;
use axum::error_handling::HandleErrorLayer;
use axum::extract::DefaultBodyLimit;
use axum::http::{header, Extensions, HeaderMap, StatusCode, Version};
use axum::Router;
use std::sync::OnceLock;
use tower::ServiceBuilder;
use tower_http::compression::predicate::{DefaultPredicate, Predicate};
use tower_http::compression::CompressionLayer;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Runs `f` on tokio's blocking pool. For the reads that walk whole tables (an export's
/// bytes, `info` of every filter for `/metrics` and the list: a filter of 1 GiB takes a
/// fraction of a second), which would otherwise hold one of the runtime's few workers, and so
/// every request queued behind it, and for reads that may wait on a filter's lock while a
/// large write holds it.
///
/// # Errors
/// 500 if `f` panicked.
pub(crate) async fn off_runtime<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, crate::error::ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| crate::error::ApiError::internal(e.to_string()))
}

/// Whether a response may be compressed: not one with an ETag. A strong ETag names one
/// representation's bytes (RFC 9110, 8.8.1), and a gzipped body under the plain body's ETag
/// is another; the bodies that carry one (a state-filter block, an `.amq` export) are
/// bitmaps that gzip little (the spec of the state filters says as much of a block).
fn without_etag(_: StatusCode, _: Version, headers: &HeaderMap, _: &Extensions) -> bool {
    !headers.contains_key(header::ETAG)
}

fn api<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    AppState: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(filters::list))
        .routes(routes!(filters::create, filters::describe, filters::delete))
        .routes(routes!(filters::add))
        .routes(routes!(filters::contains))
        .routes(routes!(filters::contains_one))
        .routes(routes!(filters::remove))
        .routes(routes!(exchange::export))
        .routes(routes!(exchange::import))
        .routes(routes!(exchange::merge))
        .routes(routes!(filters::close))
        .routes(routes!(meta::plan))
        .routes(routes!(meta::healthz))
        .routes(routes!(metrics::metrics))
        .routes(routes!(openapi_json))
        .routes(routes!(cashu::create_keyset))
        .routes(routes!(cashu::add_spent))
        .routes(routes!(cashu::add_issued))
        .routes(routes!(cashu::spent))
        .routes(routes!(cashu::issued))
        .routes(routes!(cashu::info))
        .routes(routes!(state::info))
        .routes(routes!(state::block))
        .routes(routes!(state::record))
}

/// The OpenAPI document of every route, generated from the handlers' annotations.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let mut doc = api::<AppState>().into_openapi();
    doc.info.title = "amq serve".into();
    doc.info.version = env!("CARGO_PKG_VERSION").into();
    doc.info.description = Some(
        "Approximate membership filters as a durable HTTP service: a 2xx answer to a change \
         means it is on disk. Errors are {\"error\": \"...\"} (Cashu routes: {\"detail\", \
         \"code\"}). With --token-file, writes need Authorization: Bearer <token>."
            .into(),
    );
    doc
}

/// This document.
#[utoipa::path(get, path = "/api/v1/openapi.json", tag = "meta",
    responses((status = 200, description = "The OpenAPI document", body = Object)))]
pub async fn openapi_json() -> impl axum::response::IntoResponse {
    static DOC: OnceLock<String> = OnceLock::new();
    let doc = DOC.get_or_init(|| openapi().to_json().expect("the document serialises"));
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        doc.as_str(),
    )
}

pub(crate) fn router(state: AppState) -> Router {
    let limits = state.limits().clone();
    let (router, _) = api::<AppState>().split_for_parts();
    router
        .merge(crate::page::router())
        .fallback(layers::no_route)
        .method_not_allowed_fallback(layers::wrong_method)
        .layer(DefaultBodyLimit::max(limits.max_body_bytes))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            layers::auth,
        ))
        .layer(
            CompressionLayer::new().compress_when(
                DefaultPredicate::new()
                    .and(without_etag as fn(StatusCode, Version, &HeaderMap, &Extensions) -> bool),
            ),
        )
        .layer(
            ServiceBuilder::new()
                .layer(HandleErrorLayer::new(layers::timeout_error))
                .timeout(limits.timeout),
        )
        .with_state(state)
}
