//! The expandable cuckoo filter: a chain of [`CuckooFilter`]s that adds a larger link with
//! wider fingerprints when the active one refuses an item, with the chain's false-positive
//! rate kept within the asked ε.
//!
//! The command set is RedisBloom's `CF.*`
//! (<https://redis.io/docs/latest/commands/cf.reserve/>): a capacity, an `EXPANSION` factor
//! (0: the filter never grows) and a bound on the kicks per insert (`MAXITERATIONS`).
//!
//! * Link i holds `n₀·sⁱ` items in [`buckets_for`]`(n₀·sⁱ)` buckets of 4 slots.
//! * **The compound rate.** Link i is planned at `εᵢ = ε·(1 − r)·rⁱ`
//!   ([`link_fpr`](crate::scalable::link_fpr)), and gets the narrowest fingerprint
//!   f ∈ {8, 12, 16} whose rate at a *full* table, `1 − (1 − 1/(2^f − 1))^(2b)` ([`fpr_exact`]
//!   at α = 1), is at most εᵢ. A query is a false positive if any link matches, so the
//!   chain's rate is at most `Σ εᵢ < ε` however many links it has. A link whose εᵢ is below
//!   what 16-bit fingerprints give (≈ 1.22·10⁻⁴) cannot be planned: the chain stops growing
//!   there ([`Error::Full`]) rather than break its bound. A filter that never grows has one
//!   link planned at ε.
//! * Inserts go to the newest link; when it refuses one ([`Error::Full`]: its stash is taken
//!   and both buckets are full), a link is added and the item goes there. Lookups and counts
//!   read every link; a delete removes one copy from the newest link holding it.

use super::{buckets_for, fpr_exact, CuckooFilter, FINGERPRINT_BITS, MAX_KICKS, SLOTS_PER_BUCKET};
use crate::error::{Error, Result};
use crate::filter::{Filter, Insert, Item, Merge, Remove};
use crate::hash::hash128;
use crate::math::{Plan, PlanDetails};
use crate::scalable::{check_chain, link_capacity, link_fpr, DEFAULT_TIGHTENING};
use alloc::vec::Vec;

/// The most links an [`ExpandableCuckooFilter`] grows to (RedisBloom's `CF_MAX_EXPANSIONS`
/// default).
pub const MAX_LINKS: u32 = 32;

/// The parameters of an [`ExpandableCuckooFilter`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExpandableParams {
    /// n₀, the items of the first link (at least 1).
    pub capacity: u64,
    /// ε, the bound on the whole chain's false-positive rate, in (0, 1).
    pub fpr: f64,
    /// s, each link holds s times the items of the one before; 0: one link, never grows.
    pub expansion: u32,
    /// r, each link's ε is r times the one before, in (0, 1).
    pub tightening: f64,
    /// The most fingerprints one insert moves ([`CuckooFilter::insert_hash_with_kicks`]).
    pub max_kicks: u32,
}

impl ExpandableParams {
    /// A chain for n₀ items and ε that doubles, with [`DEFAULT_TIGHTENING`] and
    /// [`MAX_KICKS`].
    pub fn new(capacity: u64, fpr: f64) -> Self {
        ExpandableParams {
            capacity,
            fpr,
            expansion: 2,
            tightening: DEFAULT_TIGHTENING,
            max_kicks: MAX_KICKS,
        }
    }

    /// Checks the ranges and that the first link can be planned.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for n₀ = 0, ε or r outside (0, 1), `max_kicks` = 0, or an
    /// ε that 16-bit fingerprints cannot meet.
    pub fn check(&self) -> Result<()> {
        check_chain(
            self.capacity,
            self.fpr,
            self.expansion.max(1),
            self.tightening,
        )?;
        if self.max_kicks == 0 {
            return Err(Error::invalid("max_kicks", "must be at least 1"));
        }
        self.shape(0).map(|_| ())
    }

    fn scaling(&self) -> bool {
        self.expansion > 0
    }

    /// The bound on the chain's rate however far it grows: `Σ εᵢ` over the links it may have
    /// ([`max_links`](Self::max_links)).
    pub fn fpr_bound(&self) -> f64 {
        (0..self.max_links()).map(|i| self.link_fpr(i)).sum()
    }

    /// The links the chain can reach: 1 if it never grows, else those up to the first whose
    /// rate 16-bit fingerprints cannot meet (or whose buckets cannot be counted), at most
    /// [`MAX_LINKS`]. At ε = 0.01 (r = 0.5) that is 6 links, about 63·n₀ items with s = 2;
    /// at ε = 0.001, 3 links, 7·n₀.
    pub fn max_links(&self) -> u32 {
        if !self.scaling() {
            return 1;
        }
        (0..MAX_LINKS)
            .find(|&i| self.shape(i).is_err())
            .unwrap_or(MAX_LINKS)
    }

    /// The rate link `i` is planned at.
    pub fn link_fpr(&self, i: u32) -> f64 {
        link_fpr(self.fpr, self.tightening, i, self.scaling())
    }

    /// The items link `i` is planned for.
    pub fn link_capacity(&self, i: u32) -> u64 {
        link_capacity(self.capacity, self.expansion.max(1), i)
    }

    /// The fingerprint width and bucket count of link `i`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if no supported width meets the link's rate at full load,
    /// or the link needs too many buckets.
    pub fn shape(&self, i: u32) -> Result<(u32, u64)> {
        let target = self.link_fpr(i);
        let f = FINGERPRINT_BITS
            .iter()
            .copied()
            .find(|&f| fpr_exact(f, 1.0) <= target)
            .ok_or_else(|| {
                Error::invalid(
                    "fpr",
                    alloc::format!(
                        "link {i} is planned at {target:e}, below what 16-bit fingerprints give \
                         at full load ({:e})",
                        fpr_exact(16, 1.0)
                    ),
                )
            })?;
        Ok((f, buckets_for(self.link_capacity(i))?))
    }
}

/// Plans an [`ExpandableCuckooFilter`] without allocating it: the common fields of the
/// [`Plan`] describe the first link (n₀ items), the details state the bound over the whole
/// chain.
///
/// # Errors
/// As [`ExpandableParams::check`].
///
/// # Example
/// ```
/// use amq::cuckoo::{expandable_plan, ExpandableParams};
/// let p = expandable_plan(&ExpandableParams::new(1000, 0.01))?;
/// assert_eq!((p.items, p.k), (1000, 2));
/// assert!(p.fpr <= 0.005);
/// # Ok::<(), amq::Error>(())
/// ```
pub fn expandable_plan(params: &ExpandableParams) -> Result<Plan> {
    params.check()?;
    let (f, buckets) = params.shape(0)?;
    let n = params.capacity;
    let slots = buckets * u64::from(SLOTS_PER_BUCKET);
    let load = n as f64 / slots as f64;
    let m = slots * u64::from(f);
    let links = params.max_links();
    Ok(Plan {
        details: PlanDetails::ExpandableCuckoo {
            expansion: params.expansion,
            tightening: params.tightening,
            max_kicks: params.max_kicks,
            fingerprint_bits: f,
            buckets,
            slots_per_bucket: SLOTS_PER_BUCKET,
            load_factor: load,
            first_link_fpr: params.link_fpr(0),
            fpr_bound: params.fpr_bound(),
            max_links: links,
        },
        items: n,
        m_bits: m,
        k: 2,
        bytes: m / 8,
        bits_per_key: m as f64 / n as f64,
        fpr: super::fpr(f, load),
        fpr_exact: fpr_exact(f, load),
    })
}

/// A chain of cuckoo filters that grows, with deletion and a compound false-positive rate
/// of at most ε (the module docs). Every link hashes with the chain's seed, so an item is
/// hashed once and the same 128 bits probe every link.
///
/// # Example
/// ```
/// use amq::cuckoo::{ExpandableCuckooFilter, ExpandableParams};
/// use amq::{Filter, Insert, Remove};
///
/// let mut f = ExpandableCuckooFilter::new(ExpandableParams::new(100, 0.01), 0)?;
/// for i in 0..1000u32 {
///     f.insert(&i)?;
/// }
/// assert!(f.links() > 1);
/// assert!((0..1000u32).all(|i| f.contains(&i)));
/// assert!(f.remove(&7u32));
/// assert_eq!((f.inserted(), f.deleted()), (999, 1));
/// # Ok::<(), amq::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ExpandableCuckooFilter {
    pub(super) params: ExpandableParams,
    pub(super) seed: u64,
    pub(super) links: Vec<CuckooFilter>,
    /// Successful deletes since creation.
    pub(super) deleted: u64,
}

impl ExpandableCuckooFilter {
    /// An empty chain of one link, hashing under `seed`.
    ///
    /// # Errors
    /// [`ExpandableParams::check`], and the allocation of the first link.
    pub fn new(params: ExpandableParams, seed: u64) -> Result<Self> {
        params.check()?;
        let (f, buckets) = params.shape(0)?;
        let links = alloc::vec![CuckooFilter::new(buckets, f, seed)?];
        Ok(ExpandableCuckooFilter {
            params,
            seed,
            links,
            deleted: 0,
        })
    }

    /// The parameters.
    pub fn params(&self) -> ExpandableParams {
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
    pub fn link(&self, i: u32) -> Option<&CuckooFilter> {
        self.links.get(i as usize)
    }
    /// Fingerprints held in every link (inserts minus deletes).
    pub fn inserted(&self) -> u64 {
        self.links.iter().map(CuckooFilter::inserted).sum()
    }
    /// Successful deletes since the filter was created.
    pub fn deleted(&self) -> u64 {
        self.deleted
    }
    /// Buckets of every link.
    pub fn buckets(&self) -> u64 {
        self.links.iter().map(CuckooFilter::buckets).sum()
    }
    /// Slots of every link.
    pub fn slots(&self) -> u64 {
        self.links.iter().map(CuckooFilter::slots).sum()
    }
    /// m, the bits of every link's table.
    pub fn m(&self) -> u64 {
        self.links.iter().map(CuckooFilter::m).sum()
    }
    /// Table bytes of every link.
    pub fn size_bytes(&self) -> u64 {
        self.links.iter().map(CuckooFilter::size_bytes).sum()
    }
    /// α over every link: fingerprints held over slots.
    pub fn load_factor(&self) -> f64 {
        self.inserted() as f64 / self.slots() as f64
    }
    /// The items every link together is planned for.
    pub fn capacity(&self) -> u64 {
        (0..self.links()).fold(0u64, |c, i| c.saturating_add(self.params.link_capacity(i)))
    }

    /// The stated bound on the chain's rate, however far it grows: `Σ εᵢ` over the links it
    /// may have (one at ε if it never grows). Never above the asked ε.
    pub fn fpr_bound(&self) -> f64 {
        self.params.fpr_bound()
    }

    /// The chain's rate now: `1 − Πᵢ(1 − εᵢ(αᵢ))`, each link at its load ([`fpr_exact`]).
    pub fn estimated_fpr(&self) -> f64 {
        crate::math::any_of_each(self.links.iter().map(|l| l.estimated_fpr()))
    }

    /// `true` if the chain may add a link: it grows, has fewer than [`MAX_LINKS`], and the
    /// next link's rate can be met with 16-bit fingerprints.
    pub fn can_grow(&self) -> bool {
        self.links() < self.params.max_links()
    }

    /// Table bytes of the link [`grow`](Self::grow) would add.
    ///
    /// # Errors
    /// As [`grow`](Self::grow), without allocating.
    pub fn next_link_bytes(&self) -> Result<u64> {
        self.check_growth()?;
        let (f, buckets) = self.params.shape(self.links())?;
        Ok(buckets * u64::from(f / 2))
    }

    fn check_growth(&self) -> Result<()> {
        if self.params.scaling() && self.links() < MAX_LINKS {
            Ok(())
        } else {
            Err(Error::Full {
                items: self.inserted(),
                capacity: self.capacity(),
            })
        }
    }

    /// Adds the next link, which becomes the one inserts go to.
    ///
    /// # Errors
    /// [`Error::Full`] if the chain never grows or has [`MAX_LINKS`];
    /// [`Error::InvalidParameter`] if the next link's rate cannot be met; an allocation
    /// error. Nothing changes on error.
    pub fn grow(&mut self) -> Result<()> {
        self.check_growth()?;
        let (f, buckets) = self.params.shape(self.links())?;
        let link = CuckooFilter::new(buckets, f, self.seed)?;
        self.links.try_reserve(1).map_err(|_| Error::Full {
            items: self.inserted(),
            capacity: self.capacity(),
        })?;
        self.links.push(link);
        Ok(())
    }

    /// The 128-bit hash of `item` under the chain's seed, for the `*_hash` methods.
    #[inline]
    pub fn hash<T: Item + ?Sized>(&self, item: &T) -> u128 {
        hash128(item, self.seed)
    }

    /// "Maybe present" if any link holds the fingerprint, newest first.
    pub fn contains_hash(&self, h: u128) -> bool {
        self.links.iter().rev().any(|l| l.contains_hash(h))
    }

    /// Batched [`contains_hash`](Self::contains_hash): `out[i]` answers `hashes[i]`. In
    /// chunks of 256 hashes, each link answers the chunk through
    /// [`CuckooFilter::contains_hash_batch`] (which prefetches the buckets of later hashes) and
    /// its answers are OR-ed in, newest link first.
    ///
    /// # Panics
    /// If `out.len() != hashes.len()`.
    pub fn contains_hash_batch(&self, hashes: &[u128], out: &mut [bool]) {
        crate::filter::chain_hash_batch(&self.links, hashes, out, |link, hs, found| {
            link.contains_hash_batch(hs, found)
        });
    }

    /// The copies of a hash's fingerprint held in every link.
    pub fn count_hash(&self, h: u128) -> u64 {
        self.links.iter().map(|l| u64::from(l.count_hash(h))).sum()
    }

    /// The copies of `item`'s fingerprint held ([`count_hash`](Self::count_hash)).
    pub fn count<T: Item + ?Sized>(&self, item: &T) -> u64 {
        self.count_hash(self.hash(item))
    }

    /// Adds one copy of a hash's fingerprint to the newest link; never adds a link.
    /// `Ok(true)` if no link held a copy before.
    ///
    /// # Errors
    /// [`Error::Full`] when the newest link refuses it: call [`grow`](Self::grow) (if
    /// [`can_grow`](Self::can_grow)) and try again. Nothing changes.
    pub fn try_insert_hash(&mut self, h: u128) -> Result<bool> {
        let new = !self.contains_hash(h);
        let last = self.links.len() - 1;
        match self.links[last].insert_hash_with_kicks(h, self.params.max_kicks) {
            // the chain's counts, not the newest link's
            Err(Error::Full { .. }) => Err(Error::Full {
                items: self.inserted(),
                capacity: self.capacity(),
            }),
            other => other.map(|_| new),
        }
    }

    /// [`try_insert_hash`](Self::try_insert_hash), adding a link when the newest refuses.
    ///
    /// # Errors
    /// [`Error::Full`] when the newest link refuses and the chain cannot grow; nothing
    /// changes.
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
    /// use amq::cuckoo::{ExpandableCuckooFilter, ExpandableParams};
    /// let mut f = ExpandableCuckooFilter::new(ExpandableParams::new(100, 0.01), 0)?;
    /// let limit = f.size_bytes(); // the first link only
    /// let added = (0..1000u32).take_while(|i| f.insert_within(i, limit).is_ok()).count();
    /// assert!(added >= 90 && f.links() == 1);
    /// assert!(matches!(f.insert_within(&5000u32, limit), Err(amq::Error::OverLimit { .. })));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn insert_within<T: Item + ?Sized>(&mut self, item: &T, limit: u64) -> Result<bool> {
        crate::chain::insert_hash_within(self, self.hash(item), limit)
    }

    /// Removes one copy of a hash's fingerprint from the newest link that holds one; `true`
    /// if one was found. Only remove what was inserted: a fingerprint shared with another
    /// item removes that item's copy.
    ///
    /// Across links that can happen to an inserted item too: if x sits in link 0 and a newer
    /// link holds another item y whose fingerprint and buckets there equal x's (probability
    /// about that link's ε), removing x removes y's copy, and y is then reported absent while
    /// x is still found. Within one link the two copies are interchangeable, so a chain that
    /// has not grown deletes exactly, as a [`CuckooFilter`] does.
    pub fn remove_hash(&mut self, h: u128) -> bool {
        let removed = self.links.iter_mut().rev().any(|l| l.remove_hash(h));
        if removed {
            self.deleted = self.deleted.saturating_add(1);
        }
        removed
    }

    /// Union as multisets: link i of `other` goes into link i of `self`
    /// ([`CuckooFilter::union`]); links `self` does not have yet are copied.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless the capacity, fpr, expansion, tightening and seed are
    /// identical (`max_kicks`, which only bounds an insert's search, may differ: `self` keeps
    /// its own); [`Error::Full`] if a link cannot hold both sets. `self` is unchanged on any
    /// error.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        let (a, b) = (&self.params, &other.params);
        Error::check_same_shape(&[
            ("capacity", a.capacity, b.capacity),
            ("fpr", a.fpr.to_bits(), b.fpr.to_bits()),
            ("expansion", u64::from(a.expansion), u64::from(b.expansion)),
            ("tightening", a.tightening.to_bits(), b.tightening.to_bits()),
            ("seed", self.seed, other.seed),
        ])?;
        let mut merged = self.clone();
        for (i, link) in other.links.iter().enumerate() {
            match merged.links.get_mut(i) {
                Some(mine) => mine.union(link)?,
                None => merged.links.push(link.clone()),
            }
        }
        merged.deleted = merged.deleted.saturating_add(other.deleted);
        *self = merged;
        Ok(())
    }
}

crate::chain::impl_chain!(ExpandableCuckooFilter);

impl<T: Item + ?Sized> Filter<T> for ExpandableCuckooFilter {
    #[inline]
    fn contains(&self, item: &T) -> bool {
        self.contains_hash(self.hash(item))
    }

    /// Hashes the items 256 at a time and answers each chunk through
    /// [`contains_hash_batch`](ExpandableCuckooFilter::contains_hash_batch).
    fn contains_batch(&self, items: &[&T], out: &mut [bool]) {
        crate::filter::chain_batch(
            items,
            out,
            |item| self.hash(item),
            |hs, os| self.contains_hash_batch(hs, os),
        );
    }
}

impl<T: Item + ?Sized> Insert<T> for ExpandableCuckooFilter {
    #[inline]
    fn insert(&mut self, item: &T) -> Result<bool> {
        self.insert_hash(self.hash(item))
    }
}

impl<T: Item + ?Sized> Remove<T> for ExpandableCuckooFilter {
    #[inline]
    fn remove(&mut self, item: &T) -> bool {
        self.remove_hash(self.hash(item))
    }
}

impl Merge for ExpandableCuckooFilter {
    fn merge(&mut self, other: &Self) -> Result<()> {
        self.union(other)
    }
}
