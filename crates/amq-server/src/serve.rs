//! [`run`]: build the preloaded word lists, bind, open the store, store the word lists, print
//! the URLs and serve until Ctrl-C or SIGTERM, then fold the filters' logs into their
//! snapshots. Everything that can fail on a bad command line (a preload file, the address)
//! fails before the store is opened, so such a start leaves the data directory as it was.

use crate::config::{Config, Preload};
use crate::store::RedbStore;
use crate::AppState;
use amq::math::{Spec, Target};
use amq::AnyFilter;
use std::io::Write as _;
use std::sync::Arc;
use std::time::Instant;

use crate::Error;

/// Serves until Ctrl-C or SIGTERM. Prints `listening on http://ADDR` (the real port when
/// `--listen` asked for port 0) and the page's URL on stdout once it accepts connections
/// and either signal would stop it cleanly.
///
/// # Errors
/// A preload file cannot be read or built, the address cannot be bound (the data directory
/// is then untouched: neither created nor changed), the store cannot be opened.
pub fn run(config: Config) -> Result<(), Error> {
    let built = config
        .preload
        .iter()
        .map(build)
        .collect::<Result<Vec<_>, _>>()?;
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = config.workers {
        builder.worker_threads(n.get());
    }
    let runtime = builder.enable_all().thread_name("amq-serve").build()?;
    runtime.block_on(serve(&config, built))
}

async fn serve(config: &Config, built: Vec<Built<'_>>) -> Result<(), Error> {
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", config.listen))?;
    let addr = listener.local_addr()?;
    let store = Arc::new(RedbStore::open(&config.data)?);
    let settings = crate::Settings {
        limits: config.limits.clone(),
        token: config.token.clone(),
        state_filters: config.state_filters.clone(),
        clock: crate::ServerClock::System,
    };
    let state = AppState::open(store, settings)?;
    for b in built {
        store_preload(&state, b).await?;
    }
    // before the line below: a SIGTERM sent as soon as it is read must find the handler
    let stop = shutdown();
    // printed for whoever started the server; a closed stdout does not stop it
    let page = match config.preload.first() {
        Some(p) => format!("http://{addr}/?filter={}", p.name),
        None => format!("http://{addr}/"),
    };
    let _ = writeln!(
        std::io::stdout(),
        "amq serve: listening on http://{addr} (data in {})\namq serve: the name page is at {page}",
        config.data.display()
    )
    .and_then(|()| std::io::stdout().flush());
    if !addr.ip().is_loopback() && config.token.is_none() {
        eprintln!("amq serve: warning: listening beyond loopback without --token-file");
    }
    // answers are small: send them at once rather than wait for more (Nagle)
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, crate::app(state.clone()))
        .with_graceful_shutdown(stop)
        .await?;
    // the next start replays no record: a record is applied again under the code of that
    // start, which may be another version's (whose byte accounting may differ)
    match state.engine().fold_logs().await {
        Ok(n) => eprintln!("amq serve: stopped; {n} filter logs folded into their snapshots"),
        Err(e) => {
            eprintln!("amq serve: stopped; the logs stay, to be replayed at the next start: {e}")
        }
    }
    Ok(())
}

/// Resolves at Ctrl-C (SIGINT) or SIGTERM. On Unix the handlers are installed here, when it
/// is called, not when it is first polled (tokio's `ctrl_c()` installs its own then): until
/// then a signal has its default action, which kills the process without its clean stop.
fn shutdown() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, Signal, SignalKind};
        let install = |kind: SignalKind, name: &str| {
            signal(kind)
                .inspect_err(|e| {
                    let then = "it will end the server at once";
                    eprintln!("amq serve: warning: cannot handle {name} ({e}): {then}")
                })
                .ok()
        };
        let mut int = install(SignalKind::interrupt(), "Ctrl-C");
        let mut term = install(SignalKind::terminate(), "SIGTERM");
        async fn recv(s: &mut Option<Signal>) {
            match s {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        async move {
            tokio::select! { _ = recv(&mut int) => {}, _ = recv(&mut term) => {} }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// The lines of a file: each line's bytes without `\n` or `\r\n`.
fn lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    body.split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(move |_| !bytes.is_empty())
}

/// A word list built into a filter, not yet stored.
struct Built<'a> {
    preload: &'a Preload,
    filter: AnyFilter,
    n: u64,
    start: Instant,
}

/// Builds a word list into a filter, in memory.
fn build(p: &Preload) -> Result<Built<'_>, Error> {
    let start = Instant::now();
    let bytes = std::fs::read(&p.file).map_err(|e| format!("{}: {e}", p.file.display()))?;
    let n = lines(&bytes).count() as u64;
    let spec = Spec::sized(p.kind, n.max(1), Target::Fpr(p.fpr), None)
        .map_err(|e| format!("{}: {e}", p.file.display()))?;
    let mut filter = AnyFilter::new(&spec, 0).map_err(|e| format!("{}: {e}", p.file.display()))?;
    for item in lines(&bytes) {
        filter
            .insert(item)
            .map_err(|e| format!("{}: {e}", p.file.display()))?;
    }
    Ok(Built {
        preload: p,
        filter,
        n,
        start,
    })
}

/// Stores a built word list under its name (replacing one there).
async fn store_preload(state: &AppState, b: Built<'_>) -> Result<(), Error> {
    let (p, n) = (b.preload, b.n);
    let info = b.filter.info();
    state
        .engine()
        .create_filter(&p.name, b.filter, true)
        .await
        .map_err(|e| e.message)?;
    eprintln!(
        "amq serve: preloaded {}: {n} items from {} into a {} filter of {} bytes \
         (ε {:.2e}) in {:.2} s",
        p.name,
        p.file.display(),
        info.kind().name(),
        info.bytes,
        info.estimated_fpr,
        b.start.elapsed().as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::lines;

    #[test]
    fn lines_drop_line_endings_and_keep_empty_lines() {
        let got: Vec<&[u8]> = lines(b"a\r\n\nb\n").collect();
        assert_eq!(got, vec![&b"a"[..], b"", b"b"]);
        assert_eq!(lines(b"").count(), 0);
        assert_eq!(lines(b"x").count(), 1);
    }
}
