//! The field names of a [`Spec`] given as a map (a JSON object, query parameters, a Python
//! dict), checked before the spec is read: serde ignores a field a kind does not take (it must,
//! for the flattened [`Target`]) and reads the first of two targets, where the caller meant
//! something by either. The server and the Python package both check with this, so a spec is
//! refused in the same words wherever it comes from.

use super::{Spec, Target};
use crate::wire::Kind;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// What is wrong with the field names of a spec ([`Spec::check_fields`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpecFieldError {
    /// A kind sized by a target ([`Spec::takes_target`]) was given none of [`Target::KEYS`].
    NoTarget {
        /// The kind.
        kind: Kind,
    },
    /// More than one of [`Target::KEYS`].
    SeveralTargets {
        /// The kind.
        kind: Kind,
        /// The targets given, in [`Target::KEYS`] order.
        given: Vec<&'static str>,
    },
    /// Fields the kind does not take.
    Unknown {
        /// The kind.
        kind: Kind,
        /// The fields, in the order given.
        unknown: Vec<String>,
        /// What it takes: its own fields ([`Spec::fields`]), then the caller's own.
        takes: Vec<&'static str>,
    },
}

impl SpecFieldError {
    /// The message, naming the fields with `what` (`"field"`, `"parameter"`): for example
    /// `unknown field "hashes": a bloom filter takes items, k and seed, with one of fpr,
    /// m_bits or memory_bytes`.
    pub fn message(&self, what: &str) -> String {
        const SIZED: &str = "is sized by one of fpr, m_bits or memory_bytes (a false-positive \
                             rate, bits or bytes)";
        match self {
            SpecFieldError::NoTarget { kind } => {
                format!("{} {SIZED}: give one", a_filter(*kind))
            }
            SpecFieldError::SeveralTargets { kind, given } => {
                let both = if given.len() == 2 { "both " } else { "" };
                format!(
                    "{} {SIZED}: give one, not {both}{}",
                    a_filter(*kind),
                    and_list(given)
                )
            }
            SpecFieldError::Unknown {
                kind,
                unknown,
                takes,
            } => {
                let plural = if unknown.len() == 1 { "" } else { "s" };
                let unknown: Vec<String> = unknown.iter().map(|u| format!("{u:?}")).collect();
                let target = if Spec::takes_target(*kind) {
                    ", with one of fpr, m_bits or memory_bytes"
                } else {
                    ""
                };
                format!(
                    "unknown {what}{plural} {}: {} takes {}{target}",
                    unknown.join(", "),
                    a_filter(*kind),
                    and_list(takes)
                )
            }
        }
    }
}

impl fmt::Display for SpecFieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message("field"))
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SpecFieldError {}

/// "a bloom filter", "an aging-bloom filter".
fn a_filter(kind: Kind) -> String {
    let name = kind.name();
    let a = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{a} {name} filter")
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).into(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

impl Spec {
    /// The fields a spec of `kind` takes besides `kind` and the target, as its serde form
    /// (feature `serde`) names them, required and optional ones alike; the kinds sized by a
    /// target ([`Spec::takes_target`]) take one of [`Target::KEYS`] as well.
    ///
    /// ```
    /// use amq::{math::Spec, wire::Kind};
    ///
    /// assert_eq!(Spec::fields(Kind::Bloom), ["items", "k"]);
    /// assert_eq!(Spec::fields(Kind::NegativeCache), ["l", "b", "ways", "ttl"]);
    /// ```
    pub fn fields(kind: Kind) -> &'static [&'static str] {
        match kind {
            Kind::Bloom | Kind::BlockedBloom => &["items", "k"],
            Kind::SplitBlockBloom | Kind::Cuckoo => &["items"],
            Kind::SlidingWindowBloom => &["window_bits", "chunk_bits", "batch", "k"],
            Kind::AgingBloom => &[
                "window",
                "window_seconds",
                "items_per_generation",
                "generations",
                "fpr",
            ],
            Kind::NegativeCache => &["l", "b", "ways", "ttl"],
            Kind::TtlCuckoo => &["items", "fpr", "tick", "stamp_bits", "max_ttl"],
            Kind::SlidingWindowCuckoo => &["epoch_items", "fpr"],
            Kind::ScalableBloom => &["items", "fpr", "expansion", "tightening", "nonscaling"],
            Kind::ExpandableCuckoo => &["items", "fpr", "expansion", "tightening", "max_kicks"],
        }
    }

    /// Checks the field names of a spec of `kind` given as a map, before it is read: every
    /// one is `kind`, one of the kind's [`fields`](Self::fields), one of `also` (the
    /// caller's own, such as a seed), or, for a kind sized by a target, exactly one of
    /// [`Target::KEYS`]. Missing required fields and values are left to the reading.
    ///
    /// # Errors
    /// [`SpecFieldError`]: no target or more than one for a kind sized by one, or fields the
    /// kind does not take.
    ///
    /// ```
    /// use amq::{math::Spec, wire::Kind};
    ///
    /// assert!(Spec::check_fields(Kind::Bloom, ["kind", "items", "fpr"], &["seed"]).is_ok());
    /// let e = Spec::check_fields(Kind::Bloom, ["items", "fpr", "m_bits"], &[]).unwrap_err();
    /// assert!(e.to_string().ends_with("give one, not both fpr and m_bits"));
    /// let e = Spec::check_fields(Kind::Bloom, ["items", "fpr", "hashes"], &["seed"]);
    /// assert_eq!(
    ///     e.unwrap_err().message("parameter"),
    ///     "unknown parameter \"hashes\": a bloom filter takes items, k and seed, \
    ///      with one of fpr, m_bits or memory_bytes"
    /// );
    /// ```
    pub fn check_fields<'a>(
        kind: Kind,
        given: impl IntoIterator<Item = &'a str>,
        also: &[&'static str],
    ) -> Result<(), SpecFieldError> {
        let sized = Spec::takes_target(kind);
        let own = Spec::fields(kind);
        let mut unknown = Vec::new();
        let mut targets = [false; 3];
        for field in given {
            match Target::KEYS.iter().position(|t| *t == field) {
                Some(i) if sized => targets[i] = true,
                _ if field == "kind" || own.contains(&field) || also.contains(&field) => {}
                _ => unknown.push(String::from(field)),
            }
        }
        if !unknown.is_empty() {
            let takes = own.iter().chain(also).copied().collect();
            return Err(SpecFieldError::Unknown {
                kind,
                unknown,
                takes,
            });
        }
        let given: Vec<&'static str> = Target::KEYS
            .into_iter()
            .zip(targets)
            .filter_map(|(t, on)| on.then_some(t))
            .collect();
        match given.len() {
            _ if !sized => Ok(()),
            0 => Err(SpecFieldError::NoTarget { kind }),
            1 => Ok(()),
            _ => Err(SpecFieldError::SeveralTargets { kind, given }),
        }
    }
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;
    use crate::wire::Kind;

    /// A spec of every kind: its serde form (optional fields too, as null or their default)
    /// has exactly the fields `Spec::fields` lists, plus `kind` and the target.
    #[test]
    fn the_fields_are_the_serde_forms() {
        let examples = [
            r#"{"kind":"bloom","items":10,"fpr":0.01,"k":3}"#,
            r#"{"kind":"blocked-bloom","items":10,"fpr":0.01,"k":3}"#,
            r#"{"kind":"split-block-bloom","items":10,"fpr":0.01}"#,
            r#"{"kind":"cuckoo","items":10,"fpr":0.01}"#,
            r#"{"kind":"sliding-window-bloom","window_bits":4096,"chunk_bits":1024,"batch":8,"k":3}"#,
            r#"{"kind":"aging-bloom","window":100,"generations":4,"fpr":0.01}"#,
            r#"{"kind":"negative-cache","l":10,"b":16,"ways":2,"ttl":5}"#,
            r#"{"kind":"ttl-cuckoo","items":10,"fpr":0.01,"tick":1,"stamp_bits":8,"max_ttl":9}"#,
            r#"{"kind":"sliding-window-cuckoo","epoch_items":10,"fpr":0.01}"#,
            r#"{"kind":"scalable-bloom","items":10,"fpr":0.01}"#,
            r#"{"kind":"expandable-cuckoo","items":10,"fpr":0.01}"#,
        ];
        assert_eq!(examples.len(), Kind::ALL.len());
        for json in examples {
            let spec: Spec = serde_json::from_str(json).unwrap();
            let serde_json::Value::Object(form) = serde_json::to_value(spec).unwrap() else {
                panic!("{json}: not an object");
            };
            let sized = Spec::takes_target(spec.kind());
            let is_target = |k: &str| sized && Target::KEYS.contains(&k);
            let mut got: Vec<&str> = form
                .keys()
                .map(String::as_str)
                .filter(|k| *k != "kind" && !is_target(k))
                .collect();
            let mut want = Spec::fields(spec.kind()).to_vec();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "{json}");
            assert_eq!(
                usize::from(sized),
                form.keys().filter(|k| is_target(k)).count()
            );
            assert_eq!(
                Spec::check_fields(spec.kind(), form.keys().map(String::as_str), &[]),
                Ok(()),
                "{json}"
            );
        }
    }

    #[test]
    fn targets_and_unknown_fields() {
        let check =
            |kind, fields: &[&str]| Spec::check_fields(kind, fields.iter().copied(), &["seed"]);
        assert_eq!(
            check(Kind::Cuckoo, &["items"]),
            Err(SpecFieldError::NoTarget { kind: Kind::Cuckoo })
        );
        assert_eq!(
            check(Kind::Cuckoo, &["memory_bytes", "items", "fpr", "m_bits"]),
            Err(SpecFieldError::SeveralTargets {
                kind: Kind::Cuckoo,
                given: vec!["fpr", "m_bits", "memory_bytes"]
            })
        );
        // fpr is a field of its own for a kind not sized by a target; m_bits is unknown there
        assert_eq!(
            check(Kind::AgingBloom, &["window", "generations", "fpr", "seed"]),
            Ok(())
        );
        let e = check(
            Kind::AgingBloom,
            &["window", "generations", "fpr", "m_bits"],
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown field \"m_bits\": an aging-bloom filter takes window, window_seconds, \
             items_per_generation, generations, fpr and seed"
        );
        let e = check(Kind::Bloom, &["items", "fpr", "m", "kk"]).unwrap_err();
        assert_eq!(
            e.message("parameter"),
            "unknown parameters \"m\", \"kk\": a bloom filter takes items, k and seed, with one \
             of fpr, m_bits or memory_bytes"
        );
        assert_eq!(
            check(Kind::Bloom, &["items"]).unwrap_err().to_string(),
            "a bloom filter is sized by one of fpr, m_bits or memory_bytes (a false-positive \
             rate, bits or bytes): give one"
        );
    }
}
