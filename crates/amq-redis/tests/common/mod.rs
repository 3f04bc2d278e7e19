//! What the module's integration tests share: a `redis-server` with the module loaded on a
//! free loopback port, in a temporary directory, killed when the test ends (also when it
//! fails), and a client that reports errors as the server's whole line.
//!
//! The module is `libamq_redis.so` beside the test binary (`target/<profile>/deps/`):
//! `cargo test` and `cargo nextest` build it there before running the tests (the crate's
//! rlib type makes them build the library; the tests never link it). `redis-server` must be
//! on the PATH (`scripts/test-redis` installs it): a missing one fails the tests, loudly.
#![allow(dead_code)]

use redis::{Connection, Value};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The module the tests load.
pub fn module() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let so = exe.with_file_name("libamq_redis.so");
    assert!(
        so.exists(),
        "{} is missing: build it with `cargo build -p amq-redis --tests` (cargo test builds it)",
        so.display()
    );
    so
}

/// A loopback port nothing listens on (and, for a cluster node, its bus port + 10000 too).
pub fn free_port(with_bus: bool) -> u16 {
    for _ in 0..200 {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let port = l.local_addr().expect("local address").port();
        if port > 50_000 {
            continue;
        }
        if !with_bus || TcpListener::bind(("127.0.0.1", port + 10_000)).is_ok() {
            return port;
        }
    }
    panic!("no free loopback port");
}

/// A running `redis-server` with the module; killed on drop.
pub struct Server {
    child: Option<Child>,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Its working directory (RDB and AOF files).
    pub dir: tempfile::TempDir,
    args: Vec<String>,
}

impl Server {
    /// Starts a server with the module and `extra` configuration (`--name value` pairs).
    pub fn start(extra: &[&str]) -> Server {
        Self::start_on(free_port(false), extra)
    }

    /// Starts a server on `port`.
    pub fn start_on(port: u16, extra: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mut s = Server {
            child: None,
            port,
            dir,
            args: extra.iter().map(|s| s.to_string()).collect(),
        };
        s.spawn();
        s
    }

    fn spawn(&mut self) {
        let d = self.dir.path();
        let mut cmd = Command::new("redis-server");
        cmd.arg("--port")
            .arg(self.port.to_string())
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .args(["--enable-debug-command", "yes", "--daemonize", "no"])
            .arg("--dir")
            .arg(d)
            .arg("--logfile")
            .arg(d.join("redis.log"))
            .arg("--loadmodule")
            .arg(module())
            .args(&self.args)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = cmd.spawn().unwrap_or_else(|e| {
            panic!("cannot run redis-server ({e}): install it (scripts/test-redis does)")
        });
        self.child = Some(child);
        self.wait_ready();
    }

    fn wait_ready(&mut self) {
        let start = Instant::now();
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                panic!("redis-server exited ({status}):\n{}", self.log());
            }
            if let Ok(mut con) = self.try_connection() {
                if redis::cmd("PING").query::<String>(&mut con).is_ok() {
                    return;
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "redis-server did not start:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("redis.log")).unwrap_or_default()
    }

    fn try_connection(&self) -> redis::RedisResult<Connection> {
        redis::Client::open(format!("redis://127.0.0.1:{}/", self.port))?.get_connection()
    }

    /// A RESP2 connection.
    pub fn con(&self) -> Connection {
        self.try_connection().expect("connect")
    }

    /// A RESP3 connection (`HELLO 3`).
    pub fn con3(&self) -> Connection {
        redis::Client::open(format!("redis://127.0.0.1:{}/?protocol=resp3", self.port))
            .and_then(|c| c.get_connection())
            .expect("connect with RESP3")
    }

    /// Shuts the server down (writing its AOF) and starts it again on the same directory.
    pub fn restart(&mut self) {
        let _ = redis::cmd("SHUTDOWN").query::<Value>(&mut self.con());
        if let Some(mut c) = self.child.take() {
            let start = Instant::now();
            while c.try_wait().ok().flatten().is_none() && start.elapsed() < Duration::from_secs(20)
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
        self.spawn();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Sends a command: its reply as the server sent it (errors inside arrays kept as
/// [`Value::ServerError`]), or the server's error line (`ERR not found`).
pub fn call(con: &mut Connection, args: &[&[u8]]) -> Result<Value, String> {
    use redis::ConnectionLike;
    let mut c = redis::cmd(std::str::from_utf8(args[0]).expect("a command name"));
    for a in &args[1..] {
        c.arg(*a);
    }
    match con.req_command(&c) {
        Ok(Value::ServerError(e)) => Err(line(Some(e.code()), e.details())),
        Ok(v) => Ok(v),
        Err(e) => Err(line(e.code(), e.detail())),
    }
}

/// [`call`] with text arguments.
pub fn cmd(con: &mut Connection, args: &str) -> Result<Value, String> {
    let parts: Vec<&[u8]> = args.split(' ').map(str::as_bytes).collect();
    call(con, &parts)
}

/// [`cmd`], which must succeed.
pub fn ok(con: &mut Connection, args: &str) -> Value {
    cmd(con, args).unwrap_or_else(|e| panic!("{args}: {e}"))
}

/// [`cmd`], which must fail: the error line.
pub fn fails(con: &mut Connection, args: &str) -> String {
    match cmd(con, args) {
        Err(e) => e,
        Ok(v) => panic!("{args} succeeded with {v:?}"),
    }
}

fn line(code: Option<&str>, detail: Option<&str>) -> String {
    match (code, detail) {
        (Some(c), Some(d)) => format!("{c} {d}"),
        (Some(c), None) => c.to_string(),
        (None, Some(d)) => d.to_string(),
        (None, None) => "unknown error".to_string(),
    }
}

/// An error inside an array reply, as a line.
pub fn nested_error(v: &Value) -> Option<String> {
    match v {
        Value::ServerError(e) => Some(line(Some(e.code()), e.details())),
        _ => None,
    }
}

/// An integer reply.
pub fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        other => panic!("not an integer: {other:?}"),
    }
}

/// The integers of an array reply.
pub fn ints(v: &Value) -> Vec<i64> {
    match v {
        Value::Array(a) => a.iter().map(int).collect(),
        other => panic!("not an array: {other:?}"),
    }
}

/// The bytes of a bulk-string reply.
pub fn bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::BulkString(b) => b.clone(),
        other => panic!("not a bulk string: {other:?}"),
    }
}

/// A map reply (RESP3) or a flat array of pairs (RESP2) as (name, value) pairs.
pub fn pairs(v: &Value) -> Vec<(String, Value)> {
    let name = |k: &Value| match k {
        Value::SimpleString(s) => s.clone(),
        Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
        other => panic!("not a field name: {other:?}"),
    };
    match v {
        Value::Map(m) => m.iter().map(|(k, v)| (name(k), v.clone())).collect(),
        Value::Array(a) => a.chunks(2).map(|p| (name(&p[0]), p[1].clone())).collect(),
        other => panic!("not a map: {other:?}"),
    }
}

/// The field `name` of a map reply.
pub fn field(v: &Value, name: &str) -> Value {
    pairs(v)
        .into_iter()
        .find(|(k, _)| k == name)
        .unwrap_or_else(|| panic!("no field {name} in {v:?}"))
        .1
}

/// A number field of a map reply (an integer, a double, or a RESP2 bulk string).
pub fn number(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Double(d) => *d,
        Value::BulkString(b) => String::from_utf8_lossy(b).parse().expect("a number"),
        other => panic!("not a number: {other:?}"),
    }
}
