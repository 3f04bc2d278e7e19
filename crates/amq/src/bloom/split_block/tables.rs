//! Operations on whole tables of blocks of eight lanes, shared by every layout that keeps one:
//! the blocked filter and the split block kind (`Block512`, eight 64-bit lanes) and Parquet's
//! filter (`Block256`, eight 32-bit lanes). Bitwise, so the lane width only matters for the
//! rate.

use super::kernel::{Block256, Block512};
use crate::error::Result;
use alloc::vec::Vec;

/// A block of eight lanes.
pub(crate) trait Lanes: Copy + Default {
    /// Bits per lane.
    const LANE_BITS: u32;
    /// Appends the eight lanes, each little-endian.
    fn write_le(&self, out: &mut Vec<u8>);
    /// Sets the eight lanes from `8 · LANE_BITS / 8` little-endian bytes.
    fn read_le(&mut self, bytes: &[u8]);
    /// `self |= other`, lane by lane.
    fn or(&mut self, other: &Self);
    /// `self &= other`, lane by lane.
    fn and(&mut self, other: &Self);
    /// The bits set in each lane.
    fn ones(&self) -> [u32; 8];
}

impl Lanes for Block512 {
    const LANE_BITS: u32 = 64;
    fn write_le(&self, out: &mut Vec<u8>) {
        self.0
            .iter()
            .for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
    }
    fn read_le(&mut self, bytes: &[u8]) {
        for (w, b) in self.0.iter_mut().zip(bytes.chunks_exact(8)) {
            *w = u64::from_le_bytes(b.try_into().expect("chunks_exact(8)"));
        }
    }
    fn or(&mut self, other: &Self) {
        self.0.iter_mut().zip(other.0).for_each(|(x, y)| *x |= y);
    }
    fn and(&mut self, other: &Self) {
        self.0.iter_mut().zip(other.0).for_each(|(x, y)| *x &= y);
    }
    fn ones(&self) -> [u32; 8] {
        self.0.map(u64::count_ones)
    }
}

impl Lanes for Block256 {
    const LANE_BITS: u32 = 32;
    fn write_le(&self, out: &mut Vec<u8>) {
        self.0
            .iter()
            .for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
    }
    fn read_le(&mut self, bytes: &[u8]) {
        for (w, b) in self.0.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes(b.try_into().expect("chunks_exact(4)"));
        }
    }
    fn or(&mut self, other: &Self) {
        self.0.iter_mut().zip(other.0).for_each(|(x, y)| *x |= y);
    }
    fn and(&mut self, other: &Self) {
        self.0.iter_mut().zip(other.0).for_each(|(x, y)| *x &= y);
    }
    fn ones(&self) -> [u32; 8] {
        self.0.map(u32::count_ones)
    }
}

/// Sets every bit of `other` in `table` (the tables have the same number of blocks).
pub(crate) fn union<B: Lanes>(table: &mut [B], other: &[B]) {
    table.iter_mut().zip(other).for_each(|(a, b)| a.or(b));
}

/// Keeps only the bits set in both tables.
pub(crate) fn intersect<B: Lanes>(table: &mut [B], other: &[B]) {
    table.iter_mut().zip(other).for_each(|(a, b)| a.and(b));
}

/// X, the bits set in the table.
pub(crate) fn bits_set<B: Lanes>(table: &[B]) -> u64 {
    crate::bits::with_popcnt(|| table.iter().flat_map(|b| b.ones()).map(u64::from).sum())
}

/// X, the bits set in a split block table, and its false-positive rate now: the mean over
/// blocks of `Πᵢ (Xᵢ/lane bits)`, Xᵢ the bits set in lane i (a query picks a uniform block,
/// then one uniform bit in each lane). One pass over the table; the products `Πᵢ Xᵢ` are
/// exact integers (below 64⁸ = 2⁴⁸) and so is their sum: ε is rounded only when that sum
/// is divided.
pub(crate) fn split_block_fill<B: Lanes>(table: &[B]) -> (u64, f64) {
    let (ones, sum) = crate::bits::with_popcnt(|| {
        table.iter().fold((0u64, 0u128), |(ones, sum), b| {
            let x = b.ones();
            let p = x.iter().fold(1u64, |p, &x| p * u64::from(x));
            let x = x.iter().map(|&x| u64::from(x)).sum::<u64>();
            (ones + x, sum + u128::from(p))
        })
    });
    let lanes = libm::pow(f64::from(B::LANE_BITS), 8.0);
    (ones, sum as f64 / lanes / table.len() as f64)
}

/// Bytes per block.
const fn block_bytes<B: Lanes>() -> usize {
    B::LANE_BITS as usize
}

/// Appends the table's bytes to `out`: blocks in order, each lane little-endian.
pub(crate) fn write_le<B: Lanes>(table: &[B], out: &mut Vec<u8>) {
    out.reserve(table.len() * block_bytes::<B>());
    table.iter().for_each(|b| b.write_le(out));
}

/// The table [`to_le_bytes`] wrote: `bytes.len() / block bytes` blocks (the caller checks
/// that the length is a whole number of blocks; a partial block at the end is ignored).
///
/// # Errors
/// [`Error::OutOfMemory`](crate::Error::OutOfMemory), naming `what`, if the blocks cannot be
/// allocated.
pub(crate) fn from_le_bytes<B: Lanes>(bytes: &[u8], what: &'static str) -> Result<Vec<B>> {
    let size = block_bytes::<B>();
    let mut table: Vec<B> = crate::bits::try_zeroed((bytes.len() / size) as u64, what)?;
    for (block, b) in table.iter_mut().zip(bytes.chunks_exact(size)) {
        block.read_le(b);
    }
    Ok(table)
}
