//! How much memory the system can still give the process, so that a command can refuse work
//! that would not fit before it starts it.
//!
//! On Linux an allocation can succeed and the kernel kill the process later, when the pages
//! are first written and there is no memory for them (overcommit): the fallible allocations
//! of the library and of [`crate::input`] then do not fail, and the process ends with exit
//! status 137 and no message. Checking the size against what `/proc/meminfo` says is
//! available turns that into an error.

/// The memory the system can still give, in bytes: `MemAvailable` plus `SwapFree` of
/// `/proc/meminfo`; `None` where there is no such file (other systems) or it cannot be read.
pub fn available() -> Option<u64> {
    available_in(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// [`available`] from the text of a `/proc/meminfo` (lines `Name:   N kB`); `None` without
/// a `MemAvailable` line (kernels before 3.14).
fn available_in(meminfo: &str) -> Option<u64> {
    let kib = |name: &str| {
        meminfo.lines().find_map(|line| {
            let value = line.strip_prefix(name)?.strip_prefix(':')?;
            value.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()
        })
    };
    let kib = kib("MemAvailable")?.saturating_add(kib("SwapFree").unwrap_or(0));
    Some(kib.saturating_mul(1024))
}

/// Refuses `bytes` of memory for `what` when the system has less available ([`available`]):
/// the error `cannot allocate N bytes for WHAT: the system has M bytes available ...`.
///
/// # Errors
/// As above; never where the available memory cannot be read.
pub fn check(bytes: u64, what: &str) -> anyhow::Result<()> {
    check_against(bytes, what, available())
}

fn check_against(bytes: u64, what: &str, available: Option<u64>) -> anyhow::Result<()> {
    match available {
        Some(free) if bytes > free => anyhow::bail!(
            "cannot allocate {bytes} bytes for {what}: the system has {free} bytes of memory \
             available (MemAvailable and SwapFree in /proc/meminfo)"
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMINFO: &str = "MemTotal:       24563076 kB\nMemFree:         1000000 kB\n\
                           MemAvailable:   20000000 kB\nBuffers:          100000 kB\n\
                           SwapTotal:       2097148 kB\nSwapFree:        2000000 kB\n";

    #[test]
    fn available_is_mem_available_and_swap_free_in_bytes() {
        assert_eq!(available_in(MEMINFO), Some(22_000_000 * 1024));
        let no_swap = MEMINFO.replace("SwapFree:        2000000 kB\n", "");
        assert_eq!(available_in(&no_swap), Some(20_000_000 * 1024));
        // a kernel without MemAvailable: nothing is known, so nothing is refused
        let old = MEMINFO.replace("MemAvailable:   20000000 kB\n", "");
        assert_eq!(available_in(&old), None);
        assert_eq!(available_in("MemAvailable: lots\n"), None);
    }

    #[test]
    fn this_machine_has_some_memory_available() {
        if std::path::Path::new("/proc/meminfo").exists() {
            assert!(available().is_some_and(|b| b > 1 << 20));
        }
    }

    #[test]
    fn more_than_is_available_is_refused_with_both_sizes() {
        let e = check_against(101, "the .amq file", Some(100)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot allocate 101 bytes for the .amq file: the system has 100 bytes of memory \
             available (MemAvailable and SwapFree in /proc/meminfo)"
        );
        assert!(check_against(100, "x", Some(100)).is_ok());
        assert!(check_against(u64::MAX, "x", None).is_ok());
    }
}
