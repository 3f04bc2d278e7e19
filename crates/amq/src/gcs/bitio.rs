//! Word-at-a-time bit I/O, most significant bit first, and the Golomb-Rice code on top of it.
//!
//! The writer collects bits in a 64-bit accumulator and appends whole big-endian words; the
//! reader refills a 64-bit buffer with one unaligned big-endian load (8 bytes at a time) and
//! reads a unary run with one `leading_ones`. Neither touches single bits in a loop.
//!
//! Golomb-Rice with parameter P (BIP158 §"Golomb-Rice Coding"; NUT-23 draft): x is split into
//! q = x >> P and r = x mod 2^P; q is written in unary as q one bits ended by a zero bit, then r
//! in P bits, most significant first. The stream is padded with zero bits to a whole byte.

use crate::error::{Error, Result};
use alloc::vec::Vec;

/// A bit writer: bits go out most significant first, bytes in order.
#[derive(Debug, Default)]
pub(crate) struct BitWriter {
    out: Vec<u8>,
    /// Pending bits, left-aligned: the first pending bit is bit 63.
    acc: u64,
    /// How many bits of `acc` are pending (0..=63).
    used: u32,
}

impl BitWriter {
    /// A writer whose output starts with `capacity` bytes reserved.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        BitWriter {
            out: Vec::with_capacity(capacity),
            acc: 0,
            used: 0,
        }
    }

    /// Writes the low `n` bits of `value` (1 ≤ n ≤ 64), most significant first.
    /// Bits of `value` above the low `n` must be zero.
    #[inline(always)]
    pub(crate) fn write(&mut self, value: u64, n: u32) {
        debug_assert!((1..=64).contains(&n));
        debug_assert!(n == 64 || value >> n == 0);
        let free = 64 - self.used;
        if n < free {
            self.acc |= value << (free - n);
            self.used += n;
        } else {
            let rest = n - free;
            // the top `free` bits of the n-bit value complete the word
            self.acc |= if rest == 64 { 0 } else { value >> rest };
            self.out.extend_from_slice(&self.acc.to_be_bytes());
            self.acc = if rest == 0 { 0 } else { value << (64 - rest) };
            self.used = rest;
        }
    }

    /// Writes x in Golomb-Rice code with parameter `p` (≤ 32): `x >> p` one bits, a zero bit,
    /// then the low `p` bits of x.
    #[inline(always)]
    pub(crate) fn golomb(&mut self, x: u64, p: u32) {
        let mut q = x >> p;
        let r = x & low_mask(p);
        if q + 1 + u64::from(p) <= 64 {
            // q ones, a zero, p remainder bits: one write of q + 1 + p ≤ 64 bits
            let ones = if q == 0 { 0 } else { (u64::MAX >> (64 - q)) << (p + 1) };
            self.write(ones | r, q as u32 + 1 + p);
            return;
        }
        while q >= 32 {
            self.write(0xFFFF_FFFF, 32);
            q -= 32;
        }
        // q < 32 and p ≤ 32: q + 1 + p ≤ 64
        let ones = if q == 0 { 0 } else { (u64::MAX >> (64 - q)) << (p + 1) };
        self.write(ones | r, q as u32 + 1 + p);
    }

    /// The number of bits written so far.
    #[cfg(test)]
    pub(crate) fn bit_len(&self) -> u64 {
        self.out.len() as u64 * 8 + u64::from(self.used)
    }

    /// Pads with zero bits to a whole byte and returns the bytes.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        let bytes = self.used.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.acc.to_be_bytes()[..bytes]);
        self.out
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
    /// The next byte to load into `buf`.
    pos: usize,
    /// Buffered bits, left-aligned. Bits below the first `avail` are zero or the stream's own
    /// next bits (a refill may load a partial byte ahead; loading it again ORs the same bits).
    buf: u64,
    /// How many bits of `buf` are valid (0..=64).
    avail: u32,
}

impl<'a> BitReader<'a> {
    /// A reader at the start of `data`.
    pub(crate) fn new(data: &'a [u8]) -> Self {
        BitReader {
            data,
            pos: 0,
            buf: 0,
            avail: 0,
        }
    }

    /// A reader at bit `bit_offset` of `data`.
    ///
    /// # Errors
    /// [`Error::Truncated`] if the offset is past the end of `data`.
    pub(crate) fn at(data: &'a [u8], bit_offset: u64) -> Result<Self> {
        let byte = (bit_offset / 8) as usize;
        if bit_offset > data.len() as u64 * 8 {
            return Err(Error::Truncated {
                what: "gcs bit offset",
                offset: data.len(),
                needed: byte.saturating_sub(data.len()),
                available: 0,
            });
        }
        let mut r = BitReader {
            data,
            pos: byte,
            buf: 0,
            avail: 0,
        };
        let skip = (bit_offset % 8) as u32;
        if skip != 0 {
            r.refill();
            r.consume(skip);
        }
        Ok(r)
    }

    /// The number of bits read so far, counted from the start of `data`.
    #[inline]
    pub(crate) fn bit_position(&self) -> u64 {
        self.pos as u64 * 8 - u64::from(self.avail)
    }

    /// Loads bytes until at least 57 bits are buffered or the data ends.
    #[inline(always)]
    fn refill(&mut self) {
        if let Some(chunk) = self.data.get(self.pos..self.pos + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            let w = u64::from_be_bytes(word);
            // avail ≤ 56 here (callers refill only below 57), so the shift is in range
            self.buf |= w >> self.avail;
            let bytes = (64 - self.avail) >> 3;
            self.pos += bytes as usize;
            self.avail += bytes << 3;
        } else {
            while self.avail <= 56 {
                let Some(&b) = self.data.get(self.pos) else {
                    break;
                };
                self.buf |= u64::from(b) << (56 - self.avail);
                self.pos += 1;
                self.avail += 8;
            }
        }
    }

    #[inline(always)]
    fn consume(&mut self, n: u32) {
        debug_assert!(n <= self.avail);
        self.buf = if n >= 64 { 0 } else { self.buf << n };
        self.avail -= n;
    }

    /// Reads one Golomb-Rice coded value with parameter `p` (≤ 32).
    ///
    /// # Errors
    /// [`Error::Truncated`] if the data ends inside the code; [`Error::Corrupt`] if the unary
    /// quotient is so long that the value overflows 64 bits.
    #[inline(always)]
    pub(crate) fn golomb(&mut self, p: u32) -> Result<u64> {
        if self.avail < 57 {
            self.refill();
        }
        let ones = self.buf.leading_ones();
        // fast path: the whole code is buffered
        if ones + 1 + p <= self.avail {
            let rest = self.buf << (ones + 1);
            let r = if p == 0 { 0 } else { rest >> (64 - p) };
            self.consume(ones + 1 + p);
            return Ok((u64::from(ones) << p) | r);
        }
        self.golomb_slow(p)
    }

    #[cold]
    fn golomb_slow(&mut self, p: u32) -> Result<u64> {
        let start = self.bit_position();
        let mut q: u64 = 0;
        loop {
            if self.avail < 57 {
                self.refill();
            }
            if self.avail == 0 {
                return Err(self.truncated(start));
            }
            let ones = self.buf.leading_ones();
            if ones < self.avail {
                q += u64::from(ones);
                self.consume(ones + 1);
                break;
            }
            q += u64::from(self.avail);
            self.consume(self.avail);
        }
        if q > u64::MAX >> p {
            return Err(Error::corrupt(
                (start / 8) as usize,
                alloc::format!("golomb-rice quotient {q} overflows 64 bits"),
            ));
        }
        if self.avail < p {
            self.refill();
            if self.avail < p {
                return Err(self.truncated(start));
            }
        }
        let r = if p == 0 { 0 } else { self.buf >> (64 - p) };
        self.consume(p);
        Ok((q << p) | r)
    }

    fn truncated(&self, start_bit: u64) -> Error {
        Error::Truncated {
            what: "golomb-rice code",
            offset: (start_bit / 8) as usize,
            needed: 1,
            available: 0,
        }
    }

    /// `true` if every bit from here to the end of the data is zero (the padding).
    pub(crate) fn rest_is_zero(&self) -> bool {
        let buffered_zero = if self.avail == 0 {
            true
        } else {
            self.buf >> (64 - self.avail) == 0
        };
        buffered_zero && self.data[self.pos..].iter().all(|&b| b == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_packs_msb_first_and_pads() {
        let mut w = BitWriter::default();
        w.write(0b1, 1);
        w.write(0b01, 2);
        assert_eq!(w.bit_len(), 3);
        assert_eq!(w.finish(), vec![0b1010_0000]);
    }

    #[test]
    fn writer_crosses_words() {
        let mut w = BitWriter::default();
        w.write(0x7F, 7);
        w.write(u64::MAX, 64);
        w.write(0, 1);
        let bytes = w.finish();
        assert_eq!(bytes.len(), 9);
        assert_eq!(bytes[..8], [0xFF; 8]);
        assert_eq!(bytes[8], 0xFE);
    }

    #[test]
    fn golomb_examples() {
        // x = 5, p = 2: q = 1 -> "10", r = 01 -> "1001"
        let mut w = BitWriter::default();
        w.golomb(5, 2);
        assert_eq!(w.finish(), vec![0b1001_0000]);
        // a long quotient crosses words and the 32-bit chunks
        let mut w = BitWriter::default();
        w.golomb((100 << 3) | 5, 3);
        let bytes = w.finish();
        let mut r = BitReader::at(&bytes, 0).unwrap();
        assert_eq!(r.golomb(3).unwrap(), (100 << 3) | 5);
        assert!(r.rest_is_zero());
    }

    #[test]
    fn reader_reports_truncation() {
        let bytes = [0xFFu8; 3];
        let mut r = BitReader::at(&bytes, 0).unwrap();
        assert!(matches!(r.golomb(4), Err(Error::Truncated { .. })));
        let bytes = [0b1111_1110u8];
        let mut r = BitReader::at(&bytes, 0).unwrap();
        assert!(matches!(r.golomb(4), Err(Error::Truncated { .. })));
        assert!(BitReader::at(&bytes, 9).is_err());
    }

    #[test]
    fn reader_starts_mid_byte() {
        let mut w = BitWriter::default();
        w.write(0b101, 3);
        w.golomb(1234, 5);
        w.golomb(7, 5);
        let bytes = w.finish();
        let mut r = BitReader::at(&bytes, 3).unwrap();
        assert_eq!(r.golomb(5).unwrap(), 1234);
        assert_eq!(r.golomb(5).unwrap(), 7);
        assert!(r.rest_is_zero());
    }
}
