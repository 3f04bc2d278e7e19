//! Byte-exact filter formats used on real chains and in Parquet files, each behind its own
//! feature.
//!
//! Each fixes its own hash, as its specification does; none uses the general XXH3 hashing.

#[cfg(feature = "algorand")]
pub mod algorand;
#[cfg(feature = "bip158")]
pub mod bip158;
#[cfg(feature = "bip37")]
pub mod bip37;
#[cfg(feature = "cashu")]
pub mod cashu;
#[cfg(feature = "cashu-state")]
pub mod cashu_state;
#[cfg(any(feature = "bip37", feature = "bip158"))]
mod compact_size;
#[cfg(feature = "eth")]
pub mod eth;
#[cfg(feature = "parquet")]
pub mod parquet;
