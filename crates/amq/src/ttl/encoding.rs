//! The TTL cuckoo filter's `.amq` encoding (kind 7).

use super::lanes::{Shape, SLOTS};
use super::table::Table;
use super::{check, TtlCuckooFilter};
use crate::clock::{Clock, NoClock};
use crate::error::{Error, Result};
use crate::wire::{self, Kind};
use alloc::vec::Vec;

impl<C: Clock> TtlCuckooFilter<C> {
    /// Encodes the filter as an `.amq` file (the clock is not part of it).
    ///
    /// Kind 7; eleven parameter words: f, s, b (= 4), buckets, seed, tick, the default TTL,
    /// the sweep epoch w, inserts that stored an entry, the stash's slot value (0: empty) and
    /// its bucket (0 when empty). Payload: `buckets · ⌈4(f + s)/8⌉` bytes, bucket i at byte
    /// `i · ⌈4(f + s)/8⌉` as a little-endian integer whose slot j is bits
    /// `[j(f + s), (j + 1)(f + s))`; a slot is `fingerprint << s | stamp`, where the stamp is
    /// the expiry tick mod 2ˢ, and 0 is an empty slot. All little-endian.
    ///
    /// # Example
    /// ```
    /// use amq::ttl::TtlCuckooFilter;
    /// let mut f = TtlCuckooFilter::new(10, 12, 4, 60, 1)?;
    /// f.insert("apple", 0, 600)?;
    /// let bytes = f.to_bytes();
    /// assert_eq!(bytes.len(), 128 + 80 + 8); // header and 11 parameters, 10 buckets of 8 bytes, checksum
    /// let g = TtlCuckooFilter::from_bytes(&bytes)?;
    /// assert!(g.contains("apple", 599) && !g.contains("apple", 600));
    /// assert_eq!(g, f);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let t = &self.table;
        wire::encode(
            Kind::TtlCuckoo,
            &[
                u64::from(t.shape.f),
                u64::from(t.shape.s),
                u64::from(SLOTS),
                t.buckets,
                self.seed,
                self.tick,
                self.default_ttl,
                self.swept,
                self.inserted,
                t.stash,
                t.stash_bucket,
            ],
            t.payload(),
        )
    }
}

impl TtlCuckooFilter<NoClock> {
    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes); give it a clock with
    /// [`with_clock`](Self::with_clock).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`] for another kind, and
    /// [`Error::Corrupt`] when the parameters are out of range or disagree with the payload
    /// (its length, a slot with a stamp but no fingerprint, bits set past a bucket's slots);
    /// a bad bucket is named by the file's byte where it starts.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        Self::from_container(&c)
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let p = c.expect(Kind::TtlCuckoo, 11)?;
        let bad = |at: usize, what: alloc::string::String| Err(Error::corrupt(at, what));
        let small = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        let (f, s, b, buckets, seed, tick) = (small(p[0]), small(p[1]), p[2], p[3], p[4], p[5]);
        let (default_ttl, swept, inserted, stash, stash_bucket) = (p[6], p[7], p[8], p[9], p[10]);
        if b != u64::from(SLOTS) {
            return bad(
                40,
                alloc::format!("{b} slots per bucket, only 4 is supported"),
            );
        }
        check(buckets, f, s, tick).map_err(|e| Error::corrupt(24, alloc::format!("{e}")))?;
        let shape = Shape::new(f, s);
        let max_ttl = tick.saturating_mul(shape.stamps());
        if default_ttl == 0 || default_ttl > max_ttl {
            return bad(
                72,
                alloc::format!("default TTL {default_ttl} is not in 1..={max_ttl}"),
            );
        }
        // inserts need room for a time past the sweep: swept·tick + max_ttl must be a time
        if swept
            .checked_mul(tick)
            .and_then(|t| t.checked_add(max_ttl))
            .is_none()
        {
            return bad(
                80,
                alloc::format!("swept epoch {swept} times tick {tick} is past the last time"),
            );
        }
        let len = buckets.checked_mul(shape.bytes as u64);
        if len != Some(c.payload.len() as u64) {
            return bad(
                0,
                alloc::format!(
                    "{buckets} buckets of {} bytes need {} payload bytes, found {}",
                    shape.bytes,
                    u128::from(buckets) * shape.bytes as u128,
                    c.payload.len()
                ),
            );
        }
        if stash >> shape.w != 0
            || (stash == 0 && stash_bucket != 0)
            || (stash != 0 && shape.fp_of(stash) == 0)
            || stash_bucket >= buckets
        {
            return bad(
                104,
                alloc::format!("stash slot {stash:#x} in bucket {stash_bucket} is not valid"),
            );
        }
        let mut table = Table::from_payload(shape, buckets, c.payload)
            .ok_or_else(|| Error::out_of_memory::<u8>("the table", c.payload.len() as u64))?;
        for i in 0..buckets {
            if shape.has_stray_bits(&table.bytes, i)
                || shape.malformed(shape.load(&table.bytes, i)) != 0
            {
                return bad(
                    c.payload_offset() + i as usize * shape.bytes,
                    alloc::format!("bucket {i} has a slot with a stamp but no fingerprint, or bits past its slots"),
                );
            }
        }
        table.stash = stash;
        table.stash_bucket = stash_bucket;
        Ok(TtlCuckooFilter {
            table,
            seed,
            tick,
            default_ttl,
            swept,
            inserted,
            clock: NoClock,
        })
    }
}
