//! # amq: approximate membership queries
//!
//! "Is x in the set?" answered in a few bits per item, with a bounded, measured error.
//!
//! * [`BloomFilter`]: the classic filter over any m ≥ 1 bits, with exact sizing
//!   ([`math::bloom_size`]).
//! * [`BlockedBloomFilter`]: one 64-byte cache line per item, sized with the block-load model
//!   ([`math::blocked_fpr`]), with prefetching batched queries.
//! * [`CuckooFilter`]: fingerprints in a cuckoo hash table of 4-slot buckets, with deletion
//!   ([`Remove`]) and copy counts ([`cuckoo`]).
//! * [`gcs`]: Golomb-coded sets, static and about 1.5 bits above log₂(1/ε) per item, with
//!   streaming `match_any`/`match_all`/`match_many`, a sampled index and a P/M planner; the
//!   Cashu and BIP158 formats ([`formats`]) are built on it.
//! * [`math`]: false-positive rates, sizing and the planner; [`wire`]: the `.amq` file.
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
pub mod clock;
pub mod cuckoo;
mod error;
pub mod filter;
pub mod formats;
pub mod gcs;
pub mod hash;
pub mod math;
pub mod negative;
mod registry;
pub mod window;
pub mod wire;

pub use bloom::{BlockedBloomFilter, BloomFilter};
pub use cuckoo::CuckooFilter;
pub use error::{Error, Result};
pub use filter::{Filter, Insert, Item, Merge, Remove};
pub use negative::NegativeCache;
pub use registry::{AnyFilter, Details, Info};
pub use window::{AgingBloom, SlidingWindowBloom};
