//! Helpers of the edge tests: the one field of an expected error, or a panic that shows what
//! came instead.
#![allow(dead_code)] // each test file uses some of them

use amq::Error;

/// The name an `InvalidParameter` error gives.
pub fn invalid<T: std::fmt::Debug>(r: amq::Result<T>) -> &'static str {
    match r {
        Err(Error::InvalidParameter { name, .. }) => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

/// The byte offset a `Corrupt` error gives.
pub fn corrupt_at<T: std::fmt::Debug>(r: amq::Result<T>) -> usize {
    match r {
        Err(Error::Corrupt { offset, .. }) => offset,
        other => panic!("expected Corrupt, got {other:?}"),
    }
}
