//! `/api/v1/filters/{name}/export`, `/import` and `/merge`: a filter's `.amq` bytes out and
//! in, and the union of two filters.

use super::filters::{check_cap, created, entry};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{check_name, Json, Path};
use crate::AppState;
use amq::{AnyFilter, Info};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use std::sync::Arc;
use utoipa::ToSchema;

/// `POST .../merge`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MergeFrom {
    /// The filter whose items are merged in (same kind, shape and seed).
    pub from: String,
}

/// The `.amq` bytes, as `amq build` writes them.
#[utoipa::path(get, path = "/api/v1/filters/{name}/export", tag = "filters",
    params(("name" = String, Path)),
    responses((status = 200, description = "The .amq file, with an ETag", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 304, description = "Unchanged since the If-None-Match ETag"),
        (status = 404, description = "No such filter", body = ErrorBody)))]
pub async fn export(
    State(state): State<AppState>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let filter = entry(&state, &name)?;
    let bytes = super::off_runtime(move || filter.read(|f| f.to_bytes())).await?;
    let etag = format!("\"{:016x}\"", amq::hash::checksum64(&bytes));
    if crate::layers::etag_matches(&headers, &etag) {
        return Ok((StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response());
    }
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_owned()),
            (header::ETAG, etag),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}.amq\""),
            ),
        ],
        bytes,
    )
        .into_response())
}

/// Creates a filter from `.amq` bytes.
#[utoipa::path(put, path = "/api/v1/filters/{name}/import", tag = "filters",
    params(("name" = String, Path)),
    request_body(content = Vec<u8>, content_type = "application/octet-stream", description = "An .amq file"),
    responses((status = 201, description = "Created: its Info", body = Object),
        (status = 409, description = "The name exists", body = ErrorBody),
        (status = 413, description = "Over the body limit", body = ErrorBody),
        (status = 422, description = "Not an .amq file, or over the memory cap", body = ErrorBody)))]
pub async fn import(
    State(state): State<AppState>,
    Path(name): Path<String>,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Response, ApiError> {
    check_name(&name, "name")?;
    let body = body?;
    let filter = AnyFilter::from_bytes(&body).map_err(|e| {
        ApiError::unprocessable(match e {
            // its message says so already
            amq::Error::BadMagic { .. } => e.to_string(),
            _ => format!("not an .amq file: {e}"),
        })
    })?;
    check_cap(&state, filter.size_bytes())?;
    created(&state, &name, filter).await
}

/// Merges another filter into this one.
#[utoipa::path(post, path = "/api/v1/filters/{name}/merge", tag = "filters",
    params(("name" = String, Path)), request_body = MergeFrom,
    responses((status = 200, description = "Merged (on disk): the Info after", body = Object),
        (status = 404, description = "No such filter", body = ErrorBody),
        (status = 409, description = "Kinds or shapes that do not match", body = ErrorBody),
        (status = 422, description = "A filter merged with itself, or a union over the \
            per-filter limit", body = ErrorBody)))]
pub async fn merge(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Json(m): Json<MergeFrom>,
) -> Result<axum::Json<Info>, ApiError> {
    let target = entry(&state, &name)?;
    let other = entry(&state, &m.from)?;
    if Arc::ptr_eq(&target, &other) {
        // a union with itself would hold the same items, but count each twice (a cuckoo
        // filter would store each fingerprint twice, a chain's links their counts doubled)
        return Err(ApiError::unprocessable(format!(
            "cannot merge {name:?} with itself: it holds its own items already"
        )));
    }
    let (kind, bytes, size) =
        super::off_runtime(move || other.read(|f| (f.kind(), f.to_bytes(), f.size_bytes())))
            .await?;
    let (mine, my_size) = target.read(|f| (f.kind(), f.size_bytes()));
    if kind != mine {
        return Err(ApiError::conflict(format!(
            "cannot merge a {} filter into a {} filter",
            kind.name(),
            mine.name()
        )));
    }
    // filters that merge have the same shape, or are chains of the same links, which the
    // union takes the longer of: it ends as large as the larger of the two
    let cap = state.limits().max_filter_bytes;
    if size > my_size && size > cap {
        return Err(ApiError::unprocessable(format!(
            "the union would take {size} bytes (as {:?} does), over the per-filter limit of \
             {cap} (--max-filter-bytes)",
            m.from
        )));
    }
    state.engine().merge(&name, &bytes).await?;
    Ok(axum::Json(
        super::off_runtime(move || target.read(|f| f.info())).await?,
    ))
}
