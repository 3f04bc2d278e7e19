use crate::bits::{le_bytes_to_words, BitVec};
use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item, Merge};
use crate::hash::{bloom_indices_with, hash128, Indexing};
use crate::math;
use crate::wire::{self, Kind};
use alloc::vec::Vec;

use super::{const_k, Fill};

/// How many queries ahead the batched queries prefetch: each brings in k lines, so fewer than
/// the blocked filter's 16.
pub(crate) const AHEAD: usize = 8;

/// Below this size the batched queries do not prefetch: a filter that fits the L2 or the
/// nearer part of the L3 answers from cache, and the k extra index computations per query
/// cost more than they save (at 10^6 items, 1.2 MB, prefetching made a batch 1.3–1.5× slower;
/// at 10^7, 12 MB, 0.28–0.60× of single queries; BENCHMARKS.md, "bloom").
const PREFETCH_MIN_BYTES: u64 = 4 << 20;
/// How many queries the batch below [`PREFETCH_MIN_BYTES`] hashes before it probes them.
const HASH_CHUNK: usize = 32;

/// All k bits of `h` are set. The probes are tested two at a time without a branch, then
/// one branch per pair: a branch per probe mispredicts on most non-members, no branch at all
/// makes every query touch k cache lines.
#[inline(always)]
fn has<const K: u32>(bits: &BitVec, h: u128, k: u32, ix: Indexing) -> bool {
    let words = bits.words();
    let k = const_k::<K>(k);
    let mut idx = bloom_indices_with(h, bits.len(), k, ix);
    let mut bit = || {
        // every index is `reduce(x, m) < m`, so the (checked) index is in bounds; past the k
        // indices `next` gives 0. (Unchecked indexing saved 2 of ~10 instructions per probe
        // but showed no gain this machine could measure, so it stays checked.)
        let i = idx.next().unwrap_or(0);
        let word = words[(i >> 6) as usize];
        (word >> (i & 63)) & 1
    };
    for _ in 0..k / 2 {
        if bit() & bit() == 0 {
            return false;
        }
    }
    k.is_multiple_of(2) || bit() == 1
}

/// Sets the k bits of `h`; `true` if any was zero before.
#[inline(always)]
fn set<const K: u32>(bits: &mut BitVec, h: u128, k: u32, ix: Indexing) -> bool {
    let mut new = false;
    for i in bloom_indices_with(h, bits.len(), const_k::<K>(k), ix) {
        new |= bits.set(i);
    }
    new
}

/// The classic Bloom filter: m bits, k hash functions, any m ≥ 1.
///
/// An item is hashed once with XXH3-128 (the filter's seed); its k bit indices come from
/// enhanced double hashing over the two 64-bit halves, each index scaled to `[0, m)` with
/// Lemire's multiply-shift, the cubic term's multiplier taken from the hash
/// ([`Indexing::Hashed`], [`hash::bloom_indices`](crate::hash::bloom_indices)). A file written
/// before that scheme (no index-scheme parameter) keeps the one it was built with
/// ([`Indexing::Unit`]).
/// (B. H. Bloom, "Space/Time Trade-offs in Hash Coding with Allowable Errors", CACM 13(7), 1970.)
///
/// # Example
/// ```
/// use amq::{BloomFilter, Filter, Insert};
/// let mut f = BloomFilter::with_fpr(1000, 0.01, 42).unwrap();
/// f.insert("apple").unwrap();
/// assert!(f.contains("apple"));
/// assert_eq!(f.k(), 7);
/// assert!(f.estimated_fpr() < 1e-6); // one item set at most 7 of ~9,600 bits
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BloomFilter {
    bits: BitVec,
    k: u32,
    seed: u64,
    inserted: u64,
    indexing: Indexing,
}

impl BloomFilter {
    /// An empty filter of `m` bits with `k` hash functions and the given seed.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if m is 0 or k is not in `1..=64`;
    /// [`Error::OutOfMemory`] if the m bits cannot be allocated.
    pub fn new(m: u64, k: u32, seed: u64) -> Result<Self> {
        if m == 0 {
            return Err(Error::invalid("m", "a Bloom filter needs at least 1 bit"));
        }
        if k == 0 || k > math::BLOOM_MAX_K {
            return Err(Error::invalid(
                "k",
                alloc::format!("must be between 1 and {}, got {k}", math::BLOOM_MAX_K),
            ));
        }
        Ok(BloomFilter {
            bits: BitVec::try_new(m)?,
            k,
            seed,
            inserted: 0,
            indexing: Indexing::Hashed,
        })
    }

    /// The smallest filter whose expected false-positive rate for `n` items is at most `fpr`
    /// ([`math::bloom_size`]).
    ///
    /// # Errors
    /// As [`math::bloom_size`].
    pub fn with_fpr(n: u64, fpr: f64, seed: u64) -> Result<Self> {
        let (m, k) = math::bloom_size(n, fpr, None)?;
        Self::new(m, k, seed)
    }

    /// m, the number of bits.
    #[inline]
    pub fn m(&self) -> u64 {
        self.bits.len()
    }
    /// k, the number of hash functions.
    #[inline]
    pub fn k(&self) -> u32 {
        self.k
    }
    /// The seed of the XXH3-128 item hash.
    #[inline]
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// How many times `insert` or `insert_hash` was called (duplicates count each time;
    /// a union adds the other filter's count), saturating at u64::MAX.
    #[inline]
    pub fn inserted(&self) -> u64 {
        self.inserted
    }
    /// The bit vector.
    #[inline]
    pub fn bits(&self) -> &BitVec {
        &self.bits
    }
    /// Payload size in bytes (whole 64-bit words).
    pub fn size_bytes(&self) -> u64 {
        self.bits.words().len() as u64 * 8
    }

    /// The 128-bit hash of `item` under this filter's seed, for [`insert_hash`](Self::insert_hash)
    /// and [`contains_hash`](Self::contains_hash). Any filter with the same seed accepts it.
    #[inline]
    pub fn hash<T: Item + ?Sized>(&self, item: &T) -> u128 {
        hash128(item, self.seed)
    }

    /// Sets the k bits of a precomputed hash; `true` if any was zero before.
    #[inline]
    pub fn insert_hash(&mut self, h: u128) -> bool {
        self.inserted = self.inserted.saturating_add(1);
        let (bits, k, ix) = (&mut self.bits, self.k, self.indexing);
        with_const_k!(k, K => set::<K>(bits, h, k, ix))
    }

    /// `true` if all k bits of a precomputed hash are set ("maybe present").
    #[inline(always)]
    pub fn contains_hash(&self, h: u128) -> bool {
        let (bits, k, ix) = (&self.bits, self.k, self.indexing);
        with_const_k!(k, K => has::<K>(bits, h, k, ix))
    }

    /// Batched [`contains_hash`](Self::contains_hash): `out[i]` answers `hashes[i]`. In a filter
    /// of 4 MiB or more the k words of hash i + 8 are prefetched while hash i is tested, so the
    /// k cache misses of each query overlap with the queries before it.
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn contains_hash_batch(&self, hashes: &[u128], out: &mut [bool]) {
        crate::filter::check_batch(hashes.len(), out.len());
        with_const_k!(self.k, K => self.batch::<K>(hashes.len(), |i| hashes[i], out));
    }

    /// Answers `n` queries, `hash_of(i)` giving query i's hash, prefetching the k words of
    /// query i + [`AHEAD`] while it tests query i.
    #[inline(always)]
    fn batch<const K: u32>(&self, n: usize, hash_of: impl Fn(usize) -> u128, out: &mut [bool]) {
        let (words, m, k, ix) = (self.bits.words(), self.bits.len(), self.k, self.indexing);
        if self.size_bytes() < PREFETCH_MIN_BYTES {
            // No misses to hide: the hashes of a chunk first, then its probes, so that no
            // probe waits on its own hash (16-byte keys at 10^6: 9.2 against 10.4 ns a query)
            let mut hashes = [0u128; HASH_CHUNK];
            for (c, out) in out[..n].chunks_mut(HASH_CHUNK).enumerate() {
                let hashes = &mut hashes[..out.len()];
                for (j, h) in hashes.iter_mut().enumerate() {
                    *h = hash_of(c * HASH_CHUNK + j);
                }
                for (o, &h) in out.iter_mut().zip(hashes.iter()) {
                    *o = has::<K>(&self.bits, h, k, ix);
                }
            }
            return;
        }
        let fetch = |i: usize| {
            let h = hash_of(i);
            for j in bloom_indices_with(h, m, const_k::<K>(k), ix) {
                crate::bits::prefetch(&words[(j >> 6) as usize]);
            }
            h
        };
        crate::filter::pipelined::<_, AHEAD>(&mut out[..n], fetch, |h| {
            has::<K>(&self.bits, h, k, ix)
        });
    }

    /// Inserts every item of `items`, as [`insert`](Insert::insert) on each in turn: the same
    /// bits and the same [`inserted`](Self::inserted) count. In a filter of 4 MiB or more the
    /// k words of item i + 8 are prefetched while item i is set, so the k cache misses of
    /// each insert overlap with the inserts before it: the fast way to build a large filter.
    ///
    /// # Example
    /// ```
    /// use amq::{BloomFilter, Filter};
    /// let mut f = BloomFilter::with_fpr(1000, 0.01, 7)?;
    /// f.insert_batch(["apple", "pear"]);
    /// f.insert_batch(&[1u64, 2, 3]);
    /// assert!(f.contains("pear") && f.contains(&2u64));
    /// assert_eq!(f.inserted(), 5);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn insert_batch<I>(&mut self, items: I)
    where
        I: IntoIterator,
        I::Item: Item,
    {
        let seed = self.seed;
        self.insert_hash_iter(items.into_iter().map(|item| hash128(&item, seed)));
    }

    /// Batched [`insert_hash`](Self::insert_hash): sets the k bits of every hash, prefetching
    /// as [`insert_batch`](Self::insert_batch) does.
    pub fn insert_hash_batch(&mut self, hashes: &[u128]) {
        self.insert_hash_iter(hashes.iter().copied());
    }

    fn insert_hash_iter(&mut self, hashes: impl Iterator<Item = u128>) {
        let k = self.k;
        with_const_k!(k, K => self.insert_ahead::<K>(hashes));
    }

    /// Sets the bits of each hash, prefetching the k words of the hash [`AHEAD`] places
    /// later in a filter of [`PREFETCH_MIN_BYTES`] or more.
    #[inline(always)]
    fn insert_ahead<const K: u32>(&mut self, mut hashes: impl Iterator<Item = u128>) {
        let (m, k, ix) = (self.bits.len(), self.k, self.indexing);
        if self.size_bytes() < PREFETCH_MIN_BYTES {
            // As in the query batch: a chunk's hashes first, then its bits
            let mut chunk = [0u128; HASH_CHUNK];
            loop {
                let mut len = 0;
                for (slot, h) in chunk.iter_mut().zip(hashes.by_ref()) {
                    *slot = h;
                    len += 1;
                }
                for &h in &chunk[..len] {
                    self.inserted = self.inserted.saturating_add(1);
                    set::<K>(&mut self.bits, h, k, ix);
                }
                if len < HASH_CHUNK {
                    return;
                }
            }
        }
        let fetch = |words: &[u64], h: u128| {
            for j in bloom_indices_with(h, m, const_k::<K>(k), ix) {
                crate::bits::prefetch(&words[(j >> 6) as usize]);
            }
            h
        };
        let mut ring = [0u128; AHEAD];
        let mut filled = 0;
        for slot in ring.iter_mut() {
            match hashes.next() {
                Some(h) => *slot = fetch(self.bits.words(), h),
                None => break,
            }
            filled += 1;
        }
        let mut at = 0;
        for h in hashes {
            set::<K>(&mut self.bits, ring[at], k, ix);
            ring[at] = fetch(self.bits.words(), h);
            at = (at + 1) % AHEAD;
            self.inserted = self.inserted.saturating_add(1);
        }
        for i in 0..filled {
            set::<K>(&mut self.bits, ring[(at + i) % AHEAD], k, ix);
            self.inserted = self.inserted.saturating_add(1);
        }
    }

    /// Clears every bit and the insert count.
    pub fn clear(&mut self) {
        self.bits.clear();
        self.inserted = 0;
    }

    fn check_shape(&self, other: &Self) -> Result<()> {
        Error::check_same_shape(&[
            ("m", self.m(), other.m()),
            ("k", u64::from(self.k), u64::from(other.k)),
            ("seed", self.seed, other.seed),
            ("index scheme", self.indexing as u64, other.indexing as u64),
        ])
    }

    /// Union: afterwards `self` answers "maybe" for every item of either filter. It is the
    /// same filter as one built from both item sets.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless m, k and seed are identical; `self` is then unchanged.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        self.check_shape(other)?;
        self.bits.union_with(&other.bits)?;
        self.inserted = self.inserted.saturating_add(other.inserted);
        Ok(())
    }

    /// Intersection (bitwise AND): answers "maybe" for every item in both sets, with a
    /// false-positive rate at most that of either filter. The insert count becomes the
    /// smaller of the two.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless m, k and seed are identical; `self` is then unchanged.
    pub fn intersect(&mut self, other: &Self) -> Result<()> {
        self.check_shape(other)?;
        self.bits.intersect_with(&other.bits)?;
        self.inserted = self.inserted.min(other.inserted);
        Ok(())
    }

    /// X, the number of bits set.
    pub fn bits_set(&self) -> u64 {
        self.bits.bits_set()
    }

    /// X/m, the fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.fill().fill_ratio
    }

    /// Swamidass–Baldi estimate of the distinct items held, `−(m/k)·ln(1 − X/m)`
    /// ([`math::estimate_items`]).
    pub fn estimated_items(&self) -> f64 {
        self.fill().estimated_items
    }

    /// The false-positive rate at the current fill, `(X/m)^k`: the probability that k
    /// independent uniform probes all find a set bit.
    pub fn estimated_fpr(&self) -> f64 {
        self.fill().estimated_fpr
    }

    /// The three above from one count of X.
    pub(crate) fn fill(&self) -> Fill {
        let x = self.bits_set();
        let fill_ratio = x as f64 / self.m() as f64;
        Fill {
            fill_ratio,
            estimated_items: math::estimate_items(x, self.m(), self.k),
            estimated_fpr: libm::pow(fill_ratio, f64::from(self.k)),
        }
    }

    /// How the k indices come from an item's hash: [`Indexing::Hashed`] for every filter made
    /// now, [`Indexing::Unit`] for one read from a file that predates it.
    #[inline]
    pub fn indexing(&self) -> Indexing {
        self.indexing
    }

    /// Encodes the filter as an `.amq` file (kind 1; parameters m, k, seed, inserted, and the
    /// index scheme, 2 for [`Indexing::Hashed`], which a filter of [`Indexing::Unit`] leaves
    /// out, so that an old file is written back as it was; payload ⌈m/64⌉ little-endian
    /// 64-bit words).
    pub fn to_bytes(&self) -> Vec<u8> {
        let words = self.bits.words();
        let params = [self.m(), u64::from(self.k), self.seed, self.inserted];
        let mut w = wire::writer_indexed(Kind::Bloom, &params, self.indexing, 8 * words.len());
        w.words(words);
        w.finish()
    }

    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`] for another kind, and
    /// [`Error::Corrupt`] when the parameters and payload disagree.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let c = wire::decode(bytes)?;
        Self::from_container(&c)
    }

    /// A filter from checked parts (the scalable chain's decoder checks m and k first).
    pub(crate) fn from_parts(
        bits: BitVec,
        k: u32,
        seed: u64,
        inserted: u64,
        indexing: Indexing,
    ) -> Self {
        BloomFilter {
            bits,
            k,
            seed,
            inserted,
            indexing,
        }
    }

    /// This filter with `indexing`; for a new, empty filter only (a chain's new link takes
    /// the chain's scheme), as the bits already set follow the old one.
    pub(crate) fn with_indexing(mut self, indexing: Indexing) -> Self {
        self.indexing = indexing;
        self
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let (p, indexing) = c.expect_indexed(Kind::Bloom, 4)?;
        let (m, k, seed, inserted) = (p[0], p[1], p[2], p[3]);
        if m == 0 || k == 0 || k > u64::from(math::BLOOM_MAX_K) {
            return Err(Error::corrupt(
                24,
                alloc::format!("invalid shape m = {m}, k = {k}"),
            ));
        }
        if m.div_ceil(64).checked_mul(8) != Some(c.payload.len() as u64) {
            return Err(Error::corrupt(
                24,
                alloc::format!(
                    "m = {m} bits needs {} payload bytes, found {}",
                    m.div_ceil(64) * 8,
                    c.payload.len()
                ),
            ));
        }
        let bits = BitVec::from_words(le_bytes_to_words(c.payload)?, m)
            .map_err(|e| e.after(c.payload_offset()))?;
        Ok(BloomFilter {
            bits,
            k: k as u32,
            seed,
            inserted,
            indexing,
        })
    }
}

impl<T: Item + ?Sized> Filter<T> for BloomFilter {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.contains_hash(self.hash(item))
    }

    /// In a filter of 4 MiB or more, hashes item i + 8 and prefetches its k words while it
    /// tests item i ([`contains_hash_batch`](BloomFilter::contains_hash_batch)).
    fn contains_batch(&self, items: &[&T], out: &mut [bool]) {
        crate::filter::check_batch(items.len(), out.len());
        with_const_k!(self.k, K => self.batch::<K>(items.len(), |i| self.hash(items[i]), out));
    }
}

impl<T: Item + ?Sized> Insert<T> for BloomFilter {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        Ok(self.insert_hash(self.hash(item)))
    }
}

impl Merge for BloomFilter {
    fn merge(&mut self, other: &Self) -> Result<()> {
        self.union(other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every k, the unrolled ones (1..=16) and the run-time loop beyond, sets and tests
    /// exactly the bits of [`bloom_indices`].
    #[test]
    fn every_k_follows_the_index_derivation() {
        let m = 1000;
        for k in 1..=math::BLOOM_MAX_K {
            let mut f = BloomFilter::new(m, k, u64::from(k)).unwrap();
            let mut expect = BitVec::new(m);
            for i in 0u64..30 {
                let h = f.hash(&i);
                let mut was_new = false;
                for j in crate::hash::bloom_indices(h, m, k) {
                    was_new |= expect.set(j);
                }
                assert_eq!(f.insert_hash(h), was_new, "k = {k}, item {i}");
            }
            assert_eq!(f.bits(), &expect, "k = {k}");
            for i in 0u64..300 {
                let h = f.hash(&i);
                let want = crate::hash::bloom_indices(h, m, k).all(|j| expect.get(j));
                assert_eq!(f.contains_hash(h), want, "k = {k}, item {i}");
                assert!(i >= 30 || want, "k = {k}: false negative {i}");
            }
        }
    }
}
