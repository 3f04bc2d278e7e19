//! The scalable Bloom filter's `.amq` encoding (kind 9).

use super::plan::LinkSizing;
use super::{ScalableBloomFilter, ScalableParams, MAX_LINKS};
use crate::bits::{le_bytes_to_words, BitVec};
use crate::error::{Error, Result};
use crate::wire::{self, Kind};
use crate::BloomFilter;
use alloc::vec::Vec;

/// The words before each link's bits in the payload: m, k, items added.
const LINK_WORDS: usize = 3;

impl ScalableBloomFilter {
    /// Encodes the chain as an `.amq` file.
    ///
    /// Kind 9; seven parameter words: n₀, ε (IEEE 754 bits), s, r (IEEE 754 bits), flags
    /// (bit 0: does not scale), seed, the number of links L. Payload: for each link, oldest
    /// first, three little-endian words (m, k, items added) and then its ⌈m/64⌉ words of bits
    /// as [`BloomFilter::to_bytes`] lays them out.
    ///
    /// # Example
    /// ```
    /// use amq::scalable::{ScalableBloomFilter, ScalableParams};
    /// use amq::{Filter, Insert};
    /// let mut f = ScalableBloomFilter::new(ScalableParams::new(10, 0.01), 1)?;
    /// for i in 0..30u32 {
    ///     f.insert(&i)?;
    /// }
    /// let g = ScalableBloomFilter::from_bytes(&f.to_bytes())?;
    /// assert_eq!(g, f);
    /// assert!(g.contains(&29u32));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let p = &self.params;
        let params = [
            p.capacity,
            p.fpr.to_bits(),
            u64::from(p.expansion),
            p.tightening.to_bits(),
            u64::from(!p.scaling),
            self.seed,
            self.links.len() as u64,
        ];
        let len = self
            .links
            .iter()
            .map(|l| 24 + 8 * l.bits().words().len())
            .sum();
        let mut w = wire::writer_indexed(Kind::ScalableBloom, &params, self.indexing(), len);
        for l in &self.links {
            w.words(&[l.m(), u64::from(l.k()), l.inserted()])
                .words(l.bits().words());
        }
        w.finish()
    }

    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`] for another kind, and
    /// [`Error::Corrupt`] when the parameters are out of range, a link's m and k are neither
    /// the shape its parameters plan now nor the one they planned before 2026-11-25, or the
    /// payload is not exactly the links it declares.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        Self::from_container(&c)
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let (p, indexing) = c.expect_indexed(Kind::ScalableBloom, 7)?;
        let bad = |what: alloc::string::String| Error::corrupt(24, what);
        if p[2] > u64::from(u32::MAX) || p[4] > 1 {
            return Err(bad(alloc::format!(
                "expansion {} or flags {} out of range",
                p[2],
                p[4]
            )));
        }
        let params = ScalableParams {
            capacity: p[0],
            fpr: f64::from_bits(p[1]),
            expansion: p[2] as u32,
            tightening: f64::from_bits(p[3]),
            scaling: p[4] == 0,
        };
        params
            .check()
            .map_err(|e| bad(alloc::format!("parameters: {e}")))?;
        let (seed, links) = (p[5], p[6]);
        let most = if params.scaling { MAX_LINKS } else { 1 };
        if links == 0 || links > u64::from(most) {
            return Err(bad(alloc::format!(
                "{links} links (this chain has 1 to {most})"
            )));
        }
        let mut out = Vec::new();
        out.try_reserve_exact(links as usize)
            .map_err(|_| Error::out_of_memory::<BloomFilter>("the links", links))?;
        let mut rest = c.payload;
        for i in 0..links as u32 {
            let at = c.offset_of(rest);
            let words = |r: &[u8], j: usize| -> u64 {
                u64::from_le_bytes(r[8 * j..8 * j + 8].try_into().expect("8 bytes"))
            };
            if rest.len() < 8 * LINK_WORDS {
                return Err(Error::corrupt(
                    at,
                    alloc::format!("link {i}: the payload ends before its header"),
                ));
            }
            let (m, k, inserted) = (words(rest, 0), words(rest, 1), words(rest, 2));
            rest = &rest[8 * LINK_WORDS..];
            let need = m.div_ceil(64).saturating_mul(8);
            if need > rest.len() as u64 {
                return Err(Error::corrupt(
                    at,
                    alloc::format!(
                        "link {i}: m = {m} bits needs {need} bytes, {} left",
                        rest.len()
                    ),
                ));
            }
            let shape = |sizing| {
                (params.shape_by(i, sizing))
                    .map(|(m, k)| (m, u64::from(k)))
                    .map_err(|e| Error::corrupt(at, alloc::format!("link {i}: {e}")))
            };
            let planned = shape(LinkSizing::NewItems)?;
            if (m, k) != planned && (m, k) != shape(LinkSizing::EveryItem)? {
                return Err(Error::corrupt(
                    at,
                    alloc::format!(
                        "link {i}: m = {m}, k = {k}, its parameters plan m = {}, k = {}",
                        planned.0,
                        planned.1
                    ),
                ));
            }
            let at_body = c.offset_of(rest);
            let (body, tail) = rest.split_at(need as usize);
            rest = tail;
            let bits =
                BitVec::from_words(le_bytes_to_words(body)?, m).map_err(|e| e.after(at_body))?;
            out.push(BloomFilter::from_parts(
                bits, k as u32, seed, inserted, indexing,
            ));
        }
        if !rest.is_empty() {
            return Err(Error::corrupt(
                c.offset_of(rest),
                alloc::format!("{} payload bytes after the last link", rest.len()),
            ));
        }
        Ok(ScalableBloomFilter {
            params,
            seed,
            links: out,
        })
    }
}
