//! `/api/v1/filters/...`: create, list, describe, delete, add, query and remove filters, and
//! close an epoch (export, import and merge are in [`super::exchange`]).

use crate::engine::record::Outcome;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{
    check_name, decode_item, spec_from_object, Encoding, ItemList, Json, Path, Query,
};
use crate::AppState;
use amq::math::Spec;
use amq::{AnyFilter, At, Info, Inserted};
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// A filter's `Info` (the library's, as `amq info --json` prints it) with its name.
#[derive(Debug, Serialize, ToSchema)]
pub struct Named {
    /// The filter's name.
    pub name: String,
    /// Its `Info`: kind, m_bits, k, seed, items_inserted, bytes, fill_ratio,
    /// estimated_items, estimated_fpr and the kind's own fields.
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub info: Info,
}

/// Every filter.
#[derive(Debug, Serialize, ToSchema)]
pub struct FilterList {
    /// By name.
    pub filters: Vec<Named>,
}

/// Per item added: `false` if it may already have been there; for the sliding-window kinds,
/// where each was placed (ask for it there).
#[derive(Debug, Serialize, ToSchema)]
pub struct Added {
    /// In the order given.
    pub added: Vec<bool>,
    /// A sliding-window Bloom filter's position of each item (absent for other kinds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<Vec<u64>>,
    /// A sliding-window cuckoo filter's epoch of each member (absent for other kinds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epochs: Option<Vec<u64>>,
}

impl Added {
    fn new(inserted: &[Inserted]) -> Self {
        let at = |pick: fn(At) -> Option<u64>| {
            let v: Vec<u64> = inserted
                .iter()
                .filter_map(|i| i.at.and_then(pick))
                .collect();
            (!v.is_empty()).then_some(v)
        };
        Added {
            added: inserted.iter().map(|i| i.new).collect(),
            positions: at(|a| match a {
                At::Position(p) => Some(p),
                At::Epoch(_) => None,
            }),
            epochs: at(|a| match a {
                At::Epoch(e) => Some(e),
                At::Position(_) => None,
            }),
        }
    }
}

/// `POST .../contains`: an item list (exactly one of `items`, `items_hex`, `items_base64`)
/// and, for the sliding-window kinds, where to ask.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// Items as UTF-8 strings.
    pub items: Option<Vec<String>>,
    /// Items as hex (an optional `0x`).
    pub items_hex: Option<Vec<String>>,
    /// Items as base64 (standard alphabet, padded).
    pub items_base64: Option<Vec<String>>,
    /// A sliding-window Bloom filter: the position of each item, one per item.
    pub positions: Option<Vec<u64>>,
    /// A sliding-window cuckoo filter: the epoch the members were registered in.
    pub epoch: Option<u64>,
}

/// Per item queried, in the order given. Every kind but one answers in `maybe`: "maybe
/// present" (`true`) or "definitely absent" (`false`). A negative cache answers the other
/// way round, in `definitely_present`: "definitely present" (`true`) or "maybe absent"
/// (`false`: never added, or forgotten since).
#[derive(Debug, Serialize, ToSchema)]
pub struct Maybe {
    /// "Maybe present" (`true`) or "definitely absent" (`false`); absent for a negative
    /// cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maybe: Option<Vec<bool>>,
    /// A negative cache only: "definitely present" (`true`) or "maybe absent" (`false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definitely_present: Option<Vec<bool>>,
}

/// One item queried: `maybe`, or for a negative cache `definitely_present` (as [`Maybe`]).
#[derive(Debug, Serialize, ToSchema)]
pub struct ItemMaybe {
    /// The item as given in the path.
    pub item: String,
    /// "Maybe present" (`true`) or "definitely absent" (`false`); absent for a negative
    /// cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maybe: Option<bool>,
    /// A negative cache only: "definitely present" (`true`) or "maybe absent" (`false`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definitely_present: Option<bool>,
}

/// `true` for a negative cache, which answers "definitely present" or "maybe absent".
fn negative(f: &AnyFilter) -> bool {
    matches!(f, AnyFilter::NegativeCache(_))
}

/// One item removed (or a member slashed at its epoch).
#[derive(Debug, Serialize, ToSchema)]
pub struct Removed {
    /// The item as given in the path.
    pub item: String,
    /// Always `true` (an item not held is a 404).
    pub removed: bool,
    /// The epoch a sliding-window cuckoo filter's member was slashed at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epoch: Option<u64>,
}

/// A sliding-window cuckoo filter's epoch closed.
#[derive(Debug, Serialize, ToSchema)]
pub struct Closed {
    /// The epoch closed; `null` if none was open (nothing changed).
    pub closed: Option<u64>,
    /// The epoch the next registration goes to.
    pub next_epoch: u64,
}

/// A filter deleted.
#[derive(Debug, Serialize, ToSchema)]
pub struct Deleted {
    /// Its name.
    pub deleted: String,
}

/// `?encoding=` of a path item, and for the sliding-window kinds where to ask for it.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ItemAt {
    /// `utf8` (default), `hex` or `base64`.
    #[serde(default)]
    pub encoding: Encoding,
    /// A sliding-window Bloom filter: the item's position.
    pub position: Option<u64>,
    /// A sliding-window cuckoo filter: the member's epoch.
    pub epoch: Option<u64>,
}

/// `?encoding=` of a path item, and for a sliding-window cuckoo filter the epoch to slash at.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ItemEpoch {
    /// `utf8` (default), `hex` or `base64`.
    #[serde(default)]
    pub encoding: Encoding,
    /// A sliding-window cuckoo filter: slash the member at this epoch.
    pub epoch: Option<u64>,
}

/// A position and an epoch both given.
fn both() -> ApiError {
    ApiError::unprocessable(
        "give a position (a sliding-window Bloom filter) or an epoch (a sliding-window cuckoo \
         filter), not both",
    )
}

/// A position or an epoch, from the two optional fields that give one.
fn at(position: Option<u64>, epoch: Option<u64>) -> Result<Option<At>, ApiError> {
    match (position, epoch) {
        (None, None) => Ok(None),
        (Some(p), None) => Ok(Some(At::Position(p))),
        (None, Some(e)) => Ok(Some(At::Epoch(e))),
        (Some(_), Some(_)) => Err(both()),
    }
}

/// How this API asks a sliding-window kind what it refuses by item alone (`deleting`: to
/// delete); empty for the other kinds.
fn hint(kind: amq::wire::Kind, deleting: bool) -> &'static str {
    match (kind, deleting) {
        (amq::wire::Kind::SlidingWindowBloom, false) => {
            "; give each item's position (\"positions\": [...], or ?position=L)"
        }
        (amq::wire::Kind::SlidingWindowCuckoo, false) => {
            "; give the members' epoch (\"epoch\": E, or ?epoch=E)"
        }
        (amq::wire::Kind::SlidingWindowCuckoo, true) => {
            "; slash a member at its registration epoch with ?epoch=E"
        }
        _ => "",
    }
}

/// A kind's refusal to answer by item alone, with how to ask it here.
fn refused(f: &AnyFilter, e: amq::Error) -> ApiError {
    let mut err = ApiError::from(e);
    err.message.push_str(hint(f.kind(), false));
    err
}

pub(super) fn entry(
    state: &AppState,
    name: &str,
) -> Result<std::sync::Arc<crate::engine::FilterEntry>, ApiError> {
    state
        .engine()
        .filter(name)
        .ok_or_else(|| ApiError::not_found(format!("no filter {name:?}")))
}

pub(super) fn check_cap(state: &AppState, bytes: u64) -> Result<(), ApiError> {
    let cap = state.limits().max_filter_bytes;
    if bytes > cap {
        return Err(ApiError::unprocessable(format!(
            "the filter takes {bytes} bytes, over the per-filter cap of {cap} (--max-filter-bytes)"
        )));
    }
    Ok(())
}

/// Reads a [`Spec`] and a seed from one JSON object: the spec's fields and `"seed"`, and no
/// field the kind does not take ([`spec_from_object`]).
pub(crate) fn spec_and_seed(body: Value) -> Result<(Spec, u64), ApiError> {
    let Value::Object(mut obj) = body else {
        return Err(ApiError::unprocessable(
            "expected a JSON object with a \"kind\"",
        ));
    };
    let seed = match obj.remove("seed") {
        None | Some(Value::Null) => 0,
        Some(s) => s
            .as_u64()
            .ok_or_else(|| ApiError::unprocessable("seed: expected an integer in 0..2^64"))?,
    };
    Ok((spec_from_object(obj, "field", &["seed"])?, seed))
}

/// Creates a filter.
#[utoipa::path(put, path = "/api/v1/filters/{name}", tag = "filters",
    params(("name" = String, Path, description = "1 to 128 of A-Z a-z 0-9 . _ -")),
    request_body(content = Object, description = "A Spec (the kind and its parameters) and an \
        optional seed", example = json!({"kind": "bloom", "items": 1000000, "fpr": 0.01, "seed": 7})),
    responses(
        (status = 201, description = "Created: its Info", body = Object),
        (status = 409, description = "The name exists", body = ErrorBody),
        (status = 422, description = "Bad parameters or over the memory cap", body = ErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Json(body): Json<Value>,
) -> Result<Response, ApiError> {
    check_name(&name, "name")?;
    let (spec, seed) = spec_and_seed(body)?;
    let plan = amq::math::plan(&spec)?;
    check_cap(&state, plan.bytes)?;
    let filter = AnyFilter::new(&spec, seed)?;
    created(&state, &name, filter).await
}

pub(super) async fn created(
    state: &AppState,
    name: &str,
    filter: AnyFilter,
) -> Result<Response, ApiError> {
    let info = filter.info();
    state.engine().create_filter(name, filter, false).await?;
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, format!("/api/v1/filters/{name}"))],
        axum::Json(info),
    )
        .into_response())
}

/// Lists the filters.
#[utoipa::path(get, path = "/api/v1/filters", tag = "filters",
    responses((status = 200, description = "Every filter's name and Info", body = FilterList)))]
pub async fn list(State(state): State<AppState>) -> Result<axum::Json<FilterList>, ApiError> {
    let filters = state.engine().filters();
    let filters = super::off_runtime(move || {
        filters
            .into_iter()
            .map(|(name, e)| Named {
                name,
                info: e.read(|f| f.info()),
            })
            .collect()
    })
    .await?;
    Ok(axum::Json(FilterList { filters }))
}

/// Describes a filter.
#[utoipa::path(get, path = "/api/v1/filters/{name}", tag = "filters",
    params(("name" = String, Path)),
    responses((status = 200, description = "Its Info", body = Object),
        (status = 404, description = "No such filter", body = ErrorBody)))]
pub async fn describe(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<axum::Json<Info>, ApiError> {
    let filter = entry(&state, &name)?;
    Ok(axum::Json(
        super::off_runtime(move || filter.read(|f| f.info())).await?,
    ))
}

/// Deletes a filter.
#[utoipa::path(delete, path = "/api/v1/filters/{name}", tag = "filters",
    params(("name" = String, Path)),
    responses((status = 200, description = "Deleted (on disk)", body = Deleted),
        (status = 404, description = "No such filter", body = ErrorBody)))]
pub async fn delete(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<axum::Json<Deleted>, ApiError> {
    state.engine().delete_filter(&name).await?;
    Ok(axum::Json(Deleted { deleted: name }))
}

/// Adds items (an aging filter or a negative cache stamps them with the server's clock).
#[utoipa::path(post, path = "/api/v1/filters/{name}/items", tag = "filters",
    params(("name" = String, Path)), request_body = ItemList,
    responses((status = 200, description = "Added (on disk)", body = Added),
        (status = 404, description = "No such filter", body = ErrorBody),
        (status = 409, description = "The filter is full (the items before stay in)", body = ErrorBody),
        (status = 413, description = "Over the item or body limit", body = ErrorBody),
        (status = 422, description = "An item would take a growing filter over the per-filter \
            limit (the items before stay in; nothing is allocated for the rest)", body = ErrorBody)))]
pub async fn add(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Json(list): Json<ItemList>,
) -> Result<axum::Json<Added>, ApiError> {
    entry(&state, &name)?;
    let items = list.into_items(state.limits().max_items)?;
    // the limit goes with the change: the committer checks each item that would make the
    // filter grow against it, and so does replay
    let max = state.limits().max_filter_bytes;
    match state.engine().insert(&name, items, max).await? {
        Outcome::Added(inserted) => Ok(axum::Json(Added::new(&inserted))),
        _ => Err(ApiError::internal("an insert that did not add")),
    }
}

/// Queries items (a sliding-window Bloom filter at each item's position, a sliding-window
/// cuckoo filter at an epoch; a negative cache answers "definitely present" or "maybe
/// absent").
#[utoipa::path(post, path = "/api/v1/filters/{name}/contains", tag = "filters",
    params(("name" = String, Path)), request_body = Question,
    responses((status = 200, description = "Per item", body = Maybe),
        (status = 404, description = "No such filter", body = ErrorBody),
        (status = 409, description = "A kind that answers otherwise, or a position or epoch \
            it does not take", body = ErrorBody),
        (status = 422, description = "Not one position per item, or both positions and an \
            epoch", body = ErrorBody)))]
pub async fn contains(
    State(state): State<AppState>,
    Path(name): Path<String>,
    Json(q): Json<Question>,
) -> Result<axum::Json<Maybe>, ApiError> {
    let e = entry(&state, &name)?;
    let list = ItemList {
        items: q.items,
        items_hex: q.items_hex,
        items_base64: q.items_base64,
    };
    let items = list.into_items(state.limits().max_items)?;
    let slices = items.slices();
    let mut maybe = vec![false; slices.len()];
    // whether the answers are a negative cache's, told by the same read that gives them (the
    // kinds asked at a position or an epoch are not negative caches)
    let negative = match (q.positions, q.epoch) {
        (None, None) => e.read(|f| match f {
            AnyFilter::NegativeCache(c) => {
                c.contains_batch(&slices, &mut maybe);
                Ok(true)
            }
            _ => f
                .contains_batch(&slices, &mut maybe)
                .map(|()| false)
                .map_err(|x| refused(f, x)),
        })?,
        (Some(_), Some(_)) => return Err(both()),
        (Some(positions), None) => {
            if positions.len() != slices.len() {
                return Err(ApiError::unprocessable(format!(
                    "positions: one per item ({} items, {} positions)",
                    slices.len(),
                    positions.len()
                )));
            }
            e.read(|f| f.contains_batch_at_positions(&slices, &positions, &mut maybe))?;
            false
        }
        (None, Some(epoch)) => {
            e.read(|f| f.contains_batch_at(&slices, At::Epoch(epoch), &mut maybe))?;
            false
        }
    };
    let (maybe, definitely_present) = if negative {
        (None, Some(maybe))
    } else {
        (Some(maybe), None)
    };
    Ok(axum::Json(Maybe {
        maybe,
        definitely_present,
    }))
}

/// Queries one item (`?position=L` for a sliding-window Bloom filter, `?epoch=E` for a
/// sliding-window cuckoo filter; a negative cache answers "definitely present" or "maybe
/// absent").
#[utoipa::path(get, path = "/api/v1/filters/{name}/contains/{item}", tag = "filters",
    params(("name" = String, Path), ("item" = String, Path), ItemAt),
    responses((status = 200, description = "The answer", body = ItemMaybe),
        (status = 404, description = "No such filter", body = ErrorBody),
        (status = 409, description = "A kind that answers otherwise, or a position or epoch \
            it does not take", body = ErrorBody)))]
pub async fn contains_one(
    State(state): State<AppState>,
    Path((name, item)): Path<(String, String)>,
    Query(q): Query<ItemAt>,
) -> Result<axum::Json<ItemMaybe>, ApiError> {
    let e = entry(&state, &name)?;
    let bytes = decode_item(&item, q.encoding, "item")?;
    let (answer, negative) = match at(q.position, q.epoch)? {
        None => e.read(|f| match f {
            AnyFilter::NegativeCache(c) => Ok((c.contains(&bytes), true)),
            _ => f
                .contains(&bytes)
                .map(|m| (m, false))
                .map_err(|x| refused(f, x)),
        })?,
        Some(at) => (e.read(|f| f.contains_at(&bytes, at))?, false),
    };
    Ok(axum::Json(ItemMaybe {
        item,
        maybe: (!negative).then_some(answer),
        definitely_present: negative.then_some(answer),
    }))
}

/// Removes one item (a cuckoo filter or a negative cache), or slashes a member of a
/// sliding-window cuckoo filter at its epoch (`?epoch=E`).
#[utoipa::path(delete, path = "/api/v1/filters/{name}/items/{item}", tag = "filters",
    params(("name" = String, Path), ("item" = String, Path), ItemEpoch),
    responses((status = 200, description = "Removed (on disk)", body = Removed),
        (status = 404, description = "No such filter, or the item is definitely absent (a \
            negative cache: not held)", body = ErrorBody),
        (status = 409, description = "A kind that cannot delete", body = ErrorBody)))]
pub async fn remove(
    State(state): State<AppState>,
    Path((name, item)): Path<(String, String)>,
    Query(q): Query<ItemEpoch>,
) -> Result<axum::Json<Removed>, ApiError> {
    let e = entry(&state, &name)?;
    let bytes = decode_item(&item, q.encoding, "item")?;
    let outcome = match q.epoch {
        // a kind without epochs says so before anything is logged
        Some(epoch) => {
            e.read(|f| f.contains_at(&bytes, At::Epoch(epoch)))?;
            state.engine().slash(&name, &bytes, epoch).await?
        }
        None => {
            if !e.read(|f| f.deletes()) {
                let kind = e.read(|f| f.kind());
                return Err(ApiError::conflict(format!(
                    "a {} filter cannot delete (a cuckoo filter and a negative cache can){}",
                    kind.name(),
                    hint(kind, true)
                )));
            }
            state.engine().remove(&name, &bytes).await?
        }
    };
    match outcome {
        Outcome::Removed(true) => Ok(axum::Json(Removed {
            item,
            removed: true,
            epoch: q.epoch,
        })),
        // a negative cache that does not hold an item only knows it is maybe absent
        _ if e.read(negative) => Err(ApiError::not_found(format!(
            "{item:?} is not in the cache (never added, or forgotten since): nothing to remove"
        ))),
        _ => Err(ApiError::not_found(format!(
            "{item:?} is definitely absent"
        ))),
    }
}

/// Closes a sliding-window cuckoo filter's open epoch early (an epoch that ends on a clock
/// rather than after `epoch_items` registrations): the next registration opens a new one.
#[utoipa::path(post, path = "/api/v1/filters/{name}/close", tag = "filters",
    params(("name" = String, Path)),
    responses((status = 200, description = "Closed (on disk), or none was open", body = Closed),
        (status = 404, description = "No such filter", body = ErrorBody),
        (status = 409, description = "A kind without epochs", body = ErrorBody)))]
pub async fn close(
    State(state): State<AppState>,
    Path(name): Path<String>,
) -> Result<axum::Json<Closed>, ApiError> {
    let e = entry(&state, &name)?;
    // a kind without epochs says so, and with none open (a registration racing this one opens
    // its epoch after it) nothing is logged
    let closed = match e.read(|f| f.open_epoch())? {
        None => None,
        Some(_) => match state.engine().close_epoch(&name).await? {
            Outcome::Closed(closed) => closed,
            other => {
                return Err(ApiError::internal(format!(
                    "closing an epoch did {other:?}"
                )))
            }
        },
    };
    let next_epoch = e.read(|f| f.next_epoch())?;
    Ok(axum::Json(Closed { closed, next_epoch }))
}
