//! The split block kernels: one bit in each of eight lanes of a block, the bit of lane i taken
//! from the top bits of `h32 · SALT[i]` (mod 2³²).
//!
//! Two block shapes share the code:
//!
//! * [`Block256`]: Parquet's split block, eight 32-bit lanes, bit `(h32 · SALTᵢ) >> 27`
//!   (<https://github.com/apache/parquet-format/blob/master/BloomFilter.md>);
//! * [`Block512`]: amq's split-block kind, eight 64-bit lanes (one cache line), bit
//!   `(h32 · SALTᵢ) >> 26`.
//!
//! A 64-bit hash h picks its block with `((h >> 32) · blocks) >> 32` (blocks < 2³²) and its
//! bits with `h32 = h as u32`, the low half, as Parquet does.
//!
//! Every loop (single query, insert, batched query) is written once, in the `loops!` macro,
//! and compiled three times: in [`portable`] for any target, in `avx2` inside
//! `#[target_feature(enable = "avx2")]` functions and in `avx512` inside
//! `#[target_feature(enable = "avx2,avx512f")]` ones, so that the caller's hash (a closure)
//! inlines into the SIMD code. [`Kernel`] says which one a filter runs; all give
//! bit-identical results (the tests check it on random blocks and hashes). Chosen at run
//! time, the SIMD kernels cannot inline into a caller built without their features, so a
//! single query is a call; built with AVX-512F enabled (`-C target-cpu=native` on such a CPU),
//! the AVX-512 kernel inlines and the other two stay out of line. The AVX-512 kernel
//! holds a [`Block512`] in one register (one load, one `vptestmq`); for Parquet's
//! [`Block256`] it runs the AVX2 code.

use crate::bits::prefetch;

/// Parquet's eight odd salts, one per lane (BloomFilter.md, "Technical Approach").
pub const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// How many queries ahead the batched loop with the hash inside hashes and prefetches.
const AHEAD: usize = 16;
/// How many queries the chunked batch hashes at a time, and prefetches ahead: 64 measured
/// best of 16, 32, 64 and 128 (u64 keys at 10^6: 1.89, 1.59, 1.40 and 1.43 ms a million
/// queries; at 10^7 the differences were within the run-to-run spread).
const CHUNK: usize = 64;
/// Below this many bytes of blocks the chunked batches (`contains_batch_values`,
/// `insert_batch_values`) do not prefetch: the table answers from the L2 or L3 cache, and the prefetch and the queue of
/// fetched blocks cost more than they hide (measured once, 1% filters: 12% faster without
/// at 10^5 u64 items, 4% at 10^6). The other batch, with the hash inside its loop, keeps
/// prefetching at every size: 16-byte keys at 10^6 measured 0.83–0.89× of sbbf-rs-safe's
/// single queries that way, 1.04–1.10× chunked and without prefetching.
pub(crate) const PREFETCH_MIN_BYTES: usize = 4 << 20;

/// Parquet's split block: eight 32-bit lanes, 32 bytes, aligned to 32.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C, align(32))]
pub(crate) struct Block256(pub(crate) [u32; 8]);

/// amq's split block: eight 64-bit lanes, one 64-byte cache line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C, align(64))]
pub(crate) struct Block512(pub(crate) [u64; 8]);

impl Block256 {
    /// `true` if the eight bits of `h32` are set ("maybe present").
    #[allow(dead_code)] // the Parquet format uses it
    #[inline]
    pub(crate) fn contains(&self, h32: u32) -> bool {
        portable::has256(self, h32)
    }

    /// Sets the eight bits of `h32`; `true` if any was zero before.
    #[allow(dead_code)] // the Parquet format uses it
    #[inline]
    pub(crate) fn insert(&mut self, h32: u32) -> bool {
        portable::set256(self, h32)
    }
}

impl Block512 {
    /// `true` if the eight bits of `h32` are set ("maybe present").
    #[allow(dead_code)] // the tests' reference
    #[inline]
    pub(crate) fn contains(&self, h32: u32) -> bool {
        portable::has512(self, h32)
    }

    /// Sets the eight bits of `h32`; `true` if any was zero before.
    #[allow(dead_code)] // the tests' reference
    #[inline]
    pub(crate) fn insert(&mut self, h32: u32) -> bool {
        portable::set512(self, h32)
    }
}

/// The block of a 64-bit hash among `blocks` (< 2³²): `((h >> 32) · blocks) >> 32`.
#[inline(always)]
pub(crate) fn block_index(h: u64, blocks: usize) -> usize {
    (((h >> 32) * blocks as u64) >> 32) as usize
}

/// Which code a split block filter runs: the AVX-512, AVX2 or portable kernels. All set and
/// test the same bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Portable Rust, for any target.
    Portable,
    /// AVX2 (x86-64 only): a 512-bit block in two 256-bit registers.
    Avx2,
    /// AVX-512F with AVX2 (x86-64 only): a 512-bit block in one register.
    Avx512,
}

impl Kernel {
    /// Every kernel, slowest first (whether or not this CPU runs it).
    pub const ALL: [Kernel; 3] = [Kernel::Portable, Kernel::Avx2, Kernel::Avx512];

    /// The fastest kernel this CPU runs: [`Kernel::Avx512`] on x86-64 when the CPU has
    /// AVX-512F and AVX2, else [`Kernel::Avx2`] when it has AVX2 (detected at run time with
    /// `std`, or fixed at compile time by `target_feature`), otherwise [`Kernel::Portable`].
    pub fn detect() -> Kernel {
        Kernel::ALL
            .into_iter()
            .rev()
            .find(|k| k.is_supported())
            .unwrap_or(Kernel::Portable)
    }

    /// `true` if this CPU runs the kernel.
    pub fn is_supported(self) -> bool {
        match self {
            Kernel::Portable => true,
            Kernel::Avx2 => avx2_detected(),
            Kernel::Avx512 => avx2_detected() && avx512_detected(),
        }
    }

    /// The kernel's name: `portable`, `avx2` or `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx2"))]
fn avx2_detected() -> bool {
    true
}

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx2"), feature = "std"))]
fn avx2_detected() -> bool {
    std::is_x86_feature_detected!("avx2")
}

#[cfg(not(all(target_arch = "x86_64", any(target_feature = "avx2", feature = "std"))))]
fn avx2_detected() -> bool {
    false
}

#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
fn avx512_detected() -> bool {
    true
}

#[cfg(all(
    target_arch = "x86_64",
    not(target_feature = "avx512f"),
    feature = "std"
))]
fn avx512_detected() -> bool {
    std::is_x86_feature_detected!("avx512f")
}

#[cfg(not(all(
    target_arch = "x86_64",
    any(target_feature = "avx512f", feature = "std")
)))]
fn avx512_detected() -> bool {
    false
}

/// Runs `$avx512` when `$kernel` is [`Kernel::Avx512`], `$avx2` when it is [`Kernel::Avx2`]
/// (on x86-64), else `$portable`.
macro_rules! dispatch {
    ($kernel:expr, $avx512:expr, $avx2:expr, $portable:expr) => {{
        // Built for AVX-512 (`-C target-cpu=native` on such a CPU): the AVX-512 kernel, the
        // one `Kernel::detect` picks, inlines into the caller; the others stay out of line.
        #[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
        {
            match $kernel {
                // SAFETY: the whole crate is built with AVX-512F and AVX2 enabled.
                #[allow(unused_unsafe)]
                Kernel::Avx512 => unsafe { $avx512 },
                // SAFETY: as above.
                #[allow(unused_unsafe)]
                Kernel::Avx2 => cold(|| unsafe { $avx2 }),
                Kernel::Portable => cold(|| $portable),
            }
        }
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
        {
            match $kernel {
                // SAFETY: a `Kernel::Avx512` is only ever stored after `Kernel::is_supported`
                // said this CPU has AVX-512F and AVX2 (`SplitBlockBloomFilter::with_kernel`,
                // `Kernel::detect`), so the `#[target_feature(enable = "avx2,avx512f")]` code
                // runs on a CPU that has the features.
                Kernel::Avx512 => unsafe { $avx512 },
                // SAFETY: as above, a `Kernel::Avx2` only after the CPU was found to have AVX2.
                Kernel::Avx2 => unsafe { $avx2 },
                Kernel::Portable => $portable,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = $kernel;
            $portable
        }
    }};
}

/// Runs `f` out of line: the kernels a build for AVX-512 keeps out of the caller's loop.
#[cfg(all(target_arch = "x86_64", target_feature = "avx512f"))]
#[cold]
#[inline(never)]
fn cold<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// `true` if the eight bits of hash `h` are set in its block of `blocks` (not empty).
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn contains512(kernel: Kernel, blocks: &[Block512], hash: impl FnOnce() -> u64) -> bool {
    dispatch!(
        kernel,
        avx512::query512(blocks, hash),
        avx2::query512(blocks, hash),
        portable::query512(blocks, hash)
    )
}

/// Sets the eight bits of hash `h` in its block of `blocks` (not empty); `true` if any was
/// zero before.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn insert512(
    kernel: Kernel,
    blocks: &mut [Block512],
    hash: impl FnOnce() -> u64,
) -> bool {
    dispatch!(
        kernel,
        avx512::insert512(blocks, hash),
        avx2::insert512(blocks, hash),
        portable::insert512(blocks, hash)
    )
}

/// `out[i]` answers `hash_of(i)` for i < `out.len()`: hashes and prefetches 16 queries ahead.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn contains512_batch(
    kernel: Kernel,
    blocks: &[Block512],
    hash_of: impl Fn(usize) -> u64,
    out: &mut [bool],
) {
    dispatch!(
        kernel,
        avx512::batch512(blocks, hash_of, out),
        avx2::batch512(blocks, hash_of, out),
        portable::batch512(blocks, hash_of, out)
    )
}

/// [`contains512_batch`] with the hashes written 64 at a time by `hash_into(start, hashes)`
/// (queries `start..start + hashes.len()`), in a loop the SIMD kernels' target features
/// vectorise where the item length is fixed.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn contains512_batch_chunked(
    kernel: Kernel,
    blocks: &[Block512],
    hash_into: impl Fn(usize, &mut [u64]),
    out: &mut [bool],
) {
    dispatch!(
        kernel,
        avx512::chunked512(blocks, hash_into, out),
        avx2::chunked512(blocks, hash_into, out),
        portable::chunked512(blocks, hash_into, out)
    )
}

/// Sets the eight bits of items `0..n` in `blocks`, their hashes written 64 at a time by
/// `hash_into(start, hashes)`, as [`contains512_batch_chunked`] reads them.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn insert512_batch_chunked(
    kernel: Kernel,
    blocks: &mut [Block512],
    hash_into: impl Fn(usize, &mut [u64]),
    n: usize,
) {
    dispatch!(
        kernel,
        avx512::insert_chunked512(blocks, hash_into, n),
        avx2::insert_chunked512(blocks, hash_into, n),
        portable::insert_chunked512(blocks, hash_into, n)
    )
}

/// [`contains512`] for Parquet's blocks.
#[allow(dead_code)] // the Parquet format uses it
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn contains256(kernel: Kernel, blocks: &[Block256], h: u64) -> bool {
    dispatch!(
        kernel,
        avx512::query256(blocks, || h),
        avx2::query256(blocks, || h),
        portable::query256(blocks, || h)
    )
}

/// [`insert512`] for Parquet's blocks.
#[allow(dead_code)] // the Parquet format uses it
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn insert256(kernel: Kernel, blocks: &mut [Block256], h: u64) -> bool {
    dispatch!(
        kernel,
        avx512::insert256(blocks, || h),
        avx2::insert256(blocks, || h),
        portable::insert256(blocks, || h)
    )
}

/// [`contains512_batch`] for Parquet's blocks, over precomputed hashes.
///
/// # Panics
/// If `out.len() != hashes.len()`.
#[allow(dead_code, unsafe_code)] // the Parquet format uses it
pub(crate) fn contains256_batch(
    kernel: Kernel,
    blocks: &[Block256],
    hashes: &[u64],
    out: &mut [bool],
) {
    crate::filter::check_batch(hashes.len(), out.len());
    dispatch!(
        kernel,
        avx512::batch256(blocks, |i| hashes[i], out),
        avx2::batch256(blocks, |i| hashes[i], out),
        portable::batch256(blocks, |i| hashes[i], out)
    )
}

/// Writes the hashes of items `start..start + len` (len = CHUNK or what is left of `n`) into
/// `hashes` through `hash_into`, and their block indices among `blocks` into `index`, each in
/// a loop of its own, which the compiler vectorises inside the kernels' target features (the
/// indices fit in u32: a table has under 2^32 blocks, `SPLIT_BLOCK_MAX_BLOCKS`); returns len.
#[inline(always)]
fn fill_chunk(
    start: usize,
    n: usize,
    blocks: usize,
    hash_into: &impl Fn(usize, &mut [u64]),
    hashes: &mut [u64; CHUNK],
    index: &mut [u32; CHUNK],
) -> usize {
    let len = CHUNK.min(n - start);
    hash_into(start, &mut hashes[..len]);
    for (i, &h) in index.iter_mut().zip(&hashes[..len]) {
        *i = block_index(h, blocks) as u32;
    }
    len
}

/// The loops over a slice of blocks, given the engine's `has256`/`set256`/`has512`/`set512`
/// in scope; `$(#[$attr])*` are the attributes of every function (the target feature and the
/// inlining).
macro_rules! loops {
    ($(#[$attr:meta])*) => {
        loops!(@one query512, insert512, batch512, chunked512, insert_chunked512, Block512,
               has512, set512, $(#[$attr])*);
        loops!(@one query256, insert256, batch256, chunked256, insert_chunked256, Block256,
               has256, set256, $(#[$attr])*);
    };
    (@one $query:ident, $insert:ident, $batch:ident, $chunked:ident, $insert_chunked:ident,
     $block:ty, $has:ident, $set:ident, $(#[$attr:meta])*) => {
        $(#[$attr])*
        pub(super) fn $query(blocks: &[$block], hash: impl FnOnce() -> u64) -> bool {
            let h = hash();
            $has(&blocks[block_index(h, blocks.len())], h as u32)
        }

        $(#[$attr])*
        pub(super) fn $insert(blocks: &mut [$block], hash: impl FnOnce() -> u64) -> bool {
            let h = hash();
            let b = block_index(h, blocks.len());
            $set(&mut blocks[b], h as u32)
        }

        /// Hashes query j + AHEAD (`hash_of(j + AHEAD)`) and prefetches its block while it
        /// tests query j: in chunks of AHEAD, each tested after the next is fetched, so every
        /// block is fetched AHEAD to 2·AHEAD queries before it is read. The two chunks in
        /// flight live in two buffers used in turn (copying one into the other per chunk
        /// made the copy's wide loads wait on the narrow stores just made).
        $(#[$attr])*
        #[allow(dead_code)]
        pub(super) fn $batch(blocks: &[$block], hash_of: impl Fn(usize) -> u64, out: &mut [bool]) {
            if out.is_empty() {
                return;
            }
            let n = out.len();
            let fetch = |j: usize| {
                let h = hash_of(j);
                let block = &blocks[block_index(h, blocks.len())];
                prefetch(block);
                (h as u32, block)
            };
            let mut chunks: [[(u32, &$block); AHEAD]; 2] = [[(0, &blocks[0]); AHEAD]; 2];
            for (j, slot) in (0..n).zip(chunks[0].iter_mut()) {
                *slot = fetch(j);
            }
            for (c, out) in out.chunks_mut(AHEAD).enumerate() {
                let [even, odd] = &mut chunks;
                let (this, next) = if c % 2 == 0 { (even, odd) } else { (odd, even) };
                let start = (c + 1) * AHEAD;
                for (j, slot) in (start..(start + AHEAD).min(n)).zip(next.iter_mut()) {
                    *slot = fetch(j);
                }
                for (o, &(h32, block)) in out.iter_mut().zip(this.iter()) {
                    *o = $has(block, h32);
                }
            }
        }

        /// As the batch above, but `hash_into(start, hashes)` writes the hashes of queries
        /// `start..start + hashes.len()`, CHUNK at a time: a loop of its own, which the
        /// compiler vectorises under this function's target features where the item length
        /// is fixed (XXH3-64 of u64 items held in a slice: several per instruction). Chunk
        /// c + 1 is hashed, and from [`PREFETCH_MIN_BYTES`](super::PREFETCH_MIN_BYTES) of
        /// blocks its blocks prefetched, before chunk c is tested.
        $(#[$attr])*
        #[allow(dead_code)]
        pub(super) fn $chunked<'a>(
            blocks: &'a [$block],
            hash_into: impl Fn(usize, &mut [u64]),
            out: &mut [bool],
        ) {
            if out.is_empty() {
                return;
            }
            let n = out.len();
            if core::mem::size_of_val(blocks) < super::PREFETCH_MIN_BYTES {
                // Without prefetching: the test one chunk behind the hash, so that its loads
                // never wait on the arithmetic just done (10% faster at 10^6 items than
                // testing each chunk right after hashing it).
                let fill = |start: usize, hashes: &mut [u64; CHUNK], index: &mut [u32; CHUNK]| {
                    super::fill_chunk(start, n, blocks.len(), &hash_into, hashes, index);
                };
                let mut hashes = [[0u64; CHUNK]; 2];
                let mut index = [[0u32; CHUNK]; 2];
                fill(0, &mut hashes[0], &mut index[0]);
                for (c, out) in out.chunks_mut(CHUNK).enumerate() {
                    let ([h0, h1], [i0, i1]) = (&mut hashes, &mut index);
                    let (this, next) = if c % 2 == 0 {
                        ((h0, i0), (h1, i1))
                    } else {
                        ((h1, i1), (h0, i0))
                    };
                    let start = (c + 1) * CHUNK;
                    if start < n {
                        fill(start, next.0, next.1);
                    }
                    for ((o, &h), &i) in out.iter_mut().zip(this.0.iter()).zip(this.1.iter()) {
                        *o = $has(&blocks[i as usize], h as u32);
                    }
                }
                return;
            }
            let mut hashes = [0u64; CHUNK];
            let mut fetch = |start: usize, chunk: &mut [(u32, &'a $block); CHUNK]| {
                let len = CHUNK.min(n - start);
                hash_into(start, &mut hashes[..len]);
                for (&h, slot) in hashes[..len].iter().zip(chunk.iter_mut()) {
                    let block = &blocks[block_index(h, blocks.len())];
                    prefetch(block);
                    *slot = (h as u32, block);
                }
            };
            let mut chunks: [[(u32, &$block); CHUNK]; 2] = [[(0, &blocks[0]); CHUNK]; 2];
            fetch(0, &mut chunks[0]);
            for (c, out) in out.chunks_mut(CHUNK).enumerate() {
                let [even, odd] = &mut chunks;
                let (this, next) = if c % 2 == 0 { (even, odd) } else { (odd, even) };
                let start = (c + 1) * CHUNK;
                if start < n {
                    fetch(start, next);
                }
                for (o, &(h32, block)) in out.iter_mut().zip(this.iter()) {
                    *o = $has(block, h32);
                }
            }
        }

        /// Sets the bits of items `0..n`, whose hashes `hash_into(start, hashes)` writes
        /// CHUNK at a time, as the chunked query does: chunk c + 1 hashed (the hash loop
        /// vectorised where the item length is fixed) and, from
        /// [`PREFETCH_MIN_BYTES`](super::PREFETCH_MIN_BYTES) of blocks, its blocks
        /// prefetched, before chunk c is set.
        $(#[$attr])*
        #[allow(dead_code)]
        pub(super) fn $insert_chunked(
            blocks: &mut [$block],
            hash_into: impl Fn(usize, &mut [u64]),
            n: usize,
        ) {
            if n == 0 {
                return;
            }
            let prefetching = core::mem::size_of_val(blocks) >= super::PREFETCH_MIN_BYTES;
            let mut hashes = [[0u64; CHUNK]; 2];
            let mut index = [[0u32; CHUNK]; 2];
            let chunks = n.div_ceil(CHUNK);
            // step c hashes chunk c into buffer c % 2 and sets chunk c - 1 from the other
            for c in 0..=chunks {
                if c < chunks {
                    let (h, i) = (&mut hashes[c % 2], &mut index[c % 2]);
                    let filled = super::fill_chunk(c * CHUNK, n, blocks.len(), &hash_into, h, i);
                    if prefetching {
                        for &i in &i[..filled] {
                            prefetch(&blocks[i as usize]);
                        }
                    }
                }
                if c > 0 {
                    let (h, i) = (&hashes[(c - 1) % 2], &index[(c - 1) % 2]);
                    let filled = CHUNK.min(n - (c - 1) * CHUNK);
                    for (&h, &i) in h[..filled].iter().zip(&i[..filled]) {
                        $set(&mut blocks[i as usize], h as u32);
                    }
                }
            }
        }
    };
}

/// Plain Rust: eight multiplies and shifts per block, for any target.
pub(crate) mod portable {
    use super::{block_index, prefetch, Block256, Block512, AHEAD, CHUNK, SALT};

    /// Lane i's bit: `1 << ((h32 · SALTᵢ) >> 27)`.
    #[inline(always)]
    fn mask256(h32: u32) -> [u32; 8] {
        core::array::from_fn(|i| 1u32 << (h32.wrapping_mul(SALT[i]) >> 27))
    }

    /// Lane i's bit: `1 << ((h32 · SALTᵢ) >> 26)`.
    #[inline(always)]
    fn mask512(h32: u32) -> [u64; 8] {
        core::array::from_fn(|i| 1u64 << (h32.wrapping_mul(SALT[i]) >> 26))
    }

    #[inline(always)]
    pub(crate) fn has256(b: &Block256, h32: u32) -> bool {
        let m = mask256(h32);
        (0..8).fold(0, |miss, i| miss | (m[i] & !b.0[i])) == 0
    }

    #[inline(always)]
    pub(crate) fn set256(b: &mut Block256, h32: u32) -> bool {
        let m = mask256(h32);
        let mut new = 0;
        for (lane, m) in b.0.iter_mut().zip(m) {
            new |= m & !*lane;
            *lane |= m;
        }
        new != 0
    }

    #[inline(always)]
    pub(crate) fn has512(b: &Block512, h32: u32) -> bool {
        let m = mask512(h32);
        (0..8).fold(0, |miss, i| miss | (m[i] & !b.0[i])) == 0
    }

    #[inline(always)]
    pub(crate) fn set512(b: &mut Block512, h32: u32) -> bool {
        let m = mask512(h32);
        let mut new = 0;
        for (lane, m) in b.0.iter_mut().zip(m) {
            new |= m & !*lane;
            *lane |= m;
        }
        new != 0
    }

    // Out of line where a SIMD kernel may run instead, so that the three-way dispatch stays
    // small enough to inline into the caller's loop (as the SIMD functions cannot, their
    // target features being the caller's only at run time); inline elsewhere.
    loops!(
        #[cfg_attr(target_arch = "x86_64", inline(never))]
        #[cfg_attr(not(target_arch = "x86_64"), inline)]
    );
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod avx2;

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod avx512;

#[cfg(test)]
mod tests;
