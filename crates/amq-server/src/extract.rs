//! Request parsing: JSON bodies and path parameters with errors in the API's shape, item
//! lists (`{"items": [...]}`, `{"items_hex": [...]}` or `{"items_base64": [...]}`), names,
//! and filter specs checked field by field.

use crate::engine::record::Items;
use crate::error::ApiError;
use amq::math::{Spec, ValueShape};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

/// A JSON body (any content type), its errors as [`ApiError`]: 400 for broken JSON, 422
/// for JSON of the wrong shape, 413 over the body limit.
#[derive(Debug, Clone)]
pub struct Json<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Json<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = axum::body::Bytes::from_request(req, state).await?;
        Ok(Json(serde_json::from_slice(&bytes)?))
    }
}

/// Path parameters, their errors as [`ApiError`] (400).
#[derive(Debug, Clone, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct Path<T>(pub T);

/// Query parameters, their errors as [`ApiError`] (400).
#[derive(Debug, Clone)]
pub struct Query<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for Query<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let axum::extract::Query(q) =
            axum::extract::Query::from_request_parts(parts, state).await?;
        Ok(Query(q))
    }
}

/// A list of items: exactly one of the three fields.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ItemList {
    /// Items as UTF-8 strings (their bytes are the items).
    pub items: Option<Vec<String>>,
    /// Items as hex (an optional `0x`).
    pub items_hex: Option<Vec<String>>,
    /// Items as base64 (standard alphabet, padded).
    pub items_base64: Option<Vec<String>>,
}

/// How a path item is spelled: `?encoding=utf8` (the default), `hex` or `base64`.
#[derive(Debug, Default, Clone, Copy, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// The item's UTF-8 bytes.
    #[default]
    Utf8,
    /// Hex, an optional `0x`.
    Hex,
    /// Standard base64.
    Base64,
}

/// Decodes one item in an encoding; `what` names it in the error.
///
/// # Errors
/// A 400 [`ApiError`] naming `what` if the text is not valid hex or base64.
pub fn decode_item(s: &str, enc: Encoding, what: &str) -> Result<Vec<u8>, ApiError> {
    match enc {
        Encoding::Utf8 => Ok(s.as_bytes().to_vec()),
        Encoding::Hex => {
            let h = s
                .strip_prefix("0x")
                .or_else(|| s.strip_prefix("0X"))
                .unwrap_or(s);
            hex::decode(h).map_err(|e| ApiError::bad_request(format!("{what}: invalid hex: {e}")))
        }
        Encoding::Base64 => base64::engine::general_purpose::STANDARD
            .decode(s)
            .map_err(|e| ApiError::bad_request(format!("{what}: invalid base64: {e}"))),
    }
}

impl ItemList {
    /// The items, at most `max` of them.
    ///
    /// # Errors
    /// 422 unless exactly one field is given; 413 over `max` items; 400 for bad hex or base64.
    pub fn into_items(self, max: usize) -> Result<Items, ApiError> {
        let (list, enc, field) = match (self.items, self.items_hex, self.items_base64) {
            (Some(l), None, None) => (l, Encoding::Utf8, "items"),
            (None, Some(l), None) => (l, Encoding::Hex, "items_hex"),
            (None, None, Some(l)) => (l, Encoding::Base64, "items_base64"),
            _ => {
                return Err(ApiError::unprocessable(
                    "give exactly one of items, items_hex or items_base64",
                ))
            }
        };
        if list.len() > max {
            return Err(ApiError::too_large(format!(
                "{} items in one request, over the limit of {max} (--max-items)",
                list.len()
            )));
        }
        let mut items = Items::new();
        for (i, s) in list.iter().enumerate() {
            match enc {
                Encoding::Utf8 => items.push(s.as_bytes()),
                _ => items.push(&decode_item(s, enc, &format!("{field}[{i}]"))?),
            }
        }
        Ok(items)
    }
}

/// Checks a filter name or a keyset id: 1 to 128 of `A-Z a-z 0-9 . _ -`, not starting
/// with a dot.
///
/// # Errors
/// 400 otherwise.
pub fn check_name(name: &str, what: &str) -> Result<(), ApiError> {
    let ok = !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "{what} {name:?}: use 1 to 128 of A-Z a-z 0-9 . _ - (not starting with a dot)"
        )))
    }
}

/// Reads a [`Spec`] from a JSON object of its fields (a request body, or query parameters),
/// refusing what serde would let through (a field the kind does not take, more than one of
/// `fpr`, `m_bits` and `memory_bytes`) with the library's [`Spec::check_fields`]. `what` names
/// the fields in messages ("field" or "parameter"); `also` lists the fields the caller takes
/// besides the spec's (`seed`).
///
/// # Errors
/// 422 naming the field: serde's message for an unknown kind, a missing field or a value of
/// the wrong type, with the field whose value it quotes named in front
/// ([`Spec::name_error_field`]).
pub fn spec_from_object(
    obj: Map<String, Value>,
    what: &str,
    also: &[&'static str],
) -> Result<Spec, ApiError> {
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or("");
    if let Some(kind) = amq::wire::Kind::from_name(kind) {
        Spec::check_fields(kind, obj.keys().map(String::as_str), also)
            .map_err(|e| ApiError::unprocessable(e.message(what)))?;
    }
    let spec = Value::Object(obj);
    Spec::deserialize(&spec).map_err(|e| {
        // serde reads the fields through the kind tag and names none: name the one whose
        // value the message quotes
        let fields: Vec<(&str, ValueShape)> = spec
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.as_str(), ValueShape::deserialize(v).ok()?)))
            .collect();
        ApiError::unprocessable(Spec::name_error_field(&e.to_string(), what, &fields))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_lists_decode_each_encoding() {
        let l = ItemList {
            items_hex: Some(vec!["0x00ff".into(), "".into()]),
            ..Default::default()
        };
        let items = l.into_items(10).unwrap();
        assert_eq!(items.slices(), vec![&[0u8, 0xff][..], &[]]);
        let l = ItemList {
            items_base64: Some(vec!["YWI=".into()]),
            ..Default::default()
        };
        assert_eq!(l.into_items(10).unwrap().slices(), vec![&b"ab"[..]]);
    }

    #[test]
    fn item_lists_refuse_bad_input() {
        let both = ItemList {
            items: Some(vec![]),
            items_hex: Some(vec![]),
            ..Default::default()
        };
        assert_eq!(both.into_items(1).unwrap_err().status.as_u16(), 422);
        let many = ItemList {
            items: Some(vec!["a".into(); 3]),
            ..Default::default()
        };
        assert_eq!(many.into_items(2).unwrap_err().status.as_u16(), 413);
        let bad = ItemList {
            items_hex: Some(vec!["zz".into()]),
            ..Default::default()
        };
        assert_eq!(bad.into_items(2).unwrap_err().status.as_u16(), 400);
    }

    #[test]
    fn names_are_checked() {
        assert!(check_name("words-2024.v1_a", "name").is_ok());
        for bad in ["", ".x", "a/b", "a b", &"x".repeat(129)] {
            assert!(check_name(bad, "name").is_err(), "{bad}");
        }
    }
}
