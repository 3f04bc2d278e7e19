//! `amq serve` as a real process on a loopback port, and a small HTTP/1.1 client for it.
//!
//! The process is this test binary run again with only its `server_process` test (ignored
//! otherwise), which calls [`serve`]: the same [`amq_server::run`] that `amq serve` calls,
//! with the settings passed in the environment. So every request crosses a real socket into
//! a separate process with its own store file, and [`Server::kill`] is a real SIGKILL.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const DATA: &str = "AMQ_TEST_SERVE_DATA";
const MAX_FILTER_BYTES: &str = "AMQ_TEST_SERVE_MAX_FILTER_BYTES";
const TIMEOUT_MS: &str = "AMQ_TEST_SERVE_TIMEOUT_MS";
const PRELOAD: &str = "AMQ_TEST_SERVE_PRELOAD";

/// The body of the `server_process` test: serves until killed when the environment names a
/// data directory, else returns at once. An error is printed as `amq serve` prints it, and
/// the process exits with status 2.
pub fn serve() {
    let Some(data) = std::env::var_os(DATA) else {
        return;
    };
    let mut limits = amq_server::Limits::default();
    if let Ok(v) = std::env::var(MAX_FILTER_BYTES) {
        limits.max_filter_bytes = v.parse().expect("a byte count");
    }
    if let Ok(v) = std::env::var(TIMEOUT_MS) {
        limits.timeout = Duration::from_millis(v.parse().expect("milliseconds"));
    }
    let preload = match std::env::var(PRELOAD) {
        Ok(p) => vec![p.parse().expect("NAME=FILE[:KIND[:FPR]]")],
        Err(_) => Vec::new(),
    };
    let config = amq_server::Config {
        data: data.into(),
        listen: "127.0.0.1:0".parse().unwrap(),
        token: None,
        limits,
        preload,
        state_filters: Default::default(),
        workers: None,
    };
    if let Err(e) = amq_server::run(config) {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

/// What a server is started with.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// `--max-filter-bytes`.
    pub max_filter_bytes: Option<u64>,
    /// `--timeout-seconds`, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// The largest file the process may write, in 512-byte blocks (`ulimit -f`, with
    /// SIGXFSZ ignored): a write past it fails with an I/O error, as on a full disk.
    pub max_file_blocks: Option<u64>,
    /// `--preload NAME=FILE[:KIND[:FPR]]`.
    pub preload: Option<&'a str>,
}

/// A running server process.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    stderr: Arc<Mutex<String>>,
}

impl Server {
    /// Starts a server on `data`.
    ///
    /// # Panics
    /// If it does not start.
    pub fn start(data: &Path, options: Options<'_>) -> Server {
        Self::try_start(data, options).unwrap_or_else(|e| panic!("the server did not start: {e}"))
    }

    /// Starts a server on `data`; `Err` with what it printed on stderr if it exits instead
    /// of listening.
    pub fn try_start(data: &Path, options: Options<'_>) -> Result<Server, String> {
        Self::try_start_in(None, data, options)
    }

    /// [`try_start`](Self::try_start) with the process's working directory `cwd` (`data`
    /// may then be relative to it).
    pub fn try_start_in(
        cwd: Option<&Path>,
        data: &Path,
        options: Options<'_>,
    ) -> Result<Server, String> {
        let exe = std::env::current_exe().unwrap();
        let mut cmd = match options.max_file_blocks {
            None => Command::new(exe),
            Some(blocks) => {
                let mut sh = Command::new("sh");
                sh.args([
                    "-c",
                    "trap '' XFSZ; ulimit -f \"$1\" && shift && exec \"$@\"",
                    "sh",
                ])
                .arg(blocks.to_string())
                .arg(exe);
                sh
            }
        };
        cmd.args([
            "--exact",
            "server_process",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(DATA, data)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        if let Some(m) = options.max_filter_bytes {
            cmd.env(MAX_FILTER_BYTES, m.to_string());
        }
        if let Some(t) = options.timeout_ms {
            cmd.env(TIMEOUT_MS, t.to_string());
        }
        if let Some(p) = options.preload {
            cmd.env(PRELOAD, p);
        }
        if let Some(cwd) = cwd {
            cmd.current_dir(cwd);
        }
        let mut child = cmd.spawn().expect("the test binary runs again");
        let stderr = Arc::new(Mutex::new(String::new()));
        let mut err = child.stderr.take().unwrap();
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut buf = [0; 4096];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        // the address from the line `amq serve: listening on http://ADDR (data in DIR)`; the
        // reader keeps draining stdout afterwards
        let (tx, rx) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    let addr = rest.split_whitespace().next().unwrap_or("").to_owned();
                    let _ = tx.send(addr);
                }
            }
        });
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(addr) => Ok(Server {
                child,
                addr,
                stderr,
            }),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                // let the stderr reader reach the end
                std::thread::sleep(Duration::from_millis(100));
                let printed = stderr.lock().unwrap().clone();
                Err(printed)
            }
        }
    }

    /// What the server printed on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Sends a request; the status and the body.
    ///
    /// # Panics
    /// If the server does not answer.
    pub fn request(&self, method: &str, path: &str, body: Option<&[u8]>) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(&self.addr).expect("the server accepts");
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        let body = body.unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nhost: {}\r\nconnection: close\r\n\
             content-type: application/json\r\ncontent-length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).expect("an answer");
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a header");
        let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("a status line");
        let mut body = raw[split + 4..].to_vec();
        if head.contains("transfer-encoding: chunked") {
            body = unchunk(&body);
        }
        (status, body)
    }

    /// Sends a request with a JSON body (if any); the status and the JSON answer.
    ///
    /// # Panics
    /// If the answer is not JSON.
    pub fn json(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let body = body.map(|b| serde_json::to_vec(b).unwrap());
        let (status, bytes) = self.request(method, path, body.as_deref());
        let v = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            panic!(
                "{method} {path}: not JSON ({e}): {:?}",
                String::from_utf8_lossy(&bytes)
            )
        });
        (status, v)
    }

    /// Stops the process with SIGTERM, as a service manager does, and waits (up to a
    /// minute) for it to exit; what it printed on stderr.
    ///
    /// # Panics
    /// If it does not exit, or exits with a failure.
    pub fn stop(mut self) -> String {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -TERM {pid}");
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the server did not stop"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        // let the stderr reader reach the end
        std::thread::sleep(Duration::from_millis(100));
        let printed = self.stderr();
        assert!(status.success(), "{status}: {printed}");
        printed
    }

    /// Kills the process with SIGKILL (no shutdown: only what is on disk survives) and
    /// waits for it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The body of a chunked answer.
fn unchunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = raw.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size = std::str::from_utf8(&raw[..end])
            .ok()
            .and_then(|s| usize::from_str_radix(s.split(';').next()?.trim(), 16).ok())
            .unwrap_or(0);
        if size == 0 {
            return out;
        }
        let start = end + 2;
        out.extend_from_slice(&raw[start..start + size]);
        raw = &raw[start + size + 2..];
    }
}
