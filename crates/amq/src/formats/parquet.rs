//! Apache Parquet's split block Bloom filter (SBBF), byte for byte as Parquet stores it.
//!
//! The filter is z blocks of 256 bits, each block eight 32-bit words. A value is hashed to 64
//! bits with XXH64 (seed 0) over its plain encoding; the high 32 bits pick the block,
//! `((h >> 32) · z) >> 32`, and the low 32 bits `x` set one bit in each word i: bit
//! `(x · SALTᵢ mod 2³²) >> 27` with the eight odd [`SALT`] constants. A query checks the same
//! eight bits.
//!
//! The bitset is what a Parquet file holds after the column chunk's `BloomFilterHeader`
//! (`numBytes`, `BLOCK`, `XXHASH`, `UNCOMPRESSED`, Thrift compact protocol): the blocks in
//! order, each block's eight words in order, each word little-endian. This module reads and
//! writes the bitset only; finding it in a file and decoding the Thrift header is the job of
//! a Parquet reader (the tests use DuckDB's metadata and a Thrift library).
//!
//! Source: <https://github.com/apache/parquet-format/blob/master/BloomFilter.md> (the
//! algorithm, the salts, XXH64 with seed 0, the sizing formula) and `parquet.thrift`
//! (`BloomFilterHeader`, `ColumnMetaData.bloom_filter_offset`/`bloom_filter_length`). Checked
//! against DuckDB's writer (`crates/amq/tests/parquet.rs`, `crates/amq-py/tests/test_parquet.py`).
//!
//! ```
//! use amq::formats::parquet::{hash_byte_array, hash_i64, ParquetBloomFilter};
//!
//! let mut f = ParquetBloomFilter::with_ndv_fpp(1_000, 0.01)?;
//! assert_eq!(f.size_bytes(), 2_048); // what DuckDB, parquet-java and arrow-rs pick
//! f.insert_hash(hash_i64(42));
//! f.insert_hash(hash_byte_array(b"alice")); // a BYTE_ARRAY value: its bytes, no length
//! assert!(f.contains_hash(hash_i64(42)) && f.contains_hash(hash_byte_array(b"alice")));
//! let back = ParquetBloomFilter::from_bitset(&f.to_bitset())?;
//! assert_eq!(back, f);
//! # Ok::<(), amq::Error>(())
//! ```

use crate::bloom::split_block::kernel::{
    contains256, contains256_batch, insert256, Block256 as Block, Kernel,
};
use crate::bloom::split_block::tables;
use crate::error::{Error, Result};
use alloc::vec::Vec;
use xxhash_rust::xxh64::xxh64;

/// The eight odd constants that turn the low 32 bits of a hash into one bit per word
/// (BloomFilter.md, "Technical Approach"); the split-block kernel's own.
pub use crate::bloom::split_block::kernel::SALT;

/// Bytes per block: 256 bits, eight 32-bit words.
pub const BLOCK_BYTES: usize = 32;

/// The largest bitset [`ParquetBloomFilter::from_bitset`] and
/// [`ParquetBloomFilter::with_num_bytes`] accept: the header's `numBytes` is a Thrift `i32`,
/// so 2³¹ − 32 bytes (the largest multiple of 32 an `i32` holds).
pub const MAX_NUM_BYTES: usize = i32::MAX as usize & !(BLOCK_BYTES - 1);

/// The smallest and largest bitsets the writers' sizing picks: 32 bytes and 128 MiB
/// (parquet-java's `BlockSplitBloomFilter` `LOWER_BOUND_BYTES`/`UPPER_BOUND_BYTES`, arrow-rs's
/// `BITSET_MIN_LENGTH`/`BITSET_MAX_LENGTH`, Arrow C++'s `kMinimumBloomFilterBytes`/
/// `kMaximumBloomFilterBytes`; DuckDB picks the same sizes). The format itself allows any
/// whole number of blocks.
pub const WRITER_NUM_BYTES: (usize, usize) = (BLOCK_BYTES, 128 << 20);

/// XXH64 with seed 0 over `bytes`: the hash every Parquet Bloom filter uses.
#[inline]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    xxh64(bytes, 0)
}

/// The hash of an `INT32` value: its plain encoding, 4 bytes little-endian.
#[inline]
pub fn hash_i32(v: i32) -> u64 {
    hash_bytes(&v.to_le_bytes())
}

/// The hash of an `INT64` value: its plain encoding, 8 bytes little-endian.
#[inline]
pub fn hash_i64(v: i64) -> u64 {
    hash_bytes(&v.to_le_bytes())
}

/// The hash of a `FLOAT` value: its plain encoding, the IEEE 754 bits, 4 bytes
/// little-endian (so `0.0` and `-0.0`, or two NaNs with different payloads, hash apart).
#[inline]
pub fn hash_f32(v: f32) -> u64 {
    hash_bytes(&v.to_le_bytes())
}

/// The hash of a `DOUBLE` value: its plain encoding, the IEEE 754 bits, 8 bytes little-endian.
#[inline]
pub fn hash_f64(v: f64) -> u64 {
    hash_bytes(&v.to_le_bytes())
}

/// The hash of an `INT96` value: its plain encoding, the 12 bytes as stored.
#[inline]
pub fn hash_int96(v: &[u8; 12]) -> u64 {
    hash_bytes(v)
}

/// The hash of a `BYTE_ARRAY` value (strings, binary, ...): the value's bytes **without** the
/// 4-byte length prefix of its plain encoding, as every writer does (parquet-java, arrow-rs,
/// Arrow C++, DuckDB; the choice was made in apache/parquet-java pull request 425).
#[inline]
pub fn hash_byte_array(v: &[u8]) -> u64 {
    hash_bytes(v)
}

/// The hash of a `FIXED_LEN_BYTE_ARRAY` value: its bytes (the plain encoding has no length).
#[inline]
pub fn hash_fixed_len_byte_array(v: &[u8]) -> u64 {
    hash_bytes(v)
}

/// The bitset size the writers pick for `ndv` distinct values at false-positive rate `fpp`,
/// in bytes.
///
/// The spec's formula gives the bits per distinct value, `c = −8 / ln(1 − fpp^(1/8))`; the
/// bits `c · ndv` are truncated to whole bytes, clamped to [`WRITER_NUM_BYTES`] and rounded
/// up to a power of two, as parquet-java, arrow-rs and Arrow C++ do (DuckDB's files have the
/// same sizes; the Python tests check). At fpp = 1% that is 9.6 bits per value before
/// rounding.
///
/// # Errors
/// [`Error::InvalidParameter`] if `fpp` is not in `(0, 1)`.
///
/// # Example
/// ```
/// use amq::formats::parquet::writer_num_bytes;
/// assert_eq!(writer_num_bytes(100_000, 0.01)?, 131_072);
/// assert_eq!(writer_num_bytes(1_000_000, 0.001)?, 2 << 20);
/// assert_eq!(writer_num_bytes(0, 0.01)?, 32);
/// # Ok::<(), amq::Error>(())
/// ```
pub fn writer_num_bytes(ndv: u64, fpp: f64) -> Result<usize> {
    if !(fpp > 0.0 && fpp < 1.0) {
        return Err(Error::invalid(
            "fpp",
            alloc::format!("must be in (0, 1), got {fpp}"),
        ));
    }
    let bits = -8.0 * ndv as f64 / libm::log(1.0 - libm::pow(fpp, 1.0 / 8.0));
    let (min, max) = WRITER_NUM_BYTES;
    // `as` saturates; the clamp keeps the result within 128 MiB either way
    let bytes = ((bits as u64) / 8).clamp(min as u64, max as u64) as usize;
    Ok(bytes.next_power_of_two())
}

/// Expected false-positive rate of a split block Bloom filter of `blocks` blocks after `n`
/// distinct values.
///
/// A block holding j values has each of its eight words' probed bit set with probability
/// `1 − (31/32)^j`, independently across words, so a query into it is a false positive with
/// probability `(1 − (31/32)^j)^8`; block loads are Poisson with mean λ = n/blocks, so
/// `ε = Σⱼ e^(−λ)·λʲ/j! · (1 − (31/32)^j)^8`. Because loads vary this is above the spec's
/// `(1 − e^(−8n/m))^8`: at 11.54 bits per value the spec's formula gives 0.50%, this 0.66%.
/// Evaluated as [`math::split_block_fpr`](crate::math::split_block_fpr) is, with 32-bit lanes
/// (bounded time and error at any n).
///
/// # Example
/// ```
/// // 10^5 values in the 128 KiB the writers pick at fpp = 1% (10.5 bits per value)
/// let eps = amq::formats::parquet::expected_fpr(100_000, 131_072 / 32);
/// assert!(eps > 0.0101 && eps < 0.0103); // the spec's formula would say 0.66%
/// ```
pub fn expected_fpr(n: u64, blocks: u64) -> f64 {
    crate::math::lanes_fpr(n, blocks, 32)
}

/// A Parquet split block Bloom filter: z blocks of eight 32-bit words.
///
/// Hash-level: insert and query 64-bit hashes ([`hash_i64`], [`hash_byte_array`], ... give a
/// column value's hash). Equal filters have equal bitsets.
#[derive(Debug, Clone)]
pub struct ParquetBloomFilter {
    blocks: Vec<Block>,
    /// The split-block kernel this CPU runs (AVX2 or portable; same bits; the AVX-512 kernel
    /// runs the AVX2 code on 256-bit blocks).
    kernel: Kernel,
}

/// Equal filters are equal bitsets, whichever kernel each runs.
impl PartialEq for ParquetBloomFilter {
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks
    }
}

impl Eq for ParquetBloomFilter {}

impl ParquetBloomFilter {
    /// An empty filter of `num_bytes` bytes (`num_bytes / 32` blocks), exactly: no rounding.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `num_bytes` is a positive multiple of 32 of at most
    /// [`MAX_NUM_BYTES`]; [`Error::OutOfMemory`] if the blocks cannot be allocated.
    pub fn with_num_bytes(num_bytes: usize) -> Result<Self> {
        check_num_bytes(num_bytes).map_err(|reason| Error::invalid("num_bytes", reason))?;
        Ok(ParquetBloomFilter {
            blocks: crate::bits::try_zeroed((num_bytes / BLOCK_BYTES) as u64, "num_bytes")?,
            kernel: Kernel::detect(),
        })
    }

    /// An empty filter sized as the writers size it for `ndv` distinct values at
    /// false-positive rate `fpp` ([`writer_num_bytes`]).
    ///
    /// # Errors
    /// As [`writer_num_bytes`] and [`with_num_bytes`](Self::with_num_bytes).
    pub fn with_ndv_fpp(ndv: u64, fpp: f64) -> Result<Self> {
        Self::with_num_bytes(writer_num_bytes(ndv, fpp)?)
    }

    /// Reads a bitset as Parquet stores it after the `BloomFilterHeader`: `numBytes` bytes,
    /// blocks of eight little-endian 32-bit words.
    ///
    /// # Errors
    /// [`Error::Corrupt`] unless `bitset.len()` is a positive multiple of 32 of at most
    /// [`MAX_NUM_BYTES`]; [`Error::OutOfMemory`] if the blocks cannot be allocated.
    ///
    /// # Panics
    /// Never, for any input.
    pub fn from_bitset(bitset: &[u8]) -> Result<Self> {
        check_num_bytes(bitset.len()).map_err(|reason| Error::corrupt(0, reason))?;
        let blocks: Vec<Block> = tables::from_le_bytes(bitset, "bitset")?;
        Ok(ParquetBloomFilter {
            blocks,
            kernel: Kernel::detect(),
        })
    }

    /// The bitset as Parquet stores it: [`size_bytes`](Self::size_bytes) bytes, blocks in
    /// order, each block's eight words little-endian.
    pub fn to_bitset(&self) -> Vec<u8> {
        let mut out = Vec::new();
        tables::write_le(&self.blocks, &mut out);
        out
    }

    /// z, the number of 256-bit blocks.
    pub fn blocks(&self) -> u64 {
        self.blocks.len() as u64
    }

    /// m, the number of bits: 256 per block.
    pub fn m(&self) -> u64 {
        self.blocks() * 256
    }

    /// k, the bits set per value: always 8, one in each word of a block.
    pub fn k(&self) -> u32 {
        8
    }

    /// The bitset's size in bytes (`numBytes` in the header).
    pub fn size_bytes(&self) -> u64 {
        self.blocks() * BLOCK_BYTES as u64
    }

    /// The block a hash picks: `((h >> 32) · z) >> 32`.
    #[inline]
    pub fn block_index(&self, h: u64) -> usize {
        crate::bloom::split_block::kernel::block_index(h, self.blocks.len())
    }

    /// Sets the eight bits of a hash; `true` if any was zero before (the value was certainly
    /// not there).
    #[inline]
    pub fn insert_hash(&mut self, h: u64) -> bool {
        insert256(self.kernel, &mut self.blocks, h)
    }

    /// `true` if the eight bits of a hash are all set ("maybe present"), `false` if the value
    /// is definitely absent.
    #[inline]
    pub fn contains_hash(&self, h: u64) -> bool {
        contains256(self.kernel, &self.blocks, h)
    }

    /// Batched [`contains_hash`](Self::contains_hash): `out[i]` answers `hashes[i]`.
    ///
    /// Prefetches the block of hash i + 16 while it tests hash i, so the cache misses of a
    /// large filter overlap.
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn contains_hash_batch(&self, hashes: &[u64], out: &mut [bool]) {
        contains256_batch(self.kernel, &self.blocks, hashes, out);
    }

    /// Sets every bit of `other` in `self` (the filter of the union of the two sets).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if the two have different numbers of blocks; `self` is then
    /// unchanged.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        Error::check_same_shape(&[("blocks", self.blocks(), other.blocks())])?;
        tables::union(&mut self.blocks, &other.blocks);
        Ok(())
    }

    /// The number of bits set.
    pub fn bits_set(&self) -> u64 {
        tables::bits_set(&self.blocks)
    }

    /// The false-positive rate now: the mean over blocks of `Πᵢ (bits set in word i / 32)`
    /// (a query picks a uniform block and one uniform bit in each word).
    pub fn estimated_fpr(&self) -> f64 {
        tables::split_block_fill(&self.blocks).1
    }

    /// The model's false-positive rate after `n` distinct values in this filter's blocks
    /// ([`expected_fpr`]).
    pub fn expected_fpr(&self, n: u64) -> f64 {
        expected_fpr(n, self.blocks())
    }
}

/// Why `num_bytes` is not a bitset size, if it is not.
fn check_num_bytes(num_bytes: usize) -> core::result::Result<(), alloc::string::String> {
    if num_bytes == 0 || !num_bytes.is_multiple_of(BLOCK_BYTES) || num_bytes > MAX_NUM_BYTES {
        return Err(alloc::format!(
            "a split block Bloom filter's bitset is a positive multiple of {BLOCK_BYTES} bytes \
             of at most {MAX_NUM_BYTES}, got {num_bytes}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mask of x = 1 is bit `SALTᵢ >> 27` of each word (worked by hand from the salts).
    #[test]
    fn mask_of_one_is_the_salts_top_five_bits() {
        let mut block = Block::default();
        block.insert(1);
        let top: [u32; 8] = [8, 8, 17, 20, 14, 5, 19, 11];
        for (i, (word, bit)) in block.0.iter().zip(top).enumerate() {
            assert_eq!(*word, 1 << bit, "word {i}");
        }
    }

    /// XXH64 with seed 0 of the empty input, the xxHash reference value.
    #[test]
    fn xxh64_seed_zero_reference() {
        assert_eq!(hash_bytes(b""), 0xef46_db37_51d8_e999);
    }

    #[test]
    fn block_index_uses_the_high_half() {
        let f = ParquetBloomFilter::with_num_bytes(32 * 10).unwrap();
        assert_eq!(f.block_index(0x0000_0000_ffff_ffff), 0);
        assert_eq!(f.block_index(0xffff_ffff_0000_0000), 9);
        assert_eq!(f.block_index(0x8000_0000_0000_0000), 5);
    }

    #[test]
    fn sizes_are_checked() {
        for bad in [0, 1, 31, 33, 100, MAX_NUM_BYTES + 32] {
            assert!(ParquetBloomFilter::with_num_bytes(bad).is_err(), "{bad}");
        }
        for bad in [0, 1, 31, 33, 100, 4095] {
            let r = ParquetBloomFilter::from_bitset(&alloc::vec![0u8; bad]);
            assert!(matches!(r, Err(Error::Corrupt { .. })), "{bad}");
        }
        assert!(writer_num_bytes(10, 0.0).is_err());
        assert!(writer_num_bytes(10, 1.0).is_err());
        assert!(writer_num_bytes(10, f64::NAN).is_err());
        assert_eq!(writer_num_bytes(u64::MAX, 1e-9).unwrap(), 128 << 20);
    }

    #[test]
    fn insert_reports_new_bits_and_union_adds() {
        let mut a = ParquetBloomFilter::with_num_bytes(64).unwrap();
        assert!(a.insert_hash(hash_i64(1)));
        assert!(!a.insert_hash(hash_i64(1)));
        assert_eq!(a.bits_set(), 8);
        let mut b = ParquetBloomFilter::with_num_bytes(64).unwrap();
        b.insert_hash(hash_i64(2));
        a.union(&b).unwrap();
        assert!(a.contains_hash(hash_i64(1)) && a.contains_hash(hash_i64(2)));
        let c = ParquetBloomFilter::with_num_bytes(96).unwrap();
        assert!(matches!(a.union(&c), Err(Error::ShapeMismatch { .. })));
    }

    #[test]
    fn model_at_the_spec_point() {
        // 11.54 bits per value: the spec's 0.5%, with the block-load spread 0.66%
        let blocks = 1_000_000u64;
        let n = (blocks as f64 * 256.0 / 11.54) as u64;
        let eps = expected_fpr(n, blocks);
        assert!((eps - 0.0066).abs() < 0.0002, "{eps}");
        assert_eq!(expected_fpr(0, 5), 0.0);
        assert!(expected_fpr(1 << 40, 2) > 0.999);
    }

    /// Positive whole numbers of 32-byte blocks up to 2³¹ − 32 bytes (the largest a Thrift
    /// i32 `numBytes` holds) are bitset sizes; 0, a part block, and one block past the limit
    /// are not. Checked on the rule itself: through the public API the largest accepted size
    /// would allocate and zero 2 GiB.
    #[test]
    fn bitset_sizes_run_from_one_block_to_two_to_the_31_minus_32_bytes() {
        assert_eq!(MAX_NUM_BYTES, (1 << 31) - 32);
        for good in [
            BLOCK_BYTES,
            2 * BLOCK_BYTES,
            MAX_NUM_BYTES - BLOCK_BYTES,
            MAX_NUM_BYTES,
        ] {
            assert_eq!(check_num_bytes(good), Ok(()), "{good}");
        }
        for bad in [
            0,
            1,
            BLOCK_BYTES - 1,
            BLOCK_BYTES + 1,
            MAX_NUM_BYTES + BLOCK_BYTES,
        ] {
            assert!(check_num_bytes(bad).is_err(), "{bad}");
        }
    }
}
