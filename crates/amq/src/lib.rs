//! # amq: approximate membership queries
//!
//! "Is x in the set?" answered in a few bits per item, with a bounded, measured error.
//!
//! ## Which filter should I use?
//!
//! Bits per key at ε = 1% for n = 10^6 (from [`math::plan`]); query times are medians of
//! random queries at n = 10^6 on a 2-core EPYC VM (BENCHMARKS.md in the repository has the
//! peers, the command and the spread).
//!
//! | kind | set | deletes | forgets | error | bits/key at 1% | query |
//! |---|---|---|---|---|---|---|
//! | [`BloomFilter`] | grows | no | no | false positives | 9.59 | 12–15 ns |
//! | [`BlockedBloomFilter`] | grows | no | no | false positives | 9.92 | 14–16 ns, 10 ns batched |
//! | [`SplitBlockBloomFilter`] | grows | no | no | false positives | 10.10 | 3.3–3.9 ns at 10^6, 7–20 ns at 10^7; batched 2.9–3.2 and 3.6–7.6 ns |
//! | [`CuckooFilter`] | grows to a capacity | yes | no | false positives | 12.63 (ε 0.19%) | 50–55 ns at 2^24 |
//! | [`ScalableBloomFilter`] | grows without a set capacity (links) | no | no | false positives, ≤ ε over the chain | 11.03 (first link, at ε/2) | k probes per link |
//! | [`ExpandableCuckooFilter`] | grows by links while 16-bit fingerprints meet ε (6 links, 63·n₀ items at 1%; 3, 7·n₀ at 0.1%) | yes | no | false positives, ≤ ε over the chain | 12.63 (first link) | two buckets per link |
//! | [`gcs`] (Golomb-coded set) | static | no | no | false positives | ≈ log₂(1/ε) + 1.5 | streaming decode |
//! | [`SlidingWindowBloom`] | items at positions | no | archives old chunks | false positives | set by W, S, B | – |
//! | [`AgingBloom`] | a window of items or seconds | no | yes, by generation | false positives | 16.6 (g = 4) | – |
//! | [`NegativeCache`] | a fixed table | yes | yes (LRU, TTL) | false negatives (and ≤ w·2⁻ᵇ false positives) | b + 1 per slot | one cache line |
//! | [`TtlCuckooFilter`] | the live items, to a capacity | yes | yes, each between ttl − tick and ttl | false positives | 14.74 (s = 4 stamp bits) | 50–85 ns at 2^20 slots (shared machine) |
//! | [`SlidingWindowCuckoo`] | grows by epochs of B members | yes (slash at the epoch) | no | false positives | 10.53 (B = 15,564; up to 2× after slashing) | two buckets of one epoch |
//!
//! ## Kinds and formats, with their sources
//!
//! * [`BloomFilter`]: the classic filter over any m ≥ 1 bits, with exact sizing
//!   ([`math::bloom_size`]). Bloom, "Space/Time Trade-offs in Hash Coding with Allowable
//!   Errors", CACM 13(7), 1970; sizing after Broder and Mitzenmacher, "Network Applications of
//!   Bloom Filters: A Survey", Internet Mathematics 1(4), 2004.
//! * [`BlockedBloomFilter`]: one 64-byte cache line per item, sized with the block-load model
//!   ([`math::blocked_fpr`]), with prefetching batched queries. Putze, Sanders and Singler,
//!   "Cache-, Hash- and Space-Efficient Bloom Filters", WEA 2007.
//! * [`SplitBlockBloomFilter`]: one bit in each of the eight 64-bit lanes of a 64-byte block
//!   (k = 8), XXH3-64, AVX-512 or AVX2 where the CPU has it; 0.42% at 12 bits per key where
//!   Parquet's 256-bit split block gives 0.54% ([`math::split_block_fpr`]). The split block layout
//!   of the Parquet specification
//!   (<https://github.com/apache/parquet-format/blob/master/BloomFilter.md>); Putze, Sanders and
//!   Singler, WEA 2007.
//! * [`CuckooFilter`]: fingerprints in a cuckoo hash table of 4-slot buckets, with deletion
//!   ([`Remove`]) and copy counts ([`cuckoo`]). Fan, Andersen, Kaminsky and Mitzenmacher,
//!   "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014.
//! * [`ScalableBloomFilter`]: a chain of classic filters, each n₀·sⁱ items at ε·(1 − r)·rⁱ, so the
//!   whole chain stays within the asked ε ([`scalable`]). Almeida, Baquero, Preguiça and
//!   Hutchison, "Scalable Bloom Filters", Information Processing Letters 101(6), 2007; the
//!   command set of RedisBloom's `BF.*` (<https://redis.io/docs/latest/commands/bf.reserve/>).
//! * [`ExpandableCuckooFilter`]: a chain of cuckoo filters with wider fingerprints as it grows,
//!   within the asked ε over the chain ([`cuckoo::ExpandableCuckooFilter`]); the command set
//!   of RedisBloom's `CF.*` (<https://redis.io/docs/latest/commands/cf.reserve/>).
//! * [`gcs`]: Golomb-coded sets, static and about 1.5 bits above log₂(1/ε) per item, with
//!   streaming `match_any`/`match_all`/`match_many`, a sampled index and a P/M planner.
//!   Putze, Sanders and Singler 2007; Golomb, "Run-length encodings", IEEE Trans. Inf. Theory
//!   12(3), 1966.
//! * [`SlidingWindowBloom`]: the sliding-window Bloom filter of mutator sets. Szepieniec and
//!   Værge, "Mutator Sets and their Application to Scalable Privacy", IACR ePrint 2023/1208.
//! * [`AgingBloom`]: a ring of g generations that forgets by insertions or time, the
//!   g-generation form of the two-buffer aging Bloom filter (Yoon, "Aging Bloom Filter with
//!   Two Active Buffers for Dynamic Sets", IEEE TKDE 22(1), 2010).
//! * [`NegativeCache`]: "definitely present" or "maybe absent", direct-mapped or w-way LRU
//!   with a TTL: a table of fingerprints that overwrites on collision (Ilmari Karonen's answer
//!   to "Is there an anti-Bloom filter?", cs.stackexchange.com question 24118; the blog post
//!   "Negative Bloom Filters", 2024).
//! * [`TtlCuckooFilter`] ([`ttl`]): a cuckoo filter whose slots hold a fingerprint and an
//!   expiry stamp, for per-item expiry (RedisBloom#115; Quad9's `cuckoo-clock` keeps a
//!   countdown per slot): an item lives between `ttl − tick` and `ttl`, and
//!   `ε = 1 − (1 − 1/(2^f − 1))^(8α)` at the live load α. Fan, Andersen, Kaminsky and
//!   Mitzenmacher, CoNEXT 2014.
//! * [`SlidingWindowCuckoo`] ([`rln`]): one cuckoo filter per registration epoch, with
//!   deletion, for the light clients of a rate-limiting-nullifier network: the proposal that
//!   ends the seed `bloom-cuckoo-sliding-window.md` (Vac, "Membership with Bloom Filters and
//!   Cuckoo Filters", 2024), after the sliding window of Szepieniec and Værge 2023/1208.
//! * [`formats`]: byte-exact chain formats, each behind a feature: Ethereum's logsBloom
//!   (Ethereum Yellow Paper, §4.3.1, "M3:2048"), Bitcoin's BIP37 `filterload`
//!   (<https://github.com/bitcoin/bips/blob/master/bip-0037.mediawiki>) and BIP158 block
//!   filters (<https://github.com/bitcoin/bips/blob/master/bip-0158.mediawiki>), Cashu's
//!   NUT-23 draft GCS (<https://github.com/cashubtc/nuts/pull/261>), and the Algorand
//!   unit-name registry's box filter; and Apache Parquet's split block Bloom filter
//!   (`formats::parquet`, <https://github.com/apache/parquet-format/blob/master/BloomFilter.md>).
//! * [`AnyFilter`] and [`Info`]: the registry that opens, creates, describes and encodes every
//!   kind through one interface; [`math`]: false-positive rates, sizing and the planner
//!   ([`math::plan`] for every kind); [`wire`]: the `.amq` file.
//!
//! A filter answers **"maybe present"** (`true`) or **"definitely absent"** (`false`); it
//! never gives a false negative. Every general filter hashes an item once with XXH3-128 under
//! its seed ([`hash`]), and offers hash-level methods (`insert_hash`, `contains_hash`) so a
//! caller can hash once and probe many filters.
//!
//! ```
//! use amq::{BloomFilter, Filter, Insert};
//!
//! let mut f = BloomFilter::with_fpr(100_000, 0.01, 0)?;
//! f.insert("alice")?;
//! assert!(f.contains("alice"));
//! let absent = (0..10_000u64).filter(|i| f.contains(i)).count();
//! assert!(absent < 10); // one item in a filter sized for 100,000: almost no false positives
//! # Ok::<(), amq::Error>(())
//! ```
//!
//! The crate is `no_std` with `alloc`; the default feature `std` adds `std::error::Error`.
#![cfg_attr(not(feature = "std"), no_std)]

extern crate alloc;

pub mod bits;
mod bloom;
mod chain;
pub mod clock;
pub mod cuckoo;
mod error;
pub mod filter;
pub mod formats;
pub mod gcs;
pub mod hash;
mod list;
pub mod math;
pub mod negative;
mod registry;
pub mod rln;
pub mod scalable;
pub mod ttl;
pub mod window;
pub mod wire;

pub use bloom::{BlockedBloomFilter, BloomFilter, SplitBlockBloomFilter, SplitBlockKernel};
pub use cuckoo::{CuckooFilter, ExpandableCuckooFilter};
pub use error::{Error, Result};
pub use filter::{Filter, Insert, Item, Merge, Remove};
pub use negative::NegativeCache;
pub use registry::{AnyFilter, At, Details, Info, Inserted};
pub use rln::SlidingWindowCuckoo;
pub use scalable::ScalableBloomFilter;
pub use ttl::TtlCuckooFilter;
pub use window::{AgingBloom, SlidingWindowBloom};

/// The README's Rust examples, compiled and run by `cargo test --doc` (with the features the
/// Ethereum example needs).
#[cfg(all(doctest, feature = "std", feature = "eth"))]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;
