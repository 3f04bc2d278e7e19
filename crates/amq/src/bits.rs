//! A fixed-length bit vector over `u64` words.
//!
//! Bit `i` is bit `i % 64` (least significant first) of word `i / 64`; as bytes (little-endian
//! words) that is bit `i % 8` of byte `i / 8`. Bits past the length in the last word are
//! always zero.

use crate::error::{Error, Result};
use alloc::vec::Vec;

/// A bit vector of a fixed number of bits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BitVec {
    words: Vec<u64>,
    len: u64,
}

impl BitVec {
    /// `len` zero bits.
    ///
    /// # Panics
    /// If the memory cannot be allocated; [`BitVec::try_new`] returns an error instead.
    pub fn new(len: u64) -> Self {
        Self::try_new(len).expect("cannot allocate the bit vector")
    }

    /// `len` zero bits, or an error if the memory cannot be had.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] (`m`) if `⌈len/64⌉` words cannot be allocated.
    pub fn try_new(len: u64) -> Result<Self> {
        Ok(BitVec {
            words: try_zeroed(len.div_ceil(64), "m")?,
            len,
        })
    }

    /// Builds a bit vector of `len` bits from its words.
    ///
    /// # Errors
    /// [`Error::Corrupt`] if the word count is not `⌈len/64⌉` (at offset 0) or a bit past
    /// `len` is set (at the byte of the lowest such bit, the words read as little-endian
    /// bytes).
    pub fn from_words(words: Vec<u64>, len: u64) -> Result<Self> {
        if words.len() as u64 != len.div_ceil(64) {
            return Err(Error::corrupt(
                0,
                alloc::format!("{} words cannot hold exactly {len} bits", words.len()),
            ));
        }
        if let Some(&last) = words.last() {
            let stray = bits_past(last, len);
            if stray != 0 {
                return Err(Error::corrupt(
                    lowest_set_byte(words.len() - 1, stray),
                    "bits set past the end of the bit vector",
                ));
            }
        }
        Ok(BitVec { words, len })
    }

    /// The number of bits.
    #[inline]
    pub fn len(&self) -> u64 {
        self.len
    }

    /// `true` if the vector has no bits at all.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The words, least significant bit first.
    #[inline]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Bit `i`.
    ///
    /// # Panics
    /// If `i >= len` (in debug builds the word index check catches it; callers derive `i` with
    /// [`reduce`](crate::hash::reduce) so it is always in range).
    #[inline(always)]
    pub fn get(&self, i: u64) -> bool {
        debug_assert!(i < self.len);
        (self.words[(i >> 6) as usize] >> (i & 63)) & 1 == 1
    }

    /// Sets bit `i`; returns `true` if it was zero before.
    ///
    /// # Panics
    /// If `i >= len`, as [`BitVec::get`].
    #[inline(always)]
    pub fn set(&mut self, i: u64) -> bool {
        debug_assert!(i < self.len);
        let word = &mut self.words[(i >> 6) as usize];
        let mask = 1u64 << (i & 63);
        let was_zero = *word & mask == 0;
        *word |= mask;
        was_zero
    }

    /// The number of set bits.
    pub fn bits_set(&self) -> u64 {
        count_ones(&self.words)
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }

    /// `self |= other`.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if the lengths differ.
    pub fn union_with(&mut self, other: &BitVec) -> Result<()> {
        self.check_len(other)?;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
        Ok(())
    }

    /// `self &= other`.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if the lengths differ.
    pub fn intersect_with(&mut self, other: &BitVec) -> Result<()> {
        self.check_len(other)?;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= b;
        }
        Ok(())
    }

    fn check_len(&self, other: &BitVec) -> Result<()> {
        if self.len != other.len {
            return Err(Error::ShapeMismatch {
                field: "m",
                left: self.len,
                right: other.len,
            });
        }
        Ok(())
    }

    /// The words as little-endian bytes (`8·⌈len/64⌉` bytes).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        words_to_le_bytes(&self.words)
    }
}

/// A vector of `n` default values, or an error naming `what` if it cannot be allocated
/// (instead of aborting the process, as `vec!` would).
///
/// With the `std` feature on Linux, a vector of at least [`HUGE_PAGE_MIN_BYTES`] asks the
/// kernel for transparent huge pages before it is first written, so the random probes of a
/// large filter miss the TLB far less often (where THP is off, nothing changes).
///
/// # Errors
/// [`Error::OutOfMemory`] (naming `what`) when the allocation fails or `n` overflows `usize`.
pub fn try_zeroed<T: Clone + Default>(n: u64, what: &'static str) -> Result<Vec<T>> {
    let fail = || Error::out_of_memory::<T>(what, n);
    let n = usize::try_from(n).map_err(|_| fail())?;
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| fail())?;
    advise_huge_pages(v.spare_capacity_mut());
    v.resize(n, T::default());
    Ok(v)
}

/// Asks the CPU to bring the cache line holding `p` into all cache levels, without waiting for
/// it: the batched queries of every filter call this for the item some way ahead of the one
/// they test, so the cache misses of a large table overlap. A hint only; elsewhere than
/// x86-64 it does nothing.
#[inline(always)]
#[allow(unsafe_code)]
pub fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` is a hint: it never faults and never changes memory, and `p` is a
    // valid reference in any case. SSE is part of the x86-64 baseline. It pays
    // (BENCHMARKS.md): `contains_batch` of the blocked Bloom filter at n = 10^7 takes 0.61×
    // the time of single queries, and without the prefetch the same loop took 3–4× as long;
    // the cuckoo filter's batch miss costs 16 ns against 62 ns single; the classic Bloom
    // filter's batch at 10^7 costs 18 ns per member against 66 ns single.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (p as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// The number of set bits in `words`.
pub(crate) fn count_ones(words: &[u64]) -> u64 {
    with_popcnt(|| words.iter().map(|w| u64::from(w.count_ones())).sum())
}

/// Runs `f`, in which `count_ones` then compiles to the POPCNT instruction where the CPU has
/// it (found at run time with `std` on x86-64, where the default target lacks it, so that
/// `u64::count_ones` is otherwise a dozen instructions of bit arithmetic): the count of set
/// bits that `info()` needs (fill, estimated items, estimated ε) and that `amq serve` takes
/// under a filter's read lock at every metrics scrape.
#[inline]
#[allow(unsafe_code)]
pub(crate) fn with_popcnt<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(all(
        target_arch = "x86_64",
        not(target_feature = "popcnt"),
        feature = "std"
    ))]
    if std::is_x86_feature_detected!("popcnt") {
        #[target_feature(enable = "popcnt")]
        fn run<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        // SAFETY: `run` only enables POPCNT, which the line above found on this CPU. It pays
        // (`cargo bench -p amq-bench --bench info`): counting the set bits of a 64 MiB table
        // takes 0.49-0.55x the time of the same loop without POPCNT (30-33 against 16.8 GiB/s).
        return unsafe { run(f) };
    }
    f()
}

/// The smallest table [`try_zeroed`] asks huge pages for: 64 MiB.
///
/// Measured (`cargo bench -p amq-bench --bench pages`, BENCHMARKS.md "pages"): random reads
/// from an advised table take 0.78× (independent) and 0.90× (dependent) of their time on
/// 4-KiB pages at 64 MiB, 0.70× and 0.54× at 1 GiB; at 32 MiB, which fits the L3 and whose
/// page-table entries stay cached, advising gained nothing.
pub const HUGE_PAGE_MIN_BYTES: usize = 64 << 20;

/// Marks the 2 MiB-aligned part of `memory` `MADV_HUGEPAGE`.
#[cfg(all(feature = "std", target_os = "linux"))]
#[allow(unsafe_code)]
fn advise_huge_pages<T>(memory: &mut [core::mem::MaybeUninit<T>]) {
    const HUGE_PAGE: usize = 2 << 20;
    let bytes = core::mem::size_of_val(memory);
    if bytes < HUGE_PAGE_MIN_BYTES {
        return;
    }
    let start = memory.as_mut_ptr() as usize;
    let (first, end) = (start.next_multiple_of(HUGE_PAGE), start + bytes);
    let len = end.saturating_sub(first) / HUGE_PAGE * HUGE_PAGE;
    if len == 0 {
        return;
    }
    // SAFETY: [first, first + len) lies inside `memory`, which this process owns, and
    // `first` is page-aligned as madvise requires. MADV_HUGEPAGE only sets the paging policy
    // of the range: it never changes its contents or whether it is mapped, so no Rust value
    // is affected. An error (THP not built in: EINVAL) leaves the policy as it was and is
    // ignored. It pays for large tables: random reads from a 1 GiB table take 0.81× the time
    // (independent) and 0.58× (dependent) of the same reads on 4-KiB pages
    // (HUGE_PAGE_MIN_BYTES has the figures; BENCHMARKS.md, "pages").
    unsafe {
        libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(all(feature = "std", target_os = "linux")))]
fn advise_huge_pages<T>(_memory: &mut [core::mem::MaybeUninit<T>]) {}

/// `words` as little-endian bytes.
pub fn words_to_le_bytes(words: &[u64]) -> Vec<u8> {
    let mut out = Vec::with_capacity(words.len() * 8);
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out
}

/// The bits of `last`, the last word of a layout `used` bits long, at or past bit `used`:
/// the ones that must be 0 (none when `used` fills the word).
pub(crate) fn bits_past(last: u64, used: u64) -> u64 {
    match used % 64 {
        0 => 0,
        tail => last & (u64::MAX << tail),
    }
}

/// The byte, in words read as little-endian bytes, of the lowest set bit of `stray`, the
/// bits of word `index` that the layout leaves unused: where a decoder says a bit is set
/// that should not be.
pub(crate) fn lowest_set_byte(index: usize, stray: u64) -> usize {
    8 * index + stray.trailing_zeros() as usize / 8
}

/// Little-endian bytes back to words.
///
/// # Errors
/// [`Error::Corrupt`] if the length is not a multiple of 8.
///
/// # Panics
/// Never, for any input.
pub fn le_bytes_to_words(bytes: &[u8]) -> Result<Vec<u64>> {
    if !bytes.len().is_multiple_of(8) {
        return Err(Error::corrupt(
            0,
            "payload length is not a multiple of 8 bytes",
        ));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("chunks_exact(8)")))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tables past the huge-page threshold (advised, on Linux with `std`) and odd sizes around
    /// it come back zeroed, at their length, and writable to the last element.
    #[test]
    fn large_tables_are_zeroed_and_whole() {
        let words = (HUGE_PAGE_MIN_BYTES / 8) as u64;
        for n in [words - 1, words + 12_345] {
            let mut v: Vec<u64> = try_zeroed(n, "n").unwrap();
            assert_eq!(v.len() as u64, n);
            assert!(v.iter().all(|&w| w == 0));
            *v.last_mut().unwrap() = u64::MAX;
            v[0] = 1;
            assert_eq!(v.iter().map(|w| w.count_ones()).sum::<u32>(), 65);
        }
        let bytes: Vec<u8> = try_zeroed(HUGE_PAGE_MIN_BYTES as u64 + 7, "n").unwrap();
        assert!(bytes.iter().all(|&b| b == 0));
        assert!(try_zeroed::<u64>(u64::MAX, "n").is_err());
    }

    #[test]
    fn set_get_count() {
        let mut b = BitVec::new(130);
        assert!(b.set(0));
        assert!(!b.set(0));
        assert!(b.set(129));
        assert!(b.get(129) && b.get(0) && !b.get(64));
        assert_eq!(b.bits_set(), 2);
        assert_eq!(b.words().len(), 3);
        let bytes = b.to_le_bytes();
        assert_eq!(bytes[0], 1);
        assert_eq!(bytes[16], 2); // bit 129 = word 2, bit 1
    }

    #[test]
    fn from_words_rejects_stray_bits() {
        assert!(BitVec::from_words(alloc::vec![0, 0, 4], 130).is_err());
        assert!(BitVec::from_words(alloc::vec![0, 0], 130).is_err());
        assert!(BitVec::from_words(alloc::vec![0, 0, 3], 130).is_ok());
    }

    #[test]
    fn union_and_intersect_check_length() {
        let mut a = BitVec::new(10);
        let b = BitVec::new(11);
        assert!(matches!(a.union_with(&b), Err(Error::ShapeMismatch { .. })));
        assert!(a.intersect_with(&b).is_err());
    }
}
