//! Revision B's JSON: the `GetFiltersInfoResponse` of `GET /v1/filters/info/{kind}`, the
//! NUT-06 setting, and the state change a mint feeds in.

use super::block::check_b;
use super::element::{Element, Kind};
use crate::error::{Error, Result};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The smallest `timeout` a mint may use, in seconds ("MUST NOT use a value below 3600").
pub const MIN_TIMEOUT: u64 = 3600;
/// The recommended `timeout`, in seconds (one week).
pub const RECOMMENDED_TIMEOUT: u64 = 604_800;

/// The interval one block covers: Unix seconds from `start` (when it opened) to `end` (when
/// it sealed), `end` null while it is still filling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct BlockInterval {
    /// When the block opened, Unix seconds.
    pub start: u64,
    /// When it sealed, Unix seconds; `None` (JSON `null`) for the block now filling.
    pub end: Option<u64>,
}

/// `GetFiltersInfoResponse` (revision B): one kind's sequence, as `GET
/// /v1/filters/info/{kind}` serves it, fields in the spec's order.
///
/// A block's height is its index in `blocks`; the last entry is the block now filling, the
/// only one whose `end` is null, and every height below it is sealed. Deserialising checks
/// only the shape; [`validate`](Self::validate) checks the spec's rules.
///
/// # Example
/// ```
/// use amq::formats::cashu_state::FiltersInfo;
/// let info: FiltersInfo = serde_json::from_str(r#"{"b": 10, "timeout": 604800,
///     "open_interval": 60, "blocks": [{"start": 1701704757, "end": 1701708357},
///     {"start": 1701708357, "end": null}]}"#)?;
/// info.validate()?;
/// assert_eq!(info.open_height(), 1);
/// assert!(info.fetchable(0) && info.fetchable(1) && !info.fetchable(2));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FiltersInfo {
    /// The width of the block now open: log₂ of its size in bits.
    pub b: u8,
    /// Seconds after which an unsaturated block seals (at least [`MIN_TIMEOUT`]).
    pub timeout: u64,
    /// Seconds between refreshes of the open block's snapshot; `None` (JSON `null`) when the
    /// mint serves no open block.
    pub open_interval: Option<u64>,
    /// Every block of the sequence, height 0 first.
    pub blocks: Vec<BlockInterval>,
}

impl FiltersInfo {
    /// Checks the rules of the spec: b in 5..=26, `timeout` ≥ 3600, at least one entry, only
    /// the last with a null `end`, every `end` ≥ its `start` and equal to the next `start`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the field (`b`, `timeout`, `blocks`) and, for
    /// `blocks`, the height.
    pub fn validate(&self) -> Result<()> {
        check_b(self.b)?;
        if self.timeout < MIN_TIMEOUT {
            return Err(Error::invalid(
                "timeout",
                format!(
                    "must be at least {MIN_TIMEOUT} seconds, got {}",
                    self.timeout
                ),
            ));
        }
        let Some((last, sealed)) = self.blocks.split_last() else {
            return Err(Error::invalid(
                "blocks",
                "a sequence lists at least the block now filling",
            ));
        };
        if let Some(end) = last.end {
            return Err(Error::invalid(
                "blocks",
                format!(
                    "the last entry (height {}) is the block now filling, its end must be null, got {end}",
                    sealed.len()
                ),
            ));
        }
        for (height, (block, next)) in sealed.iter().zip(&self.blocks[1..]).enumerate() {
            let Some(end) = block.end else {
                return Err(Error::invalid(
                    "blocks",
                    format!("height {height} is not the last entry but its end is null"),
                ));
            };
            if end < block.start {
                return Err(Error::invalid(
                    "blocks",
                    format!(
                        "height {height} ends ({end}) before it starts ({})",
                        block.start
                    ),
                ));
            }
            if end != next.start {
                return Err(Error::invalid(
                    "blocks",
                    format!(
                        "height {height} ends at {end} but height {} starts at {}: heights must be contiguous",
                        height + 1,
                        next.start
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The height of the block now filling: the last index of `blocks` (0 for an empty list).
    pub fn open_height(&self) -> u64 {
        self.blocks.len().saturating_sub(1) as u64
    }

    /// `true` if the block at `height` is sealed (below the last index). Sealed is permanent.
    pub fn is_sealed(&self, height: u64) -> bool {
        height < self.open_height()
    }

    /// `true` if the mint serves `height`: every sealed height, and the open one when
    /// `open_interval` is not null. Other heights get error 40001.
    pub fn fetchable(&self, height: u64) -> bool {
        self.is_sealed(height)
            || (height == self.open_height()
                && !self.blocks.is_empty()
                && self.open_interval.is_some())
    }

    /// Where a restore from a seed created at `seed_time` starts: the last height whose
    /// `start` precedes it (0 if none does).
    pub fn restore_height(&self, seed_time: u64) -> u64 {
        self.blocks
            .iter()
            .rposition(|b| b.start < seed_time)
            .unwrap_or(0) as u64
    }
}

/// The NUT-06 setting of revision B, under the NUT's number in `GET /v1/info`: the kinds the
/// mint covers, one sequence each.
///
/// # Example
/// ```
/// use amq::formats::cashu_state::{Kind, MintInfoSetting};
/// let s = MintInfoSetting { supported: true, kinds: vec![Kind::ProofState, Kind::MeltQuote] };
/// assert_eq!(serde_json::to_string(&s)?,
///     r#"{"supported":true,"kinds":["proof_state","melt_quote"]}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct MintInfoSetting {
    /// Always `true` when present.
    pub supported: bool,
    /// The kinds covered (an unknown kind does not deserialise).
    pub kinds: Vec<Kind>,
}

/// One state change as a mint reports it: `{"kind": ..., "id_hex": ..., "state": ...}`
/// (`state` may be left out for the kinds without one; any other field is refused, so that a
/// misspelt `state` is not read as none).
///
/// # Example
/// ```
/// use amq::formats::cashu_state::StateChange;
/// let c: StateChange = serde_json::from_str(r#"{"kind": "mint_quote",
///     "id_hex": "30313965366435612d323334372d373030302d386166612d303531616535373166333334"}"#)?;
/// assert_eq!(hex::encode(&c.element_hash()?[..4]), "35ed99b8");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateChange {
    /// The kind.
    pub kind: Kind,
    /// The id's bytes as hex (an optional `0x`): the point for `proof_state` and
    /// `blind_signature`, the UTF-8 quote ID for the quotes.
    pub id_hex: String,
    /// The state's name; empty for `mint_quote` and `blind_signature`.
    #[serde(default)]
    pub state: String,
}

impl StateChange {
    /// `E` of this change.
    ///
    /// # Errors
    /// [`Error::Parse`] (`id_hex`) if the id is not hex; as [`Element::parse`] otherwise.
    pub fn element_hash(&self) -> Result<[u8; 32]> {
        Ok(Element::parse(self.kind, &self.id()?, &self.state)?.hash())
    }

    /// `E` of this change as a mint publishing filters takes it in: a quote kind's ID must
    /// also be a UUIDv7 ([`check_quote_id`](super::check_quote_id)), the form the spec
    /// requires of the quote IDs of a kind whose filters are published.
    ///
    /// # Errors
    /// As [`element_hash`](Self::element_hash) and [`check_quote_id`](super::check_quote_id).
    pub fn published_element_hash(&self) -> Result<[u8; 32]> {
        let id = self.id()?;
        if matches!(self.kind, Kind::MintQuote | Kind::MeltQuote) {
            super::check_quote_id(&id)?;
        }
        Ok(Element::parse(self.kind, &id, &self.state)?.hash())
    }

    fn id(&self) -> Result<Vec<u8>> {
        let text = self.id_hex.trim();
        let text = text
            .strip_prefix("0x")
            .or_else(|| text.strip_prefix("0X"))
            .unwrap_or(text);
        hex::decode(text).map_err(|e| Error::parse("id_hex", format!("{e}")))
    }
}
