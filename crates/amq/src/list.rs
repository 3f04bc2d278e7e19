//! Lists that only grow, with bounded spare room, so that the bytes a filter counts for them
//! hold in memory: a `Vec` doubles when full, and so may hold twice the entries it has.

use alloc::collections::TryReserveError;
use alloc::vec::Vec;

/// The most entries a list of `len` entries has room for, when it grew only by
/// [`try_reserve_one`] (or was allocated exactly, as a clone or a decoded list is):
/// `len + ⌊len/8⌋`.
pub(crate) const fn room(len: usize) -> u64 {
    (len as u64).saturating_add((len / 8) as u64)
}

/// Makes room for one more entry: a full list grows by an eighth of its length, and at least
/// one entry (amortised O(1), and at most [`room`] entries).
///
/// # Errors
/// The allocation failed (the list is unchanged).
pub(crate) fn try_reserve_one<T>(v: &mut Vec<T>) -> Result<(), TryReserveError> {
    if v.len() == v.capacity() {
        v.try_reserve_exact((v.len() / 8).max(1))?;
    }
    Ok(())
}

/// [`try_reserve_one`], aborting on allocation failure as `Vec::push` does.
pub(crate) fn reserve_one<T>(v: &mut Vec<T>) {
    if v.len() == v.capacity() {
        v.reserve_exact((v.len() / 8).max(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Grown one entry at a time, cloned or allocated exactly, a list never has room for more
    /// than [`room`] entries.
    #[test]
    fn room_bounds_the_capacity() {
        let mut v: Vec<u64> = Vec::new();
        for i in 0..100_000u64 {
            try_reserve_one(&mut v).unwrap();
            v.push(i);
            assert!(
                v.capacity() as u64 <= room(v.len()),
                "{} {}",
                v.len(),
                v.capacity()
            );
            if i % 9_999 == 0 {
                let c = v.clone();
                assert!(c.capacity() as u64 <= room(c.len()));
            }
        }
        let mut w: Vec<u8> = Vec::new();
        for i in 0..1000u16 {
            reserve_one(&mut w);
            w.insert(0, i as u8);
            assert!(w.capacity() as u64 <= room(w.len()));
        }
        assert_eq!(room(0), 0);
    }
}
