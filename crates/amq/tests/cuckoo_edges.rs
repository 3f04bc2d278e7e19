//! Edges of the cuckoo filter (`src/cuckoo/`) that the other tests do not pin: the accessors
//! by their formulas, the packed bucket layout of the `.amq` payload written out by hand, a
//! table of one bucket filled past its 4 slots, the decoder's exact errors, and the
//! expandable chain's growth and bounds. Each test here was written against a mutant of
//! `src/cuckoo/*.rs` that cargo-mutants found the other tests let through.

use amq::cuckoo::{self, CuckooFilter, ExpandableCuckooFilter, ExpandableParams};
use amq::hash::{cuckoo_alt_index, hash128};
use amq::{Error, Filter, Insert, Merge, Remove};

#[path = "common/errors.rs"]
mod errors;
#[path = "common/files.rs"]
mod files;
use errors::invalid;
use files::edited;
#[path = "common/hashes.rs"]
mod hashes;
use hashes::hash_at;

/// Where a cuckoo file's payload starts: 24 header bytes and 7 parameter words (80 bytes),
/// padded to 64.
const PAYLOAD: usize = 128;

/// Slot j of bucket i, read from a file's payload as the layout says: bucket i is the
/// little-endian integer of f/2 bytes at byte i·f/2, slot j its bits [j·f, (j+1)·f).
fn slot(bytes: &[u8], f: u32, i: u64, j: u32) -> u32 {
    let at = PAYLOAD + (i * u64::from(f / 2)) as usize;
    let mut word = [0u8; 8];
    word[..(f / 2) as usize].copy_from_slice(&bytes[at..at + (f / 2) as usize]);
    ((u64::from_le_bytes(word) >> (j * f)) & ((1 << f) - 1)) as u32
}

/// The four slots of bucket i.
fn bucket(bytes: &[u8], f: u32, i: u64) -> [u32; 4] {
    [0, 1, 2, 3].map(|j| slot(bytes, f, i, j))
}

/// Parameter word w of a file (they start at byte 24).
fn word(bytes: &[u8], w: usize) -> u64 {
    u64::from_le_bytes(bytes[24 + 8 * w..32 + 8 * w].try_into().unwrap())
}

/// The field and the two values a `ShapeMismatch` error gives.
fn mismatch(r: amq::Result<()>) -> (&'static str, u64, u64) {
    match r {
        Err(Error::ShapeMismatch { field, left, right }) => (field, left, right),
        other => panic!("expected ShapeMismatch, got {other:?}"),
    }
}

// ---- mod.rs: accessors

/// seed() is the seed given, the one the item hash and the file's word 3 use.
#[test]
fn the_seed_is_kept_hashed_with_and_written() {
    for seed in [0u64, 1, 0xDEAD_BEEF_0123_4567] {
        let f = CuckooFilter::new(10, 12, seed).unwrap();
        assert_eq!(f.seed(), seed);
        assert_eq!(f.hash("apple"), hash128("apple", seed));
        assert_eq!(word(&f.to_bytes(), 3), seed);
        assert_eq!(
            CuckooFilter::from_bytes(&f.to_bytes()).unwrap().seed(),
            seed
        );
    }
}

/// is_empty() is true for a new filter, false once it holds a fingerprint, true again after
/// the last remove and after clear().
#[test]
fn empty_until_a_fingerprint_is_held() {
    let mut f = CuckooFilter::new(16, 8, 3).unwrap();
    assert!(f.is_empty());
    f.insert("a").unwrap();
    assert!(!f.is_empty());
    assert!(f.remove("a"));
    assert!(f.is_empty());
    f.insert("b").unwrap();
    f.clear();
    assert!(f.is_empty() && f.inserted() == 0 && !f.contains("b"));
}

/// size_bytes() = buckets · f/2 (a bucket is 4f bits), the length of the file's payload;
/// m = buckets · 4 · f bits; slots = 4 · buckets.
#[test]
fn sizes_follow_the_bucket_layout() {
    for (buckets, f, bytes) in [
        (1u64, 8u32, 4u64),
        (10, 8, 40),
        (1000, 12, 6000),
        (3, 16, 24),
    ] {
        let c = CuckooFilter::new(buckets, f, 0).unwrap();
        assert_eq!(c.size_bytes(), bytes, "{buckets} buckets, f = {f}");
        assert_eq!((c.m(), c.slots()), (8 * bytes, 4 * buckets));
        // the file: header and words, the payload padded to 8, the checksum
        let len = c.to_bytes().len() as u64;
        assert_eq!(len, PAYLOAD as u64 + bytes.next_multiple_of(8) + 8);
    }
}

/// merge() (the Merge trait) is the multiset union, copies added; a filter of another width
/// is refused by name and nothing changes.
#[test]
fn merge_is_the_multiset_union() {
    let mut a = CuckooFilter::new(32, 12, 1).unwrap();
    let mut b = CuckooFilter::new(32, 12, 1).unwrap();
    for (item, other) in [("a", "b"), ("both", "both")] {
        a.insert(item).unwrap();
        b.insert(other).unwrap();
    }
    a.merge(&b).unwrap();
    assert_eq!((a.inserted(), a.count("both")), (4, 2));
    assert!(a.contains("a") && a.contains("b"));
    let before = a.clone();
    let narrow = CuckooFilter::new(32, 8, 1).unwrap();
    assert_eq!(mismatch(a.merge(&narrow)), ("fingerprint_bits", 12, 8));
    assert_eq!(a, before);
}

// ---- The bucket layout (lanes.rs, insert.rs, encoding.rs)

/// A fingerprint goes to the first empty slot of its first bucket, then of its second; the
/// payload holds it at bits [j·f, (j+1)·f) of bucket i's f/2 bytes, read back by hand.
#[test]
fn fingerprints_land_in_the_documented_slots() {
    for f in cuckoo::FINGERPRINT_BITS {
        let buckets = 5;
        let mut c = CuckooFilter::new(buckets, f, 0).unwrap();
        let top = (1u32 << f) - 1;
        let fps = [top, 1, 0x5A, top - 1, 0x81];
        let hashes = fps.map(|fp| hash_at(buckets, f, 3, fp));
        for (n, &h) in hashes.iter().enumerate() {
            assert!(c.insert_hash(h).unwrap(), "f = {f}, fingerprint {n} is new");
        }
        let bytes = c.to_bytes();
        // four fill bucket 3 in order, the fifth goes to its alternate bucket's slot 0
        assert_eq!(bucket(&bytes, f, 3), fps[..4], "f = {f}");
        let alt = cuckoo_alt_index(3, fps[4], buckets);
        assert_ne!(alt, 3);
        assert_eq!(bucket(&bytes, f, alt), [fps[4], 0, 0, 0], "f = {f}");
        for i in (0..buckets).filter(|&i| i != 3 && i != alt) {
            assert_eq!(bucket(&bytes, f, i), [0; 4], "f = {f}, bucket {i}");
        }
        assert!(hashes
            .iter()
            .all(|&h| c.contains_hash(h) && c.count_hash(h) == 1));
        // a remove clears that slot only; the next insert there fills the hole
        assert!(c.remove_hash(hashes[1]) && !c.contains_hash(hashes[1]));
        assert_eq!(bucket(&c.to_bytes(), f, 3), [fps[0], 0, fps[2], fps[3]]);
        c.insert_hash(hash_at(buckets, f, 3, 7)).unwrap();
        assert_eq!(bucket(&c.to_bytes(), f, 3), [fps[0], 7, fps[2], fps[3]]);
        assert_eq!(c.inserted(), 5);
        assert_eq!(CuckooFilter::from_bytes(&c.to_bytes()).unwrap(), c);
    }
}

/// A table of one bucket: both buckets of every item are bucket 0, so the fifth fingerprint
/// goes to the victim stash (α = 5/4), the sixth is refused with Full { 5, 5 } and changes
/// nothing, and a remove puts the victim back in the table.
#[test]
fn a_one_bucket_table_fills_its_stash_and_empties_it() {
    for f in cuckoo::FINGERPRINT_BITS {
        let mut c = CuckooFilter::new(1, f, 4).unwrap();
        let h: Vec<u128> = (1..=6).map(|fp| hash_at(1, f, 0, fp)).collect();
        for &x in &h[..4] {
            assert!(c.insert_hash(x).unwrap());
        }
        assert!(!c.stash_used());
        assert_eq!(bucket(&c.to_bytes(), f, 0), [1, 2, 3, 4]);
        assert!(c.insert_hash_with_kicks(h[4], 0).unwrap()); // 0 kicks count as 1
        assert_eq!(
            (c.stash_used(), c.inserted(), c.load_factor()),
            (true, 5, 1.25)
        );
        assert!(h[..5]
            .iter()
            .all(|&x| c.contains_hash(x) && c.count_hash(x) == 1));
        assert!(!c.contains_hash(h[5]));
        let full = c.clone();
        for x in [h[5], h[0]] {
            match c.insert_hash(x) {
                Err(Error::Full { items, capacity }) => assert_eq!((items, capacity), (5, 5)),
                other => panic!("f = {f}: {other:?}"),
            }
            assert_eq!(c, full);
        }
        assert_eq!(CuckooFilter::from_bytes(&c.to_bytes()).unwrap(), c);
        // removing fingerprint 3 (table or stash) leaves the other four in the table
        assert!(c.remove_hash(h[2]));
        assert!(!c.stash_used() && c.inserted() == 4);
        let mut slots = bucket(&c.to_bytes(), f, 0);
        slots.sort_unstable();
        assert_eq!(slots, [1, 2, 4, 5]);
        assert!(!c.remove_hash(h[2]) && !c.remove_hash(h[5]));
        assert_eq!(c.inserted(), 4);
    }
}

/// The decoder names the word out of range, also where the payload length would agree with
/// it: a 10-bit width with 5-byte buckets, no buckets and no payload, 2³⁶ and 2³⁶ + 1 buckets.
#[test]
fn decoding_names_the_word_out_of_range() {
    use amq::wire::{encode, Kind::Cuckoo};
    let file = |f, buckets, payload: &[u8]| encode(Cuckoo, &[f, 4, buckets, 0, 0, 0, 0], payload);
    let most = cuckoo::MAX_BUCKETS;
    for (bytes, says) in [
        (file(10, 5, &[0; 25]), "fingerprint width 10"),
        (file(0, 5, &[]), "fingerprint width 0"),
        (file(8, 0, &[]), "0 buckets is out of range"),
        (
            file(8, most + 1, &[0; 40]),
            "68719476737 buckets is out of range",
        ),
        (
            file(8, most, &[0; 40]),
            "need 274877906944 payload bytes, found 40",
        ),
    ] {
        match CuckooFilter::from_bytes(&bytes) {
            Err(Error::Corrupt { offset: 24, reason }) => {
                assert!(reason.contains(says), "{reason}")
            }
            other => panic!("{says}: {other:?}"),
        }
    }
}

// ---- plan.rs: sizing worked by hand

/// Every field of a plan: m = buckets · 4f, bytes = m/8, bits per key = m/n, α = n/(4·buckets)
/// and both rates at α.
#[test]
fn a_plan_states_its_shape_exactly() {
    // n = 1000 at the planned load: 271 buckets; a 64,000-bit budget fits 1000 16-bit ones
    let p = cuckoo::plan(1000, amq::math::Target::Bits(64_000)).unwrap();
    assert_eq!((p.items, p.fingerprint_bits, p.buckets), (1000, 16, 1000));
    assert_eq!((p.m_bits, p.bytes), (64_000, 8_000));
    assert_eq!((p.bits_per_key, p.load_factor), (64.0, 0.25));
    assert_eq!(
        (p.fpr, p.fpr_exact),
        (cuckoo::fpr(16, 0.25), cuckoo::fpr_exact(16, 0.25))
    );
    // ε = 1%: f = 12, ⌈10⁶ / 3.8⌉ = 263,158 buckets
    let q = cuckoo::plan(1_000_000, amq::math::Target::Fpr(0.01)).unwrap();
    assert_eq!((q.m_bits, q.bytes), (263_158 * 48, 263_158 * 6));
    assert_eq!(q.bits_per_key, 12.631584);
    assert_eq!(q.load_factor, 1e6 / (4.0 * 263_158.0));
    assert_eq!(q.fpr_exact, cuckoo::fpr_exact(12, q.load_factor));
}

/// The most items one filter can be sized for: ⌈n / 3.8⌉ reaches 2³⁶ buckets at
/// n = 261,134,011,596 and passes it one item later.
#[test]
fn bucket_count_tops_out_at_max_buckets() {
    assert_eq!(
        cuckoo::buckets_for(261_134_011_596).unwrap(),
        cuckoo::MAX_BUCKETS
    );
    assert_eq!(invalid(cuckoo::buckets_for(261_134_011_597)), "n");
}

/// ε must be in (0, 1): −0 is refused as 0 is (log2(8/−0) is NaN, which `max(1)` would read as
/// 1 bit), and so are 1 and a negative ε.
#[test]
fn the_fpr_range_is_open_at_both_ends() {
    for e in [-0.0, 0.0, -0.5, 1.0, f64::NAN] {
        assert_eq!(invalid(cuckoo::fingerprint_bits_for(e)), "fpr", "ε = {e}");
    }
}

// ---- expandable.rs and expandable_encoding.rs

/// A chain's links, buckets, slots, m, bytes, and the items its links are planned for.
fn sums(c: &ExpandableCuckooFilter) -> (u32, u64, u64, u64, u64, u64) {
    (
        c.links(),
        c.buckets(),
        c.slots(),
        c.m(),
        c.size_bytes(),
        c.capacity(),
    )
}

/// n₀ = 100, ε = 1%, s = 2, r = 0.5: link 0 at ε₀ = 0.5% gets f = 12 (8/4095 ≈ 0.2% at full
/// load) and ⌈100 / (4 · 0.82)⌉ = 31 buckets; link 1 (200 items, 0.25%) 12 bits and 58
/// buckets; link 2 (400 items, 0.125%) 16 bits and 112 buckets.
#[test]
fn a_chain_sums_its_links() {
    let p = ExpandableParams::new(100, 0.01);
    let mut c = ExpandableCuckooFilter::new(p, 77).unwrap();
    assert_eq!((c.params(), c.seed()), (p, 77));
    assert_eq!(c.hash("x"), hash128("x", 77));
    assert_eq!(sums(&c), (1, 31, 124, 1488, 186, 100));
    assert_eq!(c.next_link_bytes().unwrap(), 58 * 6);
    c.grow().unwrap();
    assert_eq!(sums(&c), (2, 89, 356, 4272, 534, 300));
    assert_eq!(c.next_link_bytes().unwrap(), 112 * 8);
    c.grow().unwrap();
    assert_eq!(c.link(2).unwrap().fingerprint_bits(), 16);
    assert_eq!(sums(&c), (3, 201, 804, 4272 + 448 * 16, 534 + 896, 700));
    assert!(c.link(3).is_none());
    // inserts go to the newest link; α and ε are over every link
    for i in 0..201u32 {
        assert!(c.insert(&i).unwrap());
    }
    assert_eq!((c.link(2).unwrap().inserted(), c.inserted()), (201, 201));
    assert_eq!(c.load_factor(), 0.25);
    // links 0 and 1 are empty, so the chain's ε is link 2's
    let e2 = c.link(2).unwrap().estimated_fpr();
    assert!(e2 > 0.0 && (c.estimated_fpr() - e2).abs() < 1e-18);
    // the bound: ε₀ + … + ε₅ = 1% · 63/64; a seventh link needs ε below 16 bits' reach
    assert_eq!(p.max_links(), 6);
    assert!((c.fpr_bound() - 0.01 * 63.0 / 64.0).abs() < 1e-15);
    assert_eq!(c.fpr_bound(), p.fpr_bound());
}

/// The plan of a chain describes its first link: 31 buckets of 12 bits for 100 items.
#[test]
fn the_chain_plan_describes_the_first_link() {
    let p = amq::cuckoo::expandable_plan(&ExpandableParams::new(100, 0.01)).unwrap();
    let load = 100.0 / 124.0;
    assert_eq!((p.items, p.m_bits, p.bytes, p.k), (100, 1488, 186, 2));
    assert_eq!(p.bits_per_key, 14.88);
    assert_eq!(
        (p.fpr, p.fpr_exact),
        (cuckoo::fpr(12, load), cuckoo::fpr_exact(12, load))
    );
    let amq::math::PlanDetails::ExpandableCuckoo {
        buckets,
        load_factor,
        first_link_fpr,
        max_links,
        ..
    } = p.details
    else {
        panic!("{:?}", p.details)
    };
    assert_eq!(
        (buckets, load_factor, first_link_fpr, max_links),
        (31, load, 0.005, 6)
    );
}

/// max_kicks = 0 and n₀ = 0 are refused by name; a chain that never grows has one link, its
/// ε as the bound, and grow() and next_link_bytes() say Full with the chain's counts.
#[test]
fn chain_parameters_are_checked_and_a_fixed_chain_stays_one_link() {
    let mut zero_kicks = ExpandableParams::new(100, 0.01);
    zero_kicks.max_kicks = 0;
    for (p, name) in [
        (zero_kicks, "max_kicks"),
        (ExpandableParams::new(0, 0.01), "capacity"),
    ] {
        assert_eq!(invalid(ExpandableCuckooFilter::new(p, 0)), name);
    }
    let mut fixed = ExpandableParams::new(100, 0.01);
    fixed.expansion = 0;
    let mut c = ExpandableCuckooFilter::new(fixed, 0).unwrap();
    assert_eq!(
        (fixed.max_links(), fixed.fpr_bound(), c.fpr_bound()),
        (1, 0.01, 0.01)
    );
    assert!(!c.can_grow());
    c.insert("a").unwrap();
    for e in [c.grow().unwrap_err(), c.next_link_bytes().unwrap_err()] {
        let full = matches!(e, Error::Full { items, capacity } if (items, capacity) == (1, 100));
        assert!(full, "{e}");
    }
    assert_eq!(c.links(), 1);
}

/// try_insert never adds a link: a full newest link says Full with the chain's counts and
/// keeps everything; insert then grows; insert_within refuses the link past its limit.
#[test]
fn a_chain_grows_only_through_insert() {
    let p = ExpandableParams::new(8, 0.01); // link 0: 4 buckets of 12 bits
    let mut c = ExpandableCuckooFilter::new(p, 5).unwrap();
    let mut held = 0u64;
    let err = loop {
        match c.try_insert_hash(c.hash(&held)) {
            Ok(new) => {
                assert!(new);
                held += 1;
            }
            Err(e) => break e,
        }
    };
    assert!(
        matches!(err, Error::Full { items, capacity: 8 } if items == held),
        "{err}"
    );
    assert_eq!((c.links(), c.inserted()), (1, held));
    let limit = c.size_bytes();
    let before = c.clone();
    assert!(matches!(
        c.insert_within(&held, limit),
        Err(Error::OverLimit { .. })
    ));
    assert_eq!(c, before);
    assert!(c.insert_within(&held, u64::MAX).unwrap());
    assert!(!c.insert_within(&held, u64::MAX).unwrap()); // a second copy
    assert_eq!((c.links(), c.inserted(), c.count(&held)), (2, held + 2, 2));
    assert!((0..=held).all(|i| c.contains(&i)));
}

/// remove takes one copy from the newest link holding one and counts deletes; an item never
/// inserted is not removed.
#[test]
fn chain_removes_count_copies_and_deletes() {
    let mut c = ExpandableCuckooFilter::new(ExpandableParams::new(100, 0.01), 1).unwrap();
    for _ in 0..3 {
        c.insert("x").unwrap();
    }
    c.grow().unwrap();
    c.insert("x").unwrap();
    assert_eq!((c.count("x"), c.link(1).unwrap().count("x")), (4, 1));
    assert!(c.remove("x"));
    assert_eq!((c.count("x"), c.link(1).unwrap().count("x")), (3, 0));
    assert!(!c.remove("never inserted"));
    assert_eq!((c.deleted(), c.inserted()), (1, 3));
    let items = ["x", "y", "never inserted"];
    let mut out = [true; 3];
    c.contains_batch(&items, &mut out);
    assert_eq!(out, [true, false, false]);
}

/// union checks each parameter by name, adds link by link, copies the links self lacks and
/// sums the deletes.
#[test]
fn chain_union_checks_every_parameter() {
    let p = ExpandableParams::new(100, 0.01);
    let mut a = ExpandableCuckooFilter::new(p, 3).unwrap();
    let mut b = ExpandableCuckooFilter::new(p, 3).unwrap();
    a.insert("a").unwrap();
    b.insert("b").unwrap();
    b.insert("gone").unwrap();
    assert!(b.remove("gone"));
    b.grow().unwrap();
    b.insert("b1").unwrap();
    let mut changed = [
        ("capacity", p),
        ("fpr", p),
        ("expansion", p),
        ("tightening", p),
    ];
    changed[0].1.capacity = 101;
    changed[1].1.fpr = 0.02;
    changed[2].1.expansion = 3;
    changed[3].1.tightening = 0.6;
    for (field, q) in changed {
        let other = ExpandableCuckooFilter::new(q, 3).unwrap();
        assert_eq!(mismatch(a.clone().union(&other)).0, field);
    }
    let other_seed = ExpandableCuckooFilter::new(p, 4).unwrap();
    assert_eq!(mismatch(a.clone().union(&other_seed)), ("seed", 3, 4));
    a.merge(&b).unwrap();
    assert_eq!((a.links(), a.inserted(), a.deleted()), (2, 3, 1));
    assert!(a.contains("a") && a.contains("b") && a.contains("b1"));
    assert_eq!(a.link(1), b.link(1));
}

/// The offset and reason of the `Corrupt` error a chain file gets.
fn chain_corrupt(bytes: &[u8]) -> (usize, String) {
    match ExpandableCuckooFilter::from_bytes(bytes) {
        Err(Error::Corrupt { offset, reason }) => (offset, reason),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

/// A chain of two links (n₀ = 100, ε = 1%): link 0 is 5 words and 31 · 6 = 186 table bytes
/// padded to 192, link 1 5 words and 58 · 6 = 348 padded to 352: a payload of 624 bytes.
fn two_links() -> ExpandableCuckooFilter {
    let mut c = ExpandableCuckooFilter::new(ExpandableParams::new(100, 0.01), 2).unwrap();
    for i in 0..90u32 {
        c.insert(&i).unwrap();
    }
    c.grow().unwrap();
    c.insert("last").unwrap();
    c
}

/// The chain file: eight words, then per link f, buckets, count, victim and the padded table.
#[test]
fn chain_file_layout() {
    let c = two_links();
    let bytes = c.to_bytes();
    let file = amq::wire::decode(&bytes).unwrap();
    let (fpr, r) = (0.01f64.to_bits(), 0.5f64.to_bits());
    assert_eq!(file.params, [100, fpr, 2, r, 500, 2, 0, 2]); // n₀ ε s r kicks seed deletes L
    assert_eq!(file.payload.len(), 40 + 192 + 40 + 352);
    let w = |at: usize| u64::from_le_bytes(file.payload[at..at + 8].try_into().unwrap());
    assert_eq!([w(0), w(8), w(16)], [12, 31, 90]);
    assert_eq!([w(232), w(240), w(248), w(256), w(264)], [12, 58, 1, 0, 0]);
    let link0 = c.link(0).unwrap().to_bytes();
    assert_eq!(&file.payload[40..226], &link0[PAYLOAD..PAYLOAD + 186]);
    assert_eq!(ExpandableCuckooFilter::from_bytes(&bytes).unwrap(), c);
}

/// Expansion and kicks up to u32::MAX decode; 2³² + 2 is refused at the words (offset 24),
/// not read as 2; 32 links (the most) decode, 0 or 33 do not, nor 2 for a fixed chain.
#[test]
fn chain_words_are_range_checked() {
    let mut wide = ExpandableParams::new(100, 0.01);
    (wide.expansion, wide.max_kicks) = (u32::MAX, u32::MAX);
    let c = ExpandableCuckooFilter::new(wide, 0).unwrap();
    assert_eq!(
        ExpandableCuckooFilter::from_bytes(&c.to_bytes()).unwrap(),
        c
    );
    let good = two_links().to_bytes();
    for word in [2, 4] {
        let b = edited(&good, |p, _| p[word] += 1 << 32);
        assert_eq!(chain_corrupt(&b).0, 24, "word {word}");
    }
    // ε = 0.9, r = 0.99: every link's εᵢ ≥ 0.9 · 0.01 · 0.99³¹ > 0.2%, so 32 links of 1 item
    let mut long = ExpandableParams::new(1, 0.9);
    (long.expansion, long.tightening) = (1, 0.99);
    let mut c = ExpandableCuckooFilter::new(long, 0).unwrap();
    while c.grow().is_ok() {}
    assert_eq!(c.links(), amq::cuckoo::MAX_LINKS);
    let bytes = c.to_bytes();
    assert_eq!(ExpandableCuckooFilter::from_bytes(&bytes).unwrap(), c);
    for links in [0, 33] {
        assert_eq!(chain_corrupt(&edited(&bytes, |p, _| p[7] = links)).0, 24);
    }
    let mut fixed = ExpandableParams::new(100, 0.01);
    fixed.expansion = 0;
    let f = ExpandableCuckooFilter::new(fixed, 0).unwrap().to_bytes();
    assert_eq!(chain_corrupt(&edited(&f, |p, _| p[7] = 2)).0, 24);
}

/// Link errors name the file's byte where the link starts (link 0: 128, link 1: 232 later),
/// trailing bytes where they start, and a payload cut anywhere is refused.
#[test]
fn chain_link_errors_say_where() {
    let good = two_links().to_bytes();
    // the offset of the error an edit of the payload gets, its reason checked
    let at = |edit: &dyn Fn(&mut Vec<u8>), says: &str| {
        let (at, why) = chain_corrupt(&edited(&good, |_, d| edit(d)));
        assert!(why.contains(says), "{why}");
        at
    };
    let at0 = at(&|d| d[0] = 8, "link 0: f = 8, 31 buckets");
    assert_eq!(at0, PAYLOAD);
    let at1 = at(&|d| d[232] = 16, "link 1: f = 16, 58 buckets");
    assert_eq!(at1 - at0, 232);
    assert_eq!(at(&|d| d[231] = 1, "link 0: non-zero padding"), at0);
    assert_eq!(
        at(&|d| d[248] = 2, "says 2 fingerprints, the table holds 1"),
        at1
    );
    assert_eq!(
        at(&|d| d.extend_from_slice(&[0; 8]), "8 payload bytes after") - at0,
        624
    );
    assert_eq!(
        at(
            &|d| d.truncate(272),
            "link 1: its table needs 352 bytes, 0 left"
        ),
        at1
    );
    assert_eq!(
        at(
            &|d| d.truncate(271),
            "link 1: the payload ends before its header"
        ),
        at1
    );
    for cut in (0..624).step_by(8) {
        assert!(
            ExpandableCuckooFilter::from_bytes(&edited(&good, |_, d| d.truncate(cut))).is_err()
        );
    }
}
