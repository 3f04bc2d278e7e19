//! The Cashu mint filter endpoints of the NUT-23 draft (`/v1/filter/spent/{keyset_id}`,
//! `/v1/filter/issued/{keyset_id}`, `/v1/info`) and the mint's feed
//! (`/api/v1/cashu/{keyset_id}`, `.../spent`, `.../issued`).
//!
//! A filter is built with the library's [`CashuFilter::build`] and serialised as its
//! [`GetFilterResponse`](amq::formats::cashu::GetFilterResponse), exactly what
//! `amq cashu build --timestamp T` prints for the same items; it is cached with its
//! timestamp and rebuilt only when its set changed and it is older than `--cashu-refresh`.

use crate::engine::{unix_now, Cached, KeysetSettings, SetKind};
use crate::error::{ApiError, CashuError, CashuErrorBody, ErrorBody};
use crate::extract::{check_name, decode_item, Encoding, ItemList, Json, Path};
use crate::AppState;
use amq::formats::cashu::{CashuFilter, CashuHash, DEFAULT_M, DEFAULT_P};
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `PUT /api/v1/cashu/{keyset_id}`: how the keyset's filters hash and size.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateKeyset {
    /// `murmur3-128` (the draft's text; default), `murmur3-32x2` (nutshell, cashu-ts, cdk)
    /// or `siphash`.
    #[serde(default)]
    pub hash: Option<String>,
    /// The SipHash key, 16 bytes as hex (only with `siphash`; default all zero).
    #[serde(default)]
    pub key_hex: Option<String>,
    /// P, the Golomb-Rice remainder bits (default 19).
    #[serde(default)]
    pub p: Option<u8>,
    /// M, the inverse false-positive rate (default 784931).
    #[serde(default)]
    pub m: Option<u64>,
}

/// A keyset's settings.
#[derive(Debug, Serialize, ToSchema)]
pub struct Keyset {
    /// Its id.
    pub keyset_id: String,
    /// The item hash.
    pub hash: String,
    /// P.
    pub p: u8,
    /// M.
    pub m: u64,
}

/// Items added to a set.
#[derive(Debug, Serialize, ToSchema)]
pub struct KeysetAdded {
    /// Items added by this request.
    pub added: usize,
}

/// A NUT-23 `GetFilterResponse` (schema for the document; the body is the library's).
#[derive(Debug, Serialize, ToSchema)]
pub struct GetFilterResponseDoc {
    /// N, the number of items.
    pub n: u64,
    /// P, the Golomb-Rice remainder bits.
    pub p: u8,
    /// M, the inverse false-positive rate.
    pub m: u64,
    /// The set's bytes, base64.
    pub content: String,
    /// When the filter was built, seconds since the Unix epoch.
    pub timestamp: u64,
}

fn settings(c: CreateKeyset) -> Result<KeysetSettings, ApiError> {
    let hash = match (c.hash.as_deref().unwrap_or("murmur3-128"), c.key_hex) {
        ("siphash", key) => {
            let key = match key {
                None => [0; 16],
                Some(k) => decode_item(&k, Encoding::Hex, "key_hex")?
                    .try_into()
                    .map_err(|k: Vec<u8>| {
                        ApiError::unprocessable(format!("key_hex: 16 bytes, got {}", k.len()))
                    })?,
            };
            CashuHash::SipHash24 { key }
        }
        (_, Some(_)) => return Err(ApiError::unprocessable("key_hex is only for siphash")),
        ("murmur3-128", None) => CashuHash::Murmur3X64_128,
        ("murmur3-32x2", None) => CashuHash::Murmur3X86_32x2,
        (other, None) => {
            return Err(ApiError::unprocessable(format!(
                "hash {other:?}: murmur3-128, murmur3-32x2 or siphash"
            )))
        }
    };
    let (p, m) = (c.p.unwrap_or(DEFAULT_P), c.m.unwrap_or(DEFAULT_M));
    // the library's own checks on P and M, on an empty set
    CashuFilter::build(std::iter::empty::<&[u8]>(), hash, p, m)?;
    Ok(KeysetSettings { hash, p, m })
}

/// Creates a keyset.
#[utoipa::path(put, path = "/api/v1/cashu/{keyset_id}", tag = "cashu",
    params(("keyset_id" = String, Path)), request_body = CreateKeyset,
    responses((status = 201, description = "Created (on disk)", body = Keyset),
        (status = 409, description = "It exists", body = ErrorBody),
        (status = 422, description = "Bad settings", body = ErrorBody)))]
pub async fn create_keyset(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(c): Json<CreateKeyset>,
) -> Result<Response, ApiError> {
    check_name(&id, "keyset id")?;
    let s = settings(c)?;
    state.engine().create_keyset(&id, s).await?;
    let body = Keyset {
        keyset_id: id,
        hash: s.hash.name().to_owned(),
        p: s.p,
        m: s.m,
    };
    Ok((StatusCode::CREATED, axum::Json(body)).into_response())
}

async fn add(
    state: &AppState,
    id: &str,
    set: SetKind,
    list: ItemList,
) -> Result<axum::Json<KeysetAdded>, ApiError> {
    let items = list.into_items(state.limits().max_items)?;
    let added = state.engine().keyset_items(id, set, items).await?;
    Ok(axum::Json(KeysetAdded { added }))
}

/// Adds `Y`s of spent notes.
#[utoipa::path(post, path = "/api/v1/cashu/{keyset_id}/spent", tag = "cashu",
    params(("keyset_id" = String, Path)), request_body = ItemList,
    responses((status = 200, description = "Added (on disk)", body = KeysetAdded),
        (status = 404, description = "No such keyset", body = ErrorBody)))]
pub async fn add_spent(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(list): Json<ItemList>,
) -> Result<axum::Json<KeysetAdded>, ApiError> {
    add(&state, &id, SetKind::Spent, list).await
}

/// Adds blind signatures `B_`.
#[utoipa::path(post, path = "/api/v1/cashu/{keyset_id}/issued", tag = "cashu",
    params(("keyset_id" = String, Path)), request_body = ItemList,
    responses((status = 200, description = "Added (on disk)", body = KeysetAdded),
        (status = 404, description = "No such keyset", body = ErrorBody)))]
pub async fn add_issued(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(list): Json<ItemList>,
) -> Result<axum::Json<KeysetAdded>, ApiError> {
    add(&state, &id, SetKind::Issued, list).await
}

async fn filter(state: &AppState, id: &str, set: SetKind) -> Result<Response, Response> {
    let keyset = state
        .engine()
        .keyset(id)
        .ok_or_else(|| CashuError::unknown_keyset(id).into_response())?;
    let i = set as usize;
    let mut cache = keyset.cache[i].lock().await;
    let version = crate::engine::read(&keyset.sets)[i].version;
    let now = unix_now();
    if let Some(c) = cache.as_ref() {
        if c.version == version || now.saturating_sub(c.timestamp) < state.limits().cashu_refresh {
            return Ok(json(c.body.clone()));
        }
    }
    // copy the set (a memcpy) rather than hold its lock while the filter is built
    let items = crate::engine::read(&keyset.sets)[i].clone();
    let s = keyset.settings;
    let built = tokio::task::spawn_blocking(move || {
        let filter = CashuFilter::build(items.iter(), s.hash, s.p, s.m)?;
        let body = serde_json::to_vec(&filter.to_response(now)).expect("a response serialises");
        Ok::<_, amq::Error>((items.version, body))
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()).into_response())?
    .map_err(|e| ApiError::from(e).into_response())?;
    let c = Cached {
        version: built.0,
        timestamp: now,
        body: built.1.into(),
    };
    let body = c.body.clone();
    *cache = Some(c);
    Ok(json(body))
}

fn json(body: axum::body::Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The spent-note filter of a keyset (NUT-23 draft).
#[utoipa::path(get, path = "/v1/filter/spent/{keyset_id}", tag = "cashu",
    params(("keyset_id" = String, Path)),
    responses((status = 200, description = "The GetFilterResponse", body = GetFilterResponseDoc),
        (status = 404, description = "Unknown keyset (code 12001)", body = CashuErrorBody)))]
pub async fn spent(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    filter(&state, &id, SetKind::Spent)
        .await
        .unwrap_or_else(|r| r)
}

/// The blind-signature filter of a keyset (NUT-23 draft).
#[utoipa::path(get, path = "/v1/filter/issued/{keyset_id}", tag = "cashu",
    params(("keyset_id" = String, Path)),
    responses((status = 200, description = "The GetFilterResponse", body = GetFilterResponseDoc),
        (status = 404, description = "Unknown keyset (code 12001)", body = CashuErrorBody)))]
pub async fn issued(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    filter(&state, &id, SetKind::Issued)
        .await
        .unwrap_or_else(|r| r)
}

/// The mint's info (NUT-06): NUT-23, and the compact state filters' kinds under the NUT's
/// number when any are served.
#[utoipa::path(get, path = "/v1/info", tag = "cashu",
    responses((status = 200, description = "Name, version and the NUTs supported", body = Object)))]
pub async fn info(State(state): State<AppState>) -> axum::Json<serde_json::Value> {
    let mut nuts = serde_json::json!({ "23": { "supported": true } });
    let kinds = state.state_filters().kinds();
    if !kinds.is_empty() {
        let setting = amq::formats::cashu_state::MintInfoSetting {
            supported: true,
            kinds,
        };
        nuts[crate::state::NUT] = serde_json::to_value(setting).expect("a setting serialises");
    }
    axum::Json(serde_json::json!({
        "name": "amq",
        "version": concat!("amq/", env!("CARGO_PKG_VERSION")),
        "description": "amq serve: approximate membership filters",
        "nuts": nuts
    }))
}
