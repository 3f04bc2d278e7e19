//! Change records: what the log holds for one change to a filter or a Cashu keyset, and how
//! a change is applied. The same `apply` runs when the change is made and when the log is
//! replayed at startup, so a reopened filter is the filter that was served.
//!
//! A record is `[version = 1][tag][time: u64 LE][payload]`; the time is the server's clock
//! (seconds since the Unix epoch) when the change was committed, which an aging filter and
//! a negative cache stamp items with. Payloads: items are `[len: u32 LE][bytes]` repeated;
//! an insert is the items and then the per-filter byte limit it was served under
//! (`[max_filter_bytes: u64 LE]`, `Tag::InsertWithin`; the records of earlier versions,
//! `Tag::Insert`, have no limit); a removal is the item's bytes; a slash is
//! `[epoch: u64 LE]` and the item's bytes; a merge is the other filter's `.amq` bytes;
//! closing an epoch has no payload.

use crate::error::ApiError;
use amq::{AnyFilter, At, Inserted};

const VERSION: u8 = 1;
/// Bytes before the payload.
pub(crate) const HEADER: usize = 10;

/// What a record does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Tag {
    /// Insert items into a filter, with no limit on its growth (written by earlier versions;
    /// still read).
    Insert = 1,
    /// Remove one item from a filter.
    Remove = 2,
    /// Merge another filter's bytes into a filter.
    Merge = 3,
    /// Add items to a keyset's spent set.
    Spent = 4,
    /// Add items to a keyset's issued set.
    Issued = 5,
    /// Slash a member of a sliding-window cuckoo filter at its epoch.
    Slash = 6,
    /// Close a sliding-window cuckoo filter's open epoch.
    Close = 7,
    /// Insert items into a filter while it stays within the byte limit that ends the
    /// payload (`--max-filter-bytes` when the insert was served).
    InsertWithin = 8,
}

impl Tag {
    fn from_u8(b: u8) -> Option<Tag> {
        Some(match b {
            1 => Tag::Insert,
            2 => Tag::Remove,
            3 => Tag::Merge,
            4 => Tag::Spent,
            5 => Tag::Issued,
            6 => Tag::Slash,
            7 => Tag::Close,
            8 => Tag::InsertWithin,
            _ => return None,
        })
    }
}

/// A list of items (byte strings) encoded once, with room for a record header in front, so
/// that the list parsed from a request becomes the record without a copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Items {
    buf: Vec<u8>,
    count: usize,
}

impl Default for Items {
    fn default() -> Self {
        Items::new()
    }
}

impl Items {
    /// An empty list.
    pub fn new() -> Self {
        Items {
            buf: vec![0; HEADER],
            count: 0,
        }
    }

    /// Appends an item.
    ///
    /// # Panics
    /// If the item is 4 GiB or more (request bodies are far smaller).
    pub fn push(&mut self, item: &[u8]) {
        let len = u32::try_from(item.len()).expect("an item below 4 GiB");
        self.buf.extend_from_slice(&len.to_le_bytes());
        self.buf.extend_from_slice(item);
        self.count += 1;
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.count
    }

    /// `true` if there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The items in order.
    pub fn iter(&self) -> ItemIter<'_> {
        ItemIter(&self.buf[HEADER..])
    }

    /// The items as slices (for batched queries).
    pub fn slices(&self) -> Vec<&[u8]> {
        self.iter().collect()
    }

    /// The record that adds these items to a keyset's set.
    pub(crate) fn into_record(mut self, tag: Tag) -> Vec<u8> {
        self.buf[0] = VERSION;
        self.buf[1] = tag as u8;
        self.buf
    }

    /// The record that inserts these items into a filter, each only while the filter stays
    /// within `max_filter_bytes`.
    pub(crate) fn into_insert_record(mut self, max_filter_bytes: u64) -> Vec<u8> {
        self.buf.extend_from_slice(&max_filter_bytes.to_le_bytes());
        self.into_record(Tag::InsertWithin)
    }
}

/// The items of an encoded list; stops at the first malformed one.
#[derive(Debug, Clone)]
pub struct ItemIter<'a>(&'a [u8]);

impl<'a> ItemIter<'a> {
    /// The items of a payload of `[len: u32 LE][bytes]` entries.
    pub(crate) fn new(payload: &'a [u8]) -> Self {
        ItemIter(payload)
    }
}

impl<'a> Iterator for ItemIter<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        let (len, rest) = self.0.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        if rest.len() < len {
            self.0 = &[];
            return None;
        }
        let (item, rest) = rest.split_at(len);
        self.0 = rest;
        Some(item)
    }
}

/// Checks that a payload of items is well formed; returns their number.
fn count_items(payload: &[u8]) -> Option<usize> {
    let mut rest = payload;
    let mut n = 0;
    while !rest.is_empty() {
        let (len, tail) = rest.split_first_chunk::<4>()?;
        let len = u32::from_le_bytes(*len) as usize;
        rest = tail.get(len..)?;
        n += 1;
    }
    Some(n)
}

/// The record that slashes `item` at `epoch`.
pub(crate) fn slash(item: &[u8], epoch: u64) -> Vec<u8> {
    record(Tag::Slash, &[&epoch.to_le_bytes(), item])
}

/// A record with a payload that is not a list of items: the `parts` one after the other.
pub(crate) fn record(tag: Tag, parts: &[&[u8]]) -> Vec<u8> {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    let mut r = Vec::with_capacity(HEADER + len);
    r.extend_from_slice(&[VERSION, tag as u8]);
    r.extend_from_slice(&[0; 8]);
    for p in parts {
        r.extend_from_slice(p);
    }
    r
}

/// Stamps a record with the commit time.
pub(crate) fn set_time(record: &mut [u8], now: u64) {
    record[2..HEADER].copy_from_slice(&now.to_le_bytes());
}

/// A record read back: its tag, time and payload (for an insert, the items without the
/// limit after them).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parsed<'a> {
    pub tag: Tag,
    pub time: u64,
    pub payload: &'a [u8],
    /// The byte limit of an insert (`Tag::InsertWithin`).
    pub max_filter_bytes: Option<u64>,
}

/// Reads a record's header; `None` if it is not a record this version wrote.
pub(crate) fn parse(record: &[u8]) -> Option<Parsed<'_>> {
    let (head, payload) = record.split_first_chunk::<HEADER>()?;
    if head[0] != VERSION {
        return None;
    }
    let tag = Tag::from_u8(head[1])?;
    let time = u64::from_le_bytes(head[2..].try_into().ok()?);
    let (payload, max_filter_bytes) = match tag {
        Tag::InsertWithin => {
            let (items, max) = payload.split_last_chunk::<8>()?;
            (items, Some(u64::from_le_bytes(*max)))
        }
        _ => (payload, None),
    };
    if matches!(
        tag,
        Tag::Insert | Tag::InsertWithin | Tag::Spent | Tag::Issued
    ) {
        count_items(payload)?;
    }
    if tag == Tag::Slash && payload.len() < 8 {
        return None;
    }
    Some(Parsed {
        tag,
        time,
        payload,
        max_filter_bytes,
    })
}

/// What a change did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Per item inserted: whether it is new, and where a sliding-window kind placed it.
    Added(Vec<Inserted>),
    /// The item was held (`true`) or not (`false`: definitely absent; for a negative cache,
    /// not held, nothing changed).
    Removed(bool),
    /// The merge happened.
    Merged,
    /// The epoch closed, if one was open.
    Closed(Option<u64>),
}

/// The answer to an insert stopped by the byte limit after `n` of its `of` items
/// ([`amq::Error::OverLimit`]).
fn over_limit(refusal: &amq::Error, n: usize, of: usize) -> ApiError {
    let amq::Error::OverLimit {
        size,
        more,
        at_most,
        limit,
    } = refusal
    else {
        return ApiError::internal("a refusal that is not the limit's");
    };
    let at_most = if *at_most { "at most " } else { "" };
    ApiError::unprocessable(format!(
        "the filter takes {size} bytes and the next item needs {at_most}{more} more, \
         over the per-filter limit of {limit} (--max-filter-bytes): {n} of the {of} items were \
         added (in order) before it, the rest were not"
    ))
}

/// An insert whose first item the byte limit refuses, told before the record is logged (the
/// committer then logs nothing and answers this): the answer [`apply`] would give. `None`
/// for any other record, and when that cannot be told without changing the filter
/// ([`AnyFilter::check_within`]).
pub(crate) fn refused_whole(filter: &AnyFilter, record: &[u8]) -> Option<ApiError> {
    if !filter.grows() {
        return None;
    }
    let r = parse(record)?;
    let max = r.max_filter_bytes?;
    let first = ItemIter(r.payload).next()?;
    let refusal = filter.check_within(first, max).err()?;
    Some(over_limit(&refusal, 0, count_items(r.payload)?))
}

/// Applies a filter record: the same function at the change and at replay.
///
/// # Errors
/// The filter's own refusal (a full cuckoo filter; a kind that cannot delete or merge; a
/// shape mismatch) and an insert that would take a growing filter over the record's byte
/// limit: the items before the one refused stay inserted. Replay meets the refusal again at
/// the same point (the limit is in the record), so the filter ends the same either way.
pub(crate) fn apply(filter: &mut AnyFilter, record: &[u8]) -> Result<Outcome, ApiError> {
    let r = parse(record).ok_or_else(|| ApiError::internal("a corrupt change record"))?;
    filter.set_now(r.time);
    match r.tag {
        Tag::Insert | Tag::InsertWithin => {
            let mut added = Vec::new();
            for item in ItemIter(r.payload) {
                let inserted = match r.max_filter_bytes {
                    Some(max) => filter.insert_within(item, max),
                    None => filter.insert_placed(item),
                };
                // how many were added before the item refused, out of how many
                let counts = || (added.len(), count_items(r.payload).unwrap_or(0));
                match inserted {
                    Ok(new) => added.push(new),
                    Err(amq::Error::Full { .. }) => {
                        let (n, of) = counts();
                        return Err(ApiError::conflict(format!(
                            "the filter is full: {n} of the {of} items were added (in order) \
                             before one did not fit"
                        )));
                    }
                    Err(over @ amq::Error::OverLimit { .. }) => {
                        let (n, of) = counts();
                        return Err(over_limit(&over, n, of));
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            Ok(Outcome::Added(added))
        }
        Tag::Remove => Ok(Outcome::Removed(filter.remove(r.payload)?)),
        Tag::Slash => {
            let (epoch, item) = r.payload.split_at(8);
            let epoch = u64::from_le_bytes(epoch.try_into().expect("8 bytes, checked by parse"));
            Ok(Outcome::Removed(filter.remove_at(item, At::Epoch(epoch))?))
        }
        Tag::Close => Ok(Outcome::Closed(filter.close_epoch()?)),
        Tag::Merge => {
            let other = AnyFilter::from_bytes(r.payload)?;
            filter.merge(&other)?;
            Ok(Outcome::Merged)
        }
        Tag::Spent | Tag::Issued => Err(ApiError::internal("a keyset record in a filter log")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amq::math::{Spec, Target};

    #[test]
    fn items_round_trip_through_a_record() {
        let mut items = Items::new();
        for it in [&b"a"[..], b"", b"\xff\x00"] {
            items.push(it);
        }
        assert_eq!(items.len(), 3);
        let mut rec = items.clone().into_record(Tag::Insert);
        set_time(&mut rec, 42);
        let p = parse(&rec).unwrap();
        assert_eq!((p.tag, p.time), (Tag::Insert, 42));
        assert_eq!(
            ItemIter(p.payload).collect::<Vec<_>>(),
            vec![&b"a"[..], b"", b"\xff\x00"]
        );
    }

    /// A list of items is empty until an item is pushed, an empty item included (its
    /// length prefix is still there). Written against `record.rs:102` (`Items::is_empty ->
    /// true`, `-> false`, `== -> !=`), which the other tests let through: the crate itself
    /// never asks, only callers of this public type do.
    #[test]
    fn an_item_list_is_empty_until_an_item_is_pushed() {
        let mut items = Items::new();
        assert!(items.is_empty());
        assert_eq!(Items::default(), items);
        items.push(b"");
        assert!(!items.is_empty());
        assert_eq!(items.len(), 1);
    }

    /// A slash of the empty item (an item like any other: lists carry it, and it can be
    /// registered) is a record of the epoch alone, 8 payload bytes, which parses and applies:
    /// the member is slashed. Written against `record.rs:223 < -> <=` in `parse` (a slash
    /// record of exactly 8 payload bytes read as corrupt: the change would be logged, then
    /// answered 500, and the log would refuse to load at the next start), which the other
    /// tests let through: they slash only non-empty items.
    #[test]
    fn a_slash_of_the_empty_item_parses_and_applies() {
        let spec = Spec::SlidingWindowCuckoo(amq::rln::RlnSpec {
            epoch_items: 2,
            fpr: 0.001,
        });
        let mut f = AnyFilter::new(&spec, 1).unwrap();
        let mut items = Items::new();
        items.push(b"");
        apply(&mut f, &items.into_record(Tag::Insert)).unwrap();
        let rec = slash(b"", 0);
        let p = parse(&rec).expect("a slash of the empty item parses");
        assert_eq!((p.tag, p.payload), (Tag::Slash, &0u64.to_le_bytes()[..]));
        assert_eq!(apply(&mut f, &rec).unwrap(), Outcome::Removed(true));
        assert_eq!(f.contains_at(b"", At::Epoch(0)), Ok(false));
    }

    #[test]
    fn an_insert_record_carries_its_limit_after_the_items() {
        let mut items = Items::new();
        items.push(b"ab");
        let rec = items.into_insert_record(12345);
        let p = parse(&rec).unwrap();
        assert_eq!(
            (p.tag, p.max_filter_bytes),
            (Tag::InsertWithin, Some(12345))
        );
        assert_eq!(ItemIter(p.payload).collect::<Vec<_>>(), vec![&b"ab"[..]]);
        let old = Items::new().into_record(Tag::Insert);
        assert_eq!(parse(&old).unwrap().max_filter_bytes, None);
    }

    #[test]
    fn malformed_records_are_refused_not_panicked_on() {
        for bad in [
            &[][..],
            &[1, 1, 0, 0, 0, 0, 0, 0, 0],
            &[2, 1, 0, 0, 0, 0, 0, 0, 0, 0],
            &[1, 9, 0, 0, 0, 0, 0, 0, 0, 0],
            &[1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, b'a'],
            &[1, 6, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
            // an insert with its limit cut short, and one whose items end early
            &[1, 8, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3],
            &[
                1, 8, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, b'a', 0, 0, 0, 0, 0, 0, 0, 0,
            ],
        ] {
            assert!(parse(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn apply_inserts_and_reports_new_items() {
        let spec = Spec::Bloom {
            items: 100,
            target: Target::Fpr(0.01),
            k: None,
        };
        let mut f = AnyFilter::new(&spec, 1).unwrap();
        let mut items = Items::new();
        items.push(b"x");
        items.push(b"x");
        let rec = items.into_record(Tag::Insert);
        let new = |new| Inserted { new, at: None };
        assert_eq!(
            apply(&mut f, &rec).unwrap(),
            Outcome::Added(vec![new(true), new(false)])
        );
        assert_eq!(f.contains(b"x"), Ok(true));
    }

    #[test]
    fn a_sliding_window_cuckoo_filter_reports_epochs_and_slashes() {
        let spec = Spec::SlidingWindowCuckoo(amq::rln::RlnSpec {
            epoch_items: 2,
            fpr: 0.001,
        });
        let mut f = AnyFilter::new(&spec, 1).unwrap();
        let mut items = Items::new();
        for it in [&b"a"[..], b"b", b"c"] {
            items.push(it);
        }
        let placed = |e| Inserted {
            new: true,
            at: Some(At::Epoch(e)),
        };
        assert_eq!(
            apply(&mut f, &items.into_record(Tag::Insert)).unwrap(),
            Outcome::Added(vec![placed(0), placed(0), placed(1)])
        );
        let rec = slash(b"b", 0);
        assert_eq!(parse(&rec).unwrap().tag, Tag::Slash);
        assert_eq!(apply(&mut f, &rec).unwrap(), Outcome::Removed(true));
        assert_eq!(apply(&mut f, &rec).unwrap(), Outcome::Removed(false));
        assert_eq!(f.contains_at(b"b", At::Epoch(0)), Ok(false));
        assert_eq!(f.contains_at(b"a", At::Epoch(0)), Ok(true));
        // c opened epoch 1: closing it sends d to epoch 2
        let close = record(Tag::Close, &[]);
        assert_eq!(parse(&close).unwrap().tag, Tag::Close);
        assert_eq!(apply(&mut f, &close).unwrap(), Outcome::Closed(Some(1)));
        assert_eq!(apply(&mut f, &close).unwrap(), Outcome::Closed(None));
        assert_eq!(f.insert_placed(b"d").unwrap().at, Some(At::Epoch(2)));
    }
}
