//! Registrations within a byte limit: each epoch a registration opens adds
//! [`new_epoch_bytes`](SlidingWindowCuckoo::new_epoch_bytes), and one the open table refuses closes
//! that epoch first (compacted); what that adds is worked out before anything changes.

use super::epoch::Epoch;
use super::SlidingWindowCuckoo;
use crate::error::{Error, Result};
use crate::filter::Item;
use crate::ttl::table::Table;

impl SlidingWindowCuckoo {
    /// [`register_hash`](Self::register_hash), unless the set would then take more than
    /// `limit` bytes ([`size_bytes`](Self::size_bytes)): a registration that opens an epoch
    /// adds [`new_epoch_bytes`](Self::new_epoch_bytes); one the open table refuses closes
    /// that epoch first, compacted, and so adds the compacted table's bytes. What it would add
    /// is worked out before anything is allocated or changed.
    ///
    /// # Errors
    /// [`Error::OverLimit`] (exact, nothing changed); as
    /// [`register_hash`](Self::register_hash).
    pub fn register_hash_within(&mut self, h: u128, limit: u64) -> Result<u64> {
        if !self.open {
            self.check_growth(self.new_epoch_bytes(), limit)?;
            self.start_epoch()?;
        }
        let seed = self.seed;
        let last = self.epochs.len() - 1;
        if self.epochs[last].insert(h, seed).is_err() {
            // the open epoch closes: its table, compacted, stays beside a new one
            let (more, compacted) = self.reopen_bytes(&self.epochs[last]);
            self.check_growth(more, limit)?;
            if let Some(c) = compacted {
                self.epochs[last].replace(c);
            }
            self.open = false;
            self.start_epoch()?;
            let fresh = self.epochs.len() - 1;
            self.epochs[fresh]
                .insert(h, seed)
                .map_err(|()| Error::invalid("epoch_items", "an empty epoch refused a member"))?;
        }
        let last = self.epochs.len() - 1;
        let epoch = self.first + last as u64;
        self.epochs[last].registered += 1;
        if self.epochs[last].registered >= self.epoch_items {
            self.close();
        }
        Ok(epoch)
    }

    /// [`Error::OverLimit`] if `more` bytes take the set over `limit`. The set's size is a
    /// sum over its epochs, so it is summed only near the limit: no epoch's table is larger
    /// than [`epoch_bytes`](Self::epoch_bytes) (a closed one is compacted, a decoded one is
    /// checked), so the count of epochs bounds the size in O(1). Summed at every epoch
    /// opened, 2·10⁶ plain registrations in epochs of 20 took 9.4 s instead of 0.07 s.
    fn check_growth(&self, more: u64, limit: u64) -> Result<()> {
        let bound = self
            .epochs()
            .saturating_mul(self.epoch_bytes() + super::epoch::TABLE_OVERHEAD)
            .saturating_add(self.list_bytes());
        if bound.saturating_add(more) <= limit {
            return Ok(());
        }
        Error::check_limit(self.size_bytes(), more, false, limit)
    }

    /// What closing the open epoch `open` (its table refused a registration) and opening a
    /// new one add to the set: its compacted table in place of the open one, and a new
    /// table; with the compacted table to put in place (`None`: it keeps its table).
    fn reopen_bytes(&self, open: &Epoch) -> (u64, Option<(Table, u32)>) {
        let compacted = open.compacted(self.seed);
        let closed = compacted
            .as_ref()
            .map_or(open.table_bytes(), |(t, _)| t.size_bytes());
        let more =
            (closed.saturating_add(self.new_epoch_bytes())).saturating_sub(open.table_bytes());
        (more, compacted)
    }

    /// [`Error::OverLimit`] if [`register_hash_within`](Self::register_hash_within) would
    /// refuse `h` for `limit`, told without changing the set: exact, since a registration
    /// adds at most one table (near the limit a copy of the open table takes `h` first, to
    /// tell whether it would close).
    ///
    /// # Errors
    /// [`Error::OverLimit`], as said.
    pub fn check_register_within(&self, h: u128, limit: u64) -> Result<()> {
        let table = self.new_epoch_bytes();
        let open = match self.epochs.last() {
            Some(open) if self.open => open,
            _ => return self.check_growth(table, limit),
        };
        if self.check_growth(table, limit).is_ok() {
            return Ok(()); // it adds at most one table
        }
        let mut trial = open.clone();
        if trial.insert(h, self.seed).is_ok() {
            return Ok(());
        }
        self.check_growth(self.reopen_bytes(open).0, limit)
    }

    /// Registers `item` within a byte limit
    /// ([`register_hash_within`](Self::register_hash_within)) and returns its epoch.
    ///
    /// # Errors
    /// As [`register_hash_within`](Self::register_hash_within).
    ///
    /// # Example
    /// ```
    /// use amq::{rln::SlidingWindowCuckoo, Error};
    /// let mut set = SlidingWindowCuckoo::with_fpr(1000, 0.001, 0)?;
    /// let one = set.new_epoch_bytes(); // a table and an epoch's overhead
    /// assert_eq!(set.register_within("alice", one)?, 0); // opens epoch 0: one table
    /// set.close();
    /// // a second table would take the set over the limit: refused, nothing changed
    /// let err = set.register_within("bob", one).unwrap_err();
    /// assert!(matches!(err, Error::OverLimit { .. }));
    /// assert_eq!((set.epochs(), set.open_epoch()), (1, None));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn register_within<T: Item + ?Sized>(&mut self, item: &T, limit: u64) -> Result<u64> {
        self.register_hash_within(self.hash(item), limit)
    }
}
