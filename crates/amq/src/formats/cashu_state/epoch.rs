//! Revision A: one Golomb-Rice coded set of elements per epoch, on the [GCS engine](crate::gcs).

use crate::error::{Error, Result};
use crate::gcs::{self, Gcs, GcsHash, Params};
use alloc::format;
use alloc::vec::Vec;
use core::ops::Range;

/// The smallest P: a code is at least P + 1 bits and the padding at most 7, so padding never
/// completes a code only from P = 7 on ("P MUST be at least 7").
pub const MIN_P: u8 = 7;
/// The smallest P the text recommends ("mints SHOULD NOT use a p below 24").
pub const MIN_RECOMMENDED_P: u8 = 24;
/// The recommended P: a false-positive rate of 2^-28, about 1 in 268 million.
pub const RECOMMENDED_P: u8 = 28;
/// The largest P accepted: the text sets no upper bound; the GCS engine needs M = 2^P below
/// 2³².
pub const MAX_P: u8 = 31;

/// The recommended number of filters on a full page.
pub const RECOMMENDED_PAGE_SIZE: u64 = 50;

fn check_p(p: u8) -> Result<()> {
    if (MIN_P..=MAX_P).contains(&p) {
        Ok(())
    } else {
        Err(Error::invalid(
            "p",
            format!("revision A's P must be between {MIN_P} and {MAX_P}, got {p}"),
        ))
    }
}

/// The first 8 bytes of `E`, read as a big-endian integer: revision A's 64-bit value of an
/// element (there is no SipHash step; `E` is already a digest). Shorter input is padded with
/// zero bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ElementHead;

impl GcsHash for ElementHead {
    #[inline]
    fn hash64(&self, item: &[u8]) -> u64 {
        let mut head = [0u8; 8];
        let n = item.len().min(8);
        head[..n].copy_from_slice(&item[..n]);
        u64::from_be_bytes(head)
    }
}

/// The position of `E` in an epoch filter of N distinct elements:
/// `(BE64(E[0..8]) · N · 2^P) >> 64`, on a 128-bit product.
///
/// # Errors
/// [`Error::InvalidParameter`] if P is outside [`MIN_P`]`..=`[`MAX_P`] or N ≥ 2³².
///
/// # Example
/// ```
/// use amq::formats::cashu_state::epoch_position;
/// let e: [u8; 32] = hex::decode("01cc40295f336f97a9b46fffeb128d4ec4f70a05b5e89fd5e9179d72767f2c14")
///     .unwrap().try_into().unwrap();
/// assert_eq!(epoch_position(&e, 5, 28)?, 9_425_932); // revision A, "Filter encoding"
/// # Ok::<(), amq::Error>(())
/// ```
pub fn epoch_position(e: &[u8; 32], n: u64, p: u8) -> Result<u64> {
    check_p(p)?;
    let params = Params::new(n, p, 1 << p)?;
    Ok(gcs::hash_to_range(ElementHead.hash64(e), params.f()))
}

/// A revision A filter: the Golomb-Rice coded set of an epoch's distinct elements, over its
/// bytes `B` (owned, or borrowed to match received data in place).
///
/// **Encoding** (revision A, "Filter encoding"): remove duplicate elements, N is how many
/// remain; each element's position is [`epoch_position`]; sort the positions (equal positions
/// stay, as zero gaps); write the gaps from 0 in Golomb-Rice code with parameter P (the
/// quotient in unary, ones ended by a zero; then the low P bits, most significant first);
/// pad with zero bits to a byte. M = 2^P, no length prefix: an epoch without elements is
/// empty data.
///
/// **Decoding.** N is not sent: a decoder reads codes while at least P + 1 bits remain, and N
/// is the number it read. A candidate's position depends on N, so it is computed after
/// decoding, for every filter anew. A match is a false positive with probability 2^-P.
///
/// The engine's [`Gcs`] does the coding; this type fixes M = 2^P, the element's 64-bit value
/// ([`ElementHead`]) and finds N. Source: cashubtc/nuts PR #433, revision A (the text the PR
/// was opened with, 2026-09-03).
///
/// # Example
/// ```
/// use amq::formats::cashu_state::{Epoch, Element, ProofState};
/// let y = [3u8; 33];
/// let spent = Element::ProofState { y: &y, state: ProofState::Spent }.hash();
/// let pending = Element::ProofState { y: &y, state: ProofState::Pending }.hash();
/// let built = Epoch::build([spent, spent], 28)?; // duplicates removed: N = 1
/// let received = Epoch::decode(built.as_bytes(), 28)?;
/// assert_eq!(received.n(), 1);
/// assert!(received.contains(&spent)?);
/// assert!(!received.contains(&pending)?);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Epoch<B = Vec<u8>> {
    gcs: Gcs<B>,
}

impl Epoch<Vec<u8>> {
    /// Builds the filter of `elements` with parameter P (duplicates removed first).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if P is outside [`MIN_P`]`..=`[`MAX_P`] or there are 2³²
    /// distinct elements or more.
    pub fn build(elements: impl IntoIterator<Item = [u8; 32]>, p: u8) -> Result<Self> {
        check_p(p)?;
        let mut distinct: Vec<[u8; 32]> = elements.into_iter().collect();
        distinct.sort_unstable();
        distinct.dedup();
        // sorted elements give sorted heads, and the mapping keeps the order
        let heads: Vec<u64> = distinct.iter().map(|e| ElementHead.hash64(e)).collect();
        drop(distinct);
        Ok(Epoch {
            gcs: Gcs::from_sorted_hashes(&heads, p, 1 << p)?,
        })
    }

    /// The wire bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.gcs.into_bytes()
    }
}

impl<B: AsRef<[u8]>> Epoch<B> {
    /// Reads received data with parameter P (the mint's `p`): counts the codes to find N.
    ///
    /// Cost: one pass over the codes. The codes are not checked beyond being complete; a
    /// query that meets a value past N·2^P reports it, and [`validate`](Self::validate)
    /// checks everything.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`p`) if P is outside [`MIN_P`]`..=`[`MAX_P`];
    /// [`Error::Truncated`] if a code starts but does not end in the data;
    /// [`Error::Corrupt`] if a quotient overflows 64 bits; [`Error::InvalidParameter`] (`n`)
    /// if the data holds 2³² codes or more.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn decode(data: B, p: u8) -> Result<Self> {
        check_p(p)?;
        let n = gcs::bitio::count_codes(data.as_ref(), u32::from(p))?;
        let params = Params::new(n, p, 1 << p)?;
        Ok(Epoch {
            gcs: Gcs::new(params, data)?,
        })
    }

    /// N, the number of distinct elements (as decoding found it).
    pub fn n(&self) -> u64 {
        self.gcs.n()
    }
    /// P.
    pub fn p(&self) -> u8 {
        self.gcs.p()
    }
    /// The wire bytes: the Golomb-Rice codes, zero-padded to a byte (empty for N = 0).
    pub fn as_bytes(&self) -> &[u8] {
        self.gcs.as_bytes()
    }
    /// The underlying set (M = 2^P, F = N·2^P).
    pub fn gcs(&self) -> &Gcs<B> {
        &self.gcs
    }

    /// The position of `E` in this filter, with this filter's N.
    pub fn position(&self, e: &[u8; 32]) -> u64 {
        gcs::hash_to_range(ElementHead.hash64(e), self.gcs.f())
    }

    /// The decoded positions, ascending (N of them).
    ///
    /// # Errors
    /// [`Error::Corrupt`] if a position reaches N·2^P.
    pub fn positions(&self) -> Result<Vec<u64>> {
        self.gcs.decode()
    }

    /// `true` if `E` may be in the filter, `false` if it is definitely not. Decodes up to the
    /// candidate's position.
    ///
    /// # Errors
    /// [`Error::Corrupt`] if the part decoded holds a position past N·2^P.
    pub fn contains(&self, e: &[u8; 32]) -> Result<bool> {
        if self.n() == 0 {
            return Ok(false);
        }
        self.gcs.contains_value(self.position(e))
    }

    /// For each element, in order, whether it may be in the filter: one pass over the codes.
    ///
    /// # Errors
    /// As [`contains`](Self::contains).
    pub fn match_many(&self, elements: &[[u8; 32]]) -> Result<Vec<bool>> {
        if self.n() == 0 {
            return Ok(alloc::vec![false; elements.len()]);
        }
        self.gcs.match_many(elements, &ElementHead)
    }

    /// Checks that the data is exactly what [`Epoch::build`] writes: every position below
    /// N·2^P, no byte after the last code's, zero padding.
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming the first problem.
    pub fn validate(&self) -> Result<()> {
        self.gcs.validate()
    }
}

/// Revision A's page numbering: page k holds the filters at positions `k·page_size ..
/// k·page_size + page_size` of the mint's history (oldest first), and page numbers never
/// change.
///
/// # Example
/// ```
/// use amq::formats::cashu_state::Paging;
/// let pages = Paging::new(50)?;
/// // a year of hourly epochs: 175 full pages and one holding 10
/// assert_eq!(pages.current(8_760), (175, 10));
/// assert_eq!(pages.filters(174), 8_700..8_750);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Paging {
    page_size: u64,
}

impl Paging {
    /// Pages of `page_size` filters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`page_size`) if it is 0.
    pub fn new(page_size: u64) -> Result<Self> {
        if page_size == 0 {
            return Err(Error::invalid(
                "page_size",
                "a page holds at least one filter",
            ));
        }
        Ok(Paging { page_size })
    }

    /// The page size.
    pub fn page_size(&self) -> u64 {
        self.page_size
    }

    /// `(current_page, current_page_count)` after `filters` closed epochs: the page still
    /// being filled and how many filters it holds so far.
    pub fn current(&self, filters: u64) -> (u64, u64) {
        (filters / self.page_size, filters % self.page_size)
    }

    /// The positions (from the mint's first epoch) of the filters page `page` holds when
    /// full.
    pub fn filters(&self, page: u64) -> Range<u64> {
        let start = page.saturating_mul(self.page_size);
        start..start.saturating_add(self.page_size)
    }
}
