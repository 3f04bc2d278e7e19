//! `/healthz`, `/api/v1/plan` and `/api/v1/openapi.json`.

use crate::error::{ApiError, ErrorBody};
use crate::extract::{spec_from_object, Query};
use amq::math::Plan;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Liveness.
#[utoipa::path(get, path = "/healthz", tag = "meta",
    responses((status = 200, description = "The server answers", body = Object)))]
pub async fn healthz() -> axum::Json<Value> {
    axum::Json(serde_json::json!({"status": "ok"}))
}

/// A query string's values as JSON: numbers where they parse as numbers, `true` and
/// `false` as booleans (`nonscaling`).
fn query_json(q: BTreeMap<String, String>) -> Map<String, Value> {
    let mut obj = Map::new();
    for (k, v) in q {
        let value = if let Ok(b) = v.parse::<bool>() {
            Value::Bool(b)
        } else if let Ok(n) = v.parse::<u64>() {
            Value::from(n)
        } else if let Some(n) = v.parse::<f64>().ok().and_then(serde_json::Number::from_f64) {
            Value::Number(n)
        } else {
            Value::String(v)
        };
        obj.insert(k, value);
    }
    obj
}

/// Plans a filter: the Spec's fields as query parameters.
#[utoipa::path(get, path = "/api/v1/plan", tag = "meta",
    params(("kind" = String, Query, description = "bloom, blocked-bloom, cuckoo, \
        sliding-window-bloom, aging-bloom or negative-cache; then the kind's parameters: items \
        and fpr (or m_bits, or memory_bytes) and k; window_bits, chunk_bits, batch; window or \
        window_seconds and items_per_generation, generations; l, b, ways, ttl")),
    responses((status = 200, description = "The Plan", body = Object),
        (status = 422, description = "Bad parameters: one the kind does not take, more than \
            one of fpr, m_bits and memory_bytes, a value out of range", body = ErrorBody)))]
pub async fn plan(Query(q): Query<BTreeMap<String, String>>) -> Result<axum::Json<Plan>, ApiError> {
    let spec = spec_from_object(query_json(q), "parameter", &[])?;
    Ok(axum::Json(amq::math::plan(&spec)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_values_become_numbers_where_they_are() {
        let q = BTreeMap::from([
            ("kind".to_owned(), "bloom".to_owned()),
            ("items".to_owned(), "1000".to_owned()),
            ("fpr".to_owned(), "0.01".to_owned()),
        ]);
        assert_eq!(
            Value::Object(query_json(q)),
            serde_json::json!({"kind": "bloom", "items": 1000, "fpr": 0.01})
        );
        let q = BTreeMap::from([("nonscaling".to_owned(), "true".to_owned())]);
        assert_eq!(
            Value::Object(query_json(q)),
            serde_json::json!({"nonscaling": true})
        );
    }
}
