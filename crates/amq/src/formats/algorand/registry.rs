//! [`UnitNameRegistry`]: the seed contract's `buy_nft`, replayed off-chain.

use super::bloom::check_shape;
use super::{AlgorandBloom, DEFAULT_BOX_BYTES, DEFAULT_K, MAX_UNIT_NAME_BYTES};
use crate::error::{Error, Result};
use core::fmt;

/// Why `buy_nft` failed. A failed call changes nothing (the transaction is rejected whole).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuyError {
    /// `assert self.minted < self.max_supply, "Maximum supply reached"`.
    MaximumSupplyReached,
    /// `assert exists, "Application not bootstrapped"`: the box was never created.
    NotBootstrapped,
    /// `assert not (getbit(h1) and getbit(h2)), "Unit name already taken"`.
    UnitNameTaken,
    /// The inner asset-config transaction refuses a unit name over 8 bytes: the AVM's
    /// `itxn_field ConfigAssetUnitName` fails with "value is too long" (go-algorand
    /// `data/transactions/logic/eval.go`, `stackIntoTxnField`:
    /// `sv.string(cx.Proto.MaxAssetUnitNameBytes)`, commit
    /// `0030abac20843ce37309ffb510315689e5b57730`).
    UnitNameTooLong {
        /// The name's length in bytes.
        len: usize,
    },
}

impl BuyError {
    /// The failure's message, as the contract (or the AVM) gives it.
    pub fn message(&self) -> &'static str {
        match self {
            BuyError::MaximumSupplyReached => "Maximum supply reached",
            BuyError::NotBootstrapped => "Application not bootstrapped",
            BuyError::UnitNameTaken => "Unit name already taken",
            BuyError::UnitNameTooLong { .. } => "value is too long",
        }
    }
}

impl fmt::Display for BuyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for BuyError {}

/// The unit-name registry contract (`BloomFilter` of the seed document), replayed off-chain.
///
/// State: `max_supply`, `minted`, and the `bloom` box once `create_bloom_filter` made it.
/// [`buy_nft`](Self::buy_nft) checks, in the contract's order: supply, box, unit name taken,
/// then mints (the inner asset-config transaction, which refuses names over 8 bytes), then
/// counts the mint and sets the name's bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitNameRegistry {
    max_supply: u64,
    minted: u64,
    box_bytes: usize,
    k: u8,
    bloom: Option<AlgorandBloom>,
}

impl UnitNameRegistry {
    /// The contract after `new(max_supply)`: nothing minted, no box yet; the box will be the
    /// seed's 4,096 bytes with k = 2.
    pub fn new(max_supply: u64) -> Self {
        UnitNameRegistry {
            max_supply,
            minted: 0,
            box_bytes: DEFAULT_BOX_BYTES,
            k: DEFAULT_K,
            bloom: None,
        }
    }

    /// A generalised contract whose box will be `box_bytes` bytes, read with k hashes.
    ///
    /// # Errors
    /// As [`AlgorandBloom::with_size`].
    pub fn with_shape(max_supply: u64, box_bytes: usize, k: u8) -> Result<Self> {
        check_shape(box_bytes, k)?;
        Ok(UnitNameRegistry {
            max_supply,
            minted: 0,
            box_bytes,
            k,
            bloom: None,
        })
    }

    /// The contract in a state read back: `minted` of `max_supply` minted, and the `bloom` box's
    /// bytes once `create_bloom_filter` made it (as the application's global state and its
    /// box hold them on chain), its box to be or being `box_bytes` bytes read with k hashes.
    /// So a replay can start where a deployed contract is, and a registry can be saved.
    ///
    /// # Errors
    /// As [`with_shape`](Self::with_shape); [`Error::InvalidParameter`] for a state the
    /// contract cannot reach: more minted than `max_supply`, any minted before the box
    /// exists, or a box that is not `box_bytes` bytes.
    ///
    /// # Example
    /// ```
    /// use amq::formats::algorand::UnitNameRegistry;
    /// let mut app = UnitNameRegistry::new(10);
    /// app.create_bloom_filter();
    /// app.buy_nft(b"ALGO").unwrap();
    /// let bloom = app.bloom().map(|b| b.as_bytes());
    /// let back = UnitNameRegistry::from_state(10, app.minted(), 4096, 2, bloom)?;
    /// assert_eq!(back, app);
    /// assert!(UnitNameRegistry::from_state(10, 1, 4096, 2, None).is_err()); // minted, no box
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn from_state(
        max_supply: u64,
        minted: u64,
        box_bytes: usize,
        k: u8,
        bloom: Option<&[u8]>,
    ) -> Result<Self> {
        check_shape(box_bytes, k)?;
        if minted > max_supply {
            return Err(Error::invalid(
                "minted",
                alloc::format!("{minted} minted is over the maximum supply of {max_supply}"),
            ));
        }
        let bloom = match bloom {
            None if minted > 0 => {
                return Err(Error::invalid(
                    "minted",
                    alloc::format!(
                        "{minted} minted with no box: buy_nft mints only once the box exists"
                    ),
                ))
            }
            None => None,
            Some(bytes) if bytes.len() != box_bytes => {
                return Err(Error::invalid(
                    "box",
                    alloc::format!("{} bytes, where the box is {box_bytes}", bytes.len()),
                ))
            }
            Some(bytes) => Some(AlgorandBloom::from_box(bytes, k)?),
        };
        Ok(UnitNameRegistry {
            max_supply,
            minted,
            box_bytes,
            k,
            bloom,
        })
    }

    /// `create_bloom_filter`: creates the zeroed box if it does not exist; `true` if it was
    /// created now.
    pub fn create_bloom_filter(&mut self) -> bool {
        if self.bloom.is_some() {
            return false;
        }
        self.bloom = Some(AlgorandBloom {
            bytes: alloc::vec![0; self.box_bytes],
            k: self.k,
        });
        true
    }

    /// The checks of `buy_nft`, without changing anything: what the call would do now.
    ///
    /// # Errors
    /// The [`BuyError`] the call would fail with.
    pub fn check_buy(&self, unit_name: &[u8]) -> core::result::Result<(), BuyError> {
        if self.minted >= self.max_supply {
            return Err(BuyError::MaximumSupplyReached);
        }
        let Some(bloom) = &self.bloom else {
            return Err(BuyError::NotBootstrapped);
        };
        if bloom.contains_name(unit_name) {
            return Err(BuyError::UnitNameTaken);
        }
        if unit_name.len() > MAX_UNIT_NAME_BYTES {
            return Err(BuyError::UnitNameTooLong {
                len: unit_name.len(),
            });
        }
        Ok(())
    }

    /// `buy_nft(unit_name)`: mints and records the name, or fails and changes nothing.
    ///
    /// # Errors
    /// [`BuyError`], in the contract's order of checks.
    pub fn buy_nft(&mut self, unit_name: &[u8]) -> core::result::Result<(), BuyError> {
        self.check_buy(unit_name)?;
        self.minted += 1;
        if let Some(bloom) = &mut self.bloom {
            bloom.insert_name(unit_name);
        }
        Ok(())
    }

    /// How many NFTs were minted.
    pub fn minted(&self) -> u64 {
        self.minted
    }
    /// The supply limit.
    pub fn max_supply(&self) -> u64 {
        self.max_supply
    }
    /// The box, once created.
    pub fn bloom(&self) -> Option<&AlgorandBloom> {
        self.bloom.as_ref()
    }
    /// The box's size in bytes, whether or not it exists yet.
    pub fn box_bytes(&self) -> usize {
        self.box_bytes
    }
    /// k, the hashes the box is read with.
    pub fn k(&self) -> u8 {
        self.k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_calls_change_nothing() {
        let mut app = UnitNameRegistry::new(2);
        assert_eq!(app.buy_nft(b"A"), Err(BuyError::NotBootstrapped));
        assert!(app.create_bloom_filter());
        assert!(!app.create_bloom_filter());
        let before = app.clone();
        assert_eq!(
            app.buy_nft(b"NINEBYTES"),
            Err(BuyError::UnitNameTooLong { len: 9 })
        );
        assert_eq!(app, before);
        app.buy_nft(b"A").unwrap();
        let before = app.clone();
        assert_eq!(app.buy_nft(b"A"), Err(BuyError::UnitNameTaken));
        assert_eq!(app, before);
        app.buy_nft(b"B").unwrap();
        // supply is checked first, before the box and the name
        assert_eq!(app.buy_nft(b"A"), Err(BuyError::MaximumSupplyReached));
        assert_eq!(app.minted(), 2);
    }

    #[test]
    fn taken_check_precedes_length_check() {
        // A long name whose bits are all set fails as taken: the assert comes before the mint.
        let mut app = UnitNameRegistry::new(10);
        app.create_bloom_filter();
        app.bloom = Some(AlgorandBloom {
            bytes: alloc::vec![0xff; DEFAULT_BOX_BYTES],
            k: 2,
        });
        assert_eq!(app.buy_nft(b"far too long"), Err(BuyError::UnitNameTaken));
    }

    #[test]
    fn a_state_read_back_continues_where_it_was_and_unreachable_states_are_refused() {
        let mut app = UnitNameRegistry::with_shape(3, 64, 3).unwrap();
        let fresh = UnitNameRegistry::from_state(3, 0, 64, 3, None).unwrap();
        assert_eq!(fresh, app);
        app.create_bloom_filter();
        app.buy_nft(b"A").unwrap();
        let bytes = app.bloom().unwrap().as_bytes().to_vec();
        let mut back = UnitNameRegistry::from_state(3, 1, 64, 3, Some(&bytes)).unwrap();
        assert_eq!(back, app);
        assert_eq!((back.box_bytes(), back.k()), (64, 3));
        assert_eq!(back.buy_nft(b"A"), Err(BuyError::UnitNameTaken));
        back.buy_nft(b"B").unwrap();
        back.buy_nft(b"C").unwrap();
        assert_eq!(back.buy_nft(b"D"), Err(BuyError::MaximumSupplyReached));
        for (minted, box_bytes, k, bloom, what) in [
            (4, 64, 3, Some(&bytes[..]), "over the maximum supply"),
            (1, 64, 3, None, "with no box"),
            (1, 32, 3, Some(&bytes[..]), "64 bytes, where the box is 32"),
            (1, 64, 5, Some(&bytes[..]), "hash opcodes"),
            (0, 0, 2, None, "box size"),
        ] {
            let e = UnitNameRegistry::from_state(3, minted, box_bytes, k, bloom).unwrap_err();
            assert!(e.to_string().contains(what), "{e}");
        }
    }
}
