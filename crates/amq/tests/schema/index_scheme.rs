//! Files of the first index scheme (the classic and scalable Bloom filters' files from
//! before index scheme 2): they still read and write back byte for byte, and a parameter
//! word that names scheme 1 is refused.

use super::*;

/// A file of the first index scheme (four parameter words, as amq wrote them before index
/// scheme 2) reads, answers for its items by that scheme, and writes back byte for byte.
#[test]
fn bloom_files_of_the_first_index_scheme_still_read() {
    let mut old = header(1, &[100, 3, 7, 3], 16);
    old.extend(unhex(PINNED_BLOOM_V1_PAYLOAD));
    old.extend(unhex(PINNED_BLOOM_V1_CHECKSUM));
    let f = BloomFilter::from_bytes(&old).unwrap();
    assert_eq!(f.indexing(), Indexing::Unit);
    assert_eq!(info_index_scheme(&old), Indexing::Unit);
    assert_eq!(
        hex::encode(spec_bloom_bits_unit(
            &["apple", "banana", "cherry"],
            100,
            3,
            7
        )),
        PINNED_BLOOM_V1_PAYLOAD
    );
    for item in ["apple", "banana", "cherry"] {
        assert!(f.contains(item), "{item}");
    }
    assert_eq!(f.to_bytes(), old);
    // a union needs one scheme on both sides
    let mut new = BloomFilter::new(100, 3, 7).unwrap();
    let e = new.union(&f).unwrap_err().to_string();
    assert!(e.contains("index scheme"), "{e}");
    // an index scheme other than 1 or 2 is refused
    let mut bad = header(1, &[100, 3, 7, 3, 3], 16);
    bad.extend([0; 16]);
    let sum = amq::hash::checksum64(&bad);
    bad.extend(sum.to_le_bytes());
    let e = BloomFilter::from_bytes(&bad).unwrap_err().to_string();
    assert!(e.contains("unknown index scheme 3"), "{e}");
}

/// A chain of the first index scheme (seven parameter words) reads, answers for its items,
/// writes back byte for byte, and a link it adds keeps its scheme.
#[test]
fn scalable_files_of_the_first_index_scheme_still_read() {
    let old = unhex(PINNED_SCALABLE_V1_FILE);
    let mut f = ScalableBloomFilter::from_bytes(&old).unwrap();
    assert_eq!(f.indexing(), Indexing::Unit);
    assert_eq!(info_index_scheme(&old), Indexing::Unit);
    for item in ["apple", "banana", "cherry"] {
        assert!(f.contains(item), "{item}");
    }
    assert_eq!(f.to_bytes(), old);
    let links = f.links();
    let mut i = 0u32;
    while f.links() == links {
        f.insert(&i).unwrap();
        i += 1;
    }
    assert_eq!(f.link(links).unwrap().indexing(), Indexing::Unit);
    assert_eq!(f.to_bytes()[8..12], 7u32.to_le_bytes());
    assert!((0..i).all(|j| f.contains(&j)));
}

/// Index scheme 1 is stated by leaving the word out. A file whose word says 1 is refused,
/// not read: it would be written back without the word, so not as the same bytes.
#[test]
fn a_parameter_word_naming_index_scheme_1_is_refused() {
    for (name, file) in [
        ("bloom", header(1, &[100, 3, 7, 3, 2], 16)),
        ("window", unhex(PINNED_WINDOW_FILE)),
        ("aging", unhex(PINNED_AGING_FILE)),
        ("scalable", unhex(PINNED_SCALABLE_FILE)),
    ] {
        let mut bytes = file;
        if name == "bloom" {
            bytes.extend([0; 16]);
            bytes.extend([0; 8]);
        }
        assert!(
            amq::AnyFilter::from_bytes(&fixed_checksum(&bytes)).is_ok(),
            "{name}"
        );
        // the scheme word is the last parameter word
        let params = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
        let at = 24 + 8 * (params - 1);
        assert_eq!(bytes[at..at + 8], 2u64.to_le_bytes(), "{name}");
        bytes[at] = 1;
        let e = amq::AnyFilter::from_bytes(&fixed_checksum(&bytes))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("by leaving its parameter word out"),
            "{name}: {e}"
        );
    }
}

/// `bytes` with its last eight bytes set to the checksum of the rest.
fn fixed_checksum(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let body = out.len() - 8;
    let sum = amq::hash::checksum64(&out[..body]);
    out[body..].copy_from_slice(&sum.to_le_bytes());
    out
}
