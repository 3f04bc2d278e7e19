//! The expandable cuckoo filter's `.amq` encoding (kind 10).

use super::expandable::{ExpandableCuckooFilter, ExpandableParams, MAX_LINKS};
use super::CuckooFilter;
use crate::error::{Error, Result};
use crate::wire::{self, Kind};
use alloc::vec::Vec;

/// The words before each link's table in the payload.
const LINK_WORDS: usize = 5;

impl ExpandableCuckooFilter {
    /// Encodes the chain as an `.amq` file.
    ///
    /// Kind 10; eight parameter words: n₀, ε (IEEE 754 bits), s (0: never grows), r (IEEE 754
    /// bits), the most kicks per insert, seed, deletes, the number of links L. Payload: for
    /// each link, oldest first, five little-endian words (f, buckets, fingerprints held,
    /// victim fingerprint, victim bucket) and then its `buckets · f/2` bytes of packed buckets
    /// as [`CuckooFilter::to_bytes`] lays them out, zero-padded to a multiple of 8 bytes.
    ///
    /// # Example
    /// ```
    /// use amq::cuckoo::{ExpandableCuckooFilter, ExpandableParams};
    /// use amq::{Filter, Insert};
    /// let mut f = ExpandableCuckooFilter::new(ExpandableParams::new(10, 0.01), 1)?;
    /// for i in 0..40u32 {
    ///     f.insert(&i)?;
    /// }
    /// let g = ExpandableCuckooFilter::from_bytes(&f.to_bytes())?;
    /// assert_eq!(g, f);
    /// assert!(g.contains(&39u32));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let p = &self.params;
        let params = [
            p.capacity,
            p.fpr.to_bits(),
            u64::from(p.expansion),
            p.tightening.to_bits(),
            u64::from(p.max_kicks),
            self.seed,
            self.deleted,
            self.links.len() as u64,
        ];
        let len = self
            .links
            .iter()
            .map(|l| 8 * l.fields().len() + l.table_bytes().len().next_multiple_of(8))
            .sum();
        let mut w = wire::Writer::new(Kind::ExpandableCuckoo, &params, len);
        for l in &self.links {
            w.words(&l.fields()).bytes(l.table_bytes()).pad8();
        }
        w.finish()
    }

    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`] for another kind, and
    /// [`Error::Corrupt`] when the parameters are out of range, a link's shape is not the one
    /// its parameters plan, a link does not decode, or the payload is not exactly the links
    /// it declares.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        Self::from_container(&c)
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let p = c.expect(Kind::ExpandableCuckoo, 8)?;
        let bad = |what: alloc::string::String| Error::corrupt(24, what);
        if p[2] > u64::from(u32::MAX) || p[4] > u64::from(u32::MAX) {
            return Err(bad(alloc::format!(
                "expansion {} or kicks {} out of range",
                p[2],
                p[4]
            )));
        }
        let params = ExpandableParams {
            capacity: p[0],
            fpr: f64::from_bits(p[1]),
            expansion: p[2] as u32,
            tightening: f64::from_bits(p[3]),
            max_kicks: p[4] as u32,
        };
        params
            .check()
            .map_err(|e| bad(alloc::format!("parameters: {e}")))?;
        let (seed, deleted, links) = (p[5], p[6], p[7]);
        let most = if params.expansion > 0 { MAX_LINKS } else { 1 };
        if links == 0 || links > u64::from(most) {
            return Err(bad(alloc::format!(
                "{links} links (this chain has 1 to {most})"
            )));
        }
        let mut out = Vec::new();
        out.try_reserve_exact(links as usize)
            .map_err(|_| Error::out_of_memory::<CuckooFilter>("the links", links))?;
        let mut rest = c.payload;
        for i in 0..links as u32 {
            let at = c.offset_of(rest);
            if rest.len() < 8 * LINK_WORDS {
                return Err(Error::corrupt(
                    at,
                    alloc::format!("link {i}: the payload ends before its header"),
                ));
            }
            let w: Vec<u64> = rest[..8 * LINK_WORDS]
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
                .collect();
            rest = &rest[8 * LINK_WORDS..];
            let planned = params
                .shape(i)
                .map_err(|e| Error::corrupt(at, alloc::format!("link {i}: {e}")))?;
            if (w[0], w[1]) != (u64::from(planned.0), planned.1) {
                return Err(Error::corrupt(
                    at,
                    alloc::format!(
                        "link {i}: f = {}, {} buckets; its parameters plan f = {}, {} buckets",
                        w[0],
                        w[1],
                        planned.0,
                        planned.1
                    ),
                ));
            }
            let table = planned.1 * u64::from(planned.0 / 2);
            let padded = table.next_multiple_of(8);
            if padded > rest.len() as u64 {
                return Err(Error::corrupt(
                    at,
                    alloc::format!(
                        "link {i}: its table needs {padded} bytes, {} left",
                        rest.len()
                    ),
                ));
            }
            let (body, tail) = rest.split_at(padded as usize);
            rest = tail;
            let (table_bytes, pad) = body.split_at(table as usize);
            if pad.iter().any(|&b| b != 0) {
                return Err(Error::corrupt(
                    at,
                    alloc::format!("link {i}: non-zero padding"),
                ));
            }
            let link = CuckooFilter::from_fields(w[0], w[1], seed, w[2], w[3], w[4], table_bytes)
                .map_err(|e| Error::corrupt(at, alloc::format!("link {i}: {e}")))?;
            out.push(link);
        }
        if !rest.is_empty() {
            return Err(Error::corrupt(
                c.offset_of(rest),
                alloc::format!("{} payload bytes after the last link", rest.len()),
            ));
        }
        Ok(ExpandableCuckooFilter {
            params,
            seed,
            links: out,
            deleted,
        })
    }
}
