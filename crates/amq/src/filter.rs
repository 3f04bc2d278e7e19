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
///
/// A type of your own becomes an item by giving its bytes:
/// ```
/// use amq::{BloomFilter, Filter, Insert, Item};
///
/// struct Point { x: u32, y: u32 }
/// impl Item for Point {
///     fn with_bytes<R>(&self, f: impl FnOnce(&[u8]) -> R) -> R {
///         let mut b = [0u8; 8];
///         b[..4].copy_from_slice(&self.x.to_le_bytes());
///         b[4..].copy_from_slice(&self.y.to_le_bytes());
///         f(&b)
///     }
/// }
///
/// let mut f = BloomFilter::with_fpr(1_000, 0.01, 0)?;
/// f.insert(&Point { x: 1, y: 2 })?;
/// assert!(f.contains(&Point { x: 1, y: 2 }));
/// // 42u64 is the 8 bytes 2a 00 .. 00, so it is the same item as that byte string
/// f.insert(&42u64)?;
/// assert!(f.contains(&[42u8, 0, 0, 0, 0, 0, 0, 0][..]));
/// # Ok::<(), amq::Error>(())
/// ```
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
///
/// Code written against the trait takes any kind:
/// ```
/// use amq::{BlockedBloomFilter, CuckooFilter, Filter, Insert};
///
/// fn missing<'a, F: Filter<str>>(f: &F, names: &[&'a str]) -> Vec<&'a str> {
///     names.iter().copied().filter(|n| !f.contains(n)).collect()
/// }
///
/// let mut bloom = BlockedBloomFilter::with_fpr(1_000, 0.01, 0)?;
/// let mut cuckoo = CuckooFilter::with_fpr(1_000, 0.01, 0)?;
/// for name in ["alice", "bob"] {
///     bloom.insert(name)?;
///     cuckoo.insert(name)?;
/// }
/// // never a false negative; "mallory" is absent unless it is a false positive (ε = 1%)
/// assert!(!missing(&bloom, &["alice", "bob", "mallory"]).contains(&"alice"));
/// assert!(cuckoo.contains_all(["alice", "bob"]));
/// let mut out = [false; 2];
/// cuckoo.contains_batch(&["bob", "alice"], &mut out);
/// assert_eq!(out, [true, true]);
/// # Ok::<(), amq::Error>(())
/// ```
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
    /// Every kind of this crate whose layout allows it overrides this with a loop that hashes
    /// a few items ahead and prefetches their cache lines, so the misses of a large table
    /// overlap (the classic, blocked, split block, scalable and aging Bloom filters, the
    /// cuckoo, expandable cuckoo and TTL cuckoo filters; measured against single queries in
    /// BENCHMARKS.md); the default asks one item at a time.
    ///
    /// # Panics
    /// If `out.len() != items.len()`.
    fn contains_batch(&self, items: &[&T], out: &mut [bool]) {
        check_batch(items.len(), out.len());
        for (item, answer) in items.iter().zip(out.iter_mut()) {
            *answer = self.contains(item);
        }
    }

    /// [`contains_batch`](Self::contains_batch) over items stored in the slice itself
    /// (`&[u64]` where `contains_batch` takes `&[&u64]`): `out[i] = self.contains(&items[i])`.
    ///
    /// The split block kind overrides it: it hashes 64 items at a time in a loop of
    /// their own, which the compiler vectorises under the AVX2 and AVX-512 kernels where the
    /// item length is fixed (XXH3-64 of u64 items: several items per instruction, against one
    /// when each item sits behind a pointer; longer items take the loop of its
    /// `contains_batch`). Every other kind passes the items on to its `contains_batch`, 256
    /// references at a time.
    ///
    /// # Panics
    /// If `out.len() != items.len()`.
    ///
    /// # Example
    /// ```
    /// use amq::{Filter, Insert, SplitBlockBloomFilter};
    /// let mut f = SplitBlockBloomFilter::with_fpr(1000, 0.01, 0)?;
    /// let keys: Vec<u64> = (0..500).collect();
    /// for key in &keys {
    ///     f.insert(key)?;
    /// }
    /// let mut out = vec![false; keys.len()];
    /// f.contains_batch_values(&keys, &mut out); // where contains_batch wants &[&u64]
    /// assert!(out.iter().all(|&found| found));
    /// # Ok::<(), amq::Error>(())
    /// ```
    fn contains_batch_values(&self, items: &[T], out: &mut [bool])
    where
        T: Sized,
    {
        check_batch(items.len(), out.len());
        batch_by_reference(self, items, out);
    }
}

/// The default [`Filter::contains_batch_values`]: the items passed on to `contains_batch`,
/// [`CHAIN_CHUNK`] references at a time.
pub(crate) fn batch_by_reference<F, T>(filter: &F, items: &[T], out: &mut [bool])
where
    F: Filter<T> + ?Sized,
{
    let Some(first) = items.first() else {
        return;
    };
    let mut refs = [first; CHAIN_CHUNK];
    for (items, out) in items.chunks(CHAIN_CHUNK).zip(out.chunks_mut(CHAIN_CHUNK)) {
        for (r, item) in refs.iter_mut().zip(items) {
            *r = item;
        }
        filter.contains_batch(&refs[..items.len()], out);
    }
}

/// Insertion.
///
/// A filter with a capacity says when it is full and keeps what it held:
/// ```
/// use amq::{CuckooFilter, Error, Filter, Insert};
///
/// let mut f = CuckooFilter::new(2, 12, 0)?; // 2 buckets of 4 slots, 12-bit fingerprints
/// let mut added = Vec::new();
/// let full = loop {
///     let i = added.len() as u64;
///     match f.insert(&i) {
///         Ok(_) => added.push(i),
///         Err(e) => break e,
///     }
/// };
/// assert!(matches!(full, Error::Full { .. }));
/// assert!(added.iter().all(|i| f.contains(i))); // nothing added before was lost
/// # Ok::<(), amq::Error>(())
/// ```
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
///
/// ```
/// use amq::{CuckooFilter, Filter, Insert, Remove};
///
/// let mut f = CuckooFilter::with_fpr(1_000, 0.001, 0)?;
/// f.insert("session-17")?;
/// assert!(f.remove("session-17"));
/// assert!(!f.contains("session-17"));
/// # Ok::<(), amq::Error>(())
/// ```
pub trait Remove<T: ?Sized> {
    /// Removes one copy of `item`; `true` if a copy was found and removed.
    ///
    /// Removing an item that was never inserted may remove another item's fingerprint and so
    /// cause a false negative: only remove what was inserted.
    fn remove(&mut self, item: &T) -> bool;
}

/// Union of two filters of identical shape and seed.
///
/// ```
/// use amq::{BloomFilter, Error, Filter, Insert, Merge};
///
/// let mut a = BloomFilter::new(8_192, 5, 0)?;
/// let mut b = BloomFilter::new(8_192, 5, 0)?;
/// a.insert("alice")?;
/// b.insert("bob")?;
/// a.merge(&b)?;
/// assert!(a.contains("alice") && a.contains("bob"));
///
/// let other_seed = BloomFilter::new(8_192, 5, 1)?;
/// assert!(matches!(a.merge(&other_seed), Err(Error::ShapeMismatch { field: "seed", .. })));
/// # Ok::<(), amq::Error>(())
/// ```
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

/// The loop of every prefetching batched query: answers `out.len()` queries in order, where
/// `fetch(j)` starts query j (hashes it, prefetches the cache lines it will read and returns
/// what `test` needs) `A` queries before `test` answers it, so the misses of `A` queries
/// overlap.
#[inline(always)]
pub(crate) fn pipelined<P: Copy + Default, const A: usize>(
    out: &mut [bool],
    fetch: impl Fn(usize) -> P,
    test: impl Fn(P) -> bool,
) {
    pipelined2::<P, A>(out, fetch, |_| {}, test);
}

/// [`pipelined`] in two stages, for layouts where a query reads a line whose address is in
/// another line (an index entry, then the data it points to): `fetch(j)` starts query j `A`
/// queries ahead (prefetching the first lines), `refetch(&p)` runs `A/2` queries ahead, when
/// those lines have arrived, and prefetches the second ones; `test` answers.
#[inline(always)]
pub(crate) fn pipelined2<P: Copy + Default, const A: usize>(
    out: &mut [bool],
    fetch: impl Fn(usize) -> P,
    refetch: impl Fn(&P),
    test: impl Fn(P) -> bool,
) {
    let n = out.len();
    let half = A / 2;
    let mut ring = [P::default(); A];
    for (j, slot) in ring.iter_mut().enumerate().take(n) {
        *slot = fetch(j);
    }
    for slot in ring.iter().take(half.min(n)) {
        refetch(slot);
    }
    for (i, o) in out.iter_mut().enumerate() {
        if i + half < n {
            refetch(&ring[(i + half) % A]);
        }
        let slot = &mut ring[i % A];
        let p = *slot;
        if i + A < n {
            *slot = fetch(i + A);
        }
        *o = test(p);
    }
}

/// How many hashes a chain's batched query holds at a time, and how many references
/// [`batch_by_reference`] passes at a time.
pub(crate) const CHAIN_CHUNK: usize = 256;

/// The batched query of a chain of filters (scalable Bloom, expandable cuckoo): `out[i]` is
/// `true` when some link holds `hashes[i]`. Newest link first, each link answers, through its
/// own batched query (`link_batch`, which prefetches), the hashes of the chunk that no newer
/// link has found, as the single query stops at the first link that finds its hash.
pub(crate) fn chain_hash_batch<L>(
    links: &[L],
    hashes: &[u128],
    out: &mut [bool],
    link_batch: impl Fn(&L, &[u128], &mut [bool]),
) {
    check_batch(hashes.len(), out.len());
    let mut found = [false; CHAIN_CHUNK];
    let mut pending = [0u128; CHAIN_CHUNK];
    let mut at = [0usize; CHAIN_CHUNK];
    for (hs, os) in hashes.chunks(CHAIN_CHUNK).zip(out.chunks_mut(CHAIN_CHUNK)) {
        os.fill(false);
        pending[..hs.len()].copy_from_slice(hs);
        for (i, a) in at.iter_mut().enumerate().take(hs.len()) {
            *a = i;
        }
        let mut left = hs.len();
        for link in links.iter().rev() {
            if left == 0 {
                break;
            }
            link_batch(link, &pending[..left], &mut found[..left]);
            let mut kept = 0;
            for r in 0..left {
                if found[r] {
                    os[at[r]] = true;
                } else {
                    (pending[kept], at[kept]) = (pending[r], at[r]);
                    kept += 1;
                }
            }
            left = kept;
        }
    }
}

/// The item-level batched query of a chain: hashes the items [`CHAIN_CHUNK`] at a time with
/// `hash` and answers each chunk with `hash_batch`.
pub(crate) fn chain_batch<T: ?Sized>(
    items: &[&T],
    out: &mut [bool],
    hash: impl Fn(&T) -> u128,
    hash_batch: impl Fn(&[u128], &mut [bool]),
) {
    check_batch(items.len(), out.len());
    let mut hashes = [0u128; CHAIN_CHUNK];
    for (is, os) in items.chunks(CHAIN_CHUNK).zip(out.chunks_mut(CHAIN_CHUNK)) {
        for (h, item) in hashes.iter_mut().zip(is) {
            *h = hash(item);
        }
        hash_batch(&hashes[..is.len()], os);
    }
}
