//! Edges of the byte-exact chain formats (BIP37 `filterload`, the Ethereum logsBloom index,
//! CompactSize, the Parquet bitset) that their own test files do not pin. Each test here was
//! written against a mutant that the other tests let through.

#[cfg(feature = "bip37")]
mod bip37 {
    use amq::formats::bip37::{
        outpoint, Bip37Filter, Tx, TxIn, BLOOM_UPDATE_NONE, BLOOM_UPDATE_P2PUBKEY_ONLY,
    };
    use bitcoin::script::{Instruction, Script};

    fn unhex(s: &str) -> Vec<u8> {
        hex::decode(s).unwrap()
    }

    const OP_1: u8 = 0x51;
    const OP_CHECKSIG: u8 = 0xac;
    const OP_CHECKMULTISIG: u8 = 0xae;

    /// A public key of Core's `CPubKey::ValidSize`: 33 bytes after 0x02/0x03, 65 after
    /// 0x04/0x06/0x07 (the size is all BIP37 matching checks, not the curve).
    fn pubkey(lead: u8, fill: u8) -> Vec<u8> {
        let len = if lead == 2 || lead == 3 { 33 } else { 65 };
        let mut key = vec![fill; len];
        key[0] = lead;
        key
    }

    /// `m <keys...> n OP_CHECKMULTISIG`, each key a direct push, `m` and `n` given as the
    /// script bytes that state them.
    fn multisig(m: &[u8], keys: &[Vec<u8>], n: &[u8]) -> Vec<u8> {
        let mut s = m.to_vec();
        for key in keys {
            s.push(key.len() as u8);
            s.extend_from_slice(key);
        }
        s.extend_from_slice(n);
        s.push(OP_CHECKMULTISIG);
        s
    }

    fn keys(count: u8) -> Vec<Vec<u8>> {
        (0..count).map(|i| pubkey(2 + (i & 1), i)).collect()
    }

    /// Core's `IsRelevantAndUpdate` with nFlags = BLOOM_UPDATE_P2PUBKEY_ONLY over a
    /// transaction whose one output is `script`, with `element` (a push of the script) in the
    /// filter: whether the output's outpoint was added, which Core does only for
    /// pay-to-pubkey and bare multisig scripts (`MatchPayToPubkey`, `MatchMultisig`).
    fn p2pubkey_only_adds_the_outpoint(script: &[u8], element: &[u8]) -> bool {
        let mut f = Bip37Filter::new(10, 1e-6, 0, BLOOM_UPDATE_P2PUBKEY_ONLY).unwrap();
        f.insert_bytes(element);
        let txid = [0x5a; 32];
        let outputs = [script];
        assert!(
            f.is_relevant_and_update(&Tx {
                txid,
                outputs: &outputs,
                inputs: &[],
            }),
            "the element is a push of the script"
        );
        f.contains_bytes(&outpoint(&txid, 0))
    }

    /// Bitcoin Core's `bloom_create_insert_serialize_with_tweak` filterload
    /// (`src/test/bloom_tests.cpp`): 3 bytes `ce 42 99`, nHashFuncs 5, nTweak 2147483649
    /// (0x80000001), nFlags 1 (BLOOM_UPDATE_ALL). Every field reads back through its accessor.
    #[test]
    fn filterload_fields_read_back_through_the_accessors() {
        let f = Bip37Filter::from_filterload(&unhex("03ce4299050000000100008001")).unwrap();
        assert_eq!(f.data(), [0xce, 0x42, 0x99]);
        assert_eq!(f.size_bytes(), 3);
        assert_eq!(f.m(), 24);
        assert_eq!(f.k(), 5);
        assert_eq!(f.tweak(), 0x8000_0001);
        assert_eq!(f.flags(), 1);
        assert!(!f.matches_all());

        // nFlags 2 (BLOOM_UPDATE_P2PUBKEY_ONLY), k = 0, nTweak 0
        let g = Bip37Filter::from_filterload(&unhex("03ce4299000000000000000002")).unwrap();
        assert_eq!((g.k(), g.tweak(), g.flags()), (0, 0, 2));

        // a 0-byte filter (Core's fix for CVE-2013-5700) matches everything
        let empty = Bip37Filter::from_filterload(&unhex("00000000000000000000")).unwrap();
        assert_eq!(empty.data(), [0u8; 0]);
        assert_eq!((empty.size_bytes(), empty.m()), (0, 0));
        assert!(empty.matches_all());
    }

    /// OP_PUSHDATA1, OP_PUSHDATA2 and OP_PUSHDATA4 (0x4c, 0x4d, 0x4e) push the bytes their 1-,
    /// 2- or 4-byte little-endian length says, as Core's `GetScriptOp` reads them: an
    /// 80-byte element so pushed matches, in an output and in a scriptSig. (Read as non-push
    /// opcodes instead, the script would be opcodes 0x4c-0x4e, 0x50 and 0xab: no push at all.)
    #[test]
    fn pushdata1_2_and_4_pushes_are_matched() {
        let element = [0xab; 80];
        let prefixes: [&[u8]; 3] = [&[0x4c, 80], &[0x4d, 80, 0], &[0x4e, 80, 0, 0, 0]];
        for prefix in prefixes {
            let script = [prefix, &element[..]].concat();
            // rust-bitcoin reads the same single push
            let pushes: Vec<Vec<u8>> = Script::from_bytes(&script)
                .instructions()
                .map(|i| match i.unwrap() {
                    Instruction::PushBytes(b) => b.as_bytes().to_vec(),
                    Instruction::Op(op) => panic!("{op:?}"),
                })
                .collect();
            assert_eq!(pushes, [element.to_vec()]);

            let mut f = Bip37Filter::new(10, 1e-6, 0, BLOOM_UPDATE_NONE).unwrap();
            f.insert_bytes(&element);
            let outputs = [&script[..]];
            let tx = Tx {
                txid: [1; 32],
                outputs: &outputs,
                inputs: &[],
            };
            assert!(f.is_relevant_and_update(&tx), "output {prefix:02x?}");
            let inputs = [TxIn {
                prev_txid: [2; 32],
                prev_index: 3,
                script_sig: &script,
            }];
            let spend = Tx {
                txid: [4; 32],
                outputs: &[],
                inputs: &inputs,
            };
            assert!(f.is_relevant_and_update(&spend), "scriptSig {prefix:02x?}");
        }
    }

    /// Pay-to-pubkey with a 65-byte key (0x04 uncompressed, 0x06/0x07 hybrid: 67-byte
    /// scripts) is pay-to-pubkey as the 33-byte form is, and so is bare multisig of such
    /// keys: BLOOM_UPDATE_P2PUBKEY_ONLY adds the outpoint.
    #[test]
    fn sixty_five_byte_keys_are_pay_to_pubkey_and_multisig() {
        for lead in [4u8, 6, 7] {
            let key = pubkey(lead, 0x11);
            let p2pk = [&[65u8][..], &key, &[OP_CHECKSIG]].concat();
            assert_eq!(p2pk.len(), 67);
            assert!(Script::from_bytes(&p2pk).is_p2pk());
            assert!(p2pubkey_only_adds_the_outpoint(&p2pk, &key), "p2pk {lead}");
            let ms = multisig(&[OP_1], std::slice::from_ref(&key), &[OP_1]);
            assert!(
                p2pubkey_only_adds_the_outpoint(&ms, &key),
                "multisig {lead}"
            );
        }
        // a 65-byte push after 0x02 is not a key: not pay-to-pubkey
        let bad = pubkey(4, 0x11);
        let mut bad_lead = bad.clone();
        bad_lead[0] = 2;
        let script = [&[65u8][..], &bad_lead, &[OP_CHECKSIG]].concat();
        assert!(!p2pubkey_only_adds_the_outpoint(&script, &bad_lead));
    }

    /// Core's `MatchMultisig` reads m and n with `GetScriptNumber`: OP_1..OP_16, or a minimal
    /// push of a number (`CheckMinimalPush`, then `CScriptNum` with fRequireMinimal), in
    /// 1..=20. From 17 keys up n has no OP_N and is pushed: 17 = `01 11`, 20 = `01 14`.
    #[test]
    fn multisig_of_17_to_20_keys_states_m_and_n_by_pushes() {
        let k17 = keys(17);
        let ms = multisig(&[OP_1], &k17, &[0x01, 0x11]);
        assert!(p2pubkey_only_adds_the_outpoint(&ms, &k17[0]));
        let k20 = keys(20);
        // 17-of-20: both numbers pushed
        let ms = multisig(&[0x01, 0x11], &k20, &[0x01, 0x14]);
        assert!(p2pubkey_only_adds_the_outpoint(&ms, &k20[0]));
        // n = 20 with 19 keys, and m = 18 above n = 17, are not multisig
        let ms = multisig(&[OP_1], &keys(19), &[0x01, 0x14]);
        assert!(!p2pubkey_only_adds_the_outpoint(&ms, &keys(19)[0]));
        let ms = multisig(&[0x01, 0x12], &k17, &[0x01, 0x11]);
        assert!(!p2pubkey_only_adds_the_outpoint(&ms, &k17[0]));
    }

    /// Numbers that are not minimal are refused, as Core refuses them: 1 pushed as `01 01`
    /// (`CheckMinimalPush`: OP_1 says it), 0 pushed as `01 00` (OP_0 says it), 17 pushed as
    /// `02 11 00` (`CScriptNum`: a last byte of 0x00 whose previous byte has no sign bit is
    /// padding).
    #[test]
    fn multisig_numbers_must_be_minimal() {
        let k1 = keys(1);
        let ok = multisig(&[OP_1], &k1, &[OP_1]);
        assert!(p2pubkey_only_adds_the_outpoint(&ok, &k1[0]));
        let ms = multisig(&[0x01, 0x01], &k1, &[OP_1]);
        assert!(!p2pubkey_only_adds_the_outpoint(&ms, &k1[0]));
        let ms = multisig(&[0x01, 0x00], &k1, &[OP_1]);
        assert!(!p2pubkey_only_adds_the_outpoint(&ms, &k1[0]));
        let k17 = keys(17);
        let ms = multisig(&[OP_1], &k17, &[0x02, 0x11, 0x00]);
        assert!(!p2pubkey_only_adds_the_outpoint(&ms, &k17[0]));
    }

    /// Minimal pushes of numbers outside 1..=20 are refused: 273 (`02 11 01`, 0x0111, whose
    /// low byte alone would read 17), −17 (`01 91`: sign bit 0x80, magnitude 0x11) and a
    /// 9-byte push (`CScriptNum` takes at most 4 bytes).
    #[test]
    fn multisig_numbers_past_20_negative_or_long_are_refused() {
        let k17 = keys(17);
        let ms = multisig(&[OP_1], &k17, &[0x02, 0x11, 0x01]);
        assert!(!p2pubkey_only_adds_the_outpoint(&ms, &k17[0]));
        let k18 = keys(18);
        let ms = multisig(&[0x01, 0x91], &k18, &[0x01, 0x12]);
        assert!(!p2pubkey_only_adds_the_outpoint(&ms, &k18[0]));
        let k1 = keys(1);
        let nine = [0x09, 1, 0, 0, 0, 0, 0, 0, 0, 1];
        let ms = multisig(&nine, &k1, &[OP_1]);
        assert!(!p2pubkey_only_adds_the_outpoint(&ms, &k1[0]));
    }
}

#[cfg(feature = "eth")]
mod eth {
    use amq::formats::eth::{InputBits, LogsBloom, LogsBloomIndex};
    use amq::Error;

    /// A bloom with bit 0 (least significant bit of byte 255) and bit 2047 (most significant
    /// bit of byte 0) of the 2048-bit big-endian number set.
    fn edge_bits() -> LogsBloom {
        let mut bytes = [0u8; 256];
        bytes[255] = 0x01;
        bytes[0] = 0x80;
        LogsBloom::from_bytes(bytes)
    }

    /// first_block, end_block, len, is_empty and the rows, as three blocks are pushed: blocks
    /// 1,000 and 1,002 have bits 0 and 2047, block 1,001 none, so rows 0 and 2047 are the
    /// word 0b101 and every other row 0.
    #[test]
    fn index_accessors_follow_the_pushes() {
        let mut index = LogsBloomIndex::new(1_000);
        assert!(index.is_empty());
        assert_eq!(index.len(), 0);
        assert_eq!((index.first_block(), index.end_block()), (1_000, 1_000));
        assert_eq!(index.row(0), [0u64; 0]);
        assert_eq!(index.size_bytes(), 0);

        let edge = edge_bits();
        assert!(edge.bit(0) && edge.bit(2047) && !edge.bit(1));
        assert_eq!(index.push(&edge).unwrap(), 1_000);
        assert_eq!(index.push(&LogsBloom::new()).unwrap(), 1_001);
        assert_eq!(index.push(&edge).unwrap(), 1_002);
        assert!(!index.is_empty());
        assert_eq!(index.len(), 3);
        assert_eq!((index.first_block(), index.end_block()), (1_000, 1_003));
        assert_eq!(index.row(0), [0b101]);
        assert_eq!(index.row(2047), [0b101]);
        for b in 1..2047 {
            assert_eq!(index.row(b), [0], "row {b}");
        }
        // 2048 rows of ⌈3/64⌉ = 1 word: 2048 · 8 bytes
        assert_eq!(index.size_bytes(), 16_384);
        for _ in 3..65 {
            index.push(&edge).unwrap();
        }
        // 65 blocks: 2 words a row
        assert_eq!(index.size_bytes(), 32_768);
    }

    /// The 24-byte header of an index of `blocks` blocks from block 0.
    fn index_header(blocks: u64) -> Vec<u8> {
        let mut bytes = b"ELBI".to_vec();
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&0u64.to_le_bytes());
        bytes.extend_from_slice(&blocks.to_le_bytes());
        bytes
    }

    /// The largest block count whose rows could exist: W = ⌈n/64⌉ words a row and
    /// 24 + 2048·8·W + 8 bytes in all must stay within `isize::MAX` = 2⁶³ − 1, so
    /// W ≤ ⌊(2⁶³ − 1 − 32) / 2¹⁴⌋ = 2⁴⁹ − 1 = 562,949,953,421,311 and n ≤ 64·W =
    /// 36,028,797,018,963,904. That many is refused only as truncated (it needs
    /// 2¹⁴·W + 8 = 9,223,372,036,854,759,432 bytes after the header); 64 more are too large.
    #[test]
    fn the_largest_index_block_count_is_truncated_and_one_word_more_too_large() {
        let limit_blocks = 36_028_797_018_963_904u64;
        assert_eq!(
            LogsBloomIndex::from_bytes(&index_header(limit_blocks)),
            Err(Error::Truncated {
                what: "rows and checksum",
                offset: 24,
                needed: 9_223_372_036_854_759_432,
                available: 0,
            })
        );
        assert_eq!(
            LogsBloomIndex::from_bytes(&index_header(limit_blocks + 64)),
            Err(Error::TooLarge {
                what: "block count",
                value: limit_blocks + 64,
                limit: limit_blocks,
            })
        );
    }

    /// Exactly the 24-byte header (`ELBI`, version 1, first block 0, 0 blocks): the header is
    /// whole; the rows (none) and the 8-byte checksum are what is missing.
    #[test]
    fn a_whole_index_header_alone_is_a_truncated_checksum() {
        let bytes = index_header(0);
        assert_eq!(
            LogsBloomIndex::from_bytes(&bytes),
            Err(Error::Truncated {
                what: "rows and checksum",
                offset: 24,
                needed: 8,
                available: 0,
            })
        );
        assert_eq!(
            LogsBloomIndex::from_bytes(b"ELBI"),
            Err(Error::Truncated {
                what: "header",
                offset: 0,
                needed: 24,
                available: 4,
            })
        );
        assert_eq!(
            LogsBloomIndex::from_bytes(&bytes[..23]),
            Err(Error::Truncated {
                what: "header",
                offset: 0,
                needed: 24,
                available: 23,
            })
        );
    }

    /// A bit set past the last block, under a valid checksum (XXH3-64, seed 0, recomputed
    /// with `xxhash-rust`), is refused at the word that holds it: with 130 blocks a row is
    /// W = 3 words and block bits 130.. of the last word must be zero; row 5's last word is at
    /// 24 + 8·3·5 + 8·2 = 160.
    #[test]
    fn a_bit_past_the_last_block_is_refused_at_its_word() {
        let mut index = LogsBloomIndex::new(0);
        for _ in 0..130 {
            index.push(&LogsBloom::new()).unwrap();
        }
        let mut bytes = index.to_bytes();
        assert_eq!(bytes.len(), 24 + 2048 * 8 * 3 + 8);
        bytes[160 + 7] |= 0x80; // bit 63 of the word: block 128 + 63
        let end = bytes.len() - 8;
        let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..end]);
        bytes[end..].copy_from_slice(&sum.to_le_bytes());
        match LogsBloomIndex::from_bytes(&bytes) {
            Err(Error::Corrupt { offset, .. }) => assert_eq!(offset, 160),
            other => panic!("{other:?}"),
        }
    }

    /// `Extend` pushes every bloom, in order, as `push` does.
    #[test]
    fn extend_pushes_every_bloom() {
        let mut index = LogsBloomIndex::new(7);
        index.extend([edge_bits(), LogsBloom::new(), edge_bits()]);
        assert_eq!((index.len(), index.end_block()), (3, 10));
        assert_eq!(index.bloom(7), Some(edge_bits()));
        assert_eq!(index.bloom(8), Some(LogsBloom::new()));
        assert_eq!(index.row(2047), [0b101]);
    }

    /// A range that starts inside a 64-block word yields only the blocks from its start: with
    /// every bloom holding the input, `3..5` is blocks 3 and 4, `70..=72` is 70, 71 and 72,
    /// and `63..65` crosses a word boundary.
    #[test]
    fn candidates_in_a_range_starting_mid_word() {
        let mut bloom = LogsBloom::new();
        bloom.accrue(b"x");
        let mut index = LogsBloomIndex::new(0);
        for _ in 0..130 {
            index.push(&bloom).unwrap();
        }
        let x = [InputBits::from_input(b"x")];
        let got = |r: core::ops::Range<u64>| index.candidates_in(&x, r).collect::<Vec<_>>();
        assert_eq!(got(3..5), [3, 4]);
        assert_eq!(got(63..65), [63, 64]);
        assert_eq!(
            index.candidates_in(&x, 70..=72).collect::<Vec<_>>(),
            [70, 71, 72]
        );
    }
}

#[cfg(feature = "parquet")]
mod parquet {
    use amq::formats::parquet::{
        hash_bytes, hash_f32, hash_f64, hash_fixed_len_byte_array, hash_i32, hash_int96,
        ParquetBloomFilter, MAX_NUM_BYTES,
    };
    use amq::Error;
    use xxhash_rust::xxh64::xxh64;

    /// Each physical type hashes its plain encoding with XXH64, seed 0 (`xxhash-rust`'s
    /// xxh64 here): INT32 as 4 bytes little-endian, FLOAT and DOUBLE as their IEEE 754 bits
    /// little-endian (1.0f32 = 0x3f800000, 1.0 = 0x3ff0000000000000), INT96 and
    /// FIXED_LEN_BYTE_ARRAY as their bytes. The byte strings are written out by hand.
    #[test]
    fn each_physical_type_hashes_its_plain_encoding() {
        assert_eq!(hash_i32(0x0102_0304), xxh64(&[4, 3, 2, 1], 0));
        assert_eq!(hash_i32(-1), xxh64(&[0xff; 4], 0));
        assert_eq!(hash_f32(1.0), xxh64(&[0, 0, 0x80, 0x3f], 0));
        assert_eq!(hash_f64(1.0), xxh64(&[0, 0, 0, 0, 0, 0, 0xf0, 0x3f], 0));
        // 0.0 and -0.0 are different bits, so different hashes
        assert_ne!(hash_f32(0.0), hash_f32(-0.0));
        assert_ne!(hash_f64(0.0), hash_f64(-0.0));
        let int96: [u8; 12] = core::array::from_fn(|i| i as u8);
        assert_eq!(hash_int96(&int96), xxh64(&int96, 0));
        assert_eq!(
            hash_fixed_len_byte_array(b"uuid-16-bytes..."),
            xxh64(b"uuid-16-bytes...", 0)
        );
        assert_eq!(hash_fixed_len_byte_array(b""), hash_bytes(b""));
    }

    /// z blocks of 256 bits: m = 256·z; k = 8, one bit in each of a block's eight words.
    #[test]
    fn m_and_k_of_a_split_block_filter() {
        let f = ParquetBloomFilter::with_num_bytes(96).unwrap();
        assert_eq!(f.blocks(), 3);
        assert_eq!(f.m(), 768);
        assert_eq!(f.k(), 8);
    }

    /// `numBytes` is a Thrift i32: the largest whole number of 32-byte blocks it holds is
    /// 2³¹ − 32 = 2,147,483,616 bytes; one block more is refused. (That the limit itself is
    /// accepted is checked on the size rule, in `src/formats/parquet.rs`'s unit tests, without
    /// allocating 2 GiB.)
    #[test]
    fn the_largest_bitset_is_two_to_the_31_minus_32_bytes() {
        assert_eq!(MAX_NUM_BYTES, 2_147_483_616);
        assert!(matches!(
            ParquetBloomFilter::with_num_bytes(MAX_NUM_BYTES + 32),
            Err(Error::InvalidParameter { .. })
        ));
    }
}
