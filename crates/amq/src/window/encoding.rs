//! The sliding-window Bloom filter's `.amq` encoding (kind 4).

use super::*;

impl SlidingWindowBloom {
    /// Encodes as an `.amq` file.
    ///
    /// Kind 4; parameters W, S, B, k, seed, next position, inserted, archived chunks, and the
    /// index scheme (2 for [`Indexing::Hashed`]; left out for [`Indexing::Unit`], so an old
    /// file is written back as it was); payload:
    /// the W/64 words of the ring (slot j holds the chunk c ≡ j mod W/S of the window), then
    /// for each archived chunk by increasing number: its number, its count of set bits, and
    /// either S/64 bitmap words (when `32·count ≥ S`) or the `count` offsets as 32-bit words,
    /// increasing, two per 64-bit word (the last padded with zero); all little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let p = self.params;
        // the archived chunks' records, after the ring (which goes into the file as it is)
        let mut archive: Vec<u64> = Vec::new();
        for a in &self.archive {
            archive.push(a.chunk);
            archive.push(a.count());
            match &a.bits {
                ChunkBits::Dense(w) => archive.extend_from_slice(w),
                ChunkBits::Sparse(v) => {
                    for pair in v.chunks(2) {
                        let hi = pair.get(1).copied().unwrap_or(0);
                        archive.push(u64::from(pair[0]) | u64::from(hi) << 32);
                    }
                }
            }
        }
        let params = [
            p.window_bits,
            p.chunk_bits,
            p.batch,
            u64::from(p.k),
            self.seed,
            self.next,
            self.inserted,
            self.archive.len() as u64,
        ];
        let len = 8 * (self.ring.len() + archive.len());
        let mut w = wire::writer_indexed(Kind::SlidingWindowBloom, &params, self.indexing, len);
        w.words(&self.ring).words(&archive);
        w.finish()
    }

    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`] for another kind, and
    /// [`Error::Corrupt`] for an invalid shape, a payload of the wrong length, or an archive
    /// record that is out of order, empty, miscounted, not in its canonical encoding, or not
    /// below the window.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        Self::from_container(&c)
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let (p, indexing) = c.expect_indexed(Kind::SlidingWindowBloom, 8)?;
        let k = u32::try_from(p[3]).unwrap_or(0);
        let params = WindowParams {
            window_bits: p[0],
            chunk_bits: p[1],
            batch: p[2],
            k,
        };
        params
            .check()
            .map_err(|e| Error::corrupt(24, alloc::format!("{e}")))?;
        let (seed, next, inserted, records) = (p[4], p[5], p[6], p[7]);
        let batch = next.saturating_sub(1) / params.batch;
        if batch > u64::MAX - 2 * params.chunks() {
            return Err(Error::corrupt(
                24,
                alloc::format!("next position {next} is too large"),
            ));
        }
        let payload = c.payload;
        if !payload.len().is_multiple_of(8) {
            return Err(Error::corrupt(
                0,
                "payload length is not a multiple of 8 bytes",
            ));
        }
        let ring_bytes = (params.window_bits / 8) as usize;
        if payload.len() < ring_bytes {
            return Err(Error::corrupt(
                0,
                alloc::format!(
                    "the window needs {ring_bytes} payload bytes, found {}",
                    payload.len()
                ),
            ));
        }
        let words = crate::bits::le_bytes_to_words(payload)?;
        let ring = words[..ring_bytes / 8].to_vec();
        let mut rest = &words[ring_bytes / 8..];
        let chunk_words = (params.chunk_bits / 64) as usize;
        let mut archive: Vec<Archived> = Vec::new();
        // the file's byte offset of the record being read, for errors
        let mut at = c.payload_offset() + ring_bytes;
        for _ in 0..records {
            let [chunk, count, ref tail @ ..] = *rest else {
                return Err(Error::corrupt(
                    at,
                    "archive record header past the end of the payload",
                ));
            };
            if archive.last().is_some_and(|a| a.chunk >= chunk) || chunk >= batch {
                return Err(Error::corrupt(
                    at,
                    alloc::format!("archived chunk {chunk} is out of order or not below the window (chunk {batch})"),
                ));
            }
            if count == 0 || count > params.chunk_bits {
                return Err(Error::corrupt(
                    at + 8,
                    alloc::format!("archived chunk holds {count} set bits"),
                ));
            }
            let bits = if dense_is_smaller(count, params.chunk_bits) {
                if tail.len() < chunk_words {
                    return Err(Error::corrupt(
                        at + 16,
                        "archived bitmap past the end of the payload",
                    ));
                }
                let w = tail[..chunk_words].to_vec();
                if w.iter().map(|x| u64::from(x.count_ones())).sum::<u64>() != count {
                    return Err(Error::corrupt(
                        at + 16,
                        "archived bitmap does not hold its count of bits",
                    ));
                }
                rest = &tail[chunk_words..];
                ChunkBits::Dense(w)
            } else {
                let n = count.div_ceil(2) as usize; // count < S/32 here, so this is small
                if tail.len() < n {
                    return Err(Error::corrupt(
                        at + 16,
                        "archived offsets past the end of the payload",
                    ));
                }
                let mut v = Vec::with_capacity(count as usize);
                for (i, &w) in tail[..n].iter().enumerate() {
                    v.push(w as u32);
                    if 2 * i + 1 < count as usize {
                        v.push((w >> 32) as u32);
                    } else if w >> 32 != 0 {
                        return Err(Error::corrupt(
                            at + 16,
                            "archived offsets: padding is not zero",
                        ));
                    }
                }
                if v.windows(2).any(|x| x[0] >= x[1])
                    || v.last().is_some_and(|&o| u64::from(o) >= params.chunk_bits)
                {
                    return Err(Error::corrupt(
                        at + 16,
                        "archived offsets are not increasing and below S",
                    ));
                }
                rest = &tail[n..];
                ChunkBits::Sparse(v)
            };
            at = c.payload_offset() + payload.len() - 8 * rest.len();
            archive.push(Archived { chunk, bits });
        }
        if !rest.is_empty() {
            return Err(Error::corrupt(
                at,
                alloc::format!("{} bytes after the last archive record", 8 * rest.len()),
            ));
        }
        Ok(SlidingWindowBloom {
            params,
            seed,
            ring,
            batch,
            next,
            inserted,
            archive_totals: ArchiveTotals::of(&archive),
            archive,
            indexing,
        })
    }
}
