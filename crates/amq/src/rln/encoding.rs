//! The sliding-window cuckoo filter's `.amq` encoding (kind 8).

use super::epoch::Epoch;
use super::{check, SlidingWindowCuckoo};
use crate::error::{Error, Result};
use crate::ttl::lanes::{Shape, SLOTS};
use crate::ttl::table::Table;
use crate::wire::{self, Kind};
use alloc::vec::Vec;

/// Words before each epoch's table: k, registered, members, stash, stash bucket.
const EPOCH_WORDS: usize = 5;

impl SlidingWindowCuckoo {
    /// Encodes the set (or an export of one epoch) as an `.amq` file.
    ///
    /// Kind 8; eight parameter words: f, b (= 4), B, k of an open epoch, seed, the first
    /// epoch's number, the number of epochs, and 1 if the last epoch is open (else 0).
    /// Payload, for each epoch in order: five words (its k, its registrations, the members it
    /// holds, the stash's fingerprint (0: empty) and the stash's bucket (0 when empty)), then
    /// its table, `2ᵏ · ⌈4f/8⌉` bytes (bucket i at byte `i · ⌈4f/8⌉` as a little-endian
    /// integer whose slot j is bits `[j·f, (j+1)·f)`, 0 an empty slot), zero-padded to a
    /// multiple of 8 bytes. All little-endian.
    ///
    /// # Example
    /// ```
    /// use amq::rln::SlidingWindowCuckoo;
    /// let mut set = SlidingWindowCuckoo::new(4, 16, 1, 9)?;
    /// set.register("alice")?;
    /// let bytes = set.to_bytes();
    /// assert_eq!(bytes.len(), 128 + 40 + 16 + 8); // header and 8 parameters, one epoch, checksum
    /// let back = SlidingWindowCuckoo::from_bytes(&bytes)?;
    /// assert!(back.contains("alice", 0));
    /// assert_eq!(back, set);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let params = [
            u64::from(self.shape.f),
            u64::from(SLOTS),
            self.epoch_items,
            u64::from(self.log2_buckets),
            self.seed,
            self.first,
            self.epochs.len() as u64,
            u64::from(self.open),
        ];
        let len = self
            .epochs
            .iter()
            .map(|e| 40 + e.table.payload().len().next_multiple_of(8))
            .sum();
        let mut w = wire::Writer::new(Kind::SlidingWindowCuckoo, &params, len);
        for e in &self.epochs {
            let t = &e.table;
            w.words(&[
                u64::from(e.k),
                e.registered,
                e.live,
                t.stash,
                t.stash_bucket,
            ])
            .bytes(t.payload())
            .pad8();
        }
        w.finish()
    }

    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes) (a whole set or an
    /// epoch export).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`] for another kind, and
    /// [`Error::Corrupt`] for a shape out of range, or an epoch whose table, counts or stash
    /// disagree with its bytes or with B, or bytes past the last epoch.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        Self::from_container(&c)
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let p = c.expect(Kind::SlidingWindowCuckoo, 8)?;
        let small = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        let (f, b, epoch_items, k0, seed) = (small(p[0]), p[1], p[2], small(p[3]), p[4]);
        let (first, count, open) = (p[5], p[6], p[7]);
        if b != u64::from(SLOTS) {
            return Err(Error::corrupt(
                32,
                alloc::format!("{b} slots per bucket, only 4 is supported"),
            ));
        }
        check(epoch_items, f, k0).map_err(|e| Error::corrupt(24, alloc::format!("{e}")))?;
        if open > 1 || (open == 1 && count == 0) || first.checked_add(count).is_none() {
            return Err(Error::corrupt(
                64,
                alloc::format!("{count} epochs from {first}, open flag {open}"),
            ));
        }
        let shape = Shape::new(f, 0);
        let payload = c.payload;
        // every epoch takes at least its five words: never trust the count further than that
        if count > (payload.len() / (8 * EPOCH_WORDS)) as u64 {
            return Err(Error::corrupt(
                72,
                alloc::format!(
                    "{count} epochs cannot fit in {} payload bytes",
                    payload.len()
                ),
            ));
        }
        let mut epochs = Vec::new();
        epochs
            .try_reserve_exact(count as usize)
            .map_err(|_| Error::out_of_memory::<Epoch>("the epochs", count))?;
        // `at` is an offset in the payload; errors name the file's byte, `base + at`
        let (base, mut at) = (c.payload_offset(), 0usize);
        for n in 0..count {
            let last = n + 1 == count;
            let bad = |at: usize, what: alloc::string::String| {
                Err(Error::corrupt(
                    base + at,
                    alloc::format!("epoch {}: {what}", first + n),
                ))
            };
            if payload.len() - at < 8 * EPOCH_WORDS {
                return bad(at, "its header runs past the payload".into());
            }
            let word = |i: usize| {
                u64::from_le_bytes(
                    payload[at + 8 * i..at + 8 * i + 8]
                        .try_into()
                        .expect("8 bytes"),
                )
            };
            let (k, registered, live, stash, stash_bucket) =
                (word(0), word(1), word(2), word(3), word(4));
            if k > u64::from(k0) || (open == 1 && last && k != u64::from(k0)) {
                return bad(
                    at,
                    alloc::format!("2^{k} buckets (an open epoch has 2^{k0})"),
                );
            }
            // an epoch closes at its B-th registration: an open one holds fewer
            let most = if open == 1 && last {
                epoch_items - 1
            } else {
                epoch_items
            };
            if registered > most || live > registered {
                return bad(
                    at + 8,
                    alloc::format!(
                        "{live} members of {registered} registrations (B = {epoch_items}{})",
                        if most < epoch_items { ", open" } else { "" }
                    ),
                );
            }
            let buckets = 1u64 << k;
            let stash_ok = if stash == 0 {
                stash_bucket == 0
            } else {
                stash >> f == 0 && stash_bucket < buckets
            };
            if !stash_ok {
                return bad(
                    at + 24,
                    alloc::format!("stash {stash:#x} in bucket {stash_bucket}"),
                );
            }
            let table_at = at + 8 * EPOCH_WORDS;
            let len = buckets * shape.bytes as u64; // at most 2^36 · 16
            if ((payload.len() - table_at) as u64) < len.next_multiple_of(8) {
                return bad(
                    table_at,
                    alloc::format!("its {len}-byte table runs past the payload"),
                );
            }
            let (len, end) = (len as usize, len.next_multiple_of(8) as usize); // both fit now
            let bytes = &payload[table_at..table_at + len];
            if payload[table_at + len..table_at + end]
                .iter()
                .any(|&x| x != 0)
            {
                return bad(table_at + len, "padding is not zero".into());
            }
            let mut table = Table::from_payload(shape, buckets, bytes)
                .ok_or_else(|| Error::out_of_memory::<u8>("an epoch's table", len as u64))?;
            if (0..buckets).any(|i| shape.has_stray_bits(&table.bytes, i)) {
                return bad(table_at, "bits set past a bucket's slots".into());
            }
            table.stash = stash;
            table.stash_bucket = stash_bucket;
            let held = table.count(None).0;
            if held != live {
                return bad(
                    at + 16,
                    alloc::format!("the header says {live} members, the table holds {held}"),
                );
            }
            epochs.push(Epoch {
                k: k as u32,
                table,
                registered,
                live,
            });
            at = table_at + end;
        }
        if at != payload.len() {
            return Err(Error::corrupt(
                base + at,
                alloc::format!("{} bytes after the last epoch", payload.len() - at),
            ));
        }
        Ok(SlidingWindowCuckoo {
            shape,
            epoch_items,
            log2_buckets: k0,
            seed,
            first,
            epochs,
            open: open == 1,
        })
    }
}
