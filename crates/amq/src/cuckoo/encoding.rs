//! The cuckoo filter's `.amq` encoding (kind 3).

use super::{CuckooFilter, Lanes, FINGERPRINT_BITS, MAX_BUCKETS, PAD, SLOTS_PER_BUCKET};
use crate::error::{Error, Result};
use crate::wire::{self, Kind};
use alloc::vec::Vec;

impl CuckooFilter {
    /// Encodes the filter as an `.amq` file.
    ///
    /// Kind 3; seven parameter words: f, b (= 4), buckets, seed, fingerprints held (the
    /// victim included), the victim's fingerprint (0: stash empty) and its bucket (0 when
    /// empty). Payload: `buckets · f/2` bytes, bucket i at byte `i · f/2` as a little-endian
    /// integer of 4f bits whose slot j is bits `[j·f, (j+1)·f)`; 0 is an empty slot.
    ///
    /// # Example
    /// ```
    /// use amq::{CuckooFilter, Filter, Insert};
    /// let mut f = CuckooFilter::new(10, 8, 1)?;
    /// f.insert("apple")?;
    /// let bytes = f.to_bytes();
    /// assert_eq!(bytes.len(), 128 + 40 + 8); // header and 7 parameters, 10 buckets of 4 bytes, checksum
    /// let g = CuckooFilter::from_bytes(&bytes)?;
    /// assert!(g.contains("apple"));
    /// assert_eq!(g, f);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        wire::encode(
            Kind::Cuckoo,
            &[
                u64::from(self.f),
                u64::from(SLOTS_PER_BUCKET),
                self.buckets,
                self.seed,
                self.len,
                u64::from(self.victim_fp),
                self.victim_bucket,
            ],
            &self.table[..self.table.len() - PAD],
        )
    }

    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`] for another kind, and
    /// [`Error::Corrupt`] when the parameters are out of range or disagree with the payload
    /// (its length, or the number of fingerprints it holds).
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        Self::from_container(&c)
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let p = c.expect(Kind::Cuckoo, 7)?;
        if p[1] != u64::from(SLOTS_PER_BUCKET) {
            return Err(Error::corrupt(
                24,
                alloc::format!("{} slots per bucket, only 4 is supported", p[1]),
            ));
        }
        Self::from_fields(p[0], p[2], p[3], p[4], p[5], p[6], c.payload)
    }

    /// The words of [`to_bytes`](Self::to_bytes) but the slots per bucket: f, buckets,
    /// fingerprints held, victim fingerprint, victim bucket.
    pub(crate) fn fields(&self) -> [u64; 5] {
        [
            u64::from(self.f),
            self.buckets,
            self.len,
            u64::from(self.victim_fp),
            self.victim_bucket,
        ]
    }

    /// The packed buckets, `buckets · f/2` bytes (the payload of [`to_bytes`](Self::to_bytes)).
    pub(crate) fn table_bytes(&self) -> &[u8] {
        &self.table[..self.table.len() - PAD]
    }

    /// A filter from its encoded fields and table, checked as [`from_bytes`](Self::from_bytes)
    /// checks them (errors at offset 24, the parameters).
    pub(crate) fn from_fields(
        f: u64,
        buckets: u64,
        seed: u64,
        len: u64,
        vfp: u64,
        vb: u64,
        payload: &[u8],
    ) -> Result<Self> {
        let bad = |what: alloc::string::String| Err(Error::corrupt(24, what));
        if !FINGERPRINT_BITS.iter().any(|&w| u64::from(w) == f) {
            return bad(alloc::format!("fingerprint width {f} is not 8, 12 or 16"));
        }
        if buckets == 0 || buckets > MAX_BUCKETS {
            return bad(alloc::format!("{buckets} buckets is out of range"));
        }
        let f = f as u32;
        if buckets.checked_mul(u64::from(f / 2)) != Some(payload.len() as u64) {
            return bad(alloc::format!(
                "{buckets} buckets of {f}-bit slots need {} payload bytes, found {}",
                u128::from(buckets) * u128::from(f / 2),
                payload.len()
            ));
        }
        if vfp >> f != 0 {
            return bad(alloc::format!(
                "victim fingerprint {vfp} is wider than {f} bits"
            ));
        }
        if (vfp == 0 && vb != 0) || vb >= buckets {
            return bad(alloc::format!(
                "victim bucket {vb} with fingerprint {vfp} in {buckets} buckets"
            ));
        }
        let mut table = Vec::new();
        table
            .try_reserve_exact(payload.len() + PAD)
            .map_err(|_| Error::out_of_memory::<u8>("the table", (payload.len() + PAD) as u64))?;
        table.extend_from_slice(payload);
        table.resize(payload.len() + PAD, 0);
        let held: u64 = with_f!(f, F => (0..buckets)
            .map(|i| u64::from(Lanes::<F>::occupied(&table, i)))
            .sum::<u64>())
            + u64::from(vfp != 0);
        if held != len {
            return bad(alloc::format!(
                "the header says {len} fingerprints, the table holds {held}"
            ));
        }
        Ok(CuckooFilter {
            table,
            buckets,
            f,
            seed,
            len,
            victim_fp: vfp as u32,
            victim_bucket: vb,
        })
    }
}
