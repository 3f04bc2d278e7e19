//! The single query and insert of the SIMD kernels as inline assembly, for builds without
//! AVX-512F at compile time (the default x86-64 target, which finds the CPU's features at run
//! time).
//!
//! A `#[target_feature]` function cannot inline into a caller built without its features, so
//! through the intrinsics of [`super::avx2`] and [`super::avx512`] every single query was a
//! call. The call's instructions were few; what it cost was room in the out-of-order window,
//! so that fewer queries' cache misses overlapped. A few instructions of `asm!` inline
//! anywhere. Both SIMD kernels run the same AVX2 code here: one inlined path, behind one
//! branch on the kernel that the CPU predicts, measured as fast as the AVX-512 form (which
//! would need a second path, and the branch between them cost more than the wider register
//! saves). The batches keep their `#[target_feature]` loops, which inline the hash into the
//! SIMD code and have a call per batch, not per item. Measured against sbbf-rs-safe in the
//! same run: BENCHMARKS.md, issue 14, goal 1, session 26.
//!
//! Each block ends with `vzeroupper`, as AVX code returning to code that may use legacy SSE
//! must (else, on Intel, that SSE code pays for the dirty upper halves). It clears the upper
//! halves of `ymm0`–`ymm15`, so all sixteen registers are declared clobbered (as `xmm0`–
//! `xmm15`: to `asm!`, `xmmN`, `ymmN` and `zmmN` name one register): a caller with values in
//! them (its own AVX code, if this inlines there) keeps them across the block, as across a
//! call.
//!
//! Bit for bit the kernels' results: the kernel tests run [`super::contains512`],
//! [`super::insert512`], [`super::contains256`] and [`super::insert256`] on every kernel the
//! CPU has, against the portable one.

use super::{block_index, Block256, Block512, SALT};
use core::arch::asm;

/// The eight salts in the even 32-bit lanes and zeros in the odd ones, as two 256-bit
/// vectors (lanes 0–3, then 4–7): `vpmulld` against them leaves `h32 · SALTᵢ mod 2³²` in
/// 64-bit lane i with a zero high half.
#[repr(C, align(64))]
struct Salt512([u32; 16]);

static SALT512: Salt512 = Salt512([
    SALT[0], 0, SALT[1], 0, SALT[2], 0, SALT[3], 0, SALT[4], 0, SALT[5], 0, SALT[6], 0, SALT[7], 0,
]);

/// The eight salts in the eight 32-bit lanes of a 256-bit vector (Parquet's blocks).
#[repr(C, align(32))]
struct Salt256([u32; 8]);

static SALT256: Salt256 = Salt256(SALT);

/// The instructions that leave a [`Block512`]'s lane masks for `h32` in `ymm0` (lanes 0–3)
/// and `ymm1` (lanes 4–7), bit `(h32 · SALTᵢ) >> 26` of lane i, with ones in the 64-bit lanes
/// of `ymm2`: `vpmulld` against the salts, `vpsrld`, `vpsllvq` of ones.
macro_rules! masks512 {
    () => {
        concat!(
            "vmovd xmm0, {h:e}\n",
            "vpbroadcastd ymm0, xmm0\n",
            "vpmulld ymm1, ymm0, ymmword ptr [rip + {salt} + 32]\n",
            "vpmulld ymm0, ymm0, ymmword ptr [rip + {salt}]\n",
            "vpsrld ymm1, ymm1, 26\n",
            "vpsrld ymm0, ymm0, 26\n",
            "vpcmpeqd ymm2, ymm2, ymm2\n",
            "vpsrlq ymm2, ymm2, 63\n",
            "vpsllvq ymm1, ymm2, ymm1\n",
            "vpsllvq ymm0, ymm2, ymm0\n",
        )
    };
}

/// The instructions that leave Parquet's lane masks for `h32` in `ymm0`, bit
/// `(h32 · SALTᵢ) >> 27` of 32-bit lane i: `vpmulld`, `vpsrld`, `vpsllvd` of ones.
macro_rules! masks256 {
    () => {
        concat!(
            "vmovd xmm0, {h:e}\n",
            "vpbroadcastd ymm0, xmm0\n",
            "vpmulld ymm0, ymm0, ymmword ptr [rip + {salt}]\n",
            "vpsrld ymm0, ymm0, 27\n",
            "vpcmpeqd ymm1, ymm1, ymm1\n",
            "vpsrld ymm1, ymm1, 31\n",
            "vpsllvd ymm0, ymm1, ymm0\n",
        )
    };
}

/// `asm!` with `$template`, the operands `{h}` (`$h32`, a 32-bit register), `{salt}` (the
/// static `$salt`), `{block}` (the pointer `$block`) and `{answer}` (a byte register read
/// into `$answer`), the options given, and `ymm0`–`ymm15` and the flags clobbered.
macro_rules! avx2_asm {
    ($template:expr, $h32:expr, $salt:path, $block:expr, $answer:ident, options($($option:ident),*)) => {
        asm!(
            $template,
            h = in(reg) $h32,
            salt = sym $salt,
            block = in(reg) $block,
            answer = out(reg_byte) $answer,
            out("xmm0") _, out("xmm1") _, out("xmm2") _, out("xmm3") _,
            out("xmm4") _, out("xmm5") _, out("xmm6") _, out("xmm7") _,
            out("xmm8") _, out("xmm9") _, out("xmm10") _, out("xmm11") _,
            out("xmm12") _, out("xmm13") _, out("xmm14") _, out("xmm15") _,
            options($($option),*),
        )
    };
}

/// `true` if every 64-bit lane of `b` has its bit `(h32 · SALTᵢ) >> 26`: each half of the
/// block's complement ANDed with its masks (`vpandn`), the two ORed, and `vptest` for zero.
///
/// # Safety
/// The CPU must have AVX2 (`Kernel::Avx2.is_supported()`).
#[inline(always)]
unsafe fn has512(b: &Block512, h32: u32) -> bool {
    let all: u8;
    // SAFETY: the caller guarantees AVX2. The block reads the 64 bytes of `b` (a reference
    // to a `Block512`, `repr(C, align(64))`, so both 32-byte halves are aligned for `vmovdqa`)
    // and of `SALT512` (a static of 64 bytes), writes no memory and no stack, and changes only
    // the registers declared: `ymm0`–`ymm15`, `all` and the flags.
    unsafe {
        avx2_asm!(
            concat!(
                masks512!(),
                "vmovdqa ymm2, ymmword ptr [{block}]\n",
                "vpandn ymm0, ymm2, ymm0\n",
                "vmovdqa ymm2, ymmword ptr [{block} + 32]\n",
                "vpandn ymm1, ymm2, ymm1\n",
                "vpor ymm0, ymm0, ymm1\n",
                "vptest ymm0, ymm0\n",
                "sete {answer}\n",
                "vzeroupper",
            ),
            h32,
            SALT512,
            b.0.as_ptr(),
            all,
            options(pure, readonly, nostack)
        );
    }
    all != 0
}

/// Sets the eight bits of `h32` in `b`; `true` if any was zero before (the masks ANDed with
/// the block's complement, tested with `vptest`, before the ORed halves are stored).
///
/// # Safety
/// The CPU must have AVX2 (`Kernel::Avx2.is_supported()`).
#[inline(always)]
unsafe fn set512(b: &mut Block512, h32: u32) -> bool {
    let new: u8;
    // SAFETY: the caller guarantees AVX2. The block reads and writes the 64 bytes of `b` (a
    // unique reference to a `Block512`, aligned to 64; any bits are valid `u64` lanes), reads
    // `SALT512`, uses no stack, and changes only the registers declared: `ymm0`–`ymm15`,
    // `new` and the flags.
    unsafe {
        avx2_asm!(
            concat!(
                masks512!(),
                "vmovdqa ymm2, ymmword ptr [{block}]\n",
                "vmovdqa ymm3, ymmword ptr [{block} + 32]\n",
                "vpandn ymm4, ymm2, ymm0\n",
                "vpandn ymm5, ymm3, ymm1\n",
                "vpor ymm2, ymm2, ymm0\n",
                "vpor ymm3, ymm3, ymm1\n",
                "vmovdqa ymmword ptr [{block}], ymm2\n",
                "vmovdqa ymmword ptr [{block} + 32], ymm3\n",
                "vpor ymm4, ymm4, ymm5\n",
                "vptest ymm4, ymm4\n",
                "setne {answer}\n",
                "vzeroupper",
            ),
            h32,
            SALT512,
            b.0.as_mut_ptr(),
            new,
            options(nostack)
        );
    }
    new != 0
}

/// `true` if every 32-bit lane of Parquet's block `b` has its bit `(h32 · SALTᵢ) >> 27`:
/// `vptest` of the block against the masks, whose carry flag says no mask bit is outside it.
///
/// # Safety
/// The CPU must have AVX2 (`Kernel::Avx2.is_supported()`).
#[inline(always)]
unsafe fn has256(b: &Block256, h32: u32) -> bool {
    let all: u8;
    // SAFETY: the caller guarantees AVX2. The block reads the 32 bytes of `b` (a reference
    // to a `Block256`, `repr(C, align(32))`) and of `SALT256`, writes no memory and no stack,
    // and changes only the registers declared: `ymm0`–`ymm15`, `all` and the flags.
    unsafe {
        avx2_asm!(
            concat!(
                masks256!(),
                "vmovdqa ymm1, ymmword ptr [{block}]\n",
                "vptest ymm1, ymm0\n",
                "setc {answer}\n",
                "vzeroupper",
            ),
            h32,
            SALT256,
            b.0.as_ptr(),
            all,
            options(pure, readonly, nostack)
        );
    }
    all != 0
}

/// Sets the eight bits of `h32` in Parquet's block `b`; `true` if any was zero before.
///
/// # Safety
/// The CPU must have AVX2 (`Kernel::Avx2.is_supported()`).
#[inline(always)]
unsafe fn set256(b: &mut Block256, h32: u32) -> bool {
    let covered: u8;
    // SAFETY: the caller guarantees AVX2. The block reads and writes the 32 bytes of `b` (a
    // unique reference to a `Block256`, aligned to 32; any bits are valid `u32` lanes), reads
    // `SALT256`, uses no stack, and changes only the registers declared: `ymm0`–`ymm15`,
    // `covered` and the flags (`vpor` and the store leave the flags of `vptest`).
    unsafe {
        avx2_asm!(
            concat!(
                masks256!(),
                "vmovdqa ymm1, ymmword ptr [{block}]\n",
                "vptest ymm1, ymm0\n",
                "setc {answer}\n",
                "vpor ymm1, ymm1, ymm0\n",
                "vmovdqa ymmword ptr [{block}], ymm1\n",
                "vzeroupper",
            ),
            h32,
            SALT256,
            b.0.as_mut_ptr(),
            covered,
            options(nostack)
        );
    }
    covered == 0
}

/// `true` if the eight bits of hash `h` are set in its block of `blocks` (not empty).
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
pub(super) unsafe fn contains512(blocks: &[Block512], h: u64) -> bool {
    // SAFETY: the caller guarantees AVX2.
    unsafe { has512(&blocks[block_index(h, blocks.len())], h as u32) }
}

/// Sets the eight bits of hash `h` in its block of `blocks` (not empty); `true` if any was
/// zero before.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
pub(super) unsafe fn insert512(blocks: &mut [Block512], h: u64) -> bool {
    let b = block_index(h, blocks.len());
    // SAFETY: the caller guarantees AVX2.
    unsafe { set512(&mut blocks[b], h as u32) }
}

/// [`contains512`] for Parquet's blocks.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
pub(super) unsafe fn contains256(blocks: &[Block256], h: u64) -> bool {
    // SAFETY: the caller guarantees AVX2.
    unsafe { has256(&blocks[block_index(h, blocks.len())], h as u32) }
}

/// [`insert512`] for Parquet's blocks.
///
/// # Safety
/// The CPU must have AVX2.
#[inline(always)]
pub(super) unsafe fn insert256(blocks: &mut [Block256], h: u64) -> bool {
    let b = block_index(h, blocks.len());
    // SAFETY: the caller guarantees AVX2.
    unsafe { set256(&mut blocks[b], h as u32) }
}
