//! `amq serve`: the filters as a durable HTTP service (crates/amq-server).

use anyhow::{Context, Result};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// Serve filters over HTTP, durably: every change is on disk before its 2xx answer.
///
/// amq's JSON API under /api/v1, the Cashu mint filter endpoints
/// (/v1/filter/spent/{keyset_id}, /v1/filter/issued/{keyset_id}, /v1/info) and a
/// name-availability page at /. Every change is on disk (fsync'd) before its 2xx answer.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  amq serve --data ./amq-data --preload words=/usr/share/dict/american-english
  amq serve --data ./amq-data --listen 127.0.0.1:0 --token-file token.txt
  curl http://127.0.0.1:8080/api/v1/openapi.json")]
pub struct Args {
    /// The store's directory (created if missing; one file, amq.redb).
    #[arg(long, value_name = "DIR")]
    data: PathBuf,
    /// Where to listen, IP:PORT or HOST:PORT (`localhost:8080` listens on the first address
    /// the name resolves to); port 0 picks a free port (printed on stdout).
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR", value_parser = parse_listen)]
    listen: SocketAddr,
    /// A file whose first line is the token every write needs (Authorization: Bearer ...).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Build a filter from a word list (one item per line) at startup, replacing one of that
    /// name; KIND is bloom (default), blocked-bloom, cuckoo or split-block-bloom; FPR defaults
    /// to 0.001.
    #[arg(long, value_name = "NAME=FILE[:KIND[:FPR]]")]
    preload: Vec<amq_server::Preload>,
    /// The largest request body in bytes (413 above).
    #[arg(long, default_value_t = amq_server::Limits::default().max_body_bytes, value_name = "BYTES")]
    max_body_bytes: usize,
    /// The most items in one request (413 above).
    #[arg(long, default_value_t = amq_server::Limits::default().max_items, value_name = "N")]
    max_items: usize,
    /// The most payload bytes one filter may take (422 above).
    #[arg(long, default_value_t = amq_server::Limits::default().max_filter_bytes, value_name = "BYTES")]
    max_filter_bytes: u64,
    /// How long a request may take, in seconds (408 after).
    #[arg(long, default_value_t = amq_server::Limits::default().timeout.as_secs_f64(), value_name = "SECONDS")]
    timeout_seconds: f64,
    /// Rebuild a Cashu filter only when its set changed and it is older than this.
    #[arg(long, default_value_t = amq_server::Limits::default().cashu_refresh, value_name = "SECONDS")]
    cashu_refresh: u64,
    /// Serve a Cashu compact state filter sequence (nuts PR #433, revision B) for a kind:
    /// proof_state, mint_quote, melt_quote or blind_signature, with blocks of 2^B bits
    /// (default B = 20); repeat for each kind (once per kind).
    #[arg(long, value_name = "KIND[:B]", value_parser = parse_state_filter)]
    state_filter: Vec<(amq::formats::cashu_state::Kind, u8)>,
    /// Seconds after which an unsaturated state-filter block seals (at least 3600), for the
    /// blocks opened from now on: an open block keeps the timeout it opened under.
    #[arg(long, default_value_t = amq::formats::cashu_state::RECOMMENDED_TIMEOUT, value_name = "SECONDS")]
    state_timeout: u64,
    /// Seconds between refreshes of the served open block; 0 serves no open block.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    state_open_interval: u64,
    /// Keep b when a block seals on timeout (by default it folds to the smallest b that holds
    /// its count).
    #[arg(long)]
    state_no_fold: bool,
    /// Drop the stored state-filter sequence of KIND and begin it anew at height 0: needed
    /// to serve a kind again after a run that did not serve it (its events since then are
    /// not in the old sequence). Repeat for each kind; each must also be a --state-filter.
    #[arg(long, value_name = "KIND")]
    state_filter_restart: Vec<amq::formats::cashu_state::Kind>,
    /// Worker threads answering requests (at least 1); one per CPU by default. Fewer leave
    /// cores to the other processes of the machine.
    #[arg(long, value_name = "N")]
    workers: Option<std::num::NonZeroUsize>,
}

/// An address to listen on: a socket address, or a host name and port resolved to the first
/// address the name has (IPv4 first, as `localhost` is 127.0.0.1 to most clients).
fn parse_listen(s: &str) -> Result<SocketAddr, String> {
    if let Ok(addr) = s.parse() {
        return Ok(addr);
    }
    if s.rsplit_once(':')
        .is_none_or(|(_, port)| port.parse::<u16>().is_err())
    {
        return Err(format!("{s:?} is not IP:PORT or HOST:PORT"));
    }
    let addrs: Vec<SocketAddr> = std::net::ToSocketAddrs::to_socket_addrs(s)
        .map_err(|e| format!("cannot resolve {s:?}: {e}"))?
        .collect();
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or(addrs.first())
        .copied()
        .ok_or_else(|| format!("{s:?} resolves to no address"))
}

fn parse_state_filter(s: &str) -> Result<(amq::formats::cashu_state::Kind, u8), String> {
    let (kind, b) = s.split_once(':').unwrap_or((s, "20"));
    let kind = kind.parse().map_err(|e| format!("{e}"))?;
    let b = b
        .parse::<u8>()
        .ok()
        .filter(|b| {
            (amq::formats::cashu_state::MIN_B..=amq::formats::cashu_state::MAX_B).contains(b)
        })
        .ok_or_else(|| format!("{b:?}: B is a width from 5 to 26"))?;
    Ok((kind, b))
}

/// Runs `amq serve`.
pub fn run(a: Args) -> Result<ExitCode> {
    let token = match &a.token_file {
        None => None,
        Some(f) => {
            let text = std::fs::read_to_string(f).with_context(|| f.display().to_string())?;
            let token = text.lines().next().unwrap_or("").trim().to_owned();
            anyhow::ensure!(
                !token.is_empty(),
                "{}: the first line is empty",
                f.display()
            );
            Some(token)
        }
    };
    anyhow::ensure!(
        a.timeout_seconds.is_finite() && a.timeout_seconds > 0.0,
        "--timeout-seconds must be a positive number"
    );
    let config = amq_server::Config {
        data: a.data,
        listen: a.listen,
        token,
        limits: amq_server::Limits {
            max_body_bytes: a.max_body_bytes,
            max_items: a.max_items,
            max_filter_bytes: a.max_filter_bytes,
            timeout: std::time::Duration::from_secs_f64(a.timeout_seconds),
            cashu_refresh: a.cashu_refresh,
        },
        preload: a.preload,
        state_filters: amq_server::StateFiltersConfig {
            kinds: a.state_filter,
            timeout: a.state_timeout,
            open_interval: (a.state_open_interval > 0).then_some(a.state_open_interval),
            fold: !a.state_no_fold,
            restart: a.state_filter_restart,
        },
        workers: a.workers,
    };
    amq_server::run(config).map_err(|e| anyhow::anyhow!(e))?;
    Ok(ExitCode::SUCCESS)
}
