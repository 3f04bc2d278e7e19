//! The operations of the two kinds that place an item somewhere and are asked about it
//! there: a sliding-window Bloom filter puts an item at a position of its stream, a
//! sliding-window cuckoo filter registers a member in an epoch. [`AnyFilter::contains`] cannot
//! answer for them; these can, for every tool that holds an [`AnyFilter`].

use super::AnyFilter;
use crate::error::{Error, Result};
use crate::wire::Kind;

/// Where a sliding-window kind placed an item, or where to ask for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum At {
    /// A position of a sliding-window Bloom filter's stream (0 for the first item).
    Position(u64),
    /// An epoch of a sliding-window cuckoo filter (the one a member was registered in).
    Epoch(u64),
}

/// What [`AnyFilter::insert_placed`] did with an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inserted {
    /// `false` when the item may already have been there (the sliding-window kinds always
    /// say `true`: each placement is new).
    pub new: bool,
    /// Where a sliding-window kind placed it; `None` for every other kind.
    pub at: Option<At>,
}

impl AnyFilter {
    /// [`insert`](Self::insert), also saying where a sliding-window kind placed the item: a
    /// sliding-window Bloom filter's position, a sliding-window cuckoo filter's epoch.
    ///
    /// # Errors
    /// As [`insert`](Self::insert).
    ///
    /// # Example
    /// ```
    /// use amq::math::Spec;
    /// use amq::rln::RlnSpec;
    /// use amq::{AnyFilter, At, Inserted};
    ///
    /// let spec = Spec::SlidingWindowCuckoo(RlnSpec { epoch_items: 100, fpr: 0.001 });
    /// let mut set = AnyFilter::new(&spec, 0)?;
    /// let placed = set.insert_placed(b"alice")?;
    /// assert_eq!(placed, Inserted { new: true, at: Some(At::Epoch(0)) });
    /// assert_eq!(set.contains_at(b"alice", At::Epoch(0)), Ok(true));
    /// assert_eq!(set.remove_at(b"alice", At::Epoch(0)), Ok(true));
    /// assert_eq!(set.contains_at(b"alice", At::Epoch(0)), Ok(false));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn insert_placed(&mut self, item: &[u8]) -> Result<Inserted> {
        let (new, at) = match self {
            AnyFilter::SlidingWindowBloom(w) => (true, Some(At::Position(w.insert(item)?))),
            AnyFilter::SlidingWindowCuckoo(s) => (true, Some(At::Epoch(s.register(item)?))),
            other => (other.insert(item)?, None),
        };
        Ok(Inserted { new, at })
    }

    /// "Maybe present" (`true`) or "definitely absent" (`false`) for an item at a position of
    /// a sliding-window Bloom filter, or for a member at its epoch of a sliding-window cuckoo
    /// filter ("maybe registered then and not slashed"). A position or epoch the filter
    /// no longer holds (or never did) answers `false`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for an epoch asked of a sliding-window Bloom filter, a position
    /// asked of a sliding-window cuckoo filter, and either asked of any other kind (use
    /// [`contains`](Self::contains)).
    pub fn contains_at(&self, item: &[u8], at: At) -> Result<bool> {
        match (self, at) {
            (AnyFilter::SlidingWindowBloom(w), At::Position(p)) => Ok(w.contains(item, p)),
            (AnyFilter::SlidingWindowCuckoo(s), At::Epoch(e)) => Ok(s.contains(item, e)),
            (other, at) => Err(misplaced(other.kind(), at)),
        }
    }

    /// Batched [`contains_at`](Self::contains_at), every item asked at the same `at`: a
    /// sliding-window cuckoo filter answers an epoch with its prefetching batch.
    ///
    /// # Errors
    /// As [`contains_at`](Self::contains_at), before any answer is written.
    ///
    /// # Panics
    /// If `out.len() != items.len()`.
    pub fn contains_batch_at(&self, items: &[&[u8]], at: At, out: &mut [bool]) -> Result<()> {
        crate::filter::check_batch(items.len(), out.len());
        match (self, at) {
            (AnyFilter::SlidingWindowCuckoo(s), At::Epoch(e)) => s.contains_batch(items, e, out),
            // a refusal comes at the first item (the same kind and `at` for all), before any
            // answer is written
            _ => {
                for (o, item) in out.iter_mut().zip(items) {
                    *o = self.contains_at(item, at)?;
                }
            }
        }
        Ok(())
    }

    /// Batched [`contains_at`](Self::contains_at) with a position per item: `out[i]` answers
    /// `items[i]` at `positions[i]`, through the sliding-window Bloom filter's prefetching
    /// batch.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for every other kind, before any answer is written.
    ///
    /// # Panics
    /// If the three slices differ in length.
    pub fn contains_batch_at_positions(
        &self,
        items: &[&[u8]],
        positions: &[u64],
        out: &mut [bool],
    ) -> Result<()> {
        match self {
            AnyFilter::SlidingWindowBloom(w) => {
                w.contains_batch(items, positions, out);
                Ok(())
            }
            other => Err(misplaced(other.kind(), At::Position(0))),
        }
    }

    /// Slashes a member of a sliding-window cuckoo filter at its epoch (removes one copy of
    /// its fingerprint there): `Ok(true)` if it was held, `Ok(false)` if it was definitely
    /// absent (nothing changed). Only slash members: see
    /// [`SlidingWindowCuckoo::slash`](crate::SlidingWindowCuckoo::slash).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a position, and for every other kind (the ones that
    /// delete take [`remove`](Self::remove)).
    pub fn remove_at(&mut self, item: &[u8], at: At) -> Result<bool> {
        match (self, at) {
            (AnyFilter::SlidingWindowCuckoo(s), At::Epoch(e)) => Ok(s.slash(item, e)),
            (AnyFilter::SlidingWindowBloom(_), At::Position(_)) => Err(Error::Unsupported {
                kind: Kind::SlidingWindowBloom.name(),
                operation: "deletion (an item leaves when the window moves past its position)",
            }),
            (other, at) => Err(misplaced(other.kind(), at)),
        }
    }

    /// Closes a sliding-window cuckoo filter's open epoch early
    /// ([`SlidingWindowCuckoo::close`](crate::SlidingWindowCuckoo::close)): `Ok(Some(e))` with
    /// the epoch closed, `Ok(None)` if none was open (nothing changed).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for every other kind (only a sliding-window cuckoo filter has
    /// epochs).
    pub fn close_epoch(&mut self) -> Result<Option<u64>> {
        match self {
            AnyFilter::SlidingWindowCuckoo(s) => Ok(s.close()),
            other => Err(no_epochs(other.kind())),
        }
    }

    /// A sliding-window cuckoo filter's open epoch
    /// ([`SlidingWindowCuckoo::open_epoch`](crate::SlidingWindowCuckoo::open_epoch)), `None`
    /// if none is open.
    ///
    /// # Errors
    /// As [`close_epoch`](Self::close_epoch).
    pub fn open_epoch(&self) -> Result<Option<u64>> {
        match self {
            AnyFilter::SlidingWindowCuckoo(s) => Ok(s.open_epoch()),
            other => Err(no_epochs(other.kind())),
        }
    }

    /// The epoch a sliding-window cuckoo filter's next registration goes to
    /// ([`SlidingWindowCuckoo::next_epoch`](crate::SlidingWindowCuckoo::next_epoch)).
    ///
    /// # Errors
    /// As [`close_epoch`](Self::close_epoch).
    pub fn next_epoch(&self) -> Result<u64> {
        match self {
            AnyFilter::SlidingWindowCuckoo(s) => Ok(s.next_epoch()),
            other => Err(no_epochs(other.kind())),
        }
    }
}

/// The error for an epoch's operation asked of a kind without epochs.
fn no_epochs(kind: Kind) -> Error {
    Error::Unsupported {
        kind: kind.name(),
        operation: "epochs (only a sliding-window cuckoo filter has them)",
    }
}

/// The error for a position or an epoch asked of a kind that does not take it.
fn misplaced(kind: Kind, at: At) -> Error {
    let operation = match (kind, at) {
        (Kind::SlidingWindowBloom, _) => {
            "an epoch (it answers for an item at a position of its stream)"
        }
        (Kind::SlidingWindowCuckoo, _) => {
            "a position (it answers for a member at its registration epoch)"
        }
        (_, At::Position(_)) => "a position (only a sliding-window Bloom filter takes one)",
        (_, At::Epoch(_)) => "an epoch (only a sliding-window cuckoo filter takes one)",
    };
    Error::Unsupported {
        kind: kind.name(),
        operation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Spec, Target};
    use crate::window::WindowParams;

    fn window() -> AnyFilter {
        let params = WindowParams {
            window_bits: 4096,
            chunk_bits: 256,
            batch: 16,
            k: 4,
        };
        AnyFilter::new(&Spec::SlidingWindowBloom { params }, 3).unwrap()
    }

    #[test]
    fn a_sliding_window_answers_at_the_positions_it_gave() {
        let mut f = window();
        let mut placed = alloc::vec::Vec::new();
        for i in 0..100u32 {
            let r = f.insert_placed(&i.to_le_bytes()).unwrap();
            assert!(r.new);
            placed.push(r.at);
        }
        for (i, at) in placed.iter().enumerate() {
            assert_eq!(*at, Some(At::Position(i as u64)));
            let item = (i as u32).to_le_bytes();
            assert_eq!(f.contains_at(&item, At::Position(i as u64)), Ok(true));
        }
        // the batch with a position per item answers as the single query
        let items: alloc::vec::Vec<[u8; 4]> = (0..100u32).map(u32::to_le_bytes).collect();
        let refs: alloc::vec::Vec<&[u8]> = items.iter().map(|i| &i[..]).collect();
        let positions: alloc::vec::Vec<u64> = (0..100u64).map(|p| (p * 7) % 100).collect();
        let mut out = [false; 100];
        f.contains_batch_at_positions(&refs, &positions, &mut out)
            .unwrap();
        for i in 0..100 {
            let single = f.contains_at(&items[i], At::Position(positions[i]));
            assert_eq!(Ok(out[i]), single, "item {i}");
        }
        // A position past the stream holds nothing yet.
        assert_eq!(f.contains_at(b"x", At::Position(1 << 40)), Ok(false));
        let e = f.contains_at(b"x", At::Epoch(0)).unwrap_err();
        assert!(e.to_string().contains("at a position"), "{e}");
        assert_eq!(
            f.open_epoch().unwrap_err(),
            f.clone().close_epoch().unwrap_err()
        );
        assert_eq!(f.next_epoch().unwrap_err(), f.open_epoch().unwrap_err());
        let e = f.close_epoch().unwrap_err();
        assert!(
            e.to_string().contains("only a sliding-window cuckoo"),
            "{e}"
        );
        let e = f.remove_at(b"x", At::Position(0)).unwrap_err();
        assert!(e.to_string().contains("window moves past"), "{e}");
        assert_eq!(f.inserted(), 100);
    }

    #[test]
    fn a_sliding_window_cuckoo_filter_answers_and_slashes_at_epochs() {
        let spec = Spec::SlidingWindowCuckoo(crate::rln::RlnSpec {
            epoch_items: 10,
            fpr: 0.001,
        });
        let mut f = AnyFilter::new(&spec, 1).unwrap();
        let epochs: alloc::vec::Vec<_> = (0..25u32)
            .map(|i| f.insert_placed(&i.to_le_bytes()).unwrap().at)
            .collect();
        for (i, at) in epochs.iter().enumerate() {
            assert_eq!(*at, Some(At::Epoch(i as u64 / 10)), "item {i}");
            let item = (i as u32).to_le_bytes();
            assert_eq!(f.contains_at(&item, at.unwrap()), Ok(true));
        }
        let items: alloc::vec::Vec<[u8; 4]> = (0..25u32).map(u32::to_le_bytes).collect();
        let refs: alloc::vec::Vec<&[u8]> = items.iter().map(|i| &i[..]).collect();
        let mut out = [false; 25];
        f.contains_batch_at(&refs, At::Epoch(1), &mut out).unwrap();
        for (i, &maybe) in out.iter().enumerate() {
            assert_eq!(
                maybe,
                i / 10 == 1 || f.contains_at(&items[i], At::Epoch(1)).unwrap()
            );
            assert!(!(10..20).contains(&i) || maybe, "member {i} at its epoch");
        }
        assert_eq!(f.remove_at(&3u32.to_le_bytes(), At::Epoch(0)), Ok(true));
        assert_eq!(f.contains_at(&3u32.to_le_bytes(), At::Epoch(0)), Ok(false));
        assert_eq!(f.remove_at(&3u32.to_le_bytes(), At::Epoch(0)), Ok(false));
        let e = f.contains_at(b"x", At::Position(0)).unwrap_err();
        assert!(e.to_string().contains("registration epoch"), "{e}");
        // 25 registrations of 10 per epoch: epoch 2 is open with 5, and closes early
        assert_eq!(f.open_epoch(), Ok(Some(2)));
        assert_eq!(f.next_epoch(), Ok(2));
        assert_eq!(f.close_epoch(), Ok(Some(2)));
        assert_eq!(f.open_epoch(), Ok(None));
        assert_eq!(f.next_epoch(), Ok(3));
        assert_eq!(f.close_epoch(), Ok(None));
        let next = f.insert_placed(b"late").unwrap().at;
        assert_eq!(next, Some(At::Epoch(3)));
        assert_eq!(f.contains_at(&24u32.to_le_bytes(), At::Epoch(2)), Ok(true));
    }

    #[test]
    fn other_kinds_refuse_a_position_or_an_epoch_and_stay_unchanged() {
        let spec = Spec::Cuckoo {
            items: 100,
            target: Target::Fpr(0.01),
        };
        let mut f = AnyFilter::new(&spec, 0).unwrap();
        let r = f.insert_placed(b"a").unwrap();
        assert_eq!(
            r,
            Inserted {
                new: true,
                at: None
            }
        );
        let before = f.clone();
        for at in [At::Position(0), At::Epoch(0)] {
            assert!(matches!(
                f.contains_at(b"a", at),
                Err(Error::Unsupported { kind: "cuckoo", .. })
            ));
            assert!(matches!(
                f.remove_at(b"a", at),
                Err(Error::Unsupported { kind: "cuckoo", .. })
            ));
        }
        let mut out = [false];
        assert!(matches!(
            f.contains_batch_at_positions(&[b"a"], &[0], &mut out),
            Err(Error::Unsupported { kind: "cuckoo", .. })
        ));
        assert_eq!(f, before);
    }
}
