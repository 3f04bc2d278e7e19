//! What the two chains share, the scalable Bloom filter and the expandable cuckoo filter: an
//! insert that adds a link when the newest cannot take the item, within a byte limit.

use crate::error::{Error, Result};

/// A chain of links, the newest taking inserts.
pub(crate) trait Chain {
    /// Inserts into the newest link; [`Error::Full`] (nothing changed) when it cannot take a
    /// new item.
    fn try_insert_hash(&mut self, h: u128) -> Result<bool>;
    /// The chain may add a link.
    fn can_grow(&self) -> bool;
    /// The bytes of the link [`grow`](Self::grow) would add, without allocating.
    fn next_link_bytes(&self) -> Result<u64>;
    /// Adds a link.
    fn grow(&mut self) -> Result<()>;
    /// The bytes of every link.
    fn size_bytes(&self) -> u64;
}

/// Inserts a hash into the newest link; if it is full and the chain may grow, adds a link
/// first, unless the link would take the chain over `limit` bytes.
///
/// # Errors
/// [`Error::Full`] when the newest link refuses and the chain cannot grow;
/// [`Error::OverLimit`] when the next link would pass `limit`; the link's sizing or
/// allocation error. Nothing changes on error.
pub(crate) fn insert_hash_within<C: Chain>(chain: &mut C, h: u128, limit: u64) -> Result<bool> {
    match chain.try_insert_hash(h) {
        Err(Error::Full { .. }) if chain.can_grow() => {
            Error::check_limit(chain.size_bytes(), chain.next_link_bytes()?, false, limit)?;
            chain.grow()?;
            chain.try_insert_hash(h)
        }
        other => other,
    }
}

/// Implements [`Chain`] by the chain type's own methods of the same names.
macro_rules! impl_chain {
    ($t:ty) => {
        impl $crate::chain::Chain for $t {
            fn try_insert_hash(&mut self, h: u128) -> $crate::error::Result<bool> {
                <$t>::try_insert_hash(self, h)
            }
            fn can_grow(&self) -> bool {
                <$t>::can_grow(self)
            }
            fn next_link_bytes(&self) -> $crate::error::Result<u64> {
                <$t>::next_link_bytes(self)
            }
            fn grow(&mut self) -> $crate::error::Result<()> {
                <$t>::grow(self)
            }
            fn size_bytes(&self) -> u64 {
                <$t>::size_bytes(self)
            }
        }
    };
}
pub(crate) use impl_chain;
