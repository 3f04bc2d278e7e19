//! Edges of the TTL cuckoo filter's table (`src/ttl/table.rs`) that `tests/ttl.rs` and
//! `tests/ttl_edges.rs` leave open, built bucket by bucket from chosen hashes through the public
//! `insert_hash`: an insert refused only when both of its buckets hold live entries and so does
//! the victim stash (one full bucket is not enough), a stash entry moved back into the table
//! when a remove or a sweep frees a slot, a kick walk that moves only the one entry with room
//! in its other bucket, and a stash entry kept when a sliding-window epoch (which shares the
//! table) is compacted. Each test was written against a mutant of `src/ttl/table.rs` that
//! cargo-mutants found the other tests let through.

use amq::hash::{cuckoo_alt_index, cuckoo_fingerprint};
use amq::ttl::TtlCuckooFilter;
#[path = "common/hashes.rs"]
mod hashes;
use amq::wire;
use amq::Error;
use hashes::hash_at;

/// f, the fingerprint bits, and s, the stamp bits, of every filter here: 12-bit slots, so a
/// bucket of 4 slots is 48 bits, 6 bytes.
const F: u32 = 8;
const S: u32 = 4;

/// The fingerprints whose other bucket, seen from bucket `i` of `buckets`, is `j` (j = i: an
/// entry that can live only in bucket i).
fn fps_from_to(i: u64, j: u64, buckets: u64) -> impl Iterator<Item = u32> {
    (1..1u32 << F).filter(move |&fp| cuckoo_alt_index(i, fp, buckets) == j)
}

/// The stash's slot value (parameter word 9 of the file) and its bucket (word 10).
fn stash_words(f: &TtlCuckooFilter) -> (u64, u64) {
    let bytes = f.to_bytes();
    let c = wire::decode(&bytes).unwrap();
    (c.params[9], c.params[10])
}

/// One full bucket does not refuse an insert: with two buckets, bucket 0 holds 4 entries that
/// can live only there and the victim stash a fifth, so a sixth of them is refused with the
/// live entries, 5, against the 2 · 4 slots + 1 stash entry; but an item whose buckets are 0
/// and 1 takes a slot of the empty bucket 1 (the filter's promise: `Full` only if both buckets
/// hold only live entries and so does the stash). Written against `both_full -> true` and
/// its `&&` made `||`, each of which refused that item.
#[test]
fn one_full_bucket_and_a_live_stash_do_not_refuse_an_insert() {
    let mut f = TtlCuckooFilter::new(2, F, S, 1, 0).unwrap();
    let mut only_0 = fps_from_to(0, 0, 2).map(|fp| hash_at(2, F, 0, fp));
    let stored: Vec<u128> = only_0.by_ref().take(5).collect();
    for &h in &stored {
        assert!(f.insert_hash(h, 0, 10).unwrap());
    }
    assert!(f.stash_used_at(0));
    let sixth = only_0.next().unwrap();
    match f.insert_hash(sixth, 0, 10) {
        Err(Error::Full { items, capacity }) => assert_eq!((items, capacity), (5, 9)),
        other => panic!("expected Full, got {other:?}"),
    }
    let both = hash_at(2, F, 0, fps_from_to(0, 1, 2).next().unwrap());
    assert!(f.insert_hash(both, 0, 10).unwrap());
    assert!(stored.iter().chain([&both]).all(|&h| f.contains_hash(h, 9)));
    assert_eq!(f.entries_at(0), (6, 6));
}

/// A one-bucket filter of 4 slots and 5 entries (the fifth in the stash).
fn one_bucket_and_stash(ttls: [u64; 5]) -> (TtlCuckooFilter, Vec<u128>) {
    let mut f = TtlCuckooFilter::new(1, F, S, 1, 0).unwrap();
    let hashes: Vec<u128> = (1..=5).map(|fp| hash_at(1, F, 0, fp)).collect();
    for (&h, ttl) in hashes.iter().zip(ttls) {
        assert!(f.insert_hash(h, 0, ttl).unwrap());
    }
    assert!(f.stash_used_at(0));
    (f, hashes)
}

/// Removing an entry of the bucket gives its slot to the stash entry: with one bucket (every
/// item's two buckets are bucket 0) of 4 slots and a fifth entry in the stash, removing one
/// not in the stash leaves 4 entries in 4 slots and the stash empty (both its file words 0),
/// so the next new item is stored (its walk ends in the stash again) instead of refused.
/// Written against `rehome_stash` made a no-op (and its `stash == 0` made `!=`), which kept
/// the stash full and refused that item.
#[test]
fn a_remove_moves_the_stash_entry_into_the_freed_slot() {
    let (mut f, hashes) = one_bucket_and_stash([10; 5]);
    let stashed = stash_words(&f).0 >> S;
    let gone = *hashes
        .iter()
        .find(|&&h| cuckoo_fingerprint(h, F) != stashed as u32)
        .unwrap();
    assert!(f.remove_hash(gone, 0));
    assert!(!f.stash_used_at(0));
    assert_eq!(stash_words(&f), (0, 0));
    assert_eq!(f.entries_at(0), (4, 4));
    assert!(hashes
        .iter()
        .filter(|&&h| h != gone)
        .all(|&h| f.contains_hash(h, 9)));
    assert!(!f.contains_hash(gone, 0));
    assert!(f.insert_hash(hash_at(1, F, 0, 6), 0, 10).unwrap());
    assert!(f.stash_used_at(0));
}

/// A sweep does the same for an expired entry: with tick 1, the entry inserted at 0 with
/// TTL 2 expires at 2 and the others (TTL 10) at 10; `expire(5)` clears the expired one from
/// the bucket and moves the stash entry into its slot, so at 5 the stash is empty and the 4
/// live entries fill the 4 slots. Written against `rehome_stash` made a no-op.
#[test]
fn a_sweep_moves_the_stash_entry_into_an_expired_slot() {
    let (mut f, hashes) = one_bucket_and_stash([2, 10, 10, 10, 10]);
    // the stash must hold one of the long-lived entries (fingerprints 2 to 5), so that the
    // short-lived one (fingerprint 1) is in the bucket
    assert_ne!(stash_words(&f).0 >> S, 1);
    assert_eq!(f.entries_at(5), (4, 5)); // expired, not yet cleared
    f.expire(5);
    assert_eq!(f.swept_epoch(), 5);
    assert!(!f.stash_used_at(5));
    assert_eq!(stash_words(&f), (0, 0));
    assert_eq!(f.entries_at(5), (4, 4));
    assert!(hashes[1..].iter().all(|&h| f.contains_hash(h, 9)));
    assert!(!f.contains_hash(hashes[0], 5));
}

/// The file's payload: the buckets.
fn payload(f: &TtlCuckooFilter) -> Vec<u8> {
    wire::decode(&f.to_bytes()).unwrap().payload.to_vec()
}

/// A bucket's 6 bytes (`to_bytes`' layout): slot j, `fingerprint << s | stamp`, at bits
/// `[12j, 12j + 12)` of a little-endian integer.
fn bucket(slots: [u64; 4]) -> Vec<u8> {
    let word = (0..4).fold(0u64, |w, j| w | slots[j] << (12 * j));
    word.to_le_bytes()[..6].to_vec()
}

/// A kick walk first moves the one entry that has room in its other bucket, and nothing
/// else: with 3 buckets, bucket 0 holds 4 entries that can live only there, bucket 1 an
/// entry E whose other bucket is the empty bucket 2 (slot 0) and 3 that can live only in
/// bucket 1; a new item whose buckets are 0 and 1 then takes E's slot and E moves to slot 0
/// of bucket 2, every other slot as it was (stamps: expiry tick 10 mod 2⁴ = 10). Written
/// against the look-ahead's `other != b` made `==` (no entry ever moves ahead), whose random
/// walk shuffled the slots of buckets 0 and 1 before it reached E.
#[test]
fn a_kick_moves_only_the_entry_with_room_in_its_other_bucket() {
    let b = 3;
    let mut f = TtlCuckooFilter::new(b, F, S, 1, 0).unwrap();
    let e_fp = fps_from_to(1, 2, b).next().unwrap();
    let in_1: Vec<u32> = fps_from_to(1, 1, b).take(3).collect();
    let in_0: Vec<u32> = fps_from_to(0, 0, b).take(4).collect();
    let new_fp = fps_from_to(0, 1, b).next().unwrap();
    let mut fps = vec![e_fp];
    fps.extend(&in_1);
    for fp in fps {
        assert!(f.insert_hash(hash_at(b, F, 1, fp), 0, 10).unwrap());
    }
    for &fp in &in_0 {
        assert!(f.insert_hash(hash_at(b, F, 0, fp), 0, 10).unwrap());
    }
    let slot = |fp: u32| u64::from(fp) << S | 10;
    let b0 = bucket([0, 1, 2, 3].map(|j| slot(in_0[j])));
    assert_eq!(payload(&f)[..6], b0[..]);
    assert!(f.insert_hash(hash_at(b, F, 0, new_fp), 0, 10).unwrap());
    let mut want = b0;
    want.extend(bucket([
        slot(new_fp),
        slot(in_1[0]),
        slot(in_1[1]),
        slot(in_1[2]),
    ]));
    want.extend(bucket([slot(e_fp), 0, 0, 0]));
    assert_eq!(payload(&f), want);
    assert!(!f.stash_used_at(0));
}

/// The table's stash entry is one of its entries when a sliding-window epoch is compacted:
/// with 2⁴ buckets, 5 members whose fingerprints' offsets `top₄(fp · C)` are 0 have bucket 0
/// as both of their buckets (in every smaller table too), so 4 fill it and the fifth goes to
/// the stash; closing the epoch after its B = 5 registrations shrinks its table to 2² buckets
/// (the planned load at 5 members is 0.5, 2 per bucket: ⌈5/2⌉ = 3, a power of two up), and
/// all 5 must still be found there (a member lost would be a false negative), the fifth in
/// the new table's stash. Written against `entries`' `stash != 0` made `==`, which left the stash
/// entry out of the shrunk table.
#[test]
fn a_compacted_epoch_keeps_its_stash_entry() {
    let mut set = amq::SlidingWindowCuckoo::new(5, F, 4, 0).unwrap();
    let members: Vec<u128> = (1..1u32 << F)
        .filter(|&fp| amq::hash::halving_cuckoo_alt_index(0, fp, 4) == 0)
        .take(5)
        .map(|fp| hash_at(1, F, 0, fp))
        .collect();
    for &h in &members {
        assert_eq!(amq::hash::halving_cuckoo_index(h, 4), 0);
        assert_eq!(set.register_hash(h).unwrap(), 0);
    }
    let info = set.epoch(0).unwrap();
    assert!(!info.open);
    assert_eq!((info.buckets, info.members), (4, 5));
    assert!(members.iter().all(|&h| set.contains_hash(h, 0)));
}
