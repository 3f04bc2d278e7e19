//! The scalable Bloom filter: a chain of classic Bloom filters ("links") that grows a new,
//! larger and tighter link each time the active one is full, with the chain's false-positive
//! rate kept within the asked ε.
//!
//! (Almeida, Baquero, Preguiça and Hutchison, "Scalable Bloom Filters", Information
//! Processing Letters 101(6), 2007; the command set is RedisBloom's `BF.*`,
//! <https://redis.io/docs/latest/commands/bf.reserve/>.)
//!
//! * Link i holds `n₀·sⁱ` items (s, the expansion) at `εᵢ = ε·(1 − r)·rⁱ` (r, the tightening
//!   ratio; [`link_fpr`]), each sized with
//!   [`math::bloom_size_exact_new`](crate::math::bloom_size_exact_new) so that it meets εᵢ at
//!   capacity when filled as a chain fills it, with new items only (and so under the classic
//!   and the exact model too). Files whose links were sized for inserts that all count
//!   ([`math::bloom_size_exact`](crate::math::bloom_size_exact), before 2026-11-25) still read.
//! * **The compound rate.** A query is a false positive if any link says "maybe", so the
//!   chain's rate is `1 − Πᵢ(1 − εᵢ) ≤ Σᵢ εᵢ = ε·(1 − r^L) < ε` for any number L of links:
//!   the whole chain stays within the asked ε ([`fpr_bound`](ScalableBloomFilter::fpr_bound)).
//!   The price is stated, not hidden: the first link is planned at `ε·(1 − r)` (ε/2 with the
//!   default r = 0.5), and every link after it at half the rate before.
//! * **A chain that never grows** (`scaling = false`, RedisBloom's `NONSCALING`) has one link
//!   planned at ε itself, and refuses the item after its capacity with [`Error::Full`].
//! * An insert first asks every link; an item that may be present adds nothing
//!   (`Ok(false)`), so [`inserted`](ScalableBloomFilter::inserted) counts the items added, as
//!   RedisBloom's `BF.CARD` does.
//!
//! ```
//! use amq::scalable::{ScalableBloomFilter, ScalableParams};
//! use amq::{Filter, Insert};
//!
//! let mut f = ScalableBloomFilter::new(ScalableParams::new(100, 0.01), 0)?;
//! for i in 0..1000u32 {
//!     f.insert(&i)?;
//! }
//! assert!((0..1000u32).all(|i| f.contains(&i)));
//! assert!(f.links() > 1); // it grew
//! assert!(f.fpr_bound() <= 0.01);
//! # Ok::<(), amq::Error>(())
//! ```

mod encoding;
mod plan;

pub(crate) use plan::check_chain;
pub use plan::{link_capacity, link_fpr, plan, DEFAULT_EXPANSION, DEFAULT_TIGHTENING, MAX_LINKS};

use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item, Merge};
use crate::hash::{hash128, Indexing};
use crate::BloomFilter;
use alloc::vec::Vec;

/// The parameters of a [`ScalableBloomFilter`]: what it is planned for and how it grows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalableParams {
    /// n₀, the capacity of the first link (at least 1).
    pub capacity: u64,
    /// ε, the bound on the whole chain's false-positive rate, in (0, 1).
    pub fpr: f64,
    /// s, each link holds s times the items of the one before (at least 1).
    pub expansion: u32,
    /// r, each link's ε is r times the one before, in (0, 1).
    pub tightening: f64,
    /// `false`: one link at ε, and an error once it holds n₀ items.
    pub scaling: bool,
}

impl ScalableParams {
    /// A growing chain for n₀ items and ε, with [`DEFAULT_EXPANSION`] and
    /// [`DEFAULT_TIGHTENING`].
    pub fn new(capacity: u64, fpr: f64) -> Self {
        ScalableParams {
            capacity,
            fpr,
            expansion: DEFAULT_EXPANSION,
            tightening: DEFAULT_TIGHTENING,
            scaling: true,
        }
    }

    /// Checks the ranges.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for n₀ = 0, ε or r outside (0, 1), or s = 0.
    pub fn check(&self) -> Result<()> {
        check_chain(self.capacity, self.fpr, self.expansion, self.tightening)
    }

    /// m and k of link `i`, as a link added now is sized.
    fn shape(&self, i: u32) -> Result<(u64, u32)> {
        self.shape_by(i, plan::LinkSizing::NewItems)
    }

    fn shape_by(&self, i: u32, sizing: plan::LinkSizing) -> Result<(u64, u32)> {
        plan::link_shape(
            self.capacity,
            self.fpr,
            self.expansion,
            self.tightening,
            self.scaling,
            i,
            sizing,
        )
    }
}

/// A scalable Bloom filter: classic Bloom filters of growing capacity and shrinking ε,
/// queried together, with a compound false-positive rate of at most ε (the module docs).
///
/// Every link hashes with the chain's seed, so an item is hashed once (XXH3-128,
/// [`hash`](Self::hash)) and the same 128 bits probe every link.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalableBloomFilter {
    params: ScalableParams,
    seed: u64,
    links: Vec<BloomFilter>,
}

impl ScalableBloomFilter {
    /// An empty chain of one link, hashing under `seed`.
    ///
    /// # Errors
    /// [`ScalableParams::check`], and the sizing or allocation of the first link.
    pub fn new(params: ScalableParams, seed: u64) -> Result<Self> {
        params.check()?;
        let (m, k) = params.shape(0)?;
        let links = alloc::vec![BloomFilter::new(m, k, seed)?];
        Ok(ScalableBloomFilter {
            params,
            seed,
            links,
        })
    }

    /// How the links' k indices come from an item's hash ([`BloomFilter::indexing`]): one
    /// scheme for the whole chain, its first link's.
    #[inline]
    pub fn indexing(&self) -> Indexing {
        self.links[0].indexing()
    }

    /// The parameters.
    pub fn params(&self) -> ScalableParams {
        self.params
    }
    /// The seed of the XXH3-128 item hash.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// The number of links.
    pub fn links(&self) -> u32 {
        self.links.len() as u32
    }
    /// Link `i`, oldest first.
    pub fn link(&self, i: u32) -> Option<&BloomFilter> {
        self.links.get(i as usize)
    }
    /// k of the active (newest) link.
    pub fn k(&self) -> u32 {
        self.active().k()
    }
    /// m, the bits of every link together.
    pub fn m(&self) -> u64 {
        self.links.iter().map(BloomFilter::m).sum()
    }
    /// Items added: inserts of an item that every link said was definitely absent (an
    /// insert of an item that may be present adds nothing).
    pub fn inserted(&self) -> u64 {
        self.links
            .iter()
            .fold(0u64, |n, l| n.saturating_add(l.inserted()))
    }
    /// The items every link together is planned for: `Σ n₀·sⁱ` over the links.
    pub fn capacity(&self) -> u64 {
        (0..self.links()).fold(0u64, |c, i| c.saturating_add(self.link_capacity(i)))
    }
    /// The capacity of link `i`: `n₀·sⁱ`.
    pub fn link_capacity(&self, i: u32) -> u64 {
        link_capacity(self.params.capacity, self.params.expansion, i)
    }
    /// The rate link `i` is planned at: [`link_fpr`].
    pub fn link_fpr(&self, i: u32) -> f64 {
        link_fpr(
            self.params.fpr,
            self.params.tightening,
            i,
            self.params.scaling,
        )
    }
    /// Payload bytes of every link.
    pub fn size_bytes(&self) -> u64 {
        self.links.iter().map(BloomFilter::size_bytes).sum()
    }
    /// X, the bits set in every link.
    pub fn bits_set(&self) -> u64 {
        self.links.iter().map(BloomFilter::bits_set).sum()
    }
    /// X/m over every link.
    pub fn fill_ratio(&self) -> f64 {
        self.bits_set() as f64 / self.m() as f64
    }
    /// Distinct items estimated from each link's fill, summed.
    pub fn estimated_items(&self) -> f64 {
        self.links.iter().map(BloomFilter::estimated_items).sum()
    }

    /// The stated bound on the chain's false-positive rate, however far it grows: the union
    /// bound `Σ εᵢ` over the [`MAX_LINKS`] links it may have (one link at ε if it does not
    /// grow). Never above the asked ε.
    pub fn fpr_bound(&self) -> f64 {
        let links = if self.params.scaling { MAX_LINKS } else { 1 };
        let sum: f64 = (0..links).map(|i| self.link_fpr(i)).sum();
        // the shares ε(1 − r)rⁱ sum to ε(1 − r^L) < ε; rounding may add an ulp above ε
        sum.min(self.params.fpr)
    }

    /// The chain's rate under the model, with each link at its current count:
    /// `1 − Πᵢ(1 − εᵢ(nᵢ))`, εᵢ the rate of a link filled with new items only
    /// ([`math::fpr_exact_new`](crate::math::fpr_exact_new): an item some link reports is
    /// not added, so each link holds more set bits than nᵢ inserts that all count would set).
    pub fn expected_fpr(&self) -> f64 {
        crate::math::any_of_each(
            (self.links.iter()).map(|l| crate::math::fpr_exact_new(l.inserted(), l.m(), l.k())),
        )
    }

    /// The chain's rate now, from each link's fill: `1 − Πᵢ(1 − (Xᵢ/mᵢ)^kᵢ)`.
    pub fn estimated_fpr(&self) -> f64 {
        1.0 - self
            .links
            .iter()
            .fold(1.0, |p, l| p * (1.0 - l.estimated_fpr()))
    }

    fn active(&self) -> &BloomFilter {
        self.links.last().expect("a chain has at least one link")
    }

    /// `true` when the active link holds its capacity: the next new item needs a new link.
    pub fn is_full(&self) -> bool {
        self.active().inserted() >= self.link_capacity(self.links() - 1)
    }

    /// `true` if the chain may add a link: it scales and has fewer than [`MAX_LINKS`].
    pub fn can_grow(&self) -> bool {
        self.params.scaling && self.links() < MAX_LINKS
    }

    /// Payload bytes of the link [`grow`](Self::grow) would add.
    ///
    /// # Errors
    /// As [`grow`](Self::grow), without allocating.
    pub fn next_link_bytes(&self) -> Result<u64> {
        self.check_growth()?;
        let (m, _) = self.params.shape(self.links())?;
        Ok(m.div_ceil(64) * 8)
    }

    fn check_growth(&self) -> Result<()> {
        if self.can_grow() {
            Ok(())
        } else {
            Err(Error::Full {
                items: self.inserted(),
                capacity: self.capacity(),
            })
        }
    }

    /// Adds the next link (n₀·s^L items at ε_L), which becomes the active one.
    ///
    /// # Errors
    /// [`Error::Full`] if the chain does not scale or has [`MAX_LINKS`]; the link's sizing or
    /// allocation error. Nothing changes on error.
    pub fn grow(&mut self) -> Result<()> {
        self.check_growth()?;
        let (m, k) = self.params.shape(self.links())?;
        self.links.try_reserve(1).map_err(|_| Error::Full {
            items: self.inserted(),
            capacity: self.capacity(),
        })?;
        let link = BloomFilter::new(m, k, self.seed)?.with_indexing(self.indexing());
        self.links.push(link);
        Ok(())
    }

    /// The 128-bit hash of `item` under the chain's seed, for the `*_hash` methods.
    #[inline]
    pub fn hash<T: Item + ?Sized>(&self, item: &T) -> u128 {
        hash128(item, self.seed)
    }

    /// "Maybe present" if any link says so, newest (largest) first.
    pub fn contains_hash(&self, h: u128) -> bool {
        self.links.iter().rev().any(|l| l.contains_hash(h))
    }

    /// Batched [`contains_hash`](Self::contains_hash): `out[i]` answers `hashes[i]`. In
    /// chunks of 256 hashes, each link answers the chunk through
    /// [`BloomFilter::contains_hash_batch`] (which prefetches the words of later hashes in a
    /// link of 4 MiB or more) and its answers are OR-ed in, newest link first.
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn contains_hash_batch(&self, hashes: &[u128], out: &mut [bool]) {
        crate::filter::chain_hash_batch(&self.links, hashes, out, |link, hs, found| {
            link.contains_hash_batch(hs, found)
        });
    }

    /// Adds a precomputed hash to the active link unless some link may hold it already
    /// (`Ok(false)`, nothing added); never adds a link.
    ///
    /// # Errors
    /// [`Error::Full`] when the item is new and the active link is full: call
    /// [`grow`](Self::grow) (if [`can_grow`](Self::can_grow)) and try again. Nothing changes.
    pub fn try_insert_hash(&mut self, h: u128) -> Result<bool> {
        if self.contains_hash(h) {
            return Ok(false);
        }
        if self.is_full() {
            return Err(Error::Full {
                items: self.inserted(),
                capacity: self.capacity(),
            });
        }
        let last = self.links.len() - 1;
        self.links[last].insert_hash(h);
        Ok(true)
    }

    /// [`try_insert_hash`](Self::try_insert_hash), adding a link when the active one is full.
    ///
    /// # Errors
    /// [`Error::Full`] when the item is new, the active link is full and the chain cannot
    /// grow (it does not scale, or has [`MAX_LINKS`]); a new link's sizing or allocation
    /// error. Nothing changes on error.
    pub fn insert_hash(&mut self, h: u128) -> Result<bool> {
        crate::chain::insert_hash_within(self, h, u64::MAX)
    }

    /// Inserts `item` as [`insert`](crate::Insert::insert) does, unless the link it would
    /// add takes the chain over `limit` bytes ([`size_bytes`](Self::size_bytes)): the
    /// insert a service that caps each filter's memory wants. The link's size is checked
    /// before it is allocated.
    ///
    /// # Errors
    /// [`Error::OverLimit`] when the next link would pass `limit`; otherwise as
    /// [`insert_hash`](Self::insert_hash). Nothing changes on error.
    ///
    /// # Example
    /// ```
    /// use amq::scalable::{ScalableBloomFilter, ScalableParams};
    /// let mut f = ScalableBloomFilter::new(ScalableParams::new(100, 0.01), 0)?;
    /// let limit = f.size_bytes(); // the first link only
    /// let added = (0..1000u32).take_while(|i| f.insert_within(i, limit).is_ok()).count();
    /// assert!(added >= 90 && f.links() == 1);
    /// assert!(matches!(f.insert_within(&5000u32, limit), Err(amq::Error::OverLimit { .. })));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn insert_within<T: Item + ?Sized>(&mut self, item: &T, limit: u64) -> Result<bool> {
        crate::chain::insert_hash_within(self, self.hash(item), limit)
    }

    /// Union: afterwards `self` answers "maybe" for every item of either chain. Link i of
    /// `other` is OR-ed into link i of `self`; links `self` does not have yet are copied.
    /// Link i then holds the items of both, and is planned for n₀·sⁱ: the two counts must fit
    /// it, or its rate (and [`fpr_bound`](Self::fpr_bound)) would no longer hold. (An item in
    /// both chains counts twice, so sets that overlap may be refused although their union
    /// fits.)
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless the parameters and seed are identical (then every link
    /// i has the same shape); [`Error::Full`] if some link would hold more items than its
    /// capacity (the sum of the two counts, and that capacity). `self` is unchanged on any
    /// error.
    ///
    /// # Example
    /// ```
    /// use amq::scalable::{ScalableBloomFilter, ScalableParams};
    /// use amq::{Filter, Insert};
    /// let mut a = ScalableBloomFilter::new(ScalableParams::new(100, 0.01), 0)?;
    /// let mut b = a.clone();
    /// (0..60u32).try_for_each(|i| a.insert(&i).map(drop))?;
    /// (100..130u32).try_for_each(|i| b.insert(&i).map(drop))?;
    /// a.union(&b)?; // 90 items in a link planned for 100
    /// assert!((0..60u32).chain(100..130).all(|i| a.contains(&i)));
    /// assert!(matches!(a.union(&b), Err(amq::Error::Full { items: 120, capacity: 100 })));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn union(&mut self, other: &Self) -> Result<()> {
        let (a, b) = (&self.params, &other.params);
        Error::check_same_shape(&[
            ("capacity", a.capacity, b.capacity),
            ("fpr", a.fpr.to_bits(), b.fpr.to_bits()),
            ("expansion", u64::from(a.expansion), u64::from(b.expansion)),
            ("tightening", a.tightening.to_bits(), b.tightening.to_bits()),
            ("scaling", u64::from(a.scaling), u64::from(b.scaling)),
            ("seed", self.seed, other.seed),
        ])?;
        for (i, (mine, theirs)) in self.links.iter().zip(&other.links).enumerate() {
            let items = mine.inserted().saturating_add(theirs.inserted());
            let capacity = self.link_capacity(i as u32);
            if items > capacity {
                return Err(Error::Full { items, capacity });
            }
        }
        let mut merged = self.clone();
        for (i, link) in other.links.iter().enumerate() {
            match merged.links.get_mut(i) {
                Some(mine) => mine.union(link)?,
                None => merged.links.push(link.clone()),
            }
        }
        *self = merged;
        Ok(())
    }
}

crate::chain::impl_chain!(ScalableBloomFilter);

impl<T: Item + ?Sized> Filter<T> for ScalableBloomFilter {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.contains_hash(self.hash(item))
    }

    /// Hashes the items 256 at a time and answers each chunk through
    /// [`contains_hash_batch`](ScalableBloomFilter::contains_hash_batch).
    fn contains_batch(&self, items: &[&T], out: &mut [bool]) {
        crate::filter::chain_batch(
            items,
            out,
            |item| self.hash(item),
            |hs, os| self.contains_hash_batch(hs, os),
        );
    }
}

impl<T: Item + ?Sized> Insert<T> for ScalableBloomFilter {
    /// `Ok(false)` when some link may hold the item already (nothing is added).
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        self.insert_hash(self.hash(item))
    }
}

impl Merge for ScalableBloomFilter {
    fn merge(&mut self, other: &Self) -> Result<()> {
        self.union(other)
    }
}

#[cfg(test)]
mod tests;
