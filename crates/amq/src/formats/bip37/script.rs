//! Transaction matching: Core's `IsRelevantAndUpdate`, its script reading (data pushes,
//! pay-to-pubkey and bare-multisig templates) and the outpoints it adds.

use super::{Bip37Filter, BLOOM_UPDATE_ALL, BLOOM_UPDATE_MASK, BLOOM_UPDATE_P2PUBKEY_ONLY};

impl Bip37Filter {
    /// Core's `CBloomFilter::IsRelevantAndUpdate`: `true` if the transaction matches, and, per
    /// `nFlags`, the matched outputs' outpoints added to the filter.
    ///
    /// A transaction matches if the filter holds its txid; or, for some output, any non-empty
    /// data push of its script (then, with [`BLOOM_UPDATE_ALL`], that output's outpoint
    /// `txid ‖ index (u32 LE)` is inserted; with [`BLOOM_UPDATE_P2PUBKEY_ONLY`], only if the
    /// script is pay-to-pubkey or bare multisig); or, only if nothing matched so far, an input's
    /// previous outpoint or any non-empty data push of its scriptSig. Scripts are read as Core's
    /// `GetOp` reads them: a malformed push ends that script. An empty filter matches every
    /// transaction.
    ///
    /// # Example
    /// ```
    /// use amq::formats::bip37::{Bip37Filter, Tx, TxIn, BLOOM_UPDATE_ALL};
    /// let mut f = Bip37Filter::new(10, 1e-6, 0, BLOOM_UPDATE_ALL)?;
    /// f.insert_bytes(&[0x11; 20]);
    /// let p2pkh: Vec<u8> = [&[0x76, 0xa9, 0x14][..], &[0x11; 20], &[0x88, 0xac]].concat();
    /// let tx = Tx { txid: [7; 32], outputs: &[&p2pkh], inputs: &[] };
    /// assert!(f.is_relevant_and_update(&tx));
    /// // The outpoint (txid, 0) was added, so a transaction spending it matches too.
    /// let spend = [TxIn { prev_txid: [7; 32], prev_index: 0, script_sig: &[] }];
    /// assert!(f.is_relevant_and_update(&Tx { txid: [8; 32], outputs: &[], inputs: &spend }));
    /// # Ok::<(), amq::Error>(())
    /// ```
    pub fn is_relevant_and_update(&mut self, tx: &Tx<'_>) -> bool {
        if self.data.is_empty() {
            return true;
        }
        let mut found = self.contains_bytes(&tx.txid);
        for (index, script) in tx.outputs.iter().enumerate() {
            let hit =
                ScriptPushes::new(script).any(|data| !data.is_empty() && self.contains_bytes(data));
            if hit {
                found = true;
                let update = match self.flags & BLOOM_UPDATE_MASK {
                    BLOOM_UPDATE_ALL => true,
                    BLOOM_UPDATE_P2PUBKEY_ONLY => is_pay_to_pubkey(script) || is_multisig(script),
                    _ => false,
                };
                if update {
                    self.insert_bytes(&outpoint(&tx.txid, index as u32));
                }
            }
        }
        if found {
            return true;
        }
        tx.inputs.iter().any(|input| {
            self.contains_bytes(&outpoint(&input.prev_txid, input.prev_index))
                || ScriptPushes::new(input.script_sig)
                    .any(|data| !data.is_empty() && self.contains_bytes(data))
        })
    }
}

/// The parts of a transaction BIP37 matching reads (see
/// [`Bip37Filter::is_relevant_and_update`]).
#[derive(Debug, Clone, Copy)]
pub struct Tx<'a> {
    /// The txid in internal byte order (the double SHA-256 as computed, not as displayed).
    pub txid: [u8; 32],
    /// Each output's scriptPubKey, in output order.
    pub outputs: &'a [&'a [u8]],
    /// The inputs, in order.
    pub inputs: &'a [TxIn<'a>],
}

/// One input of a [`Tx`].
#[derive(Debug, Clone, Copy)]
pub struct TxIn<'a> {
    /// The spent output's txid, internal byte order.
    pub prev_txid: [u8; 32],
    /// The spent output's index.
    pub prev_index: u32,
    /// The input's scriptSig.
    pub script_sig: &'a [u8],
}

/// A serialized outpoint: txid (internal order) ‖ index (u32 LE), as Core hashes `COutPoint`.
pub fn outpoint(txid: &[u8; 32], index: u32) -> [u8; 36] {
    let mut out = [0u8; 36];
    out[..32].copy_from_slice(txid);
    out[32..].copy_from_slice(&index.to_le_bytes());
    out
}

/// The data pushes of a script, read as Core's `GetScriptOp` reads them: every opcode yields
/// its pushed bytes (empty for a non-push opcode); a push running past the end stops the walk.
struct ScriptPushes<'a> {
    script: &'a [u8],
    pos: usize,
}

/// One opcode of a script: the opcode byte and the bytes it pushes (empty if none).
struct Op<'a> {
    opcode: u8,
    data: &'a [u8],
}

impl<'a> ScriptPushes<'a> {
    fn new(script: &'a [u8]) -> Self {
        ScriptPushes { script, pos: 0 }
    }

    fn next_op(&mut self) -> Option<Op<'a>> {
        let s = self.script;
        let opcode = *s.get(self.pos)?;
        self.pos += 1;
        let size = match opcode {
            0x00..=0x4b => usize::from(opcode),
            0x4c => {
                let n = *s.get(self.pos)?;
                self.pos += 1;
                usize::from(n)
            }
            0x4d => {
                let b = s.get(self.pos..self.pos + 2)?;
                self.pos += 2;
                usize::from(u16::from_le_bytes([b[0], b[1]]))
            }
            0x4e => {
                let b = s.get(self.pos..self.pos + 4)?;
                self.pos += 4;
                u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize
            }
            _ => 0,
        };
        let data = s.get(self.pos..self.pos.checked_add(size)?)?;
        self.pos += size;
        Some(Op { opcode, data })
    }
}

impl<'a> Iterator for ScriptPushes<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.pos >= self.script.len() {
            return None;
        }
        match self.next_op() {
            Some(op) => Some(op.data),
            None => {
                self.pos = self.script.len();
                None
            }
        }
    }
}

const OP_CHECKSIG: u8 = 0xac;
const OP_CHECKMULTISIG: u8 = 0xae;
const MAX_PUBKEYS_PER_MULTISIG: i64 = 20;

/// Core's `CPubKey::ValidSize`: 33 bytes after 0x02/0x03, 65 after 0x04/0x06/0x07.
fn valid_pubkey_size(key: &[u8]) -> bool {
    match key.first() {
        Some(2 | 3) => key.len() == 33,
        Some(4 | 6 | 7) => key.len() == 65,
        _ => false,
    }
}

/// Core's `MatchPayToPubkey`: `<33- or 65-byte pubkey> OP_CHECKSIG`.
fn is_pay_to_pubkey(script: &[u8]) -> bool {
    let n = script.len();
    n >= 2
        && (n == 35 || n == 67)
        && usize::from(script[0]) == n - 2
        && script[n - 1] == OP_CHECKSIG
        && valid_pubkey_size(&script[1..n - 1])
}

/// Core's `GetScriptNumber` for `MatchMultisig`: OP_1..OP_16, or a minimal push of a number,
/// in `min..=max`.
fn script_number(op: &Op<'_>, min: i64, max: i64) -> Option<i64> {
    let v = match op.opcode {
        0x51..=0x60 => i64::from(op.opcode - 0x50),
        0x01..=0x4e => {
            let d = op.data;
            if d.is_empty() || d.len() > 4 {
                return None;
            }
            // minimal push: a 1-byte value 1..16 or 0x81 must have used OP_N / OP_1NEGATE
            if d.len() == 1 && (d[0] == 0x81 || (1..=16).contains(&d[0])) {
                return None;
            }
            if op.opcode != d.len() as u8 {
                return None;
            }
            // minimal number encoding (CScriptNum with fRequireMinimal)
            let last = d[d.len() - 1];
            if last & 0x7f == 0 && (d.len() == 1 || d[d.len() - 2] & 0x80 == 0) {
                return None;
            }
            let mut v: i64 = 0;
            for (i, &b) in d.iter().enumerate() {
                v |= i64::from(b) << (8 * i);
            }
            if last & 0x80 != 0 {
                -(v & !(0x80i64 << (8 * (d.len() - 1))))
            } else {
                v
            }
        }
        _ => return None,
    };
    (min..=max).contains(&v).then_some(v)
}

/// Core's `MatchMultisig`: `m <pubkey>... n OP_CHECKMULTISIG` with n pubkeys, 1 ≤ m ≤ n ≤ 20.
fn is_multisig(script: &[u8]) -> bool {
    if script.last() != Some(&OP_CHECKMULTISIG) {
        return false;
    }
    let mut ops = ScriptPushes::new(script);
    let Some(first) = ops.next_op() else {
        return false;
    };
    let Some(required) = script_number(&first, 1, MAX_PUBKEYS_PER_MULTISIG) else {
        return false;
    };
    let mut keys = 0i64;
    let mut last = None;
    while ops.pos < script.len() {
        let Some(op) = ops.next_op() else { break };
        if valid_pubkey_size(op.data) {
            keys += 1;
        } else {
            last = Some(op);
            break;
        }
    }
    let Some(last) = last else { return false };
    match script_number(&last, required, MAX_PUBKEYS_PER_MULTISIG) {
        Some(n) if n == keys => ops.pos + 1 == script.len(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;

    #[test]
    fn script_templates() {
        let mut p2pk = vec![33u8, 2];
        p2pk.extend_from_slice(&[9; 32]);
        p2pk.push(OP_CHECKSIG);
        assert!(is_pay_to_pubkey(&p2pk));
        p2pk[1] = 4; // 0x04 needs 65 bytes
        assert!(!is_pay_to_pubkey(&p2pk));
        // 1-of-2 bare multisig
        let mut ms = vec![0x51u8];
        for lead in [2u8, 3] {
            ms.push(33);
            ms.push(lead);
            ms.extend_from_slice(&[1; 32]);
        }
        ms.extend_from_slice(&[0x52, OP_CHECKMULTISIG]);
        assert!(is_multisig(&ms));
        let n = ms.len();
        ms[n - 2] = 0x53; // claims 3 keys, has 2
        assert!(!is_multisig(&ms));
        assert!(!is_multisig(&[0x76, 0xa9, 0x14]));
    }

    #[test]
    fn p2pubkey_only_updates_only_for_pubkey_scripts() {
        let key: Vec<u8> = [&[2u8][..], &[5; 32]].concat();
        let p2pk: Vec<u8> = [&[33u8][..], &key, &[OP_CHECKSIG]].concat();
        let p2pkh_like: Vec<u8> = [&[33u8][..], &key, &[0x88]].concat();
        for (script, updated) in [(&p2pk, true), (&p2pkh_like, false)] {
            let mut f = Bip37Filter::new(10, 1e-6, 7, BLOOM_UPDATE_P2PUBKEY_ONLY).unwrap();
            f.insert_bytes(&key);
            let outputs = [script.as_slice()];
            assert!(f.is_relevant_and_update(&Tx {
                txid: [1; 32],
                outputs: &outputs,
                inputs: &[]
            }));
            assert_eq!(f.contains_bytes(&outpoint(&[1; 32], 0)), updated);
        }
    }
}
