//! The traits every filter shares.
//!
//! A filter answers **"maybe present"** (`true`) or **"definitely absent"** (`false`).
//! Items are anything that is [`Item`]: byte strings, strings, and integers (hashed as their
//! little-endian bytes, so the answer is the same on every platform).

use crate::error::Error;
use alloc::string::String;
use alloc::vec::Vec;

/// An item of a set: a value with a canonical byte representation.
///
/// Filters hash these bytes, never Rust's `Hash` (whose output depends on the platform's
/// pointer width and endianness). Integers are their little-endian bytes, strings their UTF-8
/// bytes.
pub trait Item {
    /// Calls `f` with the item's canonical bytes.
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R;
}

impl Item for [u8] {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self)
    }
}
impl<const N: usize> Item for [u8; N] {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self)
    }
}
impl Item for Vec<u8> {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self)
    }
}
impl Item for str {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.as_bytes())
    }
}
impl Item for String {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        f(self.as_bytes())
    }
}
impl<T: Item + ?Sized> Item for &T {
    #[inline]
    fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
        (**self).with_bytes(f)
    }
}
macro_rules! int_item {
    ($($t:ty),*) => {$(
        impl Item for $t {
            #[inline]
            fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
                f(&self.to_le_bytes())
            }
        }
    )*};
}
int_item!(u8, u16, u32, u64, u128, i8, i16, i32, i64, i128);

/// Membership queries: "maybe present" (`true`) or "definitely absent" (`false`).
pub trait Filter<T: ?Sized> {
    /// `true` if `item` may be in the set, `false` if it is definitely not.
    fn contains(&self, item: &T) -> bool;

    /// `true` if every item may be present (an empty iterator gives `true`).
    fn contains_all<'a, I>(&self, items: I) -> bool
    where
        I: IntoIterator<Item = &'a T>,
        T: 'a,
    {
        items.into_iter().all(|item| self.contains(item))
    }

    /// `true` if at least one item may be present (an empty iterator gives `false`).
    fn contains_any<'a, I>(&self, items: I) -> bool
    where
        I: IntoIterator<Item = &'a T>,
        T: 'a,
    {
        items.into_iter().any(|item| self.contains(item))
    }

    /// Answers a batch of queries: `out[i] = self.contains(items[i])`.
    ///
    /// The Bloom, blocked Bloom and cuckoo filters override this with a loop that hashes a few
    /// items ahead and prefetches their cache lines, so the misses overlap; the default asks
    /// one item at a time.
    ///
    /// # Panics
    /// If `out.len() != items.len()`.
    fn contains_batch(&self, items: &[&T], out: &mut [bool]) {
        check_batch(items.len(), out.len());
        for (item, answer) in items.iter().zip(out.iter_mut()) {
            *answer = self.contains(item);
        }
    }
}

/// Insertion.
pub trait Insert<T: ?Sized> {
    /// Adds `item`.
    ///
    /// Returns `Ok(true)` when the item was certainly not there before, `Ok(false)` when it may
    /// already have been there (every bit or fingerprint it needs was already present).
    ///
    /// # Errors
    /// [`Error::Full`] where the structure has a capacity and has reached it; the item is not
    /// added and every item added before is still found.
    fn insert(&mut self, item: &T) -> Result<bool, Error>;
}

/// Deletion (cuckoo filters).
pub trait Remove<T: ?Sized> {
    /// Removes one copy of `item`; `true` if a copy was found and removed.
    ///
    /// Removing an item that was never inserted may remove another item's fingerprint and so
    /// cause a false negative: only remove what was inserted.
    fn remove(&mut self, item: &T) -> bool;
}

/// Union of two filters of identical shape and seed.
pub trait Merge {
    /// Adds every item of `other` to `self`.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the two filters differ in size, hash count or seed;
    /// `self` is then left unchanged.
    fn merge(&mut self, other: &Self) -> Result<(), Error>;
}

/// The one check of every batched query: as many answers as queries.
///
/// # Panics
/// If `queries != answers`.
#[inline]
#[track_caller]
pub(crate) fn check_batch(queries: usize, answers: usize) {
    assert_eq!(
        queries, answers,
        "batched query: {queries} queries but room for {answers} answers"
    );
}
