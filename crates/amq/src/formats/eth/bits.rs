//! [`InputBits`]: the three bits one input sets, and [`scan`] over many blooms with them.

use super::{keccak256, LogsBloom, LOGS_BLOOM_BYTES, LOGS_BLOOM_K};

/// The three bits one input sets in a logsBloom, computed once from its Keccak-256 hash.
///
/// Bit i (i = 0, 1, 2) is `b = ((h[2i] << 8) | h[2i+1]) & 0x7ff`; it lives in byte
/// `255 − b/8` of the bloom as `1 << (b % 8)` (Yellow Paper §4.3.1, M3:2048). Only the first
/// six bytes of the hash matter. Keep one `InputBits` per query input and ask many blooms
/// with [`LogsBloom::contains_bits`]: the input is hashed once and each bloom is read at
/// three bytes.
///
/// # Example
/// ```
/// use amq::formats::eth::{keccak256, InputBits};
/// // the seed's address 0x7a01…f742 hashes to 62d0 b119 357c …: the low 11 bits of each pair
/// let address = amq::formats::eth::hex_array::<20>("0x7a013b21bf13f50fdb9871b3016fd78432f0f742")?;
/// let bits = InputBits::from_input(&address);
/// assert_eq!(bits, InputBits::from_hash(&keccak256(&address)));
/// assert_eq!(bits.bits(), [0x2d0, 0x119, 0x57c]);
/// assert_eq!(bits.byte_masks(), [(165, 1), (220, 2), (80, 16)]);
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct InputBits {
    /// Byte index (255 − b/8) of each bit.
    pub(super) byte: [u8; LOGS_BLOOM_K],
    /// Mask (1 << (b % 8)) of each bit.
    pub(super) mask: [u8; LOGS_BLOOM_K],
}

impl InputBits {
    /// The bits of an input whose Keccak-256 hash is `hash`.
    #[inline]
    pub fn from_hash(hash: &[u8; 32]) -> Self {
        let mut byte = [0u8; LOGS_BLOOM_K];
        let mut mask = [0u8; LOGS_BLOOM_K];
        for i in 0..LOGS_BLOOM_K {
            let b = (u16::from_be_bytes([hash[2 * i], hash[2 * i + 1]]) & 0x7ff) as usize;
            byte[i] = (LOGS_BLOOM_BYTES - 1 - b / 8) as u8;
            mask[i] = 1 << (b % 8);
        }
        InputBits { byte, mask }
    }

    /// The bits of the raw input `bytes` (hashed with Keccak-256).
    #[inline]
    pub fn from_input(bytes: &[u8]) -> Self {
        Self::from_hash(&keccak256(bytes))
    }

    /// The three bit positions b, each in `0..2048`, in the order the hash gives them (two or
    /// three may be equal).
    pub fn bits(self) -> [u16; LOGS_BLOOM_K] {
        core::array::from_fn(|i| {
            (LOGS_BLOOM_BYTES - 1 - self.byte[i] as usize) as u16 * 8
                + self.mask[i].trailing_zeros() as u16
        })
    }

    /// The three (byte index, mask) pairs, as geth's `bloomValues` returns them.
    pub fn byte_masks(self) -> [(usize, u8); LOGS_BLOOM_K] {
        core::array::from_fn(|i| (self.byte[i] as usize, self.mask[i]))
    }
}

/// The positions (indices into `blooms`) of the blooms that may hold every input, in order.
///
/// Each input is hashed once, by the caller, into [`InputBits`]; each bloom is then read at
/// the three bytes of each input and nowhere else. The three tests are combined without
/// branches (a random bloom passes each with probability equal to its fill, so a branch per
/// test would be mispredicted often); only "this bloom matches" branches. With no inputs,
/// every bloom matches.
///
/// # Example
/// ```
/// use amq::formats::eth::{scan, InputBits, LogsBloom};
/// let mut blooms = vec![LogsBloom::new(); 4];
/// blooms[2].accrue(b"transfer");
/// let query = [InputBits::from_input(b"transfer")];
/// assert_eq!(scan(&blooms, &query).collect::<Vec<_>>(), [2]);
/// ```
pub fn scan<'a>(
    blooms: &'a [LogsBloom],
    inputs: &'a [InputBits],
) -> impl Iterator<Item = usize> + 'a {
    blooms
        .iter()
        .enumerate()
        .filter(move |(_, b)| inputs.iter().fold(true, |ok, i| ok & b.holds_bits(*i)))
        .map(|(j, _)| j)
}
