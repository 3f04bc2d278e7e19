//! Ethereum's `logsBloom`: the 2048-bit Bloom filter of a receipt's or a block's logs.
//!
//! The Yellow Paper (§4.3.1, "Transaction Receipt", equations M and M3:2048) defines it: a
//! log's address and each of its topics are accrued into a 256-byte filter; a log's `data`
//! is never hashed. For each input x, let h = Keccak-256(x). Each of the first three pairs of
//! bytes of h, read as a big-endian 16-bit number, gives a bit position
//! `b = ((h[2i] << 8) | h[2i+1]) & 0x7ff` (its low 11 bits, so 0 ≤ b < 2048), and bit b is
//! set. The filter is the 2048-bit number written big-endian: bit b lives in byte
//! `255 − b/8` as `1 << (b % 8)`. So m = 2048 bits, k = 3 hash functions (taken from one
//! Keccak-256), and a block's logsBloom is the OR of its receipts' blooms. This is what
//! geth's `core/types/bloom9.go` (`bloomValues`) computes; the golden tests pin it against
//! geth's own test values and real receipts.
//!
//! * [`LogsBloom`]: the filter: accrue raw bytes, a precomputed Keccak-256 hash or a whole
//!   log; ask about raw bytes or a hash; OR two blooms; hex (`0x` + 512 lower-case digits) and
//!   serde as that string.
//! * [`InputBits`]: the three bits of one input, computed once, for scanning many blooms
//!   ([`scan`]).
//! * [`LogsBloomIndex`]: a bit-sliced index over a run of blocks' blooms, so that a query
//!   reads 3 bitsets instead of every bloom.
//! * [`Entries`], [`Entry`], [`Receipt`], [`Block`], [`Log`]: receipts, blocks and logs as
//!   the JSON-RPC API returns them (`eth_getTransactionReceipt`, `eth_getBlockReceipts`,
//!   `eth_getBlockByNumber`, `eth_getLogs`), for serde.
//!
//! ```
//! use amq::formats::eth::LogsBloom;
//!
//! // mainnet tx 0xa6af05e2…9459: one log with an address and three topics
//! let address = amq::formats::eth::hex_array::<20>("0x7a013b21bf13f50fdb9871b3016fd78432f0f742")?;
//! let topics = [
//!     "0x17307eab39ab6107e8899845ad3d59bd9653f200f220920489ca2b5937696c31",
//!     "0x00000000000000000000000045a0cff92e02397006e882b88ed860edef8c3683",
//!     "0x0000000000000000000000001e0049783f008a0085193e00003d00cd54003c71",
//! ]
//! .map(|t| amq::formats::eth::hex_array::<32>(t).unwrap());
//! let mut bloom = LogsBloom::new();
//! bloom.accrue_log(&address, &topics);
//! assert_eq!(bloom.bits_set(), 12);
//! assert!(bloom.contains(&address));
//! assert!(!bloom.contains(b"an address that is not there"));
//! assert!(bloom.to_hex().starts_with("0x0000"));
//! # Ok::<(), amq::Error>(())
//! ```

mod bits;
mod bloom;
mod index;
mod json;
mod verify;

pub use bits::{scan, InputBits};
pub use bloom::LogsBloom;
pub use index::{Candidates, LogsBloomIndex, INDEX_MAGIC, INDEX_VERSION};
pub use json::{Block, Entries, Entry, Log, Receipt};
pub use verify::{Check, NOTHING_TO_VERIFY};

use crate::error::{Error, Result};

/// Size of a logsBloom in bytes.
pub const LOGS_BLOOM_BYTES: usize = 256;
/// Size of a logsBloom in bits, m.
pub const LOGS_BLOOM_BITS: usize = 2048;
/// Bits set per input, k.
pub const LOGS_BLOOM_K: usize = 3;

/// Keccak-256 (the original Keccak padding, as Ethereum uses it; not FIPS-202 SHA3-256).
///
/// # Example
/// ```
/// // Keccak-256 of the empty string
/// let h = amq::formats::eth::keccak256(b"");
/// assert_eq!(h[..4], [0xc5, 0xd2, 0x46, 0x01]);
/// ```
#[inline]
pub fn keccak256(bytes: &[u8]) -> [u8; 32] {
    use sha3::Digest;
    sha3::Keccak256::digest(bytes).into()
}

/// Decodes hex (an optional `0x`/`0X`, either case) into exactly `N` bytes.
///
/// # Errors
/// [`Error::Parse`] if the text is not hex or does not hold exactly `N` bytes.
///
/// # Panics
/// Never, for any input.
///
/// # Example
/// ```
/// let a = amq::formats::eth::hex_array::<2>("0xAbCd")?;
/// assert_eq!(a, [0xab, 0xcd]);
/// assert!(amq::formats::eth::hex_array::<2>("abcdef").is_err());
/// # Ok::<(), amq::Error>(())
/// ```
pub fn hex_array<const N: usize>(text: &str) -> Result<[u8; N]> {
    decode_hex(text, "hex", |digits| {
        alloc::format!("expected {} hex digits ({N} bytes), got {digits}", 2 * N)
    })
}

/// `text` without its optional `0x`/`0X`, decoded into exactly `N` bytes: [`Error::Parse`]
/// about `what`, with `wrong_length(digits)` as the reason when there are not 2N digits.
fn decode_hex<const N: usize>(
    text: &str,
    what: &'static str,
    wrong_length: impl FnOnce(usize) -> alloc::string::String,
) -> Result<[u8; N]> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if digits.len() != 2 * N {
        return Err(Error::parse(what, wrong_length(digits.len())));
    }
    let mut out = [0u8; N];
    hex::decode_to_slice(digits, &mut out)
        .map_err(|e| Error::parse(what, alloc::format!("{e}")))?;
    Ok(out)
}
