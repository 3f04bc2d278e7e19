//! Edges of the sliding-window cuckoo filter (`src/rln/`) that the other RLN tests leave open:
//! the planner's bounds on ε (0 and 1 refused, the widest ε a 2-bit fingerprint meets
//! accepted), the bytes of an epoch table for L live members worked out from `2ᵏ · ⌈4f/8⌉`,
//! and a plan's m bits and bits per key, which differ from its bytes when 4f is not a multiple
//! of 8, and the file decoder's errors, each at the byte a hand-worked layout puts the fault
//! in. Each test was written against a mutant of `src/rln/*.rs` that cargo-mutants found the
//! rln, limit and batch tests let through.

use amq::math::PlanDetails;
use amq::rln::{epoch_bytes_for, fingerprint_bits_for, plan, RlnSpec, SlidingWindowCuckoo};
use amq::Error;

#[path = "common/errors.rs"]
mod errors;
use errors::{corrupt_at, invalid};

// ---- plan.rs

/// ε must lie strictly between 0 and 1. At ε = 1 every query may answer "maybe", and a 2-bit
/// fingerprint would "meet" it (`1 − (2/3)^7.6 ≈ 0.954 < 1`), so it must be refused by the
/// range check, not by the search; ε = 0 is met by no width, and is refused as out of range
/// (the message says so) rather than as needing more than 32 bits. Just under 1, ε = 0.96 is
/// met by the narrowest fingerprint, 2 bits; 0.95 is not (`0.954 > 0.95`), so 3 bits.
/// Against the mutants `&&` → `||`, `<` → `<=` and `>` → `>=` in the range check.
#[test]
fn fingerprint_bits_refuse_fpr_outside_the_open_unit_interval() {
    for e in [1.0, 1.5, -0.25, f64::NAN, f64::INFINITY] {
        assert_eq!(invalid(fingerprint_bits_for(e)), "fpr", "ε = {e}");
    }
    let zero = fingerprint_bits_for(0.0).unwrap_err();
    assert!(matches!(zero, Error::InvalidParameter { name: "fpr", .. }));
    assert!(
        zero.to_string().contains("strictly between 0 and 1"),
        "{zero}"
    );
    let one = fingerprint_bits_for(1.0).unwrap_err();
    assert!(
        one.to_string().contains("strictly between 0 and 1"),
        "{one}"
    );
    assert_eq!(fingerprint_bits_for(0.96).unwrap(), 2);
    assert_eq!(fingerprint_bits_for(0.95).unwrap(), 3);
    assert_eq!(
        invalid(plan(&RlnSpec {
            epoch_items: 10,
            fpr: 1.0
        })),
        "fpr"
    );
}

/// The bytes of an epoch table for L live members with f-bit fingerprints are
/// `2ᵏ · ⌈4f/8⌉`, k the fewest with `L ≤ 0.95 · 4 · 2ᵏ`: 15,564 members fit 4,096 buckets
/// (`0.95 · 16,384 = 15,564.8`), 15,565 need 8,192; f = 13 packs 4 slots in 7 bytes, f = 10
/// in 5, f = 16 in 8. Small epochs are planned at load 0.5 (the floor of `planned_load`), 2
/// members a bucket: 2 members take one bucket, 3 take two, none still one (k = 0). More
/// members than 2³⁶ buckets hold is refused. Against the mutants `epoch_bytes_for` → `Ok(0)`
/// and → `Ok(1)`.
#[test]
fn epoch_bytes_are_buckets_times_the_bytes_of_four_slots() {
    assert_eq!(epoch_bytes_for(15_564, 13).unwrap(), 4096 * 7);
    assert_eq!(epoch_bytes_for(15_565, 13).unwrap(), 8192 * 7);
    assert_eq!(epoch_bytes_for(2, 10).unwrap(), 5); // 2 ≤ 0.5 · 4 · 1
    assert_eq!(epoch_bytes_for(3, 10).unwrap(), 2 * 5);
    assert_eq!(epoch_bytes_for(0, 16).unwrap(), 8);
    assert_eq!(epoch_bytes_for(1, 2).unwrap(), 1); // 4 slots of 2 bits: one byte
    assert_eq!(invalid(epoch_bytes_for(u64::MAX, 10)), "epoch_items");
}

/// A plan's m counts the bits of one full epoch's slots, `2ᵏ · 4 · f`, and its bits per key
/// are m over B: for B = 15,564 at ε = 0.001 (f = 13, 4,096 buckets) m = 4,096 · 52 =
/// 212,992 bits and 212,992 / 15,564 ≈ 13.68 bits per member, while its bytes round each
/// bucket up to 7 (28,672 bytes, 229,376 bits). B = 1 at ε = 0.5 (f = 4, one bucket):
/// m = 16 and 16 bits per member. Against the mutants of `*` in m (→ `+`, `/`) and of `/` in
/// bits per key (→ `%`, `*`).
#[test]
fn plan_m_and_bits_per_key_count_slots_not_padded_bytes() {
    let p = plan(&RlnSpec {
        epoch_items: 15_564,
        fpr: 0.001,
    })
    .unwrap();
    let PlanDetails::SlidingWindowCuckoo(d) = p.details else {
        panic!("{p:?}")
    };
    assert_eq!((d.fingerprint_bits, d.epoch_buckets), (13, 4096));
    assert_eq!((p.items, p.k), (15_564, 2));
    assert_eq!(p.m_bits, 212_992);
    assert_eq!(p.bytes, 28_672);
    assert!(
        (p.bits_per_key - 212_992.0 / 15_564.0).abs() < 1e-9,
        "{p:?}"
    );
    assert!((d.load_factor - 15_564.0 / 16_384.0).abs() < 1e-12);

    let one = plan(&RlnSpec {
        epoch_items: 1,
        fpr: 0.5,
    })
    .unwrap();
    assert_eq!((one.m_bits, one.bytes), (16, 2));
    assert_eq!(one.bits_per_key, 16.0);
}

// ---- mod.rs

/// The shape's limits are inclusive: k = 36 (2³⁶ buckets, the largest epoch table) and
/// B = 4 · 2ᵏ (every slot of a table) are accepted, and nothing is allocated before the first
/// registration, so a set of 2³⁶-bucket epochs is cheap to create; k = 37 and B = 4 · 2ᵏ + 1
/// are refused, naming the parameter. The set reports the B it was made with. Against the
/// mutants `>` → `>=` of the k limit in `check` and `epoch_items` → 0 and → 1.
#[test]
fn the_largest_shape_is_accepted_and_reported() {
    let set = SlidingWindowCuckoo::new(1, 12, 36, 0).unwrap();
    assert_eq!(
        (set.log2_buckets(), set.epochs(), set.size_bytes()),
        (36, 0, 0)
    );
    assert_eq!(
        invalid(SlidingWindowCuckoo::new(1, 12, 37, 0)),
        "log2_buckets"
    );
    let full = SlidingWindowCuckoo::new(4 << 3, 12, 3, 0).unwrap();
    assert_eq!(full.epoch_items(), 32);
    assert_eq!(
        invalid(SlidingWindowCuckoo::new(33, 12, 3, 0)),
        "epoch_items"
    );
    let planned = SlidingWindowCuckoo::with_fpr(1_000, 0.01, 0).unwrap();
    assert_eq!(planned.epoch_items(), 1_000);
}

/// Epochs of B = 2 registrations, open tables of 4 buckets of 4 twelve-bit slots (6 bytes a
/// bucket): after 5 registrations epochs 0 and 1 are full, closed and compacted to one bucket
/// (2 members fit one bucket at the planned load 0.5), and epoch 2 is open with one member.
/// The table bytes are 6 + 6 + 24 = 36 and m = (1 + 1 + 4) · 4 · 12 = 288 bits; closing
/// returns the open epoch, 2, and then there is none to close. Against the mutants
/// `open_epoch` → `Some(0)` and → `Some(1)`, `table_bytes` → 0 and → 1, and `m` → 0 and → 1.
#[test]
fn table_bytes_and_m_sum_the_epochs_open_and_compacted() {
    let mut set = SlidingWindowCuckoo::new(2, 12, 2, 0).unwrap();
    assert_eq!((set.open_epoch(), set.table_bytes(), set.m()), (None, 0, 0));
    let epochs: Vec<u64> = (0..5u32).map(|i| set.register(&i).unwrap()).collect();
    assert_eq!(epochs, [0, 0, 1, 1, 2]);
    let buckets: Vec<u64> = (0..3).map(|e| set.epoch(e).unwrap().buckets).collect();
    assert_eq!(buckets, [1, 1, 4]);
    assert_eq!(set.table_bytes(), 36);
    assert_eq!(set.m(), 288);
    assert_eq!(set.open_epoch(), Some(2));
    assert_eq!(set.close(), Some(2));
    assert_eq!((set.open_epoch(), set.close()), (None, None));
    assert_eq!(set.table_bytes(), 18); // epoch 2 compacted to one bucket too
}

/// ε of a query at an epoch of load α with f-bit fingerprints, `1 − (1 − 1/(2^f − 1))^(8α)`.
fn epoch_rate(f: i32, alpha: f64) -> f64 {
    1.0 - (1.0 - 1.0 / (2f64.powi(f) - 1.0)).powf(8.0 * alpha)
}

/// ε per epoch follows each epoch's own load: epochs of B = 8 in tables of 4 buckets (16
/// slots) of 8-bit fingerprints; epoch 0 full (α = 8/16, kept at 4 buckets: 8 members need 4
/// at the planned load 0.5), epoch 1 open with 3 (α = 3/16). An epoch not held answers 0; the
/// set's estimate is its worst epoch, epoch 0, and an export of epoch 1 alone (first epoch 1)
/// estimates epoch 1's. The model for n members in an open-size table is ε at α = n/16.
/// Against the mutants of `epoch_fpr`, `estimated_fpr` and `expected_fpr` to constants and
/// `+` → `*` in `estimated_fpr`'s range of epochs.
#[test]
fn fpr_per_epoch_follows_each_epochs_load() {
    let mut set = SlidingWindowCuckoo::new(8, 8, 2, 0).unwrap();
    for i in 0..11u32 {
        set.register(&i).unwrap();
    }
    let e0 = set.epoch(0).unwrap();
    assert_eq!((e0.registered, e0.members, e0.buckets), (8, 8, 4));
    let (full, open) = (epoch_rate(8, 0.5), epoch_rate(8, 3.0 / 16.0));
    assert!((set.epoch_fpr(0) - full).abs() < 1e-12);
    assert!((set.epoch_fpr(1) - open).abs() < 1e-12);
    assert_eq!(set.epoch_fpr(2), 0.0);
    assert!((set.estimated_fpr() - full).abs() < 1e-12);
    let part = set.export_epoch(1).unwrap();
    assert!((part.estimated_fpr() - open).abs() < 1e-12);
    assert!((set.expected_fpr(8) - full).abs() < 1e-12);
    assert!((set.expected_fpr(3) - open).abs() < 1e-12);
    assert_eq!(set.expected_fpr(0), 0.0);
}

/// Slashing at an epoch not held changes nothing and answers `false`, including the epoch
/// right after the last held (the index one past the end): in a set with no epoch, epoch 0;
/// with epochs 0 and 1 (B = 2, 4 registrations, none open), epoch 2. Against the mutant
/// `<` → `<=` of the held-epoch check in `slash_hash`, which indexes past the end and panics.
#[test]
fn slashing_at_the_next_epoch_is_refused() {
    let mut set = SlidingWindowCuckoo::new(2, 12, 1, 0).unwrap();
    assert!(!set.slash("alice", 0));
    for i in 0..4u32 {
        set.register(&i).unwrap();
    }
    assert_eq!((set.epochs(), set.open_epoch()), (2, None));
    let before = set.clone();
    assert!(!set.slash(&0u32, 2));
    assert_eq!(set, before);
}

/// Epoch numbers stop at 2⁶⁴ − 2: a set's first epoch number plus its count of epochs must
/// fit in a u64, as the decoder checks. A set decoded with one closed epoch numbered 2⁶⁴ − 3
/// opens epoch 2⁶⁴ − 2 and round trips through its file (2⁶⁴ − 3 + 2 fits); one numbered
/// 2⁶⁴ − 2 is refused a new epoch, saying so, unchanged. Against the mutant `+` → `*` in
/// `start_epoch`'s check, which opened the epoch past that and wrote a file that did not load.
#[test]
fn registrations_stop_when_the_epoch_numbers_run_out() {
    let mut set = SlidingWindowCuckoo::new(2, 12, 1, 0).unwrap();
    set.register("alice").unwrap();
    set.close();
    let bytes = set.to_bytes();
    let c = amq::wire::decode(&bytes).unwrap();
    let with_first = |first: u64| {
        let mut params = c.params.clone();
        params[5] = first; // the first epoch's number
        let file = amq::wire::encode(amq::wire::Kind::SlidingWindowCuckoo, &params, c.payload);
        SlidingWindowCuckoo::from_bytes(&file).unwrap()
    };
    let mut late = with_first(u64::MAX - 2);
    assert!(late.contains("alice", u64::MAX - 2));
    assert_eq!(late.register("bob").unwrap(), u64::MAX - 1);
    let back = SlidingWindowCuckoo::from_bytes(&late.to_bytes()).unwrap();
    assert_eq!(back, late);
    let mut last = with_first(u64::MAX - 1);
    let before = last.clone();
    assert_eq!(invalid(last.register("bob")), "epoch");
    assert_eq!(last, before);
}

/// A light client that starts from an export of a late epoch (its first epoch is 2, not 0)
/// follows with the next epoch and then takes an update of epoch 2 (a member slashed there):
/// the update replaces the client's epoch 2, its first slot, and the client then equals the
/// server from epoch 2 on. Against the mutant `e - first` → `e + first` of the slot an
/// applied epoch replaces in `apply_epoch`.
#[test]
fn a_client_from_a_late_epoch_applies_updates_to_it() {
    let mut server = SlidingWindowCuckoo::new(2, 12, 1, 4).unwrap();
    for i in 0..8u32 {
        server.register(&i).unwrap(); // i in epoch i / 2
    }
    let mut client = server.export_epoch(2).unwrap();
    client
        .apply_epoch(&server.export_epoch(3).unwrap())
        .unwrap();
    assert!(server.slash(&4u32, 2));
    client
        .apply_epoch(&server.export_epoch(2).unwrap())
        .unwrap();
    assert_eq!((client.first_epoch(), client.epochs()), (2, 2));
    for e in 2..4 {
        assert_eq!(client.epoch(e), server.epoch(e), "epoch {e}");
    }
    assert_eq!(client.epoch(2).unwrap().members, 1);
    assert!(client.contains(&5u32, 2) && client.contains(&7u32, 3));
}

/// The batch over precomputed hashes answers each hash as `contains_hash` does: members of
/// epoch 0 are found there, whatever `out` held before (it starts all `false`), and at an
/// epoch not held every answer is `false` (it starts all `true`). Against the mutant
/// `contains_hash_batch` → `()`, which leaves `out` as it was.
#[test]
fn the_hash_batch_answers_as_single_queries() {
    let mut set = SlidingWindowCuckoo::new(40, 12, 4, 9).unwrap();
    let hashes: Vec<u128> = (0..64u32).map(|i| set.hash(&i)).collect();
    for &h in &hashes[..32] {
        set.register_hash(h).unwrap();
    }
    let mut out = vec![false; hashes.len()];
    set.contains_hash_batch(&hashes, 0, &mut out);
    let single: Vec<bool> = hashes.iter().map(|&h| set.contains_hash(h, 0)).collect();
    assert_eq!(out, single);
    assert!(out[..32].iter().all(|&b| b));
    let mut out = vec![true; hashes.len()];
    set.contains_hash_batch(&hashes, 1, &mut out);
    assert!(out.iter().all(|&b| !b));
}

// ---- encoding.rs

/// A set of epochs of B = 2 in tables of 2 buckets (k = 1) of 4 eleven-bit slots (44 bits,
/// ⌈44/8⌉ = 6 bytes a bucket), after 3 registrations and a slash in epoch 0: epoch 0 closed
/// and compacted to one bucket (k = 0, 2 registrations, 1 member), epoch 1 open (k = 1, 1
/// registration). Its file's parameter words start at byte 24 and its payload at
/// `⌈(24 + 8 · 8)/64⌉ · 64 = 128`; epoch 0 is 5 words and 6 table bytes padded to 8 (payload
/// bytes 0..48), epoch 1 is 5 words and 12 bytes padded to 16 (48..104).
fn two_epochs() -> (Vec<u64>, Vec<u8>) {
    let mut set = SlidingWindowCuckoo::new(2, 11, 1, 5).unwrap();
    for i in 0..3u32 {
        set.register(&i).unwrap();
    }
    assert!(set.slash(&0u32, 0));
    let info: Vec<(u64, u64, u64)> = (0..2)
        .map(|e| set.epoch(e).map(|i| (i.registered, i.members, i.buckets)))
        .collect::<Option<_>>()
        .unwrap();
    assert_eq!(info, [(2, 1, 1), (1, 1, 2)]);
    let bytes = set.to_bytes();
    let c = amq::wire::decode(&bytes).unwrap();
    assert_eq!((c.payload_offset(), c.payload.len()), (128, 104));
    (c.params.clone(), c.payload.to_vec())
}

/// The file of a kind-8 container with these parameter words and payload, decoded.
fn decode(params: &[u64], payload: &[u8]) -> amq::Result<SlidingWindowCuckoo> {
    let file = amq::wire::encode(amq::wire::Kind::SlidingWindowCuckoo, params, payload);
    SlidingWindowCuckoo::from_bytes(&file)
}

/// Sets the 64-bit little-endian word at payload byte `at`.
fn put(payload: &mut [u8], at: usize, v: u64) {
    payload[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// A bad parameter word is named by its file byte (word i at `24 + 8i`): a bucket size other
/// than 4 at 32 (b); a shape `check` refuses at 24, its first word (f = 1 or 33, B = 0,
/// B = 9 > 4 · 2¹ slots, k = 37, and f past u32, which must not wrap to a valid 11); the
/// epoch numbering at 64 (first): open flag 2, open with no epoch, first + count past 2⁶⁴;
/// and a count of epochs whose 40-byte headers alone outrun the 104 payload bytes (3) at 72.
/// Against the offset and comparison mutants of the parameter checks in `from_container`.
#[test]
fn bad_parameters_are_refused_at_their_word() {
    let (params, payload) = two_epochs();
    assert!(decode(&params, &payload).is_ok());
    for (i, v, at) in [
        (1, 2, 32),
        (1, 5, 32),
        (0, 1, 24),
        (0, 33, 24),
        (0, (1 << 32) + 11, 24),
        (2, 0, 24),
        (2, 9, 24),
        (3, 37, 24),
        (7, 2, 64),
        (5, u64::MAX - 1, 64), // u64::MAX − 1 + 2 epochs overflows
        (6, 3, 72),
    ] {
        let mut p = params.clone();
        p[i] = v;
        assert_eq!(corrupt_at(decode(&p, &payload)), at, "word {i} = {v}");
    }
    // B = 8 fills 2 buckets of 4 slots: allowed (the open epoch's count is checked against it)
    let mut p = params.clone();
    p[2] = 8;
    assert!(decode(&p, &payload).is_ok());
    // open with no epoch, over an empty payload
    let mut p = params.clone();
    (p[6], p[7]) = (0, 1);
    assert_eq!(corrupt_at(decode(&p, &[])), 64);
    p[7] = 0;
    assert_eq!(decode(&p, &[]).unwrap().epochs(), 0);
    // u64::MAX − 2 + 2 epochs is the largest first number that fits
    let mut p = params.clone();
    p[5] = u64::MAX - 2;
    assert_eq!(decode(&p, &payload).unwrap().first_epoch(), u64::MAX - 2);
}

/// A bad epoch is named by the file byte of the word or bytes at fault, worked out from the
/// layout of `two_epochs` (epoch 0's words at 128, its table at 168, its padding at 174;
/// epoch 1's words at 176, its table at 216, its padding at 228; the end at 232): k past the
/// set's k, or an open epoch's k not the set's, at its k; more registrations than B (B − 1
/// for the open epoch, whose B-th would have closed it) or more members than registrations
/// at its registrations; a stash fingerprint wider than f, a stash bucket past the table or
/// set with no stash at its stash; a header or a table that runs past the payload where it
/// starts; padding not zero at the padding; bits above a bucket's 44 at its table; a members
/// count the table does not hold at its members; bytes after the last epoch at the end. The
/// message names the epoch, first + n. Against the offset and comparison mutants of the
/// epoch loop of `from_container`.
#[test]
fn bad_epochs_are_refused_at_their_byte() {
    let (params, payload) = two_epochs();
    let edit = |w: &[(usize, u64)]| {
        let mut p = payload.clone();
        for &(at, v) in w {
            put(&mut p, at, v);
        }
        corrupt_at(decode(&params, &p))
    };
    assert_eq!(edit(&[(0, 2)]), 128); // a closed epoch of 4 buckets in a set of 2
    assert_eq!(edit(&[(48, 0)]), 176); // the open epoch compacted
    assert_eq!(edit(&[(8, 3)]), 136);
    assert_eq!(edit(&[(16, 3)]), 136);
    assert_eq!(edit(&[(56, 2)]), 184); // the open epoch at B
    assert_eq!(edit(&[(56, 0)]), 184); // 1 member of 0 registrations
    assert_eq!(edit(&[(24, 0x800)]), 152); // 12 bits
    assert_eq!(edit(&[(24, 0x7ff), (32, 1)]), 152); // bucket 1 of 1
    assert_eq!(edit(&[(32, 1)]), 152); // no stash, a bucket
    assert_eq!(edit(&[(24, 0x7ff)]), 144); // the stash is a member the header does not count
    assert_eq!(edit(&[(64, 0)]), 192);
    assert_eq!(edit(&[(72, 0x400), (80, 2)]), 200); // bucket 2 of 2
    let at = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut p = payload.clone();
        f(&mut p);
        corrupt_at(decode(&params, &p))
    };
    assert_eq!(at(&|p| p[46] = 1), 174);
    assert_eq!(at(&|p| p[47] = 1), 174);
    assert_eq!(at(&|p| p[103] = 1), 228);
    assert_eq!(at(&|p| p[45] |= 0x10), 168); // bit 44 of epoch 0's bucket
    assert_eq!(at(&|p| p[99] |= 0x80), 216); // bit 47 of epoch 1's bucket 1
    assert_eq!(at(&|p| p.extend_from_slice(&[0; 8])), 232);
    // a closed last epoch: one epoch, or a second with no room for its 40-byte header
    let mut closed = params.clone();
    (closed[6], closed[7]) = (1, 0);
    for (len, at) in [(40, 168), (46, 168), (47, 168)] {
        assert_eq!(
            corrupt_at(decode(&closed, &payload[..len])),
            at,
            "{len} bytes"
        );
    }
    assert!(decode(&closed, &payload[..48]).is_ok());
    closed[6] = 2;
    let mut short = payload[..48].to_vec();
    short.extend_from_slice(&[0; 32]); // 80 bytes: two headers' worth, not two epochs
    assert_eq!(corrupt_at(decode(&closed, &short)), 176);
    // closed, epoch 1 may hold B registrations; the open set's k of 2 makes it too small
    let mut p = payload.clone();
    put(&mut p, 56, 2);
    assert_eq!(decode(&closed, &p).unwrap().epoch(1).unwrap().registered, 2);
    let mut wide = params.clone();
    wide[3] = 2;
    assert_eq!(corrupt_at(decode(&wide, &payload)), 176);
    // the message names the epoch by its number
    let mut late = params.clone();
    late[5] = 7;
    let mut p = payload.clone();
    put(&mut p, 64, 0);
    let e = decode(&late, &p).unwrap_err().to_string();
    assert!(e.contains("epoch 8:"), "{e}");
}

/// A stash holding an f-bit fingerprint (the widest, 0x7ff, in the last bucket of epoch 0's
/// one) counts as a member: with the header saying 2 members the file loads, the set answers
/// as it did for epoch 1, and it writes the same bytes back, stash words included; the
/// unedited file of `two_epochs` is written back byte for byte too.
/// Against the mutants of `to_bytes` (the stash words, the padding) and the stash checks.
#[test]
fn a_stash_in_the_file_loads_and_round_trips() {
    let (params, payload) = two_epochs();
    let file = amq::wire::encode(amq::wire::Kind::SlidingWindowCuckoo, &params, &payload);
    assert_eq!(decode(&params, &payload).unwrap().to_bytes(), file);
    let mut p = payload.clone();
    put(&mut p, 16, 2);
    put(&mut p, 24, 0x7ff);
    let file = amq::wire::encode(amq::wire::Kind::SlidingWindowCuckoo, &params, &p);
    let set = SlidingWindowCuckoo::from_bytes(&file).unwrap();
    assert_eq!(set.epoch(0).unwrap().members, 2);
    assert!(set.contains(&2u32, 1));
    assert_eq!(set.to_bytes(), file);
}
