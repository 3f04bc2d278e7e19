//! The element `E` of a state change, and its 16 words (revision B's positions).
//!
//! `E = SHA256("Cashu_StateFilter_v1" ‖ len32(kind) ‖ kind ‖ len32(id) ‖ id ‖ len32(state) ‖
//! state)`, with `len32` the byte length as a big-endian `u32` (both revisions, section
//! "Elements"). Kinds and states are typed here: an unknown kind or a state that the kind does
//! not have is an error when parsed, and cannot be written as a typed value at all.

use crate::error::{Error, Result};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::str::FromStr;
use sha2::{Digest, Sha256};

/// The 20 ASCII bytes that start every preimage, written without a length prefix.
pub const DOMAIN_SEPARATOR: &[u8; 20] = b"Cashu_StateFilter_v1";

/// The byte length of a compressed secp256k1 point (`Y`, `B_`).
pub const POINT_LEN: usize = 33;

/// What kind of object changed. Each kind has its own block sequence in revision B.
///
/// Serialised as the spec spells it: `proof_state`, `mint_quote`, `melt_quote`,
/// `blind_signature`. `blind_signature` exists only in revision B.
///
/// # Example
/// ```
/// use amq::formats::cashu_state::Kind;
/// assert_eq!("melt_quote".parse::<Kind>()?, Kind::MeltQuote);
/// assert_eq!(Kind::BlindSignature.name(), "blind_signature");
/// assert!("proof_states".parse::<Kind>().is_err());
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A proof (ecash note) changed state; the id is its 33-byte `Y`.
    ProofState,
    /// A mint quote changed after its creation; the id is the quote ID, the state is empty.
    MintQuote,
    /// A melt quote changed state; the id is the quote ID.
    MeltQuote,
    /// The mint durably issued a blind signature on `B_` (revision B only); the state is
    /// empty.
    BlindSignature,
}

impl Kind {
    /// Every kind, in the order of the spec's table.
    pub const ALL: [Kind; 4] = [
        Kind::ProofState,
        Kind::MintQuote,
        Kind::MeltQuote,
        Kind::BlindSignature,
    ];

    /// The kind's name: the bytes hashed into `E` and the name in URLs and JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::ProofState => "proof_state",
            Kind::MintQuote => "mint_quote",
            Kind::MeltQuote => "melt_quote",
            Kind::BlindSignature => "blind_signature",
        }
    }

    /// The states an element of this kind can carry, as hashed (`""` is the empty state).
    pub const fn states(self) -> &'static [&'static str] {
        match self {
            Kind::ProofState => &["UNSPENT", "PENDING", "SPENT"],
            Kind::MeltQuote => &["UNPAID", "PENDING", "PAID"],
            Kind::MintQuote | Kind::BlindSignature => &[""],
        }
    }

    /// Parses a kind's name (exactly as the spec spells it).
    ///
    /// # Errors
    /// [`Error::Parse`] for any other string.
    pub fn parse(name: &str) -> Result<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                Error::parse(
                    "kind",
                    format!(
                    "unknown kind {name:?} (expected proof_state, mint_quote, melt_quote or blind_signature)"
                ),
                )
            })
    }
}

impl FromStr for Kind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Kind> {
        Kind::parse(s)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The state of a proof (NUT-07): the `state` of a [`Kind::ProofState`] element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProofState {
    /// `"UNSPENT"`: inserted only for a return to unspent after pending, never at issuance.
    Unspent,
    /// `"PENDING"`.
    Pending,
    /// `"SPENT"`.
    Spent,
}

/// The state of a melt quote (NUT-05): the `state` of a [`Kind::MeltQuote`] element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MeltQuoteState {
    /// `"UNPAID"`.
    Unpaid,
    /// `"PENDING"`.
    Pending,
    /// `"PAID"`.
    Paid,
}

impl ProofState {
    /// The state as hashed: `UNSPENT`, `PENDING` or `SPENT`.
    pub const fn name(self) -> &'static str {
        match self {
            ProofState::Unspent => "UNSPENT",
            ProofState::Pending => "PENDING",
            ProofState::Spent => "SPENT",
        }
    }
}

impl MeltQuoteState {
    /// The state as hashed: `UNPAID`, `PENDING` or `PAID`.
    pub const fn name(self) -> &'static str {
        match self {
            MeltQuoteState::Unpaid => "UNPAID",
            MeltQuoteState::Pending => "PENDING",
            MeltQuoteState::Paid => "PAID",
        }
    }
}

/// One state change, typed: a kind with the id and state that kind has.
///
/// # Example
/// ```
/// use amq::formats::cashu_state::{Element, MeltQuoteState};
/// let e = Element::MeltQuote {
///     quote_id: "019e6d5a-2347-7000-8afa-051ae571f334",
///     state: MeltQuoteState::Paid,
/// };
/// // the vector "Quote elements, test 2" of both revisions
/// assert_eq!(
///     hex::encode(e.hash()),
///     "8a5b9cecaaf0ecd6edbb1a5aaffd770e43d180080126538f1489575ad9e09122"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Element<'a> {
    /// A proof moved into `state`; `y` is its compressed point `Y` (33 bytes).
    ProofState {
        /// `Y = hash_to_curve(secret)`, compressed.
        y: &'a [u8; POINT_LEN],
        /// The state it moved into.
        state: ProofState,
    },
    /// A mint quote changed; its ID is hashed exactly as returned to the wallet (no case
    /// folding, hyphens kept).
    MintQuote {
        /// The quote ID.
        quote_id: &'a str,
    },
    /// A melt quote moved into `state`.
    MeltQuote {
        /// The quote ID, hashed verbatim.
        quote_id: &'a str,
        /// The state it moved into.
        state: MeltQuoteState,
    },
    /// A blind signature on `B_` was durably issued (revision B).
    BlindSignature {
        /// The blinded message `B_ = Y + rG`, compressed.
        blinded_message: &'a [u8; POINT_LEN],
    },
}

impl<'a> Element<'a> {
    /// An element from a kind, the id's bytes and the state's name.
    ///
    /// `id` is the 33-byte compressed point for `proof_state` and `blind_signature` (first
    /// byte 02 or 03), and the UTF-8 quote ID for the quotes. `state` is one of
    /// [`Kind::states`]; the empty string for `mint_quote` and `blind_signature`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`id`) if a point is not 33 bytes starting with 02 or 03,
    /// or a quote ID is not UTF-8; [`Error::Parse`] (`state`) if the kind has no such state.
    ///
    /// # Example
    /// ```
    /// use amq::formats::cashu_state::{Element, Kind};
    /// let e = Element::parse(Kind::MintQuote, b"019e6d5a-2347-7000-8afa-051ae571f334", "")?;
    /// assert_eq!(hex::encode(&e.hash()[..4]), "35ed99b8");
    /// assert!(Element::parse(Kind::MintQuote, b"q", "PAID").is_err());
    /// assert!(Element::parse(Kind::ProofState, &[2; 33], "spent").is_err());
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn parse(kind: Kind, id: &'a [u8], state: &str) -> Result<Element<'a>> {
        Ok(match kind {
            Kind::ProofState => Element::ProofState {
                y: point(kind, id)?,
                state: match state {
                    "UNSPENT" => ProofState::Unspent,
                    "PENDING" => ProofState::Pending,
                    "SPENT" => ProofState::Spent,
                    _ => return Err(bad_state(kind, state)),
                },
            },
            Kind::MintQuote => {
                no_state(kind, state)?;
                Element::MintQuote {
                    quote_id: quote(id)?,
                }
            }
            Kind::MeltQuote => Element::MeltQuote {
                quote_id: quote(id)?,
                state: match state {
                    "UNPAID" => MeltQuoteState::Unpaid,
                    "PENDING" => MeltQuoteState::Pending,
                    "PAID" => MeltQuoteState::Paid,
                    _ => return Err(bad_state(kind, state)),
                },
            },
            Kind::BlindSignature => {
                no_state(kind, state)?;
                Element::BlindSignature {
                    blinded_message: point(kind, id)?,
                }
            }
        })
    }

    /// The element's kind.
    pub fn kind(&self) -> Kind {
        match self {
            Element::ProofState { .. } => Kind::ProofState,
            Element::MintQuote { .. } => Kind::MintQuote,
            Element::MeltQuote { .. } => Kind::MeltQuote,
            Element::BlindSignature { .. } => Kind::BlindSignature,
        }
    }

    /// The id's bytes as hashed.
    pub fn id(&self) -> &'a [u8] {
        match *self {
            Element::ProofState { y, .. } => y,
            Element::MintQuote { quote_id } | Element::MeltQuote { quote_id, .. } => {
                quote_id.as_bytes()
            }
            Element::BlindSignature { blinded_message } => blinded_message,
        }
    }

    /// The state's name as hashed (`""` for the kinds without a state).
    pub fn state(&self) -> &'static str {
        match self {
            Element::ProofState { state, .. } => state.name(),
            Element::MeltQuote { state, .. } => state.name(),
            Element::MintQuote { .. } | Element::BlindSignature { .. } => "",
        }
    }

    /// The preimage of `E`: the domain separator, then kind, id and state, each after its
    /// length as a big-endian `u32`.
    pub fn preimage(&self) -> Vec<u8> {
        let (kind, id, state) = (self.kind().name().as_bytes(), self.id(), self.state());
        let mut out =
            Vec::with_capacity(DOMAIN_SEPARATOR.len() + 12 + kind.len() + id.len() + state.len());
        out.extend_from_slice(DOMAIN_SEPARATOR);
        for field in [kind, id, state.as_bytes()] {
            out.extend_from_slice(&len32(field).to_be_bytes());
            out.extend_from_slice(field);
        }
        out
    }

    /// `E`, the SHA-256 of the [preimage](Self::preimage) (32 bytes).
    pub fn hash(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(DOMAIN_SEPARATOR);
        for field in [
            self.kind().name().as_bytes(),
            self.id(),
            self.state().as_bytes(),
        ] {
            h.update(len32(field).to_be_bytes());
            h.update(field);
        }
        h.finalize().into()
    }

    /// The 16 words of `E` (revision B): [`Words::from_element`] of [`hash`](Self::hash).
    pub fn words(&self) -> Words {
        Words::from_element(&self.hash())
    }
}

/// A field's length as `len32` writes it. Every id the typed API holds is far below 2³².
fn len32(field: &[u8]) -> u32 {
    u32::try_from(field.len()).unwrap_or(u32::MAX)
}

fn point(kind: Kind, id: &[u8]) -> Result<&[u8; POINT_LEN]> {
    match <&[u8; POINT_LEN]>::try_from(id) {
        Ok(p) if p[0] == 0x02 || p[0] == 0x03 => Ok(p),
        Ok(p) => Err(Error::invalid(
            "id",
            format!(
                "a {kind} id is a compressed point, which starts with 02 or 03, not {:02x}",
                p[0]
            ),
        )),
        Err(_) => Err(Error::invalid(
            "id",
            format!(
                "a {kind} id is the {POINT_LEN} bytes of a compressed point, got {} bytes",
                id.len()
            ),
        )),
    }
}

/// Checks that `id` is a quote ID a mint may publish filters of: a UUIDv7 in its hyphenated
/// text form, 36 characters (8-4-4-4-12 hex digits, either case), version 7 and the RFC 9562
/// variant.
///
/// The spec (both revisions, "Quote IDs"): a mint that publishes filters for a quote kind
/// MUST generate that kind's quote IDs as NUT-04 recommends, UUIDv7 with all 74 variable bits
/// from a CSPRNG, and MUST NOT advertise a quote kind whose IDs are generated any other way;
/// a published filter lets anyone test a guessed ID. The randomness cannot be checked; the
/// form can, and a mint whose IDs fail it must not publish them. [`Element::parse`] does not
/// check: a wallet hashes an ID exactly as the mint returned it.
///
/// # Errors
/// [`Error::InvalidParameter`] naming what is wrong.
///
/// # Example
/// ```
/// use amq::formats::cashu_state::check_quote_id;
/// assert!(check_quote_id(b"019e6d5a-2347-7000-8afa-051ae571f334").is_ok());
/// assert!(check_quote_id(b"019E6D5A-2347-7000-8AFA-051AE571F334").is_ok()); // case kept
/// assert!(check_quote_id(b"550e8400-e29b-41d4-a716-446655440000").is_err()); // version 4
/// assert!(check_quote_id(b"019e6d5a23477000 8afa051ae571f334").is_err());
/// ```
pub fn check_quote_id(id: &[u8]) -> Result<()> {
    let bad = |why: String| Error::invalid("id", why);
    let text = quote(id)?;
    if text.len() != 36 {
        return Err(bad(format!(
            "a published quote id is a UUIDv7 in its 36-character hyphenated form, got {} \
             bytes: {text:?}",
            text.len()
        )));
    }
    let uuid =
        uuid::Uuid::try_parse_ascii(id).map_err(|e| bad(format!("{text:?} is not a UUID: {e}")))?;
    if uuid.get_version_num() != 7 || uuid.get_variant() != uuid::Variant::RFC4122 {
        return Err(bad(format!(
            "{text:?} is a UUID of version {} and variant {:?}, not a UUIDv7: a mint that \
             publishes filters for a quote kind generates its quote ids as UUIDv7 (NUT-04)",
            uuid.get_version_num(),
            uuid.get_variant()
        )));
    }
    Ok(())
}

fn quote(id: &[u8]) -> Result<&str> {
    core::str::from_utf8(id)
        .map_err(|e| Error::invalid("id", format!("a quote id is UTF-8 text: {e}")))
}

fn no_state(kind: Kind, state: &str) -> Result<()> {
    if state.is_empty() {
        Ok(())
    } else {
        Err(Error::parse(
            "state",
            format!("{kind} has no state (it is the empty string), got {state:?}"),
        ))
    }
}

fn bad_state(kind: Kind, state: &str) -> Error {
    Error::parse(
        "state",
        format!(
            "{state:?} is not a {kind} state (expected {})",
            kind.states().join(", ")
        ),
    )
}

/// The 16 big-endian 32-bit words of `SHA256(E ‖ u32be(0)) ‖ SHA256(E ‖ u32be(1))`: a
/// candidate's whole state in revision B, 64 bytes whatever the block width.
///
/// At width b, word i gives position `p_i = w_i >> (32 − b)`, so positions nest: at any
/// b' ≤ b the position is `p_i >> (b − b')`. Compute the words once per element (two SHA-256
/// compressions) and test them against blocks of any width.
///
/// # Example
/// ```
/// use amq::formats::cashu_state::Words;
/// let e: [u8; 32] = hex::decode("dce02b593be7ddd8abe04bcaf19e35094c67429c21ef5c62ab5550841a603f06")
///     .unwrap().try_into().unwrap();
/// let w = Words::from_element(&e);
/// assert_eq!(w.as_array()[0], 0x35bc6778); // revision B, case 6
/// assert_eq!(w.positions(22)?[0], 880409);
/// assert_eq!(w.positions(10)?[0], 880409 >> 12);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Words([u32; 16]);

impl Words {
    /// The words of an element `E`.
    pub fn from_element(e: &[u8; 32]) -> Words {
        let mut words = [0u32; 16];
        for (j, half) in words.chunks_exact_mut(8).enumerate() {
            let digest = Sha256::new()
                .chain_update(e)
                .chain_update((j as u32).to_be_bytes())
                .finalize();
            for (w, bytes) in half.iter_mut().zip(digest.chunks_exact(4)) {
                *w = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            }
        }
        Words(words)
    }

    /// Words already computed (for instance read back from a wallet's cache).
    pub const fn from_array(words: [u32; 16]) -> Words {
        Words(words)
    }

    /// The 16 words, `w_0` first.
    pub const fn as_array(&self) -> &[u32; 16] {
        &self.0
    }

    /// The 16 positions at width b: `w_i >> (32 − b)`, each below 2^b.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`b`) if b is outside
    /// [`MIN_B`](super::MIN_B)`..=`[`MAX_B`](super::MAX_B).
    pub fn positions(&self, b: u8) -> Result<[u32; 16]> {
        super::block::check_b(b)?;
        Ok(self.0.map(|w| w >> (32 - u32::from(b))))
    }
}
