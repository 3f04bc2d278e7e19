//! Logs, receipts and blocks as the Ethereum JSON-RPC API returns them, for serde.
//!
//! Only the fields that concern the logsBloom are kept: a log's `address` and `topics` (not
//! its `data`), a receipt's `logs`, `logsBloom`, `transactionHash` and `blockNumber`, a block's
//! `number`, `hash`, `logsBloom` and, when present, its `receipts` or `logs`. Every other
//! field is ignored. Hex is read in either case with its `0x` prefix optional; quantities
//! (`blockNumber`, `number`) are `0x` hex strings as JSON-RPC writes them, or JSON integers.
//!
//! [`Entries`] reads what the usual calls return: one object, an array of them (nested arrays
//! are flattened), or a whole JSON-RPC response `{"jsonrpc": "2.0", "id": …, "result": …}`.

use super::{InputBits, LogsBloom};
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A log: the contract address that emitted it and its topics (`data` is not kept: it is
/// never part of the bloom).
///
/// # Example
/// ```
/// use amq::formats::eth::{Log, LogsBloom};
/// let log = Log { address: [0xaa; 20], topics: vec![[0xbb; 32]] };
/// assert!(log.bloom().contains(&[0xaa; 20]));
/// assert!(log.matches(&[0xaa; 20], &[[0xbb; 32]]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Log {
    /// The 20-byte address.
    pub address: [u8; 20],
    /// The topics, 32 bytes each (at most 4 in the EVM's LOG0..LOG4).
    pub topics: Vec<[u8; 32]>,
}

impl Log {
    /// The bloom of this log alone.
    pub fn bloom(&self) -> LogsBloom {
        let mut b = LogsBloom::new();
        b.accrue_log(&self.address, &self.topics);
        b
    }

    /// `true` if the log was emitted by `address` and each of `topics` is among its topics
    /// (in any position: the bloom does not record positions either).
    pub fn matches(&self, address: &[u8; 20], topics: &[[u8; 32]]) -> bool {
        self.address == *address && topics.iter().all(|t| self.topics.contains(t))
    }
}

/// A transaction receipt (`eth_getTransactionReceipt`, an element of `eth_getBlockReceipts`).
///
/// # Example
/// ```
/// use amq::formats::eth::{Entry, LogsBloom};
/// let json = format!(
///     r#"{{"transactionHash": "0x{}", "blockNumber": "0x3c9301", "logs": [], "logsBloom": "0x{}"}}"#,
///     "ab".repeat(32),
///     "0".repeat(512)
/// );
/// let Entry::Receipt(r) = serde_json::from_str::<Entry>(&json)? else { panic!("a receipt") };
/// assert_eq!(r.block_number, Some(3_969_793));
/// assert_eq!(r.computed_bloom(), Some(LogsBloom::ZERO));
/// assert_eq!(r.logs_bloom, r.computed_bloom());
/// // a transactionHash must be 32 bytes
/// assert!(serde_json::from_str::<Entry>(r#"{"transactionHash": "0x01", "logs": []}"#).is_err());
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Receipt {
    /// `transactionHash`, when present.
    pub transaction_hash: Option<[u8; 32]>,
    /// `blockNumber`, when present.
    pub block_number: Option<u64>,
    /// `logs`, when present.
    pub logs: Option<Vec<Log>>,
    /// `logsBloom`, when present.
    pub logs_bloom: Option<LogsBloom>,
}

impl Receipt {
    /// The bloom of the receipt's logs (`None` without `logs`).
    pub fn computed_bloom(&self) -> Option<LogsBloom> {
        self.logs.as_ref().map(LogsBloom::from_logs)
    }
}

/// A block (`eth_getBlockByNumber`), perhaps with its `receipts` or all its `logs` added.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Block {
    /// `number`, when present.
    pub number: Option<u64>,
    /// `hash`, when present.
    pub hash: Option<[u8; 32]>,
    /// `logsBloom`, when present.
    pub logs_bloom: Option<LogsBloom>,
    /// `receipts`: the block's full receipt list, when present.
    pub receipts: Option<Vec<Receipt>>,
    /// `logs`: every log of the block (as `eth_getLogs` for the block gives them), when
    /// present.
    pub logs: Option<Vec<Log>>,
}

impl Block {
    /// The block's bloom recomputed: the OR of its receipts' blooms (from their logs) when
    /// the receipts are present and all have logs, else the bloom of `logs`; `None` if
    /// neither is there.
    pub fn computed_bloom(&self) -> Option<LogsBloom> {
        let from_receipts = self.receipts.as_ref().and_then(|receipts| {
            let mut bloom = LogsBloom::new();
            for r in receipts {
                bloom |= r.computed_bloom()?;
            }
            Some(bloom)
        });
        from_receipts.or_else(|| self.logs.as_ref().map(LogsBloom::from_logs))
    }
}

/// One JSON object: a log, a receipt or a block.
///
/// An object with `address` is a log (it needs `topics`); one with `receipts` or `number`
/// (even `null`, as a pending block has it) is a block; one with `logs` or `logsBloom` is a
/// receipt. Its [`Display`](fmt::Display) form names it in messages (`receipt 0x… (block
/// N)`, `block N`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A log.
    Log(Log),
    /// A receipt.
    Receipt(Receipt),
    /// A block.
    Block(Block),
}

impl Entry {
    /// The `logsBloom` the object states, if any (a log states none).
    pub fn stated_bloom(&self) -> Option<LogsBloom> {
        match self {
            Entry::Log(_) => None,
            Entry::Receipt(r) => r.logs_bloom,
            Entry::Block(b) => b.logs_bloom,
        }
    }

    /// The bloom recomputed from the object's logs (see [`Block::computed_bloom`]).
    pub fn computed_bloom(&self) -> Option<LogsBloom> {
        match self {
            Entry::Log(l) => Some(l.bloom()),
            Entry::Receipt(r) => r.computed_bloom(),
            Entry::Block(b) => b.computed_bloom(),
        }
    }

    /// The block number: a receipt's `blockNumber` or a block's `number`.
    pub fn block_number(&self) -> Option<u64> {
        match self {
            Entry::Log(_) => None,
            Entry::Receipt(r) => r.block_number,
            Entry::Block(b) => b.number,
        }
    }

    /// Every log the object carries: itself, a receipt's logs, or a block's logs (its
    /// receipts' logs when it has receipts). `None` if it carries no log list.
    pub fn logs(&self) -> Option<Vec<&Log>> {
        match self {
            Entry::Log(l) => Some(alloc::vec![l]),
            Entry::Receipt(r) => r.logs.as_ref().map(|v| v.iter().collect()),
            Entry::Block(b) => {
                if let Some(receipts) = &b.receipts {
                    let mut all = Vec::new();
                    for r in receipts {
                        all.extend(r.logs.as_ref()?.iter());
                    }
                    Some(all)
                } else {
                    b.logs.as_ref().map(|v| v.iter().collect())
                }
            }
        }
    }

    /// `true` if the stated bloom may hold every input.
    ///
    /// `None` when the object states no `logsBloom`.
    pub fn may_contain(&self, inputs: &[InputBits]) -> Option<bool> {
        let bloom = self.stated_bloom()?;
        Some(inputs.iter().all(|i| bloom.contains_bits(*i)))
    }
}

/// Names the object for messages, as `amq eth` and `amq.eth` print it; hex is `0x` and lower
/// case:
///
/// * a log: `log of 0x<address>`;
/// * a receipt: `receipt 0x<transactionHash> (block N)`, without the hash or ` (block N)` when
///   the receipt lacks it (`receipt (block N)`, `receipt`);
/// * a block: `block N` when its `number` is known, else `block 0x<hash>`, else `block`.
///
/// # Example
/// ```
/// use amq::formats::eth::{Block, Entry, Log, Receipt};
/// let log = Entry::Log(Log { address: [0xab; 20], topics: vec![] });
/// assert_eq!(log.to_string(), format!("log of 0x{}", "ab".repeat(20)));
/// let hash = Some([1; 32]);
/// let receipt = Receipt { transaction_hash: hash, block_number: Some(7), ..Receipt::default() };
/// let text = Entry::Receipt(receipt.clone()).to_string();
/// assert_eq!(text, format!("receipt 0x{} (block 7)", "01".repeat(32)));
/// let receipt = Receipt { transaction_hash: None, ..receipt };
/// assert_eq!(Entry::Receipt(receipt).to_string(), "receipt (block 7)");
/// assert_eq!(Entry::Receipt(Receipt::default()).to_string(), "receipt");
/// let block = Block { number: Some(16), hash: Some([2; 32]), ..Block::default() };
/// assert_eq!(Entry::Block(block.clone()).to_string(), "block 16");
/// let block = Block { number: None, ..block };
/// assert_eq!(Entry::Block(block).to_string(), format!("block 0x{}", "02".repeat(32)));
/// assert_eq!(Entry::Block(Block::default()).to_string(), "block");
/// ```
impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = |bytes: &[u8]| alloc::format!("0x{}", hex::encode(bytes));
        match self {
            Entry::Log(l) => write!(f, "log of {}", hex(&l.address)),
            Entry::Receipt(r) => {
                f.write_str("receipt")?;
                if let Some(h) = r.transaction_hash {
                    write!(f, " {}", hex(&h))?;
                }
                if let Some(n) = r.block_number {
                    write!(f, " (block {n})")?;
                }
                Ok(())
            }
            Entry::Block(b) => match (b.number, b.hash) {
                (Some(n), _) => write!(f, "block {n}"),
                (None, Some(h)) => write!(f, "block {}", hex(&h)),
                (None, None) => f.write_str("block"),
            },
        }
    }
}

/// Everything in one JSON document: an object, an array of objects (nested arrays are
/// flattened), or a JSON-RPC response whose `result` is either.
///
/// # Errors
/// Deserialising fails with a message naming the bad field when hex has the wrong length or
/// is not hex, a quantity is not a `0x` hex string or integer in `u64`, a log has no
/// `topics`, an object is none of a log, a receipt or a block, or a block's `receipts` holds
/// something that is not a receipt.
///
/// # Example
/// ```
/// use amq::formats::eth::{Entries, Entry};
/// let json = r#"{"jsonrpc": "2.0", "id": 1, "result": [
///     {"address": "0x00000000000000000000000000000000000000aA", "topics": [], "data": "0x"},
///     {"blockNumber": "0x10", "logs": [], "logsBloom": "0x" }
/// ]}"#;
/// // the second logsBloom is too short
/// assert!(serde_json::from_str::<Entries>(json).is_err());
/// let ok = json.replace(r#""logsBloom": "0x""#, &format!(r#""logsBloom": "0x{}""#, "0".repeat(512)));
/// let entries: Entries = serde_json::from_str(&ok)?;
/// assert!(matches!(entries.0[0], Entry::Log(_)));
/// assert_eq!(entries.0[1].block_number(), Some(16));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entries(pub Vec<Entry>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a log, receipt or block object, or an array of them")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entries, A::Error> {
                let mut all = Vec::new();
                while let Some(Entries(more)) = seq.next_element::<Entries>()? {
                    all.extend(more);
                }
                Ok(Entries(all))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Entries, A::Error> {
                let raw = RawEntry::deserialize(de::value::MapAccessDeserializer::new(map))?;
                match raw.result {
                    Some(Some(result)) => return Ok(*result),
                    Some(None) if raw.error.is_none() => {
                        return Err(de::Error::custom(
                            "the JSON-RPC result is null: the node has no such receipt, \
                             block or log (geth answers null for an unknown hash or a block \
                             it has not reached)",
                        ))
                    }
                    _ => {}
                }
                Ok(Entries(alloc::vec![raw
                    .into_entry()
                    .map_err(de::Error::custom)?]))
            }
        }
        deserializer.deserialize_any(EntriesVisitor)
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        RawEntry::deserialize(deserializer)?
            .into_entry()
            .map_err(de::Error::custom)
    }
}

/// Every field any of the three objects may have.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEntry {
    address: Option<Hex<20>>,
    topics: Option<Vec<Hex<32>>>,
    logs: Option<Vec<RawLog>>,
    logs_bloom: Option<LogsBloom>,
    transaction_hash: Option<Hex<32>>,
    block_number: Option<Quantity>,
    /// `Some(None)` for `"number": null`, a pending block's.
    #[serde(default, deserialize_with = "present")]
    number: Option<Option<Quantity>>,
    hash: Option<Hex<32>>,
    receipts: Option<Vec<RawEntry>>,
    /// `None` if absent, `Some(None)` if `null`.
    #[serde(default, deserialize_with = "present")]
    result: Option<Option<Box<Entries>>>,
    error: Option<RpcError>,
}

/// Deserialises a member that is there (even as `null`) as `Some`, so that `#[serde(default)]`
/// leaves `None` for one that is absent.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The `error` member of a failed JSON-RPC call.
#[derive(serde::Deserialize)]
struct RpcError {
    code: Option<i64>,
    message: Option<String>,
}

#[derive(serde::Deserialize)]
struct RawLog {
    address: Hex<20>,
    topics: Vec<Hex<32>>,
}

impl From<RawLog> for Log {
    fn from(r: RawLog) -> Log {
        Log {
            address: r.address.0,
            topics: r.topics.into_iter().map(|t| t.0).collect(),
        }
    }
}

fn logs(raw: Option<Vec<RawLog>>) -> Option<Vec<Log>> {
    raw.map(|v| v.into_iter().map(Log::from).collect())
}

impl RawEntry {
    fn into_entry(self) -> Result<Entry, String> {
        if let Some(e) = self.error {
            return Err(alloc::format!(
                "the JSON-RPC call failed: code {}, {}",
                e.code
                    .map_or_else(|| String::from("none"), |c| alloc::format!("{c}")),
                e.message.as_deref().unwrap_or("no message")
            ));
        }
        if let Some(address) = self.address {
            let topics = self
                .topics
                .ok_or("a log (an object with address) needs topics")?;
            return Ok(Entry::Log(Log {
                address: address.0,
                topics: topics.into_iter().map(|t| t.0).collect(),
            }));
        }
        if self.receipts.is_some() || self.number.is_some() {
            let receipts = match self.receipts {
                None => None,
                Some(list) => Some(
                    list.into_iter()
                        .map(|r| match r.into_entry()? {
                            Entry::Receipt(r) => Ok(r),
                            _ => Err(String::from("a block's receipts must be receipt objects")),
                        })
                        .collect::<Result<Vec<_>, _>>()?,
                ),
            };
            return Ok(Entry::Block(Block {
                number: self.number.flatten().map(|q| q.0),
                hash: self.hash.map(|h| h.0),
                logs_bloom: self.logs_bloom,
                receipts,
                logs: logs(self.logs),
            }));
        }
        if self.logs.is_some() || self.logs_bloom.is_some() {
            return Ok(Entry::Receipt(Receipt {
                transaction_hash: self.transaction_hash.map(|h| h.0),
                block_number: self.block_number.map(|q| q.0),
                logs: logs(self.logs),
                logs_bloom: self.logs_bloom,
            }));
        }
        Err(String::from(
            "an object that is not a log (address, topics), a receipt (logs, logsBloom) \
             or a block (number, receipts)",
        ))
    }
}

/// Exactly N bytes of hex, `0x` optional.
struct Hex<const N: usize>([u8; N]);

impl<'de, const N: usize> Deserialize<'de> for Hex<N> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct HexVisitor<const N: usize>;
        impl<const N: usize> Visitor<'_> for HexVisitor<N> {
            type Value = Hex<N>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{N} bytes as hex")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Hex<N>, E> {
                super::hex_array::<N>(v).map(Hex).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(HexVisitor::<N>)
    }
}

/// A JSON-RPC quantity: a `0x` hex string, or a JSON integer.
struct Quantity(u64);

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct QuantityVisitor;
        impl Visitor<'_> for QuantityVisitor {
            type Value = Quantity;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a quantity: a 0x hex string or an integer")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Quantity, E> {
                Ok(Quantity(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Quantity, E> {
                u64::try_from(v)
                    .map(Quantity)
                    .map_err(|_| E::custom("a quantity cannot be negative"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Quantity, E> {
                let digits = v
                    .strip_prefix("0x")
                    .or_else(|| v.strip_prefix("0X"))
                    .ok_or_else(|| E::custom(alloc::format!("quantity {v:?} has no 0x prefix")))?;
                if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_hexdigit()) {
                    return Err(E::custom(alloc::format!("quantity {v:?} is not hex")));
                }
                u64::from_str_radix(digits, 16).map(Quantity).map_err(|_| {
                    E::custom(alloc::format!("quantity {v:?} does not fit in 64 bits"))
                })
            }
        }
        deserializer.deserialize_any(QuantityVisitor)
    }
}
