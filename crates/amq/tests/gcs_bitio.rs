//! The Golomb-Rice bit reader under the GCS engine (src/gcs/bitio.rs), through the public
//! API, at its edges: a unary run cut short, and the largest quotient at P = 32 against the
//! first one that overflows (each test fails under a mutant of bitio.rs that the rest of the
//! suite let through, session 26). The two quotient tests read 512 MiB of one bits each: the
//! smallest input that reaches the overflow check, as P is at most 32.

use amq::gcs::{Gcs, Params};
use amq::Error;

/// A unary quotient that runs to the end of the data reports the bytes its closing zero bit
/// and all P remainder bits would need: 24 one bits at P = 8 need 24 + 1 + 8 = 33 bits, so 5
/// bytes from the code's first byte, of which 3 are there.
#[test]
fn unterminated_quotient_reports_bytes_for_zero_bit_and_remainder() {
    let set = Gcs::new(Params::new(1, 8, 1 << 20).unwrap(), &[0xFFu8; 3][..]).unwrap();
    assert_eq!(
        set.decode(),
        Err(Error::Truncated {
            what: "golomb-rice code",
            offset: 0,
            needed: 5,
            available: 3,
        })
    );
}

/// Bits packed most significant first into bytes, as the GCS wire format packs them; a run
/// of one bits is filled a byte at a time so that runs of 2³² bits stay quick.
#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    len: u64,
}

impl Bits {
    fn bit(&mut self, one: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if one {
            *self.bytes.last_mut().unwrap() |= 0x80 >> (self.len % 8);
        }
        self.len += 1;
    }

    /// The low `n` bits of `value`, most significant first.
    fn push(&mut self, value: u64, n: u32) {
        for i in (0..n).rev() {
            self.bit((value >> i) & 1 == 1);
        }
    }

    fn ones(&mut self, mut n: u64) {
        while n > 0 && !self.len.is_multiple_of(8) {
            self.bit(true);
            n -= 1;
        }
        let whole = n / 8;
        self.bytes.resize(self.bytes.len() + whole as usize, 0xFF);
        self.len += whole * 8;
        for _ in 0..n % 8 {
            self.bit(true);
        }
    }
}

/// The largest quotient that still fits at P = 32 (2³² − 1 one bits: 512 MiB of input) is
/// decoded, not refused as an overflow: the value it gives, (2³² − 1)·2³², is then refused
/// for reaching F, at the byte where that code ends.
#[test]
fn largest_quotient_at_p32_is_decoded_then_refused_for_reaching_f() {
    let m = (1u64 << 32) - 1;
    let mut bits = Bits::default();
    bits.ones((1 << 32) - 1);
    bits.push(0, 1 + 32); // the closing zero bit and a zero remainder
    let end = bits.len; // 2³² + 32 bits
    let set = Gcs::new(Params::new(1, 32, m).unwrap(), bits.bytes).unwrap();
    assert_eq!(
        set.decode(),
        Err(Error::Corrupt {
            offset: (end / 8) as usize,
            reason: format!("a decoded value reaches F = {m}"),
        })
    );
}

/// One quotient bit more than fits at P = 32 (2³² one bits) is refused as an overflow, not
/// wrapped to a small value, and the error names the byte where that code starts (byte 4:
/// after a first code of 34 bits).
#[test]
fn quotient_overflowing_64_bits_at_p32_is_refused_where_its_code_starts() {
    let m = (1u64 << 32) - 1;
    let mut bits = Bits::default();
    bits.push(0b10, 2); // first value 2³², below F = 2·m
    bits.push(0, 32);
    bits.ones(1 << 32);
    bits.push(0, 1 + 32);
    let set = Gcs::new(Params::new(2, 32, m).unwrap(), bits.bytes).unwrap();
    assert_eq!(
        set.decode(),
        Err(Error::Corrupt {
            offset: 4,
            reason: "golomb-rice quotient 4294967296 overflows 64 bits".into(),
        })
    );
}
