//! What `amq serve` is told: where, with which limits, and which word lists to preload.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// The limits every request is held to.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// The largest request body, in bytes (413 above).
    pub max_body_bytes: usize,
    /// The most items in one request (413 above).
    pub max_items: usize,
    /// The most payload bytes one filter may take (422 for a filter planned or imported
    /// above it; 422 for an insert once a growing filter reaches it).
    pub max_filter_bytes: u64,
    /// How long a request may take (408 after).
    pub timeout: Duration,
    /// A Cashu filter is rebuilt only when its set changed and it is older than this many
    /// seconds.
    pub cashu_refresh: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 64 << 20,
            max_items: 100_000,
            max_filter_bytes: 1 << 30,
            timeout: Duration::from_secs(30),
            cashu_refresh: 10,
        }
    }
}

/// A word list to build into a filter at startup: `NAME=FILE[:KIND[:FPR]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Preload {
    /// The filter's name.
    pub name: String,
    /// The file, one item per line (the line without its `\n` or `\r\n`).
    pub file: PathBuf,
    /// The kind (`bloom`, `blocked-bloom`, `cuckoo` or `split-block-bloom`; default `bloom`).
    pub kind: amq::wire::Kind,
    /// ε (default 0.001).
    pub fpr: f64,
}

impl std::str::FromStr for Preload {
    type Err = String;

    /// Parses `NAME=FILE[:KIND[:FPR]]`.
    fn from_str(s: &str) -> Result<Self, String> {
        let (name, rest) = s
            .split_once('=')
            .ok_or_else(|| format!("{s:?}: expected NAME=FILE[:KIND[:FPR]]"))?;
        crate::extract::check_name(name, "name").map_err(|e| e.message)?;
        let mut parts = rest.splitn(3, ':');
        let file = parts
            .next()
            .filter(|f| !f.is_empty())
            .ok_or("FILE is empty")?;
        let kind = match parts.next() {
            None | Some("") => amq::wire::Kind::Bloom,
            Some(k) => amq::wire::Kind::from_name(k)
                .filter(|k| {
                    matches!(
                        k,
                        amq::wire::Kind::Bloom
                            | amq::wire::Kind::BlockedBloom
                            | amq::wire::Kind::Cuckoo
                            | amq::wire::Kind::SplitBlockBloom
                    )
                })
                .ok_or_else(|| {
                    format!("{k:?}: KIND is bloom, blocked-bloom, cuckoo or split-block-bloom")
                })?,
        };
        let fpr = match parts.next() {
            None => 0.001,
            Some(f) => f
                .parse::<f64>()
                .ok()
                .filter(|f| *f > 0.0 && *f < 1.0)
                .ok_or_else(|| format!("{f:?}: FPR is a number in (0, 1)"))?,
        };
        Ok(Preload {
            name: name.to_owned(),
            file: PathBuf::from(file),
            kind,
            fpr,
        })
    }
}

/// Everything [`run`](crate::run) needs.
#[derive(Debug, Clone)]
pub struct Config {
    /// The store's directory.
    pub data: PathBuf,
    /// Where to listen (loopback by default; port 0 picks a free one).
    pub listen: SocketAddr,
    /// The write token (the first line of `--token-file`).
    pub token: Option<String>,
    /// The limits.
    pub limits: Limits,
    /// Word lists to build at startup.
    pub preload: Vec<Preload>,
    /// The Cashu compact state filter sequences.
    pub state_filters: crate::StateFiltersConfig,
    /// The runtime's worker threads, which answer the requests; `None` for one per CPU.
    /// Fewer leave cores to other processes on the machine (a client's, in a benchmark).
    pub workers: Option<std::num::NonZeroUsize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preload_parses_name_file_kind_and_fpr() {
        let p: Preload = "words=/usr/share/dict/words:cuckoo:0.01".parse().unwrap();
        assert_eq!(p.name, "words");
        assert_eq!(p.file, PathBuf::from("/usr/share/dict/words"));
        assert_eq!(p.kind, amq::wire::Kind::Cuckoo);
        assert_eq!(p.fpr, 0.01);
        let p: Preload = "w=list.txt".parse().unwrap();
        assert_eq!((p.kind, p.fpr), (amq::wire::Kind::Bloom, 0.001));
        for bad in [
            "words",
            "=x",
            "w=",
            "w=f:aging-bloom",
            "w=f:bloom:2",
            "a/b=f",
        ] {
            assert!(bad.parse::<Preload>().is_err(), "{bad}");
        }
    }
}
