//! The Cashu compact state filters, revision B (cashubtc/nuts PR #433): the spec's routes
//! `GET /v1/filters/info/{kind}` and `GET /v1/filters/blocks/{kind}/{height}`, exactly as its
//! text gives them, and the mint's feed `POST /api/v1/cashu/state`.
//!
//! Errors on the spec's routes are in the Cashu shape with status 400 (NUT-00): 40001
//! "Filter block out of range", 40002 "Unknown filter kind".

use crate::error::{ApiError, CashuError, CashuErrorBody, ErrorBody};
use crate::extract::{Json, Path};
use crate::state::{ServedBlock, StateError};
use crate::AppState;
use amq::formats::cashu_state::{FiltersInfo, Kind, StateChange};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

fn out_of_range(kind: Kind, height: &str) -> CashuError {
    CashuError {
        status: StatusCode::BAD_REQUEST,
        code: 40001,
        detail: format!("filter block out of range: {kind} has no block {height} to serve"),
    }
}

fn unknown_kind(kind: &str) -> CashuError {
    CashuError {
        status: StatusCode::BAD_REQUEST,
        code: 40002,
        detail: format!("unknown filter kind: {kind:?}"),
    }
}

impl From<StateError> for ApiError {
    fn from(e: StateError) -> Self {
        match e {
            StateError::Lib(e) => e.into(),
            StateError::Store(e) => ApiError::storage(e),
        }
    }
}

/// Runs a state-filter call on the blocking pool (it may write and fsync).
async fn blocking<T: Send + 'static>(
    state: &AppState,
    f: impl FnOnce(&crate::state::StateFilters) -> Result<T, StateError> + Send + 'static,
) -> Result<T, ApiError> {
    let s = state.clone();
    super::off_runtime(move || f(s.state_filters()))
        .await?
        .map_err(ApiError::from)
}

/// A kind this mint serves, or error 40002.
fn served_kind(state: &AppState, name: &str) -> Result<Kind, CashuError> {
    Kind::parse(name)
        .ok()
        .filter(|k| state.state_filters().serves(*k))
        .ok_or_else(|| unknown_kind(name))
}

/// One kind's sequence: b, timeout, open_interval and every block's start and end.
#[utoipa::path(get, path = "/v1/filters/info/{kind}", tag = "cashu-state",
    params(("kind" = String, Path, description = "proof_state, mint_quote, melt_quote or blind_signature")),
    responses((status = 200, description = "The GetFiltersInfoResponse (gzip on Accept-Encoding)", body = Object),
        (status = 400, description = "40002: unknown filter kind", body = CashuErrorBody)))]
pub async fn info(State(state): State<AppState>, Path(kind): Path<String>) -> Response {
    let kind = match served_kind(&state, &kind) {
        Ok(k) => k,
        Err(e) => return e.into_response(),
    };
    match blocking(&state, move |s| s.info(kind)).await {
        Ok(Some(info)) => (
            [(header::CACHE_CONTROL, "no-cache")],
            axum::Json::<FiltersInfo>(info),
        )
            .into_response(),
        Ok(None) => unknown_kind(kind.name()).into_response(),
        Err(e) => e.into_response(),
    }
}

/// The block at a height: a sealed block's bytes (immutable) or the open block's snapshot
/// (`max-age` = open interval), 2^b / 8 bytes, with an ETag; 304 on `If-None-Match`.
#[utoipa::path(get, path = "/v1/filters/blocks/{kind}/{height}", tag = "cashu-state",
    params(("kind" = String, Path), ("height" = u64, Path)),
    responses((status = 200, description = "The bitmap", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 304, description = "Unchanged since the If-None-Match ETag"),
        (status = 400, description = "40001: block out of range; 40002: unknown filter kind", body = CashuErrorBody)))]
pub async fn block(
    State(state): State<AppState>,
    Path((kind, height)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let kind = match served_kind(&state, &kind) {
        Ok(k) => k,
        Err(e) => return e.into_response(),
    };
    // one URL per block: a sealed block is cached for ever under it (not under +0 or 00)
    let Some(h) = height
        .parse::<u64>()
        .ok()
        .filter(|h| h.to_string() == height)
    else {
        return out_of_range(kind, &height).into_response();
    };
    let served = match blocking(&state, move |s| s.block(kind, h)).await {
        Ok(Some(b)) => b,
        Ok(None) => return out_of_range(kind, &height).into_response(),
        Err(e) => return e.into_response(),
    };
    let ServedBlock {
        bytes,
        etag,
        sealed,
    } = served;
    let cache = if sealed {
        "public, max-age=31536000, immutable".to_owned()
    } else {
        let interval = state.settings().state_filters.open_interval.unwrap_or(0);
        format!("public, max-age={interval}")
    };
    let heads = [(header::ETAG, etag.clone()), (header::CACHE_CONTROL, cache)];
    if crate::layers::etag_matches(&headers, &etag) {
        return (StatusCode::NOT_MODIFIED, heads).into_response();
    }
    (
        heads,
        [(header::CONTENT_TYPE, "application/octet-stream")],
        bytes,
    )
        .into_response()
}

/// Where one change went.
#[derive(Debug, Serialize, ToSchema)]
pub struct InsertedBlock {
    /// The kind.
    pub kind: String,
    /// The height of the block it went into.
    pub height: u64,
    /// That block's count of insertions after it.
    pub count: u64,
    /// `true` if it filled the block, which sealed.
    pub sealed: bool,
}

/// The changes inserted.
#[derive(Debug, Serialize, ToSchema)]
pub struct StateInserted {
    /// In the order given.
    pub inserted: Vec<InsertedBlock>,
}

/// Records state changes (`{"kind", "id_hex", "state"}` or a list): on disk before the 2xx
/// and before any served block shows them.
#[utoipa::path(post, path = "/api/v1/cashu/state", tag = "cashu-state",
    request_body(content = Object, description = "A StateChange or a list of them",
        example = json!({"kind": "proof_state", "id_hex": "02...", "state": "SPENT"})),
    responses((status = 200, description = "Inserted (on disk)", body = StateInserted),
        (status = 413, description = "Over the item limit", body = ErrorBody),
        (status = 422, description = "A bad change, or a kind not served", body = ErrorBody)))]
pub async fn record(
    State(state): State<AppState>,
    Json(body): Json<serde_json::Value>,
) -> Result<axum::Json<StateInserted>, ApiError> {
    let max = state.limits().max_items;
    let changes: Vec<StateChange> = match body {
        serde_json::Value::Array(list) if list.len() > max => {
            return Err(ApiError::too_large(format!(
                "{} changes in one request, over the limit of {max} (--max-items)",
                list.len()
            )))
        }
        list @ serde_json::Value::Array(_) => serde_json::from_value(list)?,
        one => vec![serde_json::from_value(one)?],
    };
    let mut elements = Vec::with_capacity(changes.len());
    for (i, c) in changes.iter().enumerate() {
        if !state.state_filters().serves(c.kind) {
            return Err(ApiError::unprocessable(format!(
                "[{i}]: no {} sequence here (amq serve --state-filter {}[:B])",
                c.kind, c.kind
            )));
        }
        let e = c
            .published_element_hash()
            .map_err(|e| ApiError::unprocessable(format!("[{i}]: {e}")))?;
        elements.push((c.kind, e));
    }
    let done = blocking(&state, move |s| s.insert(&elements)).await?;
    let inserted = changes
        .iter()
        .zip(done)
        .map(|(c, i)| InsertedBlock {
            kind: c.kind.name().to_owned(),
            height: i.height,
            count: i.count,
            sealed: i.sealed,
        })
        .collect();
    Ok(axum::Json(StateInserted { inserted }))
}
