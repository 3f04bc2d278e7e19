//! Memory: writing a structure's `.amq` file takes about the structure's size once more, not
//! three or four times it. Each test runs the binary with its address space limited (`ulimit
//! -v`) to the table twice over and some room for the program, as a machine with little more
//! memory than that would allow it. The encoders copied a table into a payload of its own and
//! that into the file (a sliding window also cloned its ring first), and the CLI checked for
//! twice the size before encoding: these commands were refused, or on a machine without
//! such a limit, killed by the kernel for memory it did not have.
#![cfg(unix)]

mod common;

use common::{amq_limited, info, Dir};

/// The limit: two tables of 256 MiB and 200 MiB for the program (its mappings and heap).
const LIMIT_KIB: u64 = (2 * 256 + 200) * 1024;

/// Runs `amq ARGS -o FILE` under [`LIMIT_KIB`] and checks that it wrote FILE, of at least
/// 256 MiB.
fn creates_within_the_limit(args: &[&str]) {
    let dir = Dir::new();
    let out = dir.path("big.amq");
    let run = amq_limited(LIMIT_KIB)
        .args(args)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "amq {} failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&run.stderr)
    );
    let len = std::fs::metadata(&out).unwrap().len();
    assert!(len >= 256 << 20, "{len} bytes");
    info(&out);
}

/// A sliding-window Bloom filter of 2^31 bits (a 256 MiB ring).
#[test]
fn a_sliding_window_of_256_mib_is_written_in_twice_its_size() {
    creates_within_the_limit(&[
        "window",
        "new",
        "--window",
        "2147483648",
        "--chunk",
        "1048576",
        "--batch",
        "1",
        "--hashes",
        "3",
    ]);
}

/// A negative cache of 2^28 slots of 8 bits (the occupied bit and a 7-bit fingerprint).
#[test]
fn a_negative_cache_of_256_mib_is_written_in_twice_its_size() {
    creates_within_the_limit(&["negative", "new", "--l", "28", "--b", "7"]);
}
