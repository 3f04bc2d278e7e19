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
//! Every loop (single query, insert, the batches) is written once, in the `loops!` macro of
//! [`loops`], and compiled three times: in [`portable`] for any target, in `avx2` inside
//! `#[target_feature(enable = "avx2")]` functions and in `avx512` inside
//! `#[target_feature(enable = "avx2,avx512f")]` ones, so that the caller's hash (a closure)
//! inlines into the SIMD code. [`Kernel`] says which one a filter runs; all give
//! bit-identical results (the tests check it on random blocks and hashes). Chosen at run
//! time, the SIMD kernels cannot inline into a caller built without their features, so the
//! single query and insert of both SIMD kernels are the AVX2 test as inline assembly
//! ([`single`]), which does inline: one branch on the kernel, no call. Built with AVX-512F
//! enabled (`-C target-cpu=native` on such a CPU), the AVX-512 kernel's intrinsics inline
//! instead and the other two kernels stay out of line. The AVX-512 kernel
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
/// `insert_batch_values`) do not prefetch: the table answers from the L2 or L3 cache, and the
/// prefetch and the queue of fetched blocks cost more than they hide (measured once, 1% filters:
/// 12% faster without at 10^5 u64 items, 4% at 10^6). The other batch, with the hash inside its
/// loop, keeps prefetching at every size: 16-byte keys at 10^6 measured 0.83–0.89× of
/// sbbf-rs-safe's single queries that way, 1.04–1.10× chunked and without prefetching.
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
        Kernel::supported().last().unwrap_or(Kernel::Portable)
    }

    /// The kernels this CPU runs, slowest first: [`Kernel::Portable`] always, then those of
    /// [`ALL`](Self::ALL) that [`is_supported`](Self::is_supported) says it has.
    ///
    /// # Example
    /// ```
    /// use amq::SplitBlockKernel;
    /// let kernels: Vec<SplitBlockKernel> = SplitBlockKernel::supported().collect();
    /// assert_eq!(kernels[0], SplitBlockKernel::Portable);
    /// assert_eq!(kernels.last(), Some(&SplitBlockKernel::detect()));
    /// ```
    pub fn supported() -> impl Iterator<Item = Kernel> {
        Kernel::ALL.into_iter().filter(|k| k.is_supported())
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

/// Runs `f` out of line: the kernels a build for AVX-512 keeps out of the caller's loop, and
/// the portable single query and insert (the x86-64 CPUs that run them, without AVX2, are
/// rare; kept out of the caller's loop they cost the SIMD path one predicted branch).
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn cold<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// A single query or insert. Built for x86-64 without AVX-512F, either SIMD kernel runs
/// `$simd`, the AVX2 test as inline assembly ([`single`]), which inlines into the caller's
/// loop where the kernels' `#[target_feature]` code cannot, and the portable kernel runs
/// `$portable` out of line; otherwise `dispatch!` of `$avx512`, `$avx2` and `$portable`.
macro_rules! single {
    ($kernel:expr, $simd:expr, $avx512:expr, $avx2:expr, $portable:expr) => {{
        #[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
        {
            if $kernel == Kernel::Portable {
                cold(|| $portable)
            } else {
                // SAFETY: a `Kernel::Avx2` or `Kernel::Avx512` is only ever stored after
                // `Kernel::is_supported` said this CPU has AVX2 (as in `dispatch!`).
                unsafe { $simd }
            }
        }
        #[cfg(not(all(target_arch = "x86_64", not(target_feature = "avx512f"))))]
        {
            dispatch!($kernel, $avx512, $avx2, $portable)
        }
    }};
}

/// `true` if the eight bits of hash `h` are set in its block of `blocks` (not empty).
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn contains512(kernel: Kernel, blocks: &[Block512], hash: impl FnOnce() -> u64) -> bool {
    let h = hash();
    single!(
        kernel,
        single::contains512(blocks, h),
        avx512::query512(blocks, || h),
        avx2::query512(blocks, || h),
        portable::query512(blocks, || h)
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
    let h = hash();
    single!(
        kernel,
        single::insert512(blocks, h),
        avx512::insert512(blocks, || h),
        avx2::insert512(blocks, || h),
        portable::insert512(blocks, || h)
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
    single!(
        kernel,
        single::contains256(blocks, h),
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
    single!(
        kernel,
        single::insert256(blocks, h),
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

// `loops!` first: the kernel modules below expand it
#[macro_use]
mod loops;

pub(crate) mod portable;

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod avx2;

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod avx512;

#[cfg(all(target_arch = "x86_64", not(target_feature = "avx512f")))]
#[allow(unsafe_code)]
mod single;

#[cfg(test)]
mod tests;
