//! Starting `nimdb serve` on an ephemeral loopback port and talking HTTP/1.1 to it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A running `nimdb serve`, stopped (SIGTERM) when dropped.
pub struct Server {
    child: Option<Child>,
    /// The port it listens on.
    pub port: u16,
}

impl Server {
    /// Starts `nimdb serve --db DB --addr 127.0.0.1:0 EXTRA…` and waits for its address.
    pub fn start(db: &Path, extra: &[&str]) -> Server {
        Server::start_via(&[], db, extra)
    }

    /// Starts the server through `prefix` (e.g. `setpriv --reuid=65534 …`, to run it as
    /// another user), like [`Server::start`].
    pub fn start_via(prefix: &[&str], db: &Path, extra: &[&str]) -> Server {
        let bin = env!("CARGO_BIN_EXE_nimdb");
        let (program, before) = match prefix.split_first() {
            Some((first, rest)) => (*first, [rest, &[bin]].concat()),
            None => (bin, Vec::new()),
        };
        let mut child = Command::new(program)
            .args(before)
            .args(["serve", "--db"])
            .arg(db)
            .args(["--addr", "127.0.0.1:0"])
            .args(extra)
            .env_remove("NIMDB_DB")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start nimdb serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line
            .trim()
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("serve did not print its address: {line:?}"));
        Server { child: Some(child), port }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    /// The CPU seconds the server has used so far, user and system (from /proc/PID/stat).
    pub fn cpu_seconds(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap();
        // The fields after the command name (in parentheses, which may hold spaces).
        let fields: Vec<&str> = stat.rsplit_once(')').unwrap().1.split_whitespace().collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        ticks as f64 / 100.0
    }

    /// The base URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Sends one request; returns the status and the body.
    pub fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, String) {
        request(self.port, method, path, body)
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> (u16, String) {
        self.request("GET", path, b"")
    }

    /// `GET path`, expecting 200 and JSON.
    pub fn get_json(&self, path: &str) -> serde_json::Value {
        let (status, body) = self.get(path);
        assert_eq!(status, 200, "GET {path}: {body}");
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: not JSON ({e}): {body}"))
    }

    /// Sends SIGTERM and waits for the exit: (status, stderr).
    pub fn stop(self) -> (ExitStatus, String) {
        self.stop_with("TERM")
    }

    /// Sends signal `sig` (`TERM`, `INT`) and waits for the exit: (status, stderr).
    pub fn stop_with(mut self, sig: &str) -> (ExitStatus, String) {
        let mut child = self.child.take().unwrap();
        signal(&child, sig);
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(Instant::now() < deadline, "serve did not stop after SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut stderr = String::new();
        child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
        (status, stderr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Sends `kill -SIG pid`.
pub fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill").arg(format!("-{sig}")).arg(child.id().to_string()).status().unwrap();
    assert!(ok.success());
}

/// One HTTP/1.1 request with `Connection: close`; returns the status and the body.
pub fn request(port: u16, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    // A server may answer (413) before reading a large body, and close: ignore that.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("bad response: {text:?}"));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("a status");
    (status, body.to_string())
}

/// Sends `GET path` and gives up after `wait`, as an impatient client does: closes the
/// connection without reading the answer. Returns whether an answer had come by then.
pub fn abandon(port: u16, path: &str, wait: Duration) -> bool {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(wait)).unwrap();
    let head = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    let mut first = [0u8; 1];
    let answered = matches!(stream.read(&mut first), Ok(1));
    drop(stream);
    answered
}

/// Percent-encodes a query-string value.
pub fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// SHA-like fingerprint of a file's bytes (to check it was not written).
pub fn file_bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}
