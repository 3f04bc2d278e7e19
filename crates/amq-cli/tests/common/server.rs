//! `amq serve` as a real process on a loopback port, and a minimal HTTP/1.1 client for it.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The `amq` binary.
pub const AMQ: &str = env!("CARGO_BIN_EXE_amq");

/// A running `amq serve` on 127.0.0.1 (port 0: it prints the one it got).
pub struct Server {
    pub child: Child,
    pub addr: String,
    _stdout: BufReader<std::process::ChildStdout>,
}

impl Server {
    /// Starts `amq serve --listen 127.0.0.1:0 --data DATA EXTRA...`.
    pub fn start(data: &Path, extra: &[&str]) -> Server {
        let mut cmd = Command::new(AMQ);
        cmd.args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(data)
            .args(extra);
        Server::spawn(cmd)
    }

    /// Starts a command that runs (or execs) `amq serve` on port 0; its first stdout line
    /// gives the address.
    pub fn spawn(mut cmd: Command) -> Server {
        cmd.stderr(Stdio::inherit());
        Self::spawn_as_set(cmd)
    }

    /// As [`spawn`](Self::spawn), its stderr kept for [`terminate`](Self::terminate).
    pub fn spawn_capturing(mut cmd: Command) -> Server {
        cmd.stderr(Stdio::piped());
        Self::spawn_as_set(cmd)
    }

    fn spawn_as_set(mut cmd: Command) -> Server {
        let mut child = cmd
            .stdout(Stdio::piped())
            .spawn()
            .expect("amq serve starts");
        let mut line = String::new();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        stdout.read_line(&mut line).unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| {
                let status = child.wait();
                panic!("no address in {line:?}: {status:?}")
            })
            .to_owned();
        Server {
            child,
            addr,
            _stdout: stdout,
        }
    }

    /// SIGKILL: no shutdown code runs.
    pub fn kill9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM; the exit status and what the process printed on stderr (all of it, from a
    /// server started with [`spawn_capturing`](Self::spawn_capturing)).
    pub fn terminate(mut self) -> (std::process::ExitStatus, String) {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success());
        let mut stderr = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            e.read_to_string(&mut stderr).unwrap();
        }
        (self.child.wait().unwrap(), stderr)
    }

    /// SIGTERM, then wait for the graceful exit.
    pub fn stop(self) {
        let (status, _) = self.terminate();
        assert!(status.success(), "{status:?}");
    }

    pub fn call(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Vec<u8>), String> {
        let body = body
            .map(|b| serde_json::to_vec(b).unwrap())
            .unwrap_or_default();
        http(&self.addr, method, path, &body)
    }

    pub fn json(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, Value) {
        let (status, bytes) = self.call(method, path, body).unwrap();
        let v = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        (status, v)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request on a fresh connection; the status and the body.
pub fn http(addr: &str, method: &str, path: &str, body: &[u8]) -> Result<(u16, Vec<u8>), String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).map_err(|e| e.to_string())?;
    s.write_all(body).map_err(|e| e.to_string())?;
    let mut reply = Vec::new();
    s.read_to_end(&mut reply).map_err(|e| e.to_string())?;
    let split = reply
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no header end")?;
    let head = String::from_utf8_lossy(&reply[..split]).to_lowercase();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("no status")?;
    let mut body = reply[split + 4..].to_vec();
    if head.contains("transfer-encoding: chunked") {
        let mut out = Vec::new();
        let mut rest = &body[..];
        loop {
            let eol = rest
                .windows(2)
                .position(|w| w == b"\r\n")
                .ok_or("bad chunk")?;
            let len = usize::from_str_radix(std::str::from_utf8(&rest[..eol]).unwrap().trim(), 16)
                .map_err(|e| e.to_string())?;
            if len == 0 {
                break;
            }
            out.extend_from_slice(&rest[eol + 2..eol + 2 + len]);
            rest = &rest[eol + 4 + len..];
        }
        body = out;
    }
    Ok((status, body))
}

/// `PREFIX-i` for i in `range`.
pub fn items(prefix: &str, range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("{prefix}-{i}")).collect()
}

/// `true` if filter `filter` says "maybe" for every item.
pub fn all_found(s: &Server, filter: &str, items: &[String]) -> bool {
    items.chunks(10_000).all(|chunk| {
        let (status, v) = s.json(
            "POST",
            &format!("/api/v1/filters/{filter}/contains"),
            Some(&json!({"items": chunk})),
        );
        assert_eq!(status, 200);
        v["maybe"].as_array().unwrap().iter().all(|m| m == true)
    })
}
