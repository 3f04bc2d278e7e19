//! BIP158 basic filters and BIP157 headers for every block of bitcoin/bips
//! `bip-0158/testnet-19.json` (tests/vectors/bip158), blocks decoded with the `bitcoin` crate.
#![cfg(feature = "bip158")]

use amq::formats::bip158::{basic_filter_elements, BlockFilter};
use bitcoin::hashes::Hash as _;

struct Row {
    height: u64,
    block_hash: [u8; 32],
    block: bitcoin::Block,
    prev_scripts: Vec<Vec<u8>>,
    prev_header: [u8; 32],
    filter: Vec<u8>,
    header: [u8; 32],
    note: String,
}

fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// RPC hex (display order) to internal byte order.
fn rpc_hash(s: &str) -> [u8; 32] {
    let mut h: [u8; 32] = unhex(s).try_into().unwrap();
    h.reverse();
    h
}

fn rows() -> Vec<Row> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/bip158/testnet-19.json"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json.as_array().unwrap()[1..]
        .iter()
        .map(|r| Row {
            height: r[0].as_u64().unwrap(),
            block_hash: rpc_hash(r[1].as_str().unwrap()),
            block: bitcoin::consensus::deserialize(&unhex(r[2].as_str().unwrap())).unwrap(),
            prev_scripts: r[3]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| unhex(s.as_str().unwrap()))
                .collect(),
            prev_header: rpc_hash(r[4].as_str().unwrap()),
            filter: unhex(r[5].as_str().unwrap()),
            header: rpc_hash(r[6].as_str().unwrap()),
            note: r[7].as_str().unwrap().to_string(),
        })
        .collect()
}

fn elements(row: &Row) -> Vec<&[u8]> {
    let outputs = row
        .block
        .txdata
        .iter()
        .flat_map(|tx| tx.output.iter().map(|o| o.script_pubkey.as_bytes()));
    basic_filter_elements(outputs, row.prev_scripts.iter().map(Vec::as_slice))
}

#[test]
fn every_block_filter_and_header() {
    let rows = rows();
    assert_eq!(rows.len(), 10);
    for row in &rows {
        let what = format!("block {} ({})", row.height, row.note);
        assert_eq!(
            row.block.block_hash().to_byte_array(),
            row.block_hash,
            "{what}"
        );
        // one previous script per non-coinbase input
        let inputs: usize = row
            .block
            .txdata
            .iter()
            .filter(|tx| !tx.is_coinbase())
            .map(|tx| tx.input.len())
            .sum();
        assert_eq!(inputs, row.prev_scripts.len(), "{what}");
        let elements = elements(row);
        let filter = BlockFilter::build(&row.block_hash, &elements).unwrap();
        assert_eq!(
            hex::encode(filter.as_bytes()),
            hex::encode(&row.filter),
            "{what}: filter"
        );
        assert_eq!(
            hex::encode(filter.header(&row.prev_header)),
            hex::encode(row.header),
            "{what}: header"
        );
        // the published bytes read back, validate, and match every element
        let read = BlockFilter::from_bytes(&row.block_hash, row.filter.clone()).unwrap();
        read.validate().unwrap();
        assert_eq!(read.n(), filter.n());
        assert!(read.match_all(&elements).unwrap(), "{what}");
        assert_eq!(read.match_any(&elements).unwrap(), !elements.is_empty());
        assert!(read.match_many(&elements).unwrap().iter().all(|&m| m));
    }
}

#[test]
fn headers_chain_from_row_to_row() {
    // consecutive heights 2 and 3: the header of 2 is the previous header of 3
    let rows = rows();
    let two = rows.iter().find(|r| r.height == 2).unwrap();
    let three = rows.iter().find(|r| r.height == 3).unwrap();
    assert_eq!(two.header, three.prev_header);
}

#[test]
fn the_special_blocks() {
    let rows = rows();
    let by_note = |s: &str| rows.iter().find(|r| r.note.contains(s)).unwrap();
    // duplicate pushdata: 17 elements, 9 distinct
    let dup = by_note("Duplicate pushdata");
    let elements = elements(dup);
    assert_eq!(elements.len(), 17);
    let filter = BlockFilter::build(&dup.block_hash, &elements).unwrap();
    assert_eq!(filter.n(), 9);
    // the empty filter is the single byte 00
    let empty = by_note("Empty data");
    assert_eq!(empty.filter, [0]);
    let f = BlockFilter::from_bytes(&empty.block_hash, empty.filter.clone()).unwrap();
    assert!(!f.match_any([&b"\x51"[..]]).unwrap());
    assert!(f.match_all(Vec::<&[u8]>::new()).unwrap());
    // a script not in the block does not match the genesis filter
    let genesis = by_note("Genesis");
    let f = BlockFilter::from_bytes(&genesis.block_hash, genesis.filter.clone()).unwrap();
    assert!(!f
        .match_any([&b"\x00\x14not a script of this block"[..]])
        .unwrap());
}

/// The wire bytes Bitcoin Core's `GCSFilter` constructor refuses are refused, and those it
/// takes are taken (helper-23: bytes after the last code and N above MAX_SIZE were read).
#[test]
fn the_decoder_accepts_what_core_accepts() {
    let rows = rows();
    let genesis = rows.iter().find(|r| r.note.contains("Genesis")).unwrap();
    assert_eq!(genesis.filter, unhex("019dfca8"));
    let read = |bytes: &str| BlockFilter::from_bytes(&genesis.block_hash, unhex(bytes));
    // "encoded_filter contains excess data"
    let e = read("019dfca800").unwrap_err();
    assert!(e.to_string().contains("1 bytes after the last code"), "{e}");
    // ReadCompactSize: "size too large" above 0x02000000
    let e = read("fe01000002").unwrap_err();
    assert!(e.to_string().contains("at most 33554432"), "{e}");
    // N = 0x02000000 itself is within Core's range: the codes are what is missing
    let e = read("fe00000002").unwrap_err();
    assert!(matches!(e, amq::Error::Truncated { .. }), "{e}");
    // N = 1, one code (a unary 1110 and 19 bits) and one padding bit: Core never looks at
    // it, so set it is read; validate, which asks for the canonical bytes, refuses it
    let f = read("019dfca9").unwrap();
    assert!(f.validate().is_err());
    assert!(read("019dfca8").unwrap().validate().is_ok());
}
