//! One registration epoch: a cuckoo table of 2ᵏ buckets that can be halved, with the count
//! of its registrations and of the members it still holds.

use super::plan::log2_buckets_for;
use crate::hash::{cuckoo_fingerprint, halving_cuckoo_alt_index, halving_cuckoo_index};
use crate::ttl::lanes::{Shape, View, PAD};
use crate::ttl::table::Table;

/// One epoch's table and counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Epoch {
    /// log₂ of the buckets.
    pub(crate) k: u32,
    pub(crate) table: Table,
    /// Registrations into this epoch.
    pub(crate) registered: u64,
    /// Fingerprints held (registrations less slashes), the stash included.
    pub(crate) live: u64,
}

/// The view of a table without stamps (every slot is live).
fn always(shape: &Shape) -> View {
    shape.view(0, 0)
}

impl Epoch {
    /// An empty epoch of 2ᵏ buckets.
    pub(crate) fn new(shape: Shape, k: u32) -> crate::Result<Epoch> {
        Ok(Epoch {
            k,
            table: Table::new(shape, 1 << k)?,
            registered: 0,
            live: 0,
        })
    }

    /// The two buckets and the fingerprint of a hash in this epoch's table.
    #[inline(always)]
    fn probe(&self, h: u128) -> (u64, u64, u32) {
        let i1 = halving_cuckoo_index(h, self.k);
        let fp = cuckoo_fingerprint(h, self.table.shape.f);
        (i1, halving_cuckoo_alt_index(i1, fp, self.k), fp)
    }

    /// "Maybe registered here": a copy of the hash's fingerprint in one of its buckets or the
    /// stash.
    #[inline]
    pub(crate) fn holds(&self, h: u128) -> bool {
        let (i1, i2, fp) = self.probe(h);
        self.table.holds(i1, i2, fp, &always(&self.table.shape))
    }

    /// Batched [`holds`](Self::holds): `out[j]` answers `hash_of(j)`, the buckets of later
    /// hashes prefetched while earlier ones are tested.
    #[inline(always)]
    pub(crate) fn holds_batch(&self, hash_of: impl Fn(usize) -> u128, out: &mut [bool]) {
        let view = always(&self.table.shape);
        self.table
            .holds_batch(|j| self.probe(hash_of(j)), &view, out);
    }

    /// Adds a copy of the hash's fingerprint; `Err(())` (nothing changed) when the table
    /// cannot take it.
    pub(crate) fn insert(&mut self, h: u128, seed: u64) -> Result<(), ()> {
        let (i1, i2, fp) = self.probe(h);
        let k = self.k;
        let view = always(&self.table.shape);
        self.table.place(
            i1,
            i2,
            self.table.shape.entry(fp, 0),
            &view,
            seed,
            |i, fp| halving_cuckoo_alt_index(i, fp, k),
        )?;
        self.live += 1;
        Ok(())
    }

    /// Removes one copy of the hash's fingerprint; `true` if there was one.
    pub(crate) fn remove(&mut self, h: u128, seed: u64) -> bool {
        let (i1, i2, fp) = self.probe(h);
        let k = self.k;
        let view = always(&self.table.shape);
        let removed = self.table.remove(i1, i2, fp, &view, seed, |i, fp| {
            halving_cuckoo_alt_index(i, fp, k)
        });
        if removed {
            self.live -= 1;
        }
        removed
    }

    /// Shrinks the table to the fewest buckets, 2ʲ with j = [`log2_buckets_for`] the members
    /// held, that take them all: every fingerprint moves from bucket i to `i >> (k − j)`,
    /// where its item's two buckets are (the alternate bucket commutes with halving), and is
    /// placed there, kicking as an insert does. If 2ʲ buckets cannot take them, 2ʲ⁺¹ are
    /// tried, and so on; the table stays as it is if none smaller does.
    pub(crate) fn compact(&mut self, seed: u64) {
        if let Some(compacted) = self.compacted(seed) {
            self.replace(compacted);
        }
    }

    /// The table [`compact`](Self::compact) would put in place and its log2 bucket count, or
    /// `None` if it would keep the table it has.
    pub(crate) fn compacted(&self, seed: u64) -> Option<(Table, u32)> {
        (log2_buckets_for(self.live).unwrap_or(self.k)..self.k)
            .find_map(|j| Some((self.rebuilt(j, seed)?, j)))
    }

    /// Puts a table from [`compacted`](Self::compacted) in place.
    pub(crate) fn replace(&mut self, (table, j): (Table, u32)) {
        self.table = table;
        self.k = j;
    }

    /// This epoch's fingerprints in a table of 2ʲ buckets, or `None` if they do not fit.
    fn rebuilt(&self, j: u32, seed: u64) -> Option<Table> {
        let shape = self.table.shape;
        let mut t = Table::new(shape, 1 << j).ok()?;
        let view = always(&shape);
        let shift = self.k - j;
        let alt = |i, fp| halving_cuckoo_alt_index(i, fp, j);
        for (b, entry) in self.table.entries() {
            let i = b >> shift;
            t.place(i, alt(i, shape.fp_of(entry)), entry, &view, seed, alt)
                .ok()?;
        }
        Some(t)
    }

    /// Bytes of the table.
    pub(crate) fn table_bytes(&self) -> u64 {
        self.table.size_bytes()
    }

    /// Bytes of the epoch's table in memory: its buckets and [`TABLE_OVERHEAD`] (its entry
    /// in the set's list is counted by the set: [`EPOCH_SLOT`]).
    pub(crate) fn size_bytes(&self) -> u64 {
        self.table_bytes() + TABLE_OVERHEAD
    }
}

/// The memory an epoch's table takes besides its buckets: its padding and its allocation (at
/// least 32 bytes however small the table). With [`EPOCH_SLOT`] for each entry the set's list
/// of epochs has room for, counted in every size and byte limit, so that a set of many tiny
/// epochs is held to its limit in memory, not only in table bytes: 10⁶ epochs of one
/// registration took 136 times their table bytes in memory when only those were counted.
pub(crate) const TABLE_OVERHEAD: u64 = PAD as u64 + 32;

/// The bytes of one entry of the set's list of epochs.
pub(crate) const EPOCH_SLOT: u64 = core::mem::size_of::<Epoch>() as u64;
