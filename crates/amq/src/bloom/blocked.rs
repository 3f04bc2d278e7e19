use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item, Merge};
use crate::hash::{block_index, block_probes, hash128, BLOCK_MAX_K};
use crate::math::{self, BLOCK_BITS};
use crate::wire::{self, Kind};
use alloc::vec::Vec;

use super::{const_k, Fill};

// One 512-bit block of eight 64-bit words, aligned to a 64-byte cache line: the split block
// kind's block, so the two share their whole-table operations.
use super::split_block::kernel::Block512 as Block;
use super::split_block::tables;

/// How many items ahead the batched queries prefetch (a power of two).
const AHEAD: usize = 16;

/// All k probes of `h` find their bit set. Branch-free: the k loads hit one cache line.
#[inline(always)]
fn block_has<const K: u32>(block: &Block, h: u128, k: u32) -> bool {
    let mut all = 1u64;
    for p in block_probes(h, const_k::<K>(k)) {
        all &= block.0[p >> 6] >> (p & 63);
    }
    all & 1 == 1
}

/// Sets the k probe bits of `h`; `true` if any was zero before.
#[inline(always)]
fn block_set<const K: u32>(block: &mut Block, h: u128, k: u32) -> bool {
    let mut new = 0u64;
    for p in block_probes(h, const_k::<K>(k)) {
        let word = &mut block.0[p >> 6];
        new |= !*word >> (p & 63);
        *word |= 1u64 << (p & 63);
    }
    new & 1 == 1
}

/// A blocked Bloom filter: each item sets k bits inside one 512-bit (64-byte) block, so an
/// insert or a query touches a single cache line.
///
/// The block comes from the low 64 bits of the item's XXH3-128 hash, the k bit positions from
/// the high 64 bits ([`hash::block_pattern`](crate::hash::block_pattern)). Because block loads
/// vary, it needs more bits per key than the classic layout for the same ε; it is sized with
/// the Poisson load model of [`math::blocked_fpr`], not the classic formula.
/// (Putze, Sanders and Singler, "Cache-, Hash- and Space-Efficient Bloom Filters", WEA 2007.)
///
/// # Example
/// ```
/// use amq::{BlockedBloomFilter, Filter, Insert};
/// let mut f = BlockedBloomFilter::with_fpr(10_000, 0.01, 7).unwrap();
/// for i in 0u64..10_000 {
///     f.insert(&i).unwrap();
/// }
/// let items: Vec<&u64> = [1u64, 2, 3].iter().collect();
/// let mut out = [false; 3];
/// f.contains_batch(&items, &mut out);
/// assert_eq!(out, [true; 3]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockedBloomFilter {
    blocks: Vec<Block>,
    k: u32,
    seed: u64,
    inserted: u64,
}

impl BlockedBloomFilter {
    /// An empty filter of at least `m` bits (rounded up to whole 512-bit blocks) with k bits
    /// per item.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if m is 0 or k is not in `1..=32`;
    /// [`Error::OutOfMemory`] if the blocks cannot be allocated.
    pub fn new(m: u64, k: u32, seed: u64) -> Result<Self> {
        if m == 0 {
            return Err(Error::invalid(
                "m",
                "a blocked Bloom filter needs at least 1 bit",
            ));
        }
        if k == 0 || k > BLOCK_MAX_K {
            return Err(Error::invalid(
                "k",
                alloc::format!("must be between 1 and {BLOCK_MAX_K}, got {k}"),
            ));
        }
        Ok(BlockedBloomFilter {
            blocks: crate::bits::try_zeroed(m.div_ceil(BLOCK_BITS), "m")?,
            k,
            seed,
            inserted: 0,
        })
    }

    /// The smallest filter whose expected ε for `n` items, under the block-load model, is at
    /// most `fpr` ([`math::blocked_size`]).
    ///
    /// # Errors
    /// As [`math::blocked_size`].
    pub fn with_fpr(n: u64, fpr: f64, seed: u64) -> Result<Self> {
        let (blocks, k) = math::blocked_size(n, fpr, None)?;
        Self::new(blocks * BLOCK_BITS, k, seed)
    }

    /// m, the number of bits (a multiple of 512).
    #[inline]
    pub fn m(&self) -> u64 {
        self.blocks.len() as u64 * BLOCK_BITS
    }
    /// The number of 512-bit blocks.
    #[inline]
    pub fn blocks(&self) -> u64 {
        self.blocks.len() as u64
    }
    /// k, the bits set per item.
    #[inline]
    pub fn k(&self) -> u32 {
        self.k
    }
    /// The seed of the XXH3-128 item hash.
    #[inline]
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// How many items `insert` and `insert_hash` were given (as read from the file, plus
    /// those since), saturating at u64::MAX.
    #[inline]
    pub fn inserted(&self) -> u64 {
        self.inserted
    }
    /// Payload size in bytes (64 per block).
    pub fn size_bytes(&self) -> u64 {
        self.blocks() * 64
    }

    /// The 128-bit hash of `item` under this filter's seed.
    #[inline]
    pub fn hash<T: Item + ?Sized>(&self, item: &T) -> u128 {
        hash128(item, self.seed)
    }

    /// Sets the k bits of a precomputed hash; `true` if any was zero before.
    #[inline]
    pub fn insert_hash(&mut self, h: u128) -> bool {
        self.inserted = self.inserted.saturating_add(1);
        let b = block_index(h, self.blocks.len() as u64) as usize;
        let (block, k) = (&mut self.blocks[b], self.k);
        with_const_k!(k, K => block_set::<K>(block, h, k))
    }

    /// `true` if all k bits of a precomputed hash are set ("maybe present").
    #[inline]
    pub fn contains_hash(&self, h: u128) -> bool {
        let b = block_index(h, self.blocks.len() as u64) as usize;
        let (block, k) = (&self.blocks[b], self.k);
        with_const_k!(k, K => block_has::<K>(block, h, k))
    }

    /// Batched [`contains_hash`](Self::contains_hash): `out[i]` answers `hashes[i]`.
    ///
    /// Prefetches the block of hash i + 16 while it tests hash i, so the cache misses of a
    /// large filter overlap instead of following one another.
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn contains_hash_batch(&self, hashes: &[u128], out: &mut [bool]) {
        crate::filter::check_batch(hashes.len(), out.len());
        with_const_k!(self.k, K => self.batch::<K>(hashes.len(), |i| hashes[i], out));
    }

    /// Answers `n` queries, `hash_of(i)` giving query i's hash: prefetches the block of query
    /// i + 16 while it tests query i.
    #[inline(always)]
    fn batch<const K: u32>(&self, n: usize, hash_of: impl Fn(usize) -> u128, out: &mut [bool]) {
        let blocks = self.blocks.len() as u64;
        let fetch = |j: usize| {
            let h = hash_of(j);
            let b = block_index(h, blocks) as usize;
            crate::bits::prefetch(&self.blocks[b]);
            (h, b)
        };
        crate::filter::pipelined::<_, AHEAD>(&mut out[..n], fetch, |(h, b)| {
            block_has::<K>(&self.blocks[b], h, self.k)
        });
    }

    /// Clears every bit and the insert count.
    pub fn clear(&mut self) {
        self.blocks.fill(Block::default());
        self.inserted = 0;
    }

    fn check_shape(&self, other: &Self) -> Result<()> {
        Error::check_same_shape(&[
            ("m", self.m(), other.m()),
            ("k", u64::from(self.k), u64::from(other.k)),
            ("seed", self.seed, other.seed),
        ])
    }

    /// Union; the same filter as one built from both item sets.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless m, k and seed are identical; `self` is then unchanged.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        self.check_shape(other)?;
        tables::union(&mut self.blocks, &other.blocks);
        self.inserted = self.inserted.saturating_add(other.inserted);
        Ok(())
    }

    /// Intersection (bitwise AND); the insert count becomes the smaller of the two.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless m, k and seed are identical; `self` is then unchanged.
    pub fn intersect(&mut self, other: &Self) -> Result<()> {
        self.check_shape(other)?;
        tables::intersect(&mut self.blocks, &other.blocks);
        self.inserted = self.inserted.min(other.inserted);
        Ok(())
    }

    /// X, the number of bits set.
    pub fn bits_set(&self) -> u64 {
        tables::bits_set(&self.blocks)
    }

    /// X/m, the fraction of bits set.
    pub fn fill_ratio(&self) -> f64 {
        self.fill().fill_ratio
    }

    /// Estimated distinct items from the fill ([`math::blocked_estimate_items`]).
    pub fn estimated_items(&self) -> f64 {
        self.fill().estimated_items
    }

    /// The false-positive rate at the current fill: the mean over blocks of `(Xᵦ/512)^k`,
    /// where Xᵦ is the number of bits set in block b (a query picks a uniform block, then k
    /// probes inside it).
    pub fn estimated_fpr(&self) -> f64 {
        self.fill().estimated_fpr
    }

    /// The three above from one pass over the blocks (`(x/512)^k` looked up for each of the
    /// 513 possible counts x).
    pub(crate) fn fill(&self) -> Fill {
        let k = f64::from(self.k);
        let rate: Vec<f64> = (0..=BLOCK_BITS)
            .map(|x| libm::pow(x as f64 / BLOCK_BITS as f64, k))
            .collect();
        let (x, sum) = crate::bits::with_popcnt(|| {
            self.blocks.iter().fold((0u64, 0.0f64), |(ones, sum), b| {
                let x: u32 = b.0.iter().map(|w| w.count_ones()).sum();
                (ones + u64::from(x), sum + rate[x as usize])
            })
        });
        Fill {
            fill_ratio: x as f64 / self.m() as f64,
            estimated_items: math::blocked_estimate_items(x, self.blocks(), self.k),
            estimated_fpr: sum / self.blocks.len() as f64,
        }
    }

    /// Encodes the filter as an `.amq` file (kind 2; parameters m, k, seed, inserted; payload
    /// the blocks, each 8 little-endian 64-bit words; bit p of a block is bit p % 64 of word
    /// p / 64).
    pub fn to_bytes(&self) -> Vec<u8> {
        let params = [self.m(), u64::from(self.k), self.seed, self.inserted];
        let mut w = wire::Writer::new(Kind::BlockedBloom, &params, self.size_bytes() as usize);
        tables::write_le(&self.blocks, w.buffer());
        w.finish()
    }

    /// Decodes an `.amq` file written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    /// Any error of [`wire::decode`], [`Error::WrongKind`], and [`Error::Corrupt`] when the
    /// parameters and payload disagree.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::from_container(&wire::decode(bytes)?)
    }

    pub(crate) fn from_container(c: &wire::Container<'_>) -> Result<Self> {
        let p = c.expect(Kind::BlockedBloom, 4)?;
        let (m, k, seed, inserted) = (p[0], p[1], p[2], p[3]);
        if m == 0 || m % BLOCK_BITS != 0 || k == 0 || k > u64::from(BLOCK_MAX_K) {
            return Err(Error::corrupt(
                24,
                alloc::format!("invalid shape m = {m}, k = {k}"),
            ));
        }
        if m / 8 != c.payload.len() as u64 {
            return Err(Error::corrupt(
                24,
                alloc::format!(
                    "m = {m} bits needs {} payload bytes, found {}",
                    m / 8,
                    c.payload.len()
                ),
            ));
        }
        // the payload is present and m/8 bytes long, so it bounds the allocation
        let blocks = tables::from_le_bytes(c.payload, "m")?;
        Ok(BlockedBloomFilter {
            blocks,
            k: k as u32,
            seed,
            inserted,
        })
    }
}

impl<T: Item + ?Sized> Filter<T> for BlockedBloomFilter {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.contains_hash(self.hash(item))
    }

    /// Hashes item i + 16 and prefetches its block while it tests item i.
    fn contains_batch(&self, items: &[&T], out: &mut [bool]) {
        crate::filter::check_batch(items.len(), out.len());
        with_const_k!(self.k, K => self.batch::<K>(items.len(), |i| self.hash(items[i]), out));
    }
}

impl<T: Item + ?Sized> Insert<T> for BlockedBloomFilter {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        Ok(self.insert_hash(self.hash(item)))
    }
}

impl Merge for BlockedBloomFilter {
    fn merge(&mut self, other: &Self) -> Result<()> {
        self.union(other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::block_pattern;

    /// Every k, the unrolled ones (1..=16) and the run-time loop beyond, sets exactly the bits
    /// of [`block_pattern`], and the single and batched queries answer as the pattern says.
    #[test]
    fn every_k_follows_the_block_pattern() {
        for k in 1..=BLOCK_MAX_K {
            let mut f = BlockedBloomFilter::new(8 * 512, k, u64::from(k)).unwrap();
            let mut expect = [[0u64; 8]; 8];
            for i in 0u64..40 {
                let h = f.hash(&i);
                let fresh = f.insert_hash(h);
                let block = &mut expect[block_index(h, 8) as usize];
                let mut was_new = false;
                for (w, p) in block.iter_mut().zip(block_pattern(h, k)) {
                    was_new |= p & !*w != 0;
                    *w |= p;
                }
                assert_eq!(fresh, was_new, "k = {k}, item {i}");
            }
            let got: Vec<[u64; 8]> = f.blocks.iter().map(|b| b.0).collect();
            assert_eq!(got, expect, "k = {k}");

            let hashes: Vec<u128> = (0u64..300).map(|i| f.hash(&i)).collect();
            let mut out = vec![false; hashes.len()];
            f.contains_hash_batch(&hashes, &mut out);
            let items: Vec<u64> = (0u64..300).collect();
            let refs: Vec<&u64> = items.iter().collect();
            let mut out_items = vec![false; refs.len()];
            f.contains_batch(&refs, &mut out_items);
            for (i, &h) in hashes.iter().enumerate() {
                let block = &expect[block_index(h, 8) as usize];
                let want = block
                    .iter()
                    .zip(block_pattern(h, k))
                    .all(|(w, p)| p & !w == 0);
                assert_eq!(f.contains_hash(h), want, "k = {k}, item {i}");
                assert_eq!(out[i], want, "k = {k}, batched item {i}");
                assert_eq!(out_items[i], want, "k = {k}, batched item {i}");
                assert!(i >= 40 || want, "k = {k}: false negative {i}");
            }
        }
    }

    /// The one-pass fill (a table of `(x/512)^k`, POPCNT where the CPU has it) and `info()`
    /// say what the definitions say: X by counting bit by bit, ε as the mean of
    /// `(Xᵦ/512)^k` computed block by block, and the Swamidass–Baldi-style estimate from X.
    #[test]
    fn fill_and_info_follow_the_definitions() {
        let mut f = BlockedBloomFilter::new(64 * 512, 9, 3).unwrap();
        for i in 0u64..2_000 {
            f.insert(&i).unwrap();
        }
        let per_block: Vec<u32> = f
            .blocks
            .iter()
            .map(|b| {
                (0..512)
                    .filter(|&p| b.0[p / 64] >> (p % 64) & 1 == 1)
                    .count() as u32
            })
            .collect();
        let x: u64 = per_block.iter().map(|&c| u64::from(c)).sum();
        let fpr = per_block
            .iter()
            .map(|&c| libm::pow(f64::from(c) / 512.0, 9.0))
            .sum::<f64>()
            / 64.0;
        assert!(x > 10_000 && x < 32_768, "{x}");
        assert_eq!(f.bits_set(), x);
        assert_eq!(f.fill().estimated_fpr, fpr);
        assert_eq!(f.fill().fill_ratio, x as f64 / 32_768.0);
        let info = f.info();
        assert_eq!(info.fill_ratio, x as f64 / 32_768.0);
        assert_eq!(info.estimated_fpr, fpr);
        assert_eq!(info.estimated_items, math::blocked_estimate_items(x, 64, 9));
    }
}
