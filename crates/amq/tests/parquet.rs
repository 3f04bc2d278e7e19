//! Parquet's split block Bloom filter against a file DuckDB wrote (tests/vectors/parquet:
//! the file, where its filters are, and DuckDB's own answers for 20,000 non-members per
//! column; scripts/parquet-vectors made them), plus properties and a measured ε.
#![cfg(feature = "parquet")]

use amq::formats::parquet::{
    hash_byte_array, hash_i64, writer_num_bytes, ParquetBloomFilter, MAX_NUM_BYTES,
};
use amq::math::binomial_sigma;
use amq::Error;
use proptest::prelude::*;
use serde_json::Value;

fn vector(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../tests/vectors/parquet/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// The hash of member i and of non-member j of a column, as duckdb.json defines them.
fn member(column: &str, i: u64) -> u64 {
    match column {
        "a" => hash_i64(i as i64 * 7919 - 400_000_000),
        "s" => hash_byte_array(format!("amq-{i}").as_bytes()),
        _ => panic!("unknown column {column}"),
    }
}
fn non_member(column: &str, j: u64) -> u64 {
    match column {
        "a" => hash_i64(j as i64 * 7919 - 400_000_000 + 1),
        "s" => hash_byte_array(format!("non-{j}").as_bytes()),
        _ => panic!("unknown column {column}"),
    }
}

struct Chunk {
    name: String,
    /// The bitset as it is in the file, after the header.
    bitset: Vec<u8>,
    /// DuckDB's `parquet_bloom_probe`: the non-members it calls "maybe present".
    duckdb_maybe: Vec<u64>,
    probed: u64,
}

fn chunks() -> (Value, Vec<Chunk>) {
    let file = vector("duckdb.parquet");
    let doc: Value = serde_json::from_slice(&vector("duckdb.json")).unwrap();
    assert_eq!(&file[..4], b"PAR1");
    let chunks = doc["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let at = |k: &str| c[k].as_u64().unwrap() as usize;
            let (offset, length, header) = (
                at("bloom_filter_offset"),
                at("bloom_filter_length"),
                at("header_bytes"),
            );
            // the Thrift header the script decoded is the one in the file
            let header_bytes = unhex(c["header_hex"].as_str().unwrap());
            assert_eq!(header_bytes.len(), header);
            assert_eq!(&file[offset..offset + header], &header_bytes[..]);
            let bitset = file[offset + header..offset + length].to_vec();
            assert_eq!(bitset.len(), at("num_bytes"));
            Chunk {
                name: c["name"].as_str().unwrap().to_string(),
                bitset,
                duckdb_maybe: c["duckdb_maybe_present"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_u64().unwrap())
                    .collect(),
                probed: c["non_members_probed"].as_u64().unwrap(),
            }
        })
        .collect();
    (doc, chunks)
}

#[test]
fn duckdb_filters_find_every_value() {
    let (doc, chunks) = chunks();
    let n = doc["n"].as_u64().unwrap();
    assert_eq!(chunks.len(), 2);
    for c in &chunks {
        let f = ParquetBloomFilter::from_bitset(&c.bitset).unwrap();
        assert_eq!(f.size_bytes(), c.bitset.len() as u64);
        let missing: Vec<u64> = (0..n)
            .filter(|&i| !f.contains_hash(member(&c.name, i)))
            .collect();
        assert!(
            missing.is_empty(),
            "{}: members not found: {missing:?}",
            c.name
        );
    }
}

/// amq's answers on the non-members are DuckDB's, one for one (27 and 21 "maybe" of 20,000).
#[test]
fn duckdb_filters_agree_with_duckdb_probe() {
    let (_, chunks) = chunks();
    for c in &chunks {
        let f = ParquetBloomFilter::from_bitset(&c.bitset).unwrap();
        let maybe: Vec<u64> = (0..c.probed)
            .filter(|&j| f.contains_hash(non_member(&c.name, j)))
            .collect();
        assert_eq!(maybe, c.duckdb_maybe, "{}", c.name);
        assert!(
            !maybe.is_empty(),
            "{}: the vectors should hold some false positives",
            c.name
        );
    }
}

/// Golden bytes: amq's own filter of the same values at the same size is DuckDB's bitset,
/// byte for byte, and the size is the one DuckDB picked.
#[test]
fn amq_writes_duckdbs_bitset() {
    let (doc, chunks) = chunks();
    let n = doc["n"].as_u64().unwrap();
    let fpp = doc["fpp"].as_f64().unwrap();
    for c in &chunks {
        assert_eq!(writer_num_bytes(n, fpp).unwrap(), c.bitset.len());
        let mut f = ParquetBloomFilter::with_ndv_fpp(n, fpp).unwrap();
        for i in 0..n {
            f.insert_hash(member(&c.name, i));
        }
        assert_eq!(f.to_bitset(), c.bitset, "{}", c.name);
    }
}

/// ε measured over 10^6 non-members against the block-load model, within 4 binomial σ; the
/// estimate from the bits set agrees too.
#[test]
fn measured_fpr_matches_the_model() {
    let n = 100_000u64;
    let mut f = ParquetBloomFilter::with_ndv_fpp(n, 0.01).unwrap();
    for i in 0..n {
        f.insert_hash(hash_i64(i as i64));
    }
    let probes = 1_000_000u64;
    let fp = (n..n + probes)
        .filter(|&i| f.contains_hash(hash_i64(i as i64)))
        .count() as f64;
    let measured = fp / probes as f64;
    let eps = f.expected_fpr(n);
    let sigma = binomial_sigma(eps, probes);
    assert!(
        (measured - eps).abs() < 4.0 * sigma,
        "{measured} vs {eps} ± {sigma}"
    );
    assert!(
        (f.estimated_fpr() - eps).abs() < 0.05 * eps,
        "{}",
        f.estimated_fpr()
    );
}

#[test]
fn batch_answers_as_single_queries() {
    let mut f = ParquetBloomFilter::with_num_bytes(32 * 1000).unwrap();
    for i in 0..5_000 {
        f.insert_hash(hash_i64(i));
    }
    let hashes: Vec<u64> = (0..20_000).map(hash_i64).collect();
    let mut out = vec![false; hashes.len()];
    f.contains_hash_batch(&hashes, &mut out);
    let single: Vec<bool> = hashes.iter().map(|&h| f.contains_hash(h)).collect();
    assert_eq!(out, single);
    assert!(out[..5_000].iter().all(|&b| b));
}

#[test]
fn bad_sizes_are_errors() {
    assert!(matches!(
        ParquetBloomFilter::from_bitset(&[0u8; 48]),
        Err(Error::Corrupt { .. })
    ));
    assert!(matches!(
        ParquetBloomFilter::with_num_bytes(MAX_NUM_BYTES + 32),
        Err(Error::InvalidParameter { .. })
    ));
}

/// Filters are equal exactly when their bitsets are: an insert that sets a new bit, or
/// another size, makes them differ; the same hashes in another order do not.
#[test]
fn equality_is_equality_of_bitsets() {
    let hashes: Vec<u64> = (0i64..200).map(hash_i64).collect();
    let mut a = ParquetBloomFilter::with_num_bytes(1024).unwrap();
    let mut b = ParquetBloomFilter::with_num_bytes(1024).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, ParquetBloomFilter::with_num_bytes(2048).unwrap());
    for &h in &hashes {
        a.insert_hash(h);
    }
    for &h in hashes.iter().rev() {
        b.insert_hash(h);
    }
    assert_eq!(a, b);
    let new = (200..)
        .map(hash_i64)
        .find(|&h| !a.contains_hash(h))
        .unwrap();
    b.insert_hash(new);
    assert_ne!(a.to_bitset(), b.to_bitset());
    assert_ne!(a, b);
}

proptest! {
    /// No false negatives, for any hashes and any number of blocks; the bitset round-trips.
    #[test]
    fn inserted_hashes_are_found(blocks in 1usize..64, hashes in prop::collection::vec(any::<u64>(), 0..300)) {
        let mut f = ParquetBloomFilter::with_num_bytes(blocks * 32).unwrap();
        for &h in &hashes {
            f.insert_hash(h);
        }
        for &h in &hashes {
            prop_assert!(f.contains_hash(h));
        }
        let back = ParquetBloomFilter::from_bitset(&f.to_bitset()).unwrap();
        prop_assert_eq!(&back, &f);
        prop_assert_eq!(back.to_bitset(), f.to_bitset());
    }

    /// The decoder never panics: any bytes decode or give an error, as their length says.
    #[test]
    fn any_bytes_decode_or_error(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let r = ParquetBloomFilter::from_bitset(&bytes);
        prop_assert_eq!(r.is_ok(), !bytes.is_empty() && bytes.len() % 32 == 0);
        if let Ok(f) = r {
            prop_assert_eq!(f.to_bitset(), bytes);
        }
    }
}
