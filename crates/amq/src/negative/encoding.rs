//! The negative cache's `.amq` encoding (kind 6).

use super::*;

impl<C: Clock> NegativeCache<C> {
    /// Encodes as an `.amq` file.
    ///
    /// Kind 6; parameters l, b, ways, seed, ttl (0: no expiry), inserted; payload the
    /// ⌈2ˡ·(b + 1)/64⌉ words of packed entries (slot i at bit i·(b + 1): the occupied bit,
    /// then the fingerprint, least significant bit first), then with a TTL the 2ˡ expiry
    /// ticks; all little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let expiry = self.expiry.as_deref().unwrap_or_default();
        let params = [
            u64::from(self.l),
            u64::from(self.b),
            u64::from(self.ways),
            self.seed,
            self.ttl().unwrap_or(0),
            self.inserted,
        ];
        let len = 8 * (self.entries.len() + expiry.len());
        let mut w = wire::Writer::new(Kind::NegativeCache, &params, len);
        w.words(&self.entries).words(expiry);
        w.finish()
    }
}

impl NegativeCache<NoClock> {
    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes); give it a clock with
    /// [`with_clock`](Self::with_clock).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`] for another kind, and
    /// [`Error::Corrupt`] for an invalid shape, a payload of the wrong length, bits past the
    /// last slot, an empty slot with a fingerprint or expiry, or an empty slot before an
    /// occupied one in a set; a slot's error names the file's byte of its first bit (or of
    /// its expiry word).
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        Self::from_container(&c)
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let p = c.expect(Kind::NegativeCache, 6)?;
        let (l, b, ways, seed, ttl, inserted) = (p[0], p[1], p[2], p[3], p[4], p[5]);
        let small = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        let (l, b, ways) = (small(l), small(b), small(ways));
        let set_bits =
            check_shape(l, b, ways).map_err(|e| Error::corrupt(24, alloc::format!("{e}")))?;
        let words = entry_words(l, b);
        let slots = 1u64 << l;
        let want = words
            .checked_add(if ttl > 0 { slots } else { 0 })
            .and_then(|w| w.checked_mul(8));
        if want != Some(c.payload.len() as u64) {
            return Err(Error::corrupt(
                24,
                alloc::format!(
                    "l = {l}, b = {b}{} needs {} payload bytes, found {}",
                    if ttl > 0 { " with expiry" } else { "" },
                    want.map_or(alloc::string::String::from("too many"), |w| alloc::format!(
                        "{w}"
                    )),
                    c.payload.len()
                ),
            ));
        }
        let all = crate::bits::le_bytes_to_words(c.payload)?;
        let (entry_part, expiry_part) = all.split_at(words as usize);
        let last = words as usize - 1;
        let stray = crate::bits::bits_past(entry_part[last], slots * u64::from(b + 1));
        if stray != 0 {
            return Err(Error::corrupt(
                c.payload_offset() + crate::bits::lowest_set_byte(last, stray),
                "bits set past the last slot",
            ));
        }
        let mut cache = NegativeCache {
            l,
            b,
            ways,
            seed,
            set_bits,
            entries: entry_part.to_vec(),
            expiry: (ttl > 0).then(|| expiry_part.to_vec()),
            default_ttl: ttl,
            inserted,
            occupied: 0,
            clock: NoClock,
        };
        let ways = u64::from(ways);
        for slot in 0..slots {
            let off = slot * u64::from(b + 1);
            let occupied = get_bits(&cache.entries, off, 1) == 1;
            if occupied {
                cache.occupied += 1;
                if slot % ways != 0 && !cache.occupied_at(slot - 1) {
                    return Err(Error::corrupt(
                        c.payload_offset() + (off / 8) as usize,
                        alloc::format!("slot {slot} is occupied after an empty slot of its set"),
                    ));
                }
            } else {
                let fp_nonzero = cache.entry_fp_bits_nonzero(off);
                let exp_nonzero = cache.expiry.as_ref().is_some_and(|e| e[slot as usize] != 0);
                if fp_nonzero || exp_nonzero {
                    // the slot's first byte, or its expiry word's
                    let at = if fp_nonzero {
                        off / 8
                    } else {
                        (words + slot) * 8
                    };
                    return Err(Error::corrupt(
                        c.payload_offset() + at as usize,
                        alloc::format!("empty slot {slot} holds a fingerprint or expiry"),
                    ));
                }
            }
        }
        Ok(cache)
    }

    fn entry_fp_bits_nonzero(&self, off: u64) -> bool {
        let mut at = off + 1;
        let mut left = self.b;
        while left > 0 {
            let len = left.min(64);
            if get_bits(&self.entries, at, len) != 0 {
                return true;
            }
            at += u64::from(len);
            left -= len;
        }
        false
    }
}
