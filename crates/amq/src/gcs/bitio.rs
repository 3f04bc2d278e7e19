//! Word-at-a-time bit I/O, most significant bit first, and the Golomb-Rice code on top of it.
//!
//! The writer ORs each code (up to 64 bits) into a 64-bit accumulator and stores the
//! accumulator as one big-endian word each time it fills. The reader loads the 8 bytes at the
//! current bit position's byte, shifts out the bits already read, and reads a unary run with
//! one `leading_ones`: in the common case (a code of at most 57 bits) one load per code and no
//! branch that depends on the data. No loop touches single bits.
//!
//! Golomb-Rice with parameter P (BIP158 §"Golomb-Rice Coding"; NUT-23 draft): x is split into
//! q = x >> P and r = x mod 2^P; q is written in unary as q one bits ended by a zero bit, then r
//! in P bits, most significant first. The stream is padded with zero bits to a whole byte.

use crate::error::{Error, Result};
use alloc::vec::Vec;

/// Bits a reader's peek always holds (64 minus up to 7 already read from the first byte).
const PEEK: u32 = 57;

/// A bit writer: bits go out most significant first, bytes in order.
#[derive(Debug)]
pub(crate) struct BitWriter {
    /// Output bytes; `out[..pos]` are complete words, the rest is zero.
    out: Vec<u8>,
    pos: usize,
    /// Pending bits, left-aligned: the first pending bit is bit 63.
    acc: u64,
    /// Free bits left in `acc` (1..=64).
    free: u32,
    /// The size the output failed to grow to: the bytes are then lost and `finish` fails.
    failed: Option<usize>,
}

/// What the writer's allocations are for, in [`Error::OutOfMemory`].
const WHAT: &str = "the golomb-coded set";

impl BitWriter {
    /// A writer whose output starts with `capacity` bytes reserved.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] if they cannot be allocated.
    pub(crate) fn with_capacity(capacity: usize) -> Result<Self> {
        let len = capacity.max(16);
        let mut out = Vec::new();
        out.try_reserve_exact(len)
            .map_err(|_| Error::out_of_memory::<u8>(WHAT, len as u64))?;
        out.resize(len, 0);
        Ok(BitWriter {
            out,
            pos: 0,
            acc: 0,
            free: 64,
            failed: None,
        })
    }

    /// Writes the low `n` bits of `value` (1 ≤ n ≤ 64), most significant first. Bits of
    /// `value` above the low `n` must be zero.
    #[inline(always)]
    pub(crate) fn write(&mut self, value: u64, n: u32) {
        debug_assert!((1..=64).contains(&n) && (n == 64 || value >> n == 0));
        if n < self.free {
            self.free -= n;
            self.acc |= value << self.free;
        } else {
            // the word fills up: its last `free` bits are the top of the value
            let rest = n - self.free; // 0..=63
            self.acc |= value >> rest;
            self.flush_word();
            self.free = 64 - rest;
            // value << (64 − rest), in two steps so that rest = 0 gives 0
            self.acc = (value << 1) << (63 - rest);
        }
    }

    #[inline(always)]
    fn flush_word(&mut self) {
        if self.pos + 8 > self.out.len() {
            self.grow();
        }
        self.out[self.pos..self.pos + 8].copy_from_slice(&self.acc.to_be_bytes());
        self.pos += 8;
    }

    /// Doubles the output. If that cannot be allocated, the writer notes it and goes on
    /// writing over the start of the output it has (so nothing aborts), and `finish` fails.
    #[cold]
    fn grow(&mut self) {
        let len = self.out.len().saturating_mul(2).max(self.pos + 16);
        if self.out.try_reserve_exact(len - self.out.len()).is_ok() {
            self.out.resize(len, 0);
        } else {
            self.failed = Some(len);
            self.pos = 0;
        }
    }

    /// Writes x in Golomb-Rice code with parameter `p` (≤ 32): `x >> p` one bits, a zero bit,
    /// then the low `p` bits of x.
    #[inline(always)]
    pub(crate) fn golomb(&mut self, x: u64, p: u32) {
        let q = x >> p;
        let r = x & low_mask(p);
        if q + 1 + u64::from(p) <= 64 {
            // q ones, a zero, p remainder bits in one write; q ≤ 63
            let ones = (u64::MAX >> (63 - q as u32) >> 1) << (p + 1);
            self.write(ones | r, q as u32 + 1 + p);
        } else {
            self.golomb_long(q, r, p);
        }
    }

    #[cold]
    fn golomb_long(&mut self, mut q: u64, r: u64, p: u32) {
        while q > 0 {
            let k = q.min(64) as u32;
            self.write(u64::MAX >> (64 - k), k);
            q -= u64::from(k);
        }
        // the zero bit and the remainder: p + 1 ≤ 33 bits
        self.write(r, p + 1);
    }

    /// The number of bits written so far.
    #[cfg(test)]
    pub(crate) fn bit_len(&self) -> u64 {
        self.pos as u64 * 8 + u64::from(64 - self.free)
    }

    /// Pads with zero bits to a whole byte and returns the bytes.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] if the output could not grow on the way.
    pub(crate) fn finish(mut self) -> Result<Vec<u8>> {
        let used = 64 - self.free;
        let bytes = used.div_ceil(8) as usize;
        if self.pos + 8 > self.out.len() {
            self.grow();
        }
        if let Some(len) = self.failed {
            return Err(Error::out_of_memory::<u8>(WHAT, len as u64));
        }
        self.out[self.pos..self.pos + 8].copy_from_slice(&self.acc.to_be_bytes());
        self.out.truncate(self.pos + bytes);
        Ok(self.out)
    }
}

/// The low `p` bits set (p ≤ 64).
#[inline(always)]
pub(crate) fn low_mask(p: u32) -> u64 {
    if p == 0 {
        0
    } else {
        u64::MAX >> (64 - p)
    }
}

/// A bit reader over bytes, most significant bit first.
#[derive(Debug, Clone)]
pub(crate) struct BitReader<'a> {
    data: &'a [u8],
    /// The next bit to read, counted from the start of `data`.
    pos: u64,
    /// `8 · data.len()`.
    bits: u64,
}

impl<'a> BitReader<'a> {
    /// A reader at the start of `data`.
    pub(crate) fn new(data: &'a [u8]) -> Self {
        BitReader {
            data,
            pos: 0,
            bits: data.len() as u64 * 8,
        }
    }

    /// A reader at bit `bit_offset` of `data`.
    ///
    /// # Errors
    /// [`Error::Truncated`] if the offset is past the end of `data`.
    pub(crate) fn at(data: &'a [u8], bit_offset: u64) -> Result<Self> {
        let mut r = Self::new(data);
        if bit_offset > r.bits {
            return Err(Error::Truncated {
                what: "gcs bit offset",
                offset: data.len(),
                needed: bit_offset.div_ceil(8) as usize - data.len(),
                available: 0,
            });
        }
        r.pos = bit_offset;
        Ok(r)
    }

    /// The number of bits read so far, counted from the start of `data`.
    #[inline]
    pub(crate) fn bit_position(&self) -> u64 {
        self.pos
    }

    /// The next 64 bits from `pos`, left-aligned; at least [`PEEK`] of them are the stream's
    /// (zeros past its end).
    #[inline(always)]
    fn peek(&self) -> u64 {
        let byte = (self.pos >> 3) as usize;
        let word = match self.data.get(byte..byte + 8) {
            Some(chunk) => {
                let mut w = [0u8; 8];
                w.copy_from_slice(chunk);
                u64::from_be_bytes(w)
            }
            None => self.peek_tail(byte),
        };
        word << (self.pos & 7)
    }

    #[cold]
    fn peek_tail(&self, byte: usize) -> u64 {
        let mut w = [0u8; 8];
        let rest = self.data.get(byte..).unwrap_or(&[]);
        w[..rest.len()].copy_from_slice(rest);
        u64::from_be_bytes(w)
    }

    /// Reads one Golomb-Rice coded value with parameter `p` (≤ 32).
    ///
    /// # Errors
    /// [`Error::Truncated`] if the data ends inside the code; [`Error::Corrupt`] if the unary
    /// quotient is so long that the value overflows 64 bits.
    #[inline(always)]
    pub(crate) fn golomb(&mut self, p: u32) -> Result<u64> {
        let w = self.peek();
        let ones = w.leading_ones();
        let len = ones + 1 + p;
        if len <= PEEK {
            let end = self.pos + u64::from(len);
            if end <= self.bits {
                // ones + 1 ≤ 57, so the shift is in range; p = 0 reads no remainder
                let r = ((w << (ones + 1)) >> 1 >> (63 - p)) & low_mask(p);
                self.pos = end;
                return Ok((u64::from(ones) << p) | r);
            }
        }
        self.golomb_slow(p)
    }

    #[cold]
    fn golomb_slow(&mut self, p: u32) -> Result<u64> {
        let start = self.pos;
        let mut q: u64 = 0;
        loop {
            let left = self.bits - self.pos;
            if left == 0 {
                // the unary quotient has not ended: the code needs at least its closing zero
                // and the p remainder bits past the end
                return Err(self.truncated(start, self.bits + 1 + u64::from(p)));
            }
            let valid = left.min(u64::from(PEEK)) as u32;
            let ones = self.peek().leading_ones().min(valid);
            if ones < valid {
                q += u64::from(ones);
                self.pos += u64::from(ones) + 1;
                break;
            }
            q += u64::from(valid);
            self.pos += u64::from(valid);
        }
        if q > u64::MAX >> p {
            return Err(Error::corrupt(
                (start / 8) as usize,
                alloc::format!("golomb-rice quotient {q} overflows 64 bits"),
            ));
        }
        if self.bits - self.pos < u64::from(p) {
            return Err(self.truncated(start, self.pos + u64::from(p)));
        }
        let r = if p == 0 { 0 } else { self.peek() >> (64 - p) };
        self.pos += u64::from(p);
        Ok((q << p) | r)
    }

    /// The error for a code that starts at bit `start` and would end at bit `end`, past the
    /// end of the data: the bytes it needs from its first byte on (at least), and the bytes
    /// left there.
    #[cold]
    fn truncated(&self, start: u64, end: u64) -> Error {
        let offset = (start / 8) as usize;
        Error::Truncated {
            what: "golomb-rice code",
            offset,
            needed: (end.div_ceil(8) as usize).saturating_sub(offset),
            available: self.data.len() - offset,
        }
    }

    /// `true` if every bit from here to the end of the data is zero (the padding).
    pub(crate) fn rest_is_zero(&self) -> bool {
        let byte = (self.pos / 8) as usize;
        let Some(&first) = self.data.get(byte) else {
            return true;
        };
        let first_rest = first & (0xFFu8 >> (self.pos % 8));
        first_rest == 0 && self.data[byte + 1..].iter().all(|&b| b == 0)
    }
}

/// The number of Golomb-Rice codes with parameter `p` (≤ 32) a reader finds in `data` when it
/// reads codes while at least `p + 1` bits remain unread: N for a set whose N is not sent
/// beside it (revision A of the Cashu compact state filters, cashubtc/nuts PR #433). Padding
/// of fewer than `p + 1` bits never completes a code, so it is not counted.
///
/// # Errors
/// As [`BitReader::golomb`]: a code that starts but does not end inside `data`, or a quotient
/// that overflows 64 bits.
#[cfg_attr(not(feature = "cashu-state"), allow(dead_code))]
pub(crate) fn count_codes(data: &[u8], p: u32) -> Result<u64> {
    let mut r = BitReader::new(data);
    let mut n = 0;
    while r.bits - r.pos > u64::from(p) {
        r.golomb(p)?;
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Default for BitWriter {
        fn default() -> Self {
            Self::with_capacity(0).unwrap()
        }
    }

    #[test]
    fn writer_packs_msb_first_and_pads() {
        let mut w = BitWriter::default();
        w.write(0b1, 1);
        w.write(0b01, 2);
        assert_eq!(w.bit_len(), 3);
        assert_eq!(w.finish().unwrap(), vec![0b1010_0000]);
    }

    #[test]
    fn writer_crosses_words() {
        let mut w = BitWriter::default();
        w.write(0x7F, 7);
        w.write(u64::MAX >> 8, 56);
        w.write(0xFF, 8);
        w.write(0, 1);
        assert_eq!(w.bit_len(), 72);
        let bytes = w.finish().unwrap();
        assert_eq!(bytes.len(), 9);
        assert_eq!(bytes[..8], [0xFF; 8]);
        assert_eq!(bytes[8], 0xFE);
        // a full 64-bit write at every offset
        for lead in 0..64u32 {
            let mut w = BitWriter::default();
            if lead > 0 {
                w.write(0, lead);
            }
            w.write(0x8000_0000_0000_0001, 64);
            let bytes = w.finish().unwrap();
            let mut r = BitReader::at(&bytes, u64::from(lead)).unwrap();
            assert_eq!(r.peek() >> 63, 1, "lead {lead}");
            assert_eq!(bytes.len() as u32, (lead + 64).div_ceil(8));
            r.pos += 63;
            assert_eq!(r.peek() >> 63, 1, "lead {lead}");
        }
    }

    #[test]
    fn golomb_examples() {
        // x = 5, p = 2: q = 1 -> "10", r = 01 -> "1001"
        let mut w = BitWriter::default();
        w.golomb(5, 2);
        assert_eq!(w.finish().unwrap(), vec![0b1001_0000]);
        // a long quotient crosses words and the 32-bit chunks
        let mut w = BitWriter::default();
        w.golomb((100 << 3) | 5, 3);
        let bytes = w.finish().unwrap();
        let mut r = BitReader::at(&bytes, 0).unwrap();
        assert_eq!(r.golomb(3).unwrap(), (100 << 3) | 5);
        assert!(r.rest_is_zero());
    }

    #[test]
    fn reader_reports_truncation() {
        let truncated = |offset, needed, available| Error::Truncated {
            what: "golomb-rice code",
            offset,
            needed,
            available,
        };
        // the unary quotient runs to the end: its closing 0 and 4 remainder bits are missing
        let bytes = [0xFFu8; 3];
        let mut r = BitReader::at(&bytes, 0).unwrap();
        assert_eq!(r.golomb(4), Err(truncated(0, 4, 3)));
        // the quotient ends, 1 of the 4 remainder bits is there
        let bytes = [0b1111_1110u8];
        let mut r = BitReader::at(&bytes, 0).unwrap();
        assert_eq!(r.golomb(4), Err(truncated(0, 2, 1)));
        // a code starting in the second byte counts from there
        let bytes = [0x00, 0b0100_0000];
        let mut r = BitReader::at(&bytes, 8).unwrap();
        assert_eq!(r.golomb(2), Ok(2));
        assert_eq!(r.golomb(6), Err(truncated(1, 2, 1)));
        let e = BitReader::at(&bytes, 17).unwrap_err();
        assert!(e.to_string().contains("needs 1 bytes, 0 left"), "{e}");
    }

    #[test]
    fn count_codes_stops_before_p_plus_one_bits() {
        // three codes of p = 7 (8, 9 and 8 bits), then 7 bits of padding: 32 bits
        let mut w = BitWriter::default();
        w.golomb(5, 7);
        w.golomb(200, 7);
        w.golomb(0, 7);
        let bytes = w.finish().unwrap();
        assert_eq!(bytes.len(), 4);
        assert_eq!(count_codes(&bytes, 7).unwrap(), 3);
        assert_eq!(count_codes(&[], 7).unwrap(), 0);
        // 8 zero bits hold one code of p = 7 (a zero gap); 7 bits do not hold one of p = 7
        assert_eq!(count_codes(&[0], 7).unwrap(), 1);
        assert_eq!(count_codes(&[0], 8).unwrap(), 0);
        // a unary run that leaves no room for the remainder is an error
        assert!(count_codes(&[0xFF, 0xFE], 7).is_err());
    }

    #[test]
    fn reader_starts_mid_byte() {
        let mut w = BitWriter::default();
        w.write(0b101, 3);
        w.golomb(1234, 5);
        w.golomb(7, 5);
        let bytes = w.finish().unwrap();
        let mut r = BitReader::at(&bytes, 3).unwrap();
        assert_eq!(r.golomb(5).unwrap(), 1234);
        assert_eq!(r.golomb(5).unwrap(), 7);
        assert!(r.rest_is_zero());
    }

    /// A reader may start exactly at the end of the data (nothing left to read) but not past
    /// it; the error for an offset past the end counts the bytes it needs beyond the data.
    #[test]
    fn reader_at_the_end_and_past_it() {
        let r = BitReader::at(&[0xA5], 8).unwrap();
        assert_eq!(r.bit_position(), 8);
        assert!(r.rest_is_zero());
        assert_eq!(
            BitReader::at(&[0xA5], 17).unwrap_err(),
            Error::Truncated {
                what: "gcs bit offset",
                offset: 1,
                needed: 2,
                available: 0,
            }
        );
    }

    /// `rest_is_zero` looks at every bit after the position: the unread bits of the current
    /// byte and every later byte (a set's validation never has later bytes, so only this test
    /// reaches them).
    #[test]
    fn rest_is_zero_checks_the_current_byte_and_every_later_byte() {
        let rest_is_zero = |data: &[u8], bit| BitReader::at(data, bit).unwrap().rest_is_zero();
        assert!(rest_is_zero(&[0b1110_0000, 0, 0], 3));
        assert!(!rest_is_zero(&[0b1111_0000, 0, 0], 3));
        assert!(!rest_is_zero(&[0b1110_0000, 0, 1], 3));
        assert!(!rest_is_zero(&[0b1110_0000, 0x80, 0], 3));
        assert!(rest_is_zero(&[0xFF, 0, 0], 8));
        assert!(!rest_is_zero(&[0xFF, 0, 0x10], 8));
    }
}
