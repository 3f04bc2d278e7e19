//! The split block Bloom filter: one bit in each of the eight 64-bit lanes of a 512-bit block.

mod encoding;
pub(crate) mod kernel;
pub(crate) mod tables;

pub use kernel::Kernel;

use super::Fill;
use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item, Merge};
use crate::hash::{hash64, hash64_into};
use crate::math::{self, BLOCK_BITS, SPLIT_BLOCK_K, SPLIT_BLOCK_MAX_BLOCKS};
use alloc::vec::Vec;
use kernel::Block512;

/// A split block Bloom filter: each item sets one bit in each of the eight 64-bit lanes of one
/// 512-bit (64-byte, one cache line) block, so k = 8 and a query is one load, eight multiplies
/// and a test, which AVX-512 does on one register (AVX2 on two).
///
/// # Layout
/// * The item hash is `h = XXH3-64(item bytes, seed)` ([`hash64`]).
/// * The block is `((h >> 32) · blocks) >> 32` (blocks < 2³²).
/// * With `h32 = h mod 2³²`, lane i (i = 0..8) gets bit `(h32 · SALTᵢ mod 2³²) >> 26`, with
///   Parquet's salts `SALT = [0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7,
///   0x2df1424b, 0x9efc4947, 0x5c6bfb31]`.
/// * In the `.amq` file (kind 11, parameters m, k = 8, seed, inserted) each block is eight
///   little-endian u64 words, lane 0 first; bit b of a lane is `(word >> b) & 1`.
///
/// This is the split block layout of the Parquet specification
/// (<https://github.com/apache/parquet-format/blob/master/BloomFilter.md>) with 64-bit lanes
/// in 512-bit blocks instead of 32-bit lanes in 256-bit blocks: the same cost per query, and
/// at 12 bits per key ε = 0.422% instead of 0.542% ([`math::split_block_fpr`]). Blocked
/// Bloom filters: Putze, Sanders and Singler, "Cache-, Hash- and Space-Efficient Bloom
/// Filters", WEA 2007.
///
/// The fastest kernel the CPU runs (AVX-512, AVX2 or portable) is chosen at construction
/// ([`Kernel::detect`]); all set and find the same bits ([`with_kernel`](Self::with_kernel)).
/// On x86-64 a single query or insert of either SIMD kernel is inlined into the caller's loop
/// (as AVX2 inline assembly: a kernel chosen at run time cannot inline its
/// `#[target_feature]` code), and the batches are one call per batch; in a build with
/// AVX-512 enabled at compile time (`RUSTFLAGS="-C target-cpu=native"` on an AVX-512 CPU)
/// the AVX-512 kernel's own code inlines instead (BENCHMARKS.md, "Issue 14").
///
/// # Example
/// ```
/// use amq::{Filter, Insert, SplitBlockBloomFilter};
/// let mut f = SplitBlockBloomFilter::with_fpr(10_000, 0.01, 7)?;
/// for i in 0u64..10_000 {
///     f.insert(&i)?;
/// }
/// assert!(f.contains(&42u64));
/// let items: Vec<&u64> = [1u64, 2, 3].iter().collect();
/// let mut out = [false; 3];
/// f.contains_batch(&items, &mut out);
/// assert_eq!(out, [true; 3]);
/// assert_eq!((f.k(), f.m() % 512), (8, 0));
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct SplitBlockBloomFilter {
    blocks: Vec<Block512>,
    seed: u64,
    inserted: u64,
    kernel: Kernel,
}

/// Equal when the bits, seed and insert count are (whichever kernel each runs).
impl PartialEq for SplitBlockBloomFilter {
    fn eq(&self, other: &Self) -> bool {
        (self.seed, self.inserted) == (other.seed, other.inserted) && self.blocks == other.blocks
    }
}

impl SplitBlockBloomFilter {
    /// An empty filter of at least `m` bits, rounded up to whole 512-bit blocks.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if m is 0 or needs more than
    /// [`SPLIT_BLOCK_MAX_BLOCKS`] blocks; [`Error::OutOfMemory`] if the memory cannot be
    /// allocated.
    pub fn new(m: u64, seed: u64) -> Result<Self> {
        if m == 0 {
            return Err(Error::invalid(
                "m",
                "a split block Bloom filter needs at least 1 bit",
            ));
        }
        let blocks = m.div_ceil(BLOCK_BITS);
        if blocks > SPLIT_BLOCK_MAX_BLOCKS {
            return Err(Error::invalid(
                "m",
                alloc::format!("at most {SPLIT_BLOCK_MAX_BLOCKS} blocks of 512 bits"),
            ));
        }
        Ok(Self::from_blocks(
            crate::bits::try_zeroed(blocks, "m")?,
            seed,
            0,
        ))
    }

    fn from_blocks(blocks: Vec<Block512>, seed: u64, inserted: u64) -> Self {
        SplitBlockBloomFilter {
            blocks,
            seed,
            inserted,
            kernel: Kernel::detect(),
        }
    }

    /// The smallest filter whose expected ε for `n` items is at most `fpr`
    /// ([`math::split_block_size`]).
    ///
    /// # Errors
    /// As [`math::split_block_size`] and [`new`](Self::new).
    pub fn with_fpr(n: u64, fpr: f64, seed: u64) -> Result<Self> {
        Self::new(math::split_block_size(n, fpr)? * BLOCK_BITS, seed)
    }

    /// The same filter running `kernel` (for comparing kernels; [`new`](Self::new) picks the
    /// fastest the CPU has).
    ///
    /// # Errors
    /// [`Error::Unsupported`] if this CPU cannot run `kernel`.
    pub fn with_kernel(mut self, kernel: Kernel) -> Result<Self> {
        if !kernel.is_supported() {
            return Err(Error::Unsupported {
                kind: crate::wire::Kind::SplitBlockBloom.name(),
                operation: match kernel {
                    Kernel::Avx512 => "the AVX-512 kernel on this CPU",
                    _ => "the AVX2 kernel on this CPU",
                },
            });
        }
        self.kernel = kernel;
        Ok(self)
    }

    /// The kernel queries and inserts run.
    #[inline]
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }
    /// m, the number of bits (a multiple of 512).
    #[inline]
    pub fn m(&self) -> u64 {
        self.blocks() * BLOCK_BITS
    }
    /// The number of 512-bit blocks.
    #[inline]
    pub fn blocks(&self) -> u64 {
        self.blocks.len() as u64
    }
    /// k, the bits set per item: 8, one per lane.
    #[inline]
    pub fn k(&self) -> u32 {
        SPLIT_BLOCK_K
    }
    /// The seed of the XXH3-64 item hash.
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

    /// The 64-bit hash of `item` under this filter's seed ([`hash64`]).
    #[inline]
    pub fn hash<T: Item + ?Sized>(&self, item: &T) -> u64 {
        hash64(item, self.seed)
    }

    /// Sets the eight bits of a precomputed hash; `true` if any was zero before.
    #[inline]
    pub fn insert_hash(&mut self, h: u64) -> bool {
        self.inserted = self.inserted.saturating_add(1);
        kernel::insert512(self.kernel, &mut self.blocks, || h)
    }

    /// Inserts every item of `items`: the same bits and the same
    /// [`inserted`](Self::inserted) count as [`insert`](Insert::insert) on each in turn. The
    /// items are hashed 64 at a time in a loop of their own, which the compiler vectorises
    /// under the AVX2 and AVX-512 kernels for items of at most eight bytes (u64, u32,
    /// `[u8; 8]`), and in a filter of 4 MiB or more the blocks of the next 64 are prefetched
    /// while these are set: the fast way to build a filter from keys held in a slice
    /// (BENCHMARKS.md, "Issue 14", goal 1). Longer items in a smaller filter, where neither
    /// helps, are inserted one at a time.
    ///
    /// # Example
    /// ```
    /// use amq::{Filter, SplitBlockBloomFilter};
    /// let keys: Vec<u64> = (0..1000).collect();
    /// let mut f = SplitBlockBloomFilter::with_fpr(1000, 0.01, 7)?;
    /// f.insert_batch_values(&keys);
    /// assert!(keys.iter().all(|k| f.contains(k)));
    /// assert_eq!(f.inserted(), 1000);
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn insert_batch_values<T: Item>(&mut self, items: &[T]) {
        let seed = self.seed;
        self.inserted = self.inserted.saturating_add(items.len() as u64);
        if core::mem::size_of::<T>() > 8
            && core::mem::size_of_val(self.blocks.as_slice()) < kernel::PREFETCH_MIN_BYTES
        {
            for item in items {
                kernel::insert512(self.kernel, &mut self.blocks, || hash64(item, seed));
            }
            return;
        }
        kernel::insert512_batch_chunked(
            self.kernel,
            &mut self.blocks,
            move |start, hashes: &mut [u64]| hash64_into(&items[start..], seed, hashes),
            items.len(),
        );
    }

    /// `true` if the eight bits of a precomputed hash are set ("maybe present").
    #[inline]
    pub fn contains_hash(&self, h: u64) -> bool {
        kernel::contains512(self.kernel, &self.blocks, || h)
    }

    /// Batched [`contains_hash`](Self::contains_hash): `out[i]` answers `hashes[i]`.
    ///
    /// Prefetches the block of hash i + 16 while it tests hash i, so the cache misses of a
    /// large filter overlap instead of following one another.
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
        crate::filter::check_batch(hashes.len(), out.len());
        kernel::contains512_batch(self.kernel, &self.blocks, move |i| hashes[i], out);
    }

    /// Clears every bit and the insert count.
    pub fn clear(&mut self) {
        self.blocks.fill(Block512::default());
        self.inserted = 0;
    }

    fn check_shape(&self, other: &Self) -> Result<()> {
        Error::check_same_shape(&[("m", self.m(), other.m()), ("seed", self.seed, other.seed)])
    }

    /// Union; the same filter as one built from both item sets.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless m and seed are identical; `self` is then unchanged.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        self.check_shape(other)?;
        tables::union(&mut self.blocks, &other.blocks);
        self.inserted = self.inserted.saturating_add(other.inserted);
        Ok(())
    }

    /// Intersection (bitwise AND); the insert count becomes the smaller of the two.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless m and seed are identical; `self` is then unchanged.
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

    /// Estimated distinct items from the fill ([`math::split_block_estimate_items`]).
    pub fn estimated_items(&self) -> f64 {
        self.fill().estimated_items
    }

    /// The false-positive rate at the current fill: the mean over blocks of
    /// `Πᵢ (Xᵢ/64)`, Xᵢ the bits set in lane i of the block (a query picks a uniform block,
    /// then one uniform bit in each lane).
    pub fn estimated_fpr(&self) -> f64 {
        self.fill().estimated_fpr
    }

    /// The three above from one pass over the blocks.
    pub(crate) fn fill(&self) -> Fill {
        let (x, estimated_fpr) = tables::split_block_fill(&self.blocks);
        Fill {
            fill_ratio: x as f64 / self.m() as f64,
            estimated_items: math::split_block_estimate_items(x, self.blocks()),
            estimated_fpr,
        }
    }

    /// The model's ε after `n` distinct items ([`math::split_block_fpr`]).
    pub fn expected_fpr(&self, n: u64) -> f64 {
        math::split_block_fpr(n, self.blocks())
    }
}

impl<T: Item + ?Sized> Filter<T> for SplitBlockBloomFilter {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        kernel::contains512(self.kernel, &self.blocks, || hash64(item, self.seed))
    }

    /// Hashes item i + 16 and prefetches its block while it tests item i, in one loop into
    /// which the hash inlines.
    fn contains_batch(&self, items: &[&T], out: &mut [bool]) {
        crate::filter::check_batch(items.len(), out.len());
        let seed = self.seed;
        kernel::contains512_batch(
            self.kernel,
            &self.blocks,
            move |i| hash64(items[i], seed),
            out,
        );
    }

    /// As `contains_batch`, with the items in the slice: for items of at most eight bytes
    /// (u64, u32, `[u8; 8]`) the hash loop then vectorises (u64 items: hashed about 7x
    /// faster than one at a time under AVX-512); longer ones, whose XXH3 path does not
    /// vectorise (16-byte keys measured slower that way), take `contains_batch`'s loop.
    fn contains_batch_values(&self, items: &[T], out: &mut [bool])
    where
        T: Sized,
    {
        crate::filter::check_batch(items.len(), out.len());
        let seed = self.seed;
        if core::mem::size_of::<T>() > 8 {
            let hash_of = move |i: usize| hash64(&items[i], seed);
            return kernel::contains512_batch(self.kernel, &self.blocks, hash_of, out);
        }
        kernel::contains512_batch_chunked(
            self.kernel,
            &self.blocks,
            move |start, hashes: &mut [u64]| hash64_into(&items[start..], seed, hashes),
            out,
        );
    }
}

impl<T: Item + ?Sized> Insert<T> for SplitBlockBloomFilter {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        self.inserted = self.inserted.saturating_add(1);
        let seed = self.seed;
        Ok(kernel::insert512(self.kernel, &mut self.blocks, || {
            hash64(item, seed)
        }))
    }
}

impl Merge for SplitBlockBloomFilter {
    fn merge(&mut self, other: &Self) -> Result<()> {
        self.union(other)
    }
}
