//! Queries: one item, or many merged against the sorted gap stream in one pass.

use super::{hash_to_range, Gcs, GcsHash};
use crate::error::{Error, Result};
use alloc::vec::Vec;

impl<B: AsRef<[u8]>> Gcs<B> {
    /// `true` if `value` (in `[0, F)`) is one of the set's values. Decodes up to the value.
    ///
    /// # Errors
    /// As [`Gcs::validate`] for the part decoded.
    pub fn contains_value(&self, value: u64) -> Result<bool> {
        let mut it = self.values();
        while let Some(v) = it.next_value()? {
            if v >= value {
                return Ok(v == value);
            }
        }
        Ok(false)
    }

    /// `true` if `item` may be in the set ("maybe present"); `false` if it is definitely not.
    ///
    /// # Errors
    /// As [`Gcs::contains_value`].
    pub fn contains<H: GcsHash + ?Sized>(&self, item: &[u8], hash: &H) -> Result<bool> {
        if self.params.n == 0 {
            return Ok(false);
        }
        self.contains_value(self.map_item(item, hash))
    }

    /// `true` if any of `items` may be in the set. One pass over the gaps, merged against the
    /// sorted targets; it stops at the first match or once the values pass every target.
    ///
    /// # Errors
    /// As [`Gcs::validate`] for the part decoded.
    pub fn match_any<I, H>(&self, items: I, hash: &H) -> Result<bool>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
        H: GcsHash + ?Sized,
    {
        let mut targets = self.map_items(items, hash);
        targets.sort_unstable();
        self.match_any_values(&targets)
    }

    /// `true` if every one of `items` may be in the set (an empty list gives `true`).
    ///
    /// # Errors
    /// As [`Gcs::validate`] for the part decoded.
    pub fn match_all<I, H>(&self, items: I, hash: &H) -> Result<bool>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
        H: GcsHash + ?Sized,
    {
        let mut targets = self.map_items(items, hash);
        targets.sort_unstable();
        self.match_all_values(&targets)
    }

    /// For each of `items`, in order, whether it may be in the set. One pass over the gaps.
    ///
    /// # Errors
    /// As [`Gcs::validate`] for the part decoded.
    pub fn match_many<I, H>(&self, items: I, hash: &H) -> Result<Vec<bool>>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
        H: GcsHash + ?Sized,
    {
        let mut targets: Vec<(u64, usize)> = self
            .map_items(items, hash)
            .into_iter()
            .enumerate()
            .map(|(i, v)| (v, i))
            .collect();
        targets.sort_unstable();
        let sorted: Vec<u64> = targets.iter().map(|t| t.0).collect();
        let mut hits = alloc::vec![false; sorted.len()];
        self.match_many_values(&sorted, &mut hits)?;
        let mut out = alloc::vec![false; sorted.len()];
        for (&(_, i), hit) in targets.iter().zip(hits) {
            out[i] = hit;
        }
        Ok(out)
    }

    fn map_items<I, H>(&self, items: I, hash: &H) -> Vec<u64>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
        H: GcsHash + ?Sized,
    {
        let f = self.f();
        items
            .into_iter()
            .map(|item| hash_to_range(hash.hash64(item.as_ref()), f))
            .collect()
    }

    /// [`Gcs::match_any`] over target values in `[0, F)`, sorted ascending.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`sorted_targets`) if the targets are not in ascending
    /// order (the one pass would miss members); as [`Gcs::validate`] for the part decoded.
    pub fn match_any_values(&self, sorted_targets: &[u64]) -> Result<bool> {
        check_sorted(sorted_targets)?;
        let Some(&first) = sorted_targets.first() else {
            return Ok(false);
        };
        let mut it = self.values();
        let mut j = 0;
        let mut t = first;
        while let Some(v) = it.next_value()? {
            while t < v {
                j += 1;
                match sorted_targets.get(j) {
                    Some(&next) => t = next,
                    None => return Ok(false),
                }
            }
            if t == v {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// [`Gcs::match_all`] over target values in `[0, F)`, sorted ascending (repeats allowed).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`sorted_targets`) if the targets are not in ascending
    /// order; as [`Gcs::validate`] for the part decoded.
    pub fn match_all_values(&self, sorted_targets: &[u64]) -> Result<bool> {
        check_sorted(sorted_targets)?;
        if sorted_targets.is_empty() {
            return Ok(true);
        }
        let mut it = self.values();
        let mut j = 0;
        while let Some(v) = it.next_value()? {
            while sorted_targets[j] == v {
                j += 1;
                if j == sorted_targets.len() {
                    return Ok(true);
                }
            }
            if sorted_targets[j] < v {
                return Ok(false);
            }
        }
        Ok(false)
    }

    /// For each target value in `[0, F)` (sorted ascending, repeats allowed), sets `hits[i]` to
    /// whether it is one of the set's values. One pass over the gaps; it stops once the values
    /// pass the last target.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`sorted_targets`) if the targets are not in ascending
    /// order (`hits` all false); as [`Gcs::validate`] for the part decoded (`hits` is then
    /// partly filled).
    ///
    /// # Panics
    /// If `hits.len() != sorted_targets.len()`.
    pub fn match_many_values(&self, sorted_targets: &[u64], hits: &mut [bool]) -> Result<()> {
        assert_eq!(
            sorted_targets.len(),
            hits.len(),
            "match_many_values: targets and hits differ in length"
        );
        hits.fill(false);
        check_sorted(sorted_targets)?;
        let k = sorted_targets.len();
        if k == 0 {
            return Ok(());
        }
        let mut it = self.values();
        let mut j = 0;
        while let Some(v) = it.next_value()? {
            while sorted_targets[j] < v {
                j += 1;
                if j == k {
                    return Ok(());
                }
            }
            while j < k && sorted_targets[j] == v {
                hits[j] = true;
                j += 1;
            }
            if j == k {
                return Ok(());
            }
        }
        Ok(())
    }
}

/// The targets of one merge pass must ascend: an unsorted list made the pass step over
/// members and answer "no" for them.
fn check_sorted(targets: &[u64]) -> Result<()> {
    match targets.windows(2).position(|w| w[0] > w[1]) {
        None => Ok(()),
        Some(i) => Err(Error::invalid(
            "sorted_targets",
            alloc::format!(
                "must ascend: target {} is {}, target {} is {}",
                i,
                targets[i],
                i + 1,
                targets[i + 1]
            ),
        )),
    }
}
