//! Bloom filters: the classic layout over m bits, and the cache-line blocked layout.
//!
//! Both hash an item once to 128 bits (XXH3-128 with the filter's seed, see
//! [`hash`](crate::hash)); neither stores the items, so neither supports deletion.

mod blocked;
mod classic;

pub use blocked::BlockedBloomFilter;
pub use classic::BloomFilter;
