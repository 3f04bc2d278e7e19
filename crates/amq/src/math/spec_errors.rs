//! Naming the field of a serde error from reading a [`Spec`] (feature `serde`).
//!
//! A spec is an enum tagged by its `kind`, so serde reads its fields from a buffered copy of
//! the map, and an error there names no field: `{"kind": "bloom", "items": [1], "fpr": 0.01}`
//! fails with "invalid type: sequence, expected u64". Such an error does quote the value it
//! refused, in serde's words for it ("sequence", "integer `-1`", "string \"x\""), so the
//! caller, who still has the map, can tell which field holds that value: [`ValueShape`]
//! reads those words for each value, and [`Spec::name_error_field`] puts the field's name in
//! front of the message. The server and the Python package both do this, so a spec is refused
//! in the same words wherever it comes from.

use super::Spec;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Unexpected, Visitor};

/// What a value is, in the words a serde error uses for a value of the wrong type or out of
/// range: `integer `5``, `floating point `1.5``, `string "x"`, `boolean `true``, `sequence`,
/// `map`, `null`. Read from any self-describing format (a JSON value, a Python object).
///
/// # Example
/// ```
/// use amq::math::ValueShape;
/// use serde::Deserialize;
///
/// let shape = ValueShape::deserialize(serde_json::json!([1, 2])).unwrap();
/// assert_eq!(shape.as_str(), "sequence");
/// let shape = ValueShape::deserialize(serde_json::json!(-1)).unwrap();
/// assert_eq!(shape.as_str(), "integer `-1`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueShape(String);

impl ValueShape {
    /// The words, as an error quotes them.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `true` if `message` is serde's "invalid type" or "invalid value" error about a value
    /// of this shape (`null` also matches serde's own "unit value").
    fn is_quoted_in(&self, message: &str) -> bool {
        let Some(rest) = message
            .strip_prefix("invalid type: ")
            .or_else(|| message.strip_prefix("invalid value: "))
        else {
            return false;
        };
        let words: &[&str] = if self.0 == "null" {
            &["null", "unit value"]
        } else {
            &[&self.0]
        };
        words.iter().any(|w| {
            rest.strip_prefix(w)
                .is_some_and(|r| r.starts_with(", expected"))
        })
    }
}

impl fmt::Display for ValueShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Records what `deserialize_any` found, in [`Unexpected`]'s words.
struct ShapeVisitor;

impl ShapeVisitor {
    fn shape<E>(u: Unexpected<'_>) -> Result<ValueShape, E> {
        Ok(ValueShape(u.to_string()))
    }
}

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = ValueShape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<ValueShape, E> {
        Self::shape(Unexpected::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<ValueShape, E> {
        Self::shape(Unexpected::Signed(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<ValueShape, E> {
        Self::shape(Unexpected::Unsigned(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<ValueShape, E> {
        Self::shape(Unexpected::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<ValueShape, E> {
        Self::shape(Unexpected::Str(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<ValueShape, E> {
        Self::shape(Unexpected::Bytes(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<ValueShape, E> {
        Ok(ValueShape("null".into()))
    }
    fn visit_none<E: de::Error>(self) -> Result<ValueShape, E> {
        Ok(ValueShape("null".into()))
    }
    // the elements are read and dropped (a format may refuse a sequence or map left unread)
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ValueShape, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Self::shape(Unexpected::Seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ValueShape, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Self::shape(Unexpected::Map)
    }
}

impl<'de> serde::Deserialize<'de> for ValueShape {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ShapeVisitor)
    }
}

impl Spec {
    /// `message` (serde's error from reading a spec) with the field it is about named in
    /// front, `field "items": invalid type: sequence, expected u64`, where `what` is
    /// `"field"` or `"parameter"` and `fields` are the spec's fields with the
    /// [`ValueShape`] of each value. A message that names no value, or whose value more than
    /// one field holds, comes back as it was: the name is given only when it is certain.
    ///
    /// # Example
    /// ```
    /// use amq::math::{Spec, ValueShape};
    /// use serde::Deserialize;
    ///
    /// let spec = serde_json::json!({"kind": "bloom", "items": [1], "fpr": 0.01});
    /// let err = serde_json::from_value::<Spec>(spec.clone()).unwrap_err().to_string();
    /// assert_eq!(err, "invalid type: sequence, expected u64");
    /// let fields: Vec<(&str, ValueShape)> = spec
    ///     .as_object()
    ///     .unwrap()
    ///     .iter()
    ///     .map(|(k, v)| (k.as_str(), ValueShape::deserialize(v).unwrap()))
    ///     .collect();
    /// assert_eq!(
    ///     Spec::name_error_field(&err, "field", &fields),
    ///     "field \"items\": invalid type: sequence, expected u64"
    /// );
    /// ```
    pub fn name_error_field<N: AsRef<str>>(
        message: &str,
        what: &str,
        fields: &[(N, ValueShape)],
    ) -> String {
        let named: Vec<&str> = fields
            .iter()
            .map(|(name, shape)| (name.as_ref(), shape))
            .filter(|(name, shape)| *name != "kind" && shape.is_quoted_in(message))
            .map(|(name, _)| name)
            .collect();
        match named[..] {
            [name] => format!("{what} {name:?}: {message}"),
            _ => message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// Reads `json` as a spec and names the field of its error.
    fn refused(json: serde_json::Value) -> String {
        let err = serde_json::from_value::<Spec>(json.clone())
            .unwrap_err()
            .to_string();
        let fields: Vec<(&str, ValueShape)> = json
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.as_str(), ValueShape::deserialize(v).unwrap()))
            .collect();
        Spec::name_error_field(&err, "field", &fields)
    }

    /// Each kind of wrong value is traced to its field, in a required field, an optional one
    /// and the flattened target: an array, a negative integer, a string, a float where an
    /// integer goes, a null where a number must be, a map.
    #[test]
    fn a_wrong_value_is_traced_to_its_field() {
        use serde_json::json;
        for (spec, expected) in [
            (
                json!({"kind": "bloom", "items": [1], "fpr": 0.01}),
                r#"field "items": invalid type: sequence, expected u64"#,
            ),
            (
                json!({"kind": "bloom", "items": -5, "fpr": 0.01}),
                r#"field "items": invalid value: integer `-5`, expected u64"#,
            ),
            (
                json!({"kind": "bloom", "items": 10, "fpr": "x"}),
                r#"field "fpr": invalid type: string "x", expected f64"#,
            ),
            (
                json!({"kind": "bloom", "items": 10, "fpr": 0.01, "k": 1.5}),
                r#"field "k": invalid type: floating point `1.5`, expected u32"#,
            ),
            (
                json!({"kind": "cuckoo", "items": null, "fpr": 0.01}),
                r#"field "items": invalid type: null, expected u64"#,
            ),
            (
                json!({"kind": "bloom", "items": 10, "m_bits": {"a": 1}}),
                r#"field "m_bits": invalid type: map, expected u64"#,
            ),
        ] {
            assert_eq!(refused(spec), expected);
        }
    }

    /// A message about a value two fields hold, or about no value, comes back unchanged.
    #[test]
    fn an_unsure_or_valueless_message_is_left_as_it_is() {
        let two = [
            ("items", ValueShape("sequence".into())),
            ("k", ValueShape("sequence".into())),
        ];
        let msg = "invalid type: sequence, expected u64";
        assert_eq!(Spec::name_error_field(msg, "field", &two), msg);
        let missing = "missing field `items`";
        assert_eq!(Spec::name_error_field(missing, "field", &two[..1]), missing);
        // the shape must be the whole quoted value, not a prefix of it
        let one = [("items", ValueShape("integer `5`".into()))];
        let msg = "invalid value: integer `50`, expected u32";
        assert_eq!(Spec::name_error_field(msg, "field", &one), msg);
        // the kind tag is not a field of the spec
        let kind = [("kind", ValueShape("sequence".into()))];
        let msg = "invalid type: sequence, expected u64";
        assert_eq!(Spec::name_error_field(msg, "field", &kind), msg);
    }
}
