//! Error types of the library.
//!
//! One enum, [`Error`], for everything that can go wrong: bad parameters, filters of different
//! shapes, a full structure, and bytes that do not decode. Messages are lower-case and carry
//! their context (what was expected, what was found, at which byte offset).

use alloc::string::String;
use core::fmt;

/// Every error the library returns.
///
/// The enum is `#[non_exhaustive]`: new variants may come in minor versions.
///
/// ```
/// use amq::{AnyFilter, BloomFilter, Error};
///
/// assert!(matches!(BloomFilter::with_fpr(100, 1.5, 0), Err(Error::InvalidParameter { name: "fpr", .. })));
///
/// let bytes = BloomFilter::with_fpr(100, 0.01, 0)?.to_bytes();
/// match AnyFilter::from_bytes(&bytes[..20]) {
///     Err(e @ Error::Truncated { .. }) => assert!(e.to_string().contains("bytes")),
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A parameter is out of its allowed range (for example `m = 0` or `fpr = 1.5`).
    InvalidParameter {
        /// The parameter's name, as the docs spell it (`m`, `k`, `fpr`, ...).
        name: &'static str,
        /// Why it was refused.
        reason: String,
    },
    /// Two filters that must have the same shape (m, k, seed, ...) do not.
    ShapeMismatch {
        /// The field that differs.
        field: &'static str,
        /// Its value in the left-hand filter.
        left: u64,
        /// Its value in the right-hand filter.
        right: u64,
    },
    /// The structure is full; nothing was added (the item, or a union's other filter), and
    /// every item added before is kept.
    Full {
        /// How many items the structure holds.
        items: u64,
        /// What it can hold at most (slots, or the configured capacity).
        capacity: u64,
    },
    /// The input ended before a field could be read.
    Truncated {
        /// What was being read.
        what: &'static str,
        /// The byte offset at which it starts.
        offset: usize,
        /// How many bytes it needs.
        needed: usize,
        /// How many bytes were left.
        available: usize,
    },
    /// The bytes do not start with the expected magic number.
    BadMagic {
        /// The magic that was found (the first bytes, up to 4).
        found: [u8; 4],
    },
    /// The format version is one this build does not read.
    UnsupportedVersion {
        /// The version found in the input.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// The input holds a different kind of filter than the one asked for.
    WrongKind {
        /// The kind the caller asked for.
        expected: &'static str,
        /// The kind code found in the input.
        found: u32,
    },
    /// The filter's kind does not do what was asked (a Bloom filter cannot delete; a
    /// sliding-window filter answers only for an item at a position).
    Unsupported {
        /// The kind's name.
        kind: &'static str,
        /// What was asked, and what to do instead.
        operation: &'static str,
    },
    /// The stored checksum does not match the bytes.
    ChecksumMismatch {
        /// The checksum stored in the input.
        stored: u64,
        /// The checksum computed over the input.
        computed: u64,
    },
    /// A length, count or size read from the input is larger than allowed.
    TooLarge {
        /// What was read.
        what: &'static str,
        /// The value read.
        value: u64,
        /// The largest value allowed.
        limit: u64,
    },
    /// The input is malformed in some other way.
    Corrupt {
        /// The byte offset of the problem (0 where it concerns the whole input).
        offset: usize,
        /// What is wrong.
        reason: String,
    },
    /// Memory for a structure or a buffer sized by the input or the parameters could not be
    /// allocated (the allocation was refused; nothing was aborted).
    OutOfMemory {
        /// What the memory was for.
        what: &'static str,
        /// How many bytes were asked for.
        bytes: u64,
    },
    /// An insert would take a filter that grows (a chain's next link, a sliding window's
    /// archived chunks, an epoch table) over the byte limit it was given; the item was not
    /// added and nothing changed.
    OverLimit {
        /// The filter's bytes before the item.
        size: u64,
        /// The bytes the item would add (at most that many when `at_most`).
        more: u64,
        /// `more` is a bound from above (a sliding-window Bloom filter's chunks counted as
        /// full bitmaps, the most each can take).
        at_most: bool,
        /// The limit, in bytes.
        limit: u64,
    },
    /// Text input (hex, base64, JSON, a number) does not parse.
    Parse {
        /// What was being parsed.
        what: &'static str,
        /// Why it failed.
        reason: String,
    },
}

impl Error {
    /// [`Error::ShapeMismatch`] for the first `(field, left, right)` whose sides differ, or
    /// `Ok` if every pair agrees: how two filters are checked before a union.
    pub(crate) fn check_same_shape(pairs: &[(&'static str, u64, u64)]) -> Result<()> {
        match pairs.iter().find(|p| p.1 != p.2) {
            Some(&(field, left, right)) => Err(Error::ShapeMismatch { field, left, right }),
            None => Ok(()),
        }
    }

    /// Shorthand for [`Error::InvalidParameter`].
    pub fn invalid(name: &'static str, reason: impl Into<String>) -> Self {
        Error::InvalidParameter {
            name,
            reason: reason.into(),
        }
    }

    /// Shorthand for [`Error::Corrupt`].
    pub fn corrupt(offset: usize, reason: impl Into<String>) -> Self {
        Error::Corrupt {
            offset,
            reason: reason.into(),
        }
    }

    /// This error with its byte offset counted from `start`: a decoder that read a part of
    /// its input (a payload, a link, the codes after a prefix) names the input's byte. Only
    /// [`Error::Corrupt`] and [`Error::Truncated`] carry an offset; other errors are returned
    /// as they are.
    pub(crate) fn after(self, start: usize) -> Self {
        match self {
            Error::Corrupt { offset, reason } => Error::Corrupt {
                offset: start + offset,
                reason,
            },
            Error::Truncated {
                what,
                offset,
                needed,
                available,
            } => Error::Truncated {
                what,
                offset: start + offset,
                needed,
                available,
            },
            other => other,
        }
    }

    /// [`Error::OutOfMemory`] for `count` values of type `T`.
    pub(crate) fn out_of_memory<T>(what: &'static str, count: u64) -> Self {
        Error::OutOfMemory {
            what,
            bytes: count.saturating_mul(core::mem::size_of::<T>() as u64),
        }
    }

    /// [`Error::OverLimit`] if `size + more` passes `limit`.
    pub(crate) fn check_limit(size: u64, more: u64, at_most: bool, limit: u64) -> Result<()> {
        if size.saturating_add(more) > limit {
            Err(Error::OverLimit {
                size,
                more,
                at_most,
                limit,
            })
        } else {
            Ok(())
        }
    }

    /// Shorthand for [`Error::Parse`].
    pub fn parse(what: &'static str, reason: impl Into<String>) -> Self {
        Error::Parse {
            what,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidParameter { name, reason } => write!(f, "invalid {name}: {reason}"),
            Error::ShapeMismatch { field, left, right } => {
                write!(f, "filters differ in {field}: {left} vs {right}")
            }
            Error::Full { items, capacity } => {
                write!(f, "filter is full ({items} items, capacity {capacity}); nothing was added")
            }
            Error::Truncated {
                what,
                offset,
                needed,
                available,
            } => write!(
                f,
                "truncated input: {what} at byte {offset} needs {needed} bytes, {available} left"
            ),
            Error::BadMagic { found } => {
                write!(f, "not an .amq file: magic is {found:02x?}, expected \"AMQ\\0\"")
            }
            Error::UnsupportedVersion { found, supported } => write!(
                f,
                "unsupported format version {found} (this build reads up to {supported})"
            ),
            Error::WrongKind { expected, found } => {
                let kind = u16::try_from(*found)
                    .ok()
                    .and_then(crate::wire::Kind::from_code);
                match kind {
                    Some(kind) => write!(
                        f,
                        "wrong filter kind: expected {expected}, found {}",
                        kind.name()
                    ),
                    None => write!(
                        f,
                        "wrong filter kind: expected {expected}, found kind code {found}"
                    ),
                }
            }
            Error::Unsupported { kind, operation } => {
                write!(f, "a {kind} filter does not support {operation}")
            }
            Error::ChecksumMismatch { stored, computed } => write!(
                f,
                "checksum mismatch: stored {stored:#018x}, computed {computed:#018x} (file is corrupt)"
            ),
            Error::TooLarge { what, value, limit } => {
                write!(f, "{what} too large: {value} (limit {limit})")
            }
            Error::Corrupt { offset, reason } => write!(f, "corrupt input at byte {offset}: {reason}"),
            Error::OutOfMemory { what, bytes } => {
                write!(f, "cannot allocate {bytes} bytes for {what}")
            }
            Error::OverLimit {
                size,
                more,
                at_most,
                limit,
            } => {
                let at_most = if *at_most { "at most " } else { "" };
                write!(
                    f,
                    "the filter takes {size} bytes and the item needs {at_most}{more} more, \
                     over the limit of {limit}; the item was not added"
                )
            }
            Error::Parse { what, reason } => write!(f, "cannot parse {what}: {reason}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// The library's result type.
pub type Result<T, E = Error> = core::result::Result<T, E>;
