//! Checking stated logsBlooms against the logs they were computed from: the receipts and
//! blocks of a JSON-RPC response whose `logsBloom` is given beside their logs (a block's
//! through its receipts).

use super::{Entries, Entry, LogsBloom, LOGS_BLOOM_BITS};
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// One receipt's or block's stated logsBloom beside the one computed from its logs
/// ([`Entries::checks`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The receipt or block, named as in messages ([`Entry`]'s `Display`).
    pub what: String,
    /// `true` for a block's bloom, `false` for a receipt's.
    pub block: bool,
    /// The `logsBloom` the object states.
    pub stated: LogsBloom,
    /// The bloom of its logs.
    pub computed: LogsBloom,
}

impl Check {
    /// The stated bloom is the computed one.
    pub fn ok(&self) -> bool {
        self.stated == self.computed
    }

    /// The bits (0..2048, of the bloom read as a big-endian number) the logs set and the
    /// stated bloom lacks, in increasing order.
    pub fn bits_missing_from_stated(&self) -> Vec<usize> {
        bits_only_in(&self.computed, &self.stated)
    }

    /// The bits the stated bloom sets and the logs do not, in increasing order.
    pub fn bits_extra_in_stated(&self) -> Vec<usize> {
        bits_only_in(&self.stated, &self.computed)
    }
}

/// Bits set in `a` and not in `b`.
fn bits_only_in(a: &LogsBloom, b: &LogsBloom) -> Vec<usize> {
    (0..LOGS_BLOOM_BITS)
        .filter(|&i| a.bit(i) && !b.bit(i))
        .collect()
}

/// What [`Entries::checks`] finds nothing to check in, as `amq eth verify` and
/// `amq.eth.verify` say it.
pub const NOTHING_TO_VERIFY: &str = "nothing to verify: no receipt with both logs and \
    logsBloom, no block with logsBloom and receipts or logs";

impl Entries {
    /// A [`Check`] for every receipt with both `logs` and `logsBloom` and every block with
    /// `logsBloom` and `receipts` or `logs`, in order (a block's receipts before the block);
    /// logs alone are not checked. Empty when there is nothing to check
    /// ([`NOTHING_TO_VERIFY`]).
    ///
    /// # Example
    /// ```
    /// use amq::formats::eth::Entries;
    /// let zero = format!("0x{}", "0".repeat(512));
    /// let json = format!(r#"[{{"logs": [], "logsBloom": "{zero}", "blockNumber": "0x10"}}]"#);
    /// let entries: Entries = serde_json::from_str(&json).unwrap();
    /// let checks = entries.checks();
    /// assert_eq!(checks.len(), 1);
    /// assert!(checks[0].ok() && !checks[0].block);
    /// assert_eq!(checks[0].what, "receipt (block 16)");
    /// assert!(checks[0].bits_missing_from_stated().is_empty());
    /// ```
    pub fn checks(&self) -> Vec<Check> {
        let mut out = Vec::new();
        for e in &self.0 {
            collect(e, &mut out);
        }
        out
    }
}

fn collect(e: &Entry, out: &mut Vec<Check>) {
    let check = |block, stated: Option<LogsBloom>, computed: Option<LogsBloom>| {
        let (stated, computed) = (stated?, computed?);
        Some(Check {
            what: e.to_string(),
            block,
            stated,
            computed,
        })
    };
    match e {
        Entry::Log(_) => {}
        Entry::Receipt(r) => out.extend(check(false, r.logs_bloom, r.computed_bloom())),
        Entry::Block(b) => {
            for r in b.receipts.iter().flatten() {
                collect(&Entry::Receipt(r.clone()), out);
            }
            out.extend(check(true, b.logs_bloom, b.computed_bloom()));
        }
    }
}
