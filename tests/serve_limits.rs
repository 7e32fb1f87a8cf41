//! What `nimdb serve` accepts and what it holds (issue 34): thread counts and limits
//! refused up front, the side files of its read-only connections removed when it stops,
//! bodies refused by their declared length, slow and idle connections closed, a request's
//! CPU time bounded, and a batch stopped when its client leaves though every answer comes
//! from memory. Each test failed on the code before its fix.

mod common;
mod serve_common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serve_common::Server;

/// A small misère Nim database in `dir`.
fn small_nim(dir: &Path) -> PathBuf {
    let db = dir.join("m.sqlite");
    let text = db.to_str().unwrap();
    let args = ["solve", "--quiet", "--db", text, "--game", "nim", "--misere", "--max-heaps", "3"];
    common::ok(&[&args[..], &["--max-heap", "6"]].concat());
    db
}

/// `path` with `suffix` appended (`-wal`, `-shm`).
fn side(db: &Path, suffix: &str) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// `GET /healthz`'s figure `field` of `part`.
fn health(server: &Server, part: &str, field: &str) -> u64 {
    let health = server.get_json("/healthz");
    health[part][field].as_u64().unwrap_or_else(|| panic!("no {part}.{field}: {health}"))
}

const STORED: &str = "/api/v1/query?game=nim&convention=misere&position=3,2,1&moves=false";

/// Low finding: `serve --workers 5000` took 7 s and 1.24 GB, then failed with "unable to
/// open database file". Thread counts, queues, limits and timeouts out of their range are
/// refused in one line before anything starts.
#[test]
fn bounds_out_of_range_are_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_nim(dir.path());
    let before = std::fs::read_dir(dir.path()).unwrap().count();
    for (flag, value, needle) in [
        ("--workers", "5000", "1..=64"),
        ("--workers", "0", "1..=64"),
        ("--theory-workers", "65", "1..=64"),
        ("--queue", "0", "1..=4096"),
        ("--cpu-limit", "0", "more than 0"),
        ("--cpu-limit", "x", "seconds"),
        ("--header-timeout", "7200", "at most 3600"),
        ("--body-timeout", "0.0", "more than 0"),
    ] {
        let out = common::nimdb()
            .args(["serve", "--db", db.to_str().unwrap(), "--addr", "127.0.0.1:0", flag, value])
            .output()
            .unwrap();
        common::assert_one_line_error(&out, needle);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(flag), "{flag} {value}: {stderr}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), before, "a refused serve left files");
}

/// Low finding: `serve` left a 32 KB `-shm` and an empty `-wal` after SIGINT or SIGTERM
/// (its read-only connections cannot remove them, and the one that may closed first). They
/// are removed when it stops, by both signals.
#[test]
fn serve_removes_the_side_files_its_reads_made() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_nim(dir.path());
    assert!(!side(&db, "-wal").exists() && !side(&db, "-shm").exists());
    for sig in ["TERM", "INT"] {
        let server = Server::start(&db, &[]);
        assert_eq!(server.get_json(STORED)["source"], "database");
        assert!(side(&db, "-shm").exists(), "reading made no -shm: the test proves nothing");
        let (status, stderr) = server.stop_with(sig);
        assert!(status.success(), "SIG{sig}: {stderr}");
        assert!(!side(&db, "-wal").exists(), "SIG{sig} left the -wal");
        assert!(!side(&db, "-shm").exists(), "SIG{sig} left the -shm");
    }
}

/// The side files of a file another process still reads stay: the first of two servers to
/// stop removes nothing (SQLite's own check finds the other's connections), the other still
/// answers, and the last to stop removes them.
#[test]
fn side_files_another_server_holds_are_left() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_nim(dir.path());
    let first = Server::start(&db, &[]);
    let second = Server::start(&db, &[]);
    for server in [&first, &second] {
        assert_eq!(server.get_json(STORED)["source"], "database");
    }
    let (status, stderr) = first.stop();
    assert!(status.success(), "{stderr}");
    assert!(side(&db, "-wal").exists() && side(&db, "-shm").exists(), "files in use were removed");
    assert_eq!(second.get_json(STORED)["source"], "database");
    let (status, stderr) = second.stop();
    assert!(status.success(), "{stderr}");
    assert!(!side(&db, "-wal").exists() && !side(&db, "-shm").exists());
}

/// Reads what a connection sends until the server closes it or `within` passes: the text,
/// and whether the server closed it.
fn read_until_closed(stream: &mut TcpStream, within: Duration) -> (String, bool) {
    stream.set_read_timeout(Some(within)).unwrap();
    let mut raw = Vec::new();
    let closed = match stream.read_to_end(&mut raw) {
        Ok(_) => true,
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    };
    (String::from_utf8_lossy(&raw).into_owned(), closed)
}

/// Low finding: a declared Content-Length over 2 MB with a short body got no early 413, and
/// the connection was held. It is answered 413 at once, without reading the body, and
/// closed.
#[test]
fn a_body_declared_over_the_limit_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&small_nim(dir.path()), &[]);
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let head = "POST /api/v1/query?game=nim HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 3000000\r\n\r\n";
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(b"[[1,2],[3").unwrap();
    // Well below the body timeout: the answer comes without waiting for the body.
    let (text, closed) = read_until_closed(&mut stream, Duration::from_secs(5));
    assert!(text.starts_with("HTTP/1.1 413"), "{text:?}");
    assert!(text.contains("larger than 2097152 bytes"), "{text}");
    assert!(closed, "the connection was held");
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
}

/// Low finding: there was no timeout for slow headers or bodies (600 connections held 30 s
/// and more). A head that does not arrive, and a kept-alive connection left idle, are closed
/// after the header timeout; a body that does not arrive is answered 408 after the body
/// timeout (both 10 s by default).
#[test]
fn slow_and_idle_connections_are_closed() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&small_nim(dir.path()), &[]);
    let port = server.port;
    let connect = move || TcpStream::connect(("127.0.0.1", port)).unwrap();
    let slow_head = std::thread::spawn(move || {
        let mut stream = connect();
        stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n").unwrap();
        read_until_closed(&mut stream, Duration::from_secs(40))
    });
    let idle = std::thread::spawn(move || {
        let mut stream = connect();
        stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        read_until_closed(&mut stream, Duration::from_secs(40))
    });
    let slow_body = std::thread::spawn(move || {
        let mut stream = connect();
        let head = "POST /api/v1/query?game=nim HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n[[1,2]";
        stream.write_all(head.as_bytes()).unwrap();
        read_until_closed(&mut stream, Duration::from_secs(40))
    });
    let (text, closed) = slow_head.join().unwrap();
    assert!(closed && text.is_empty(), "a head that never ends was held: {text:?}");
    let (text, closed) = idle.join().unwrap();
    assert!(text.starts_with("HTTP/1.1 200"), "{text:?}");
    assert!(closed, "an idle kept-alive connection was held");
    let (text, closed) = slow_body.join().unwrap();
    assert!(text.starts_with("HTTP/1.1 408"), "{text:?}");
    assert!(text.contains("the body did not arrive within this server's 10 s"), "{text}");
    assert!(closed, "a body that never ends was held");
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
}

/// Issue 34 H2: the cost of one request was not bounded by the server: `hex:0.[F]` at 1335
/// took 49.9 CPU s. Its cost is now predicted (the plain mex's options, about 56 CPU s)
/// and it is refused up front, naming the cost and the limit, without running; and work
/// that no prediction bounds (a batch of 10,000 move lists) has its CPU time watched: past
/// the limit (5 s by default) it is stopped and answered 422, naming the limit, and its
/// worker answers the next request.
#[test]
fn a_request_past_the_cpu_limit_is_refused_or_stopped_and_answered_422() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&small_nim(dir.path()), &[]);
    let before = server.cpu_seconds();
    let (status, body) = server.get("/api/v1/query?game=hex%3A0.%5BF%5D&position=1335");
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("option reads") && body.contains("this server's --cpu-limit"), "{body}");
    assert!(server.cpu_seconds() - before < 2.5, "refused before it ran");
    assert_eq!(health(&server, "theory_pool", "over_limit"), 0, "refused, not stopped");
    // Work past the limit that no prediction refuses: the watch stops it.
    let positions: Vec<String> = (10_000..20_000).map(|h| format!("[{h}]")).collect();
    let body = format!("[{}]", positions.join(","));
    let (status, body) = server.request("POST", "/api/v1/query?game=grundy", body.as_bytes());
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("this server's limit of 5 s of CPU time per request"), "{body}");
    assert_eq!(health(&server, "theory_pool", "over_limit"), 1);
    assert_eq!(health(&server, "theory_pool", "busy"), 0);
    // The worker answers on; an answer within the limit comes from the same pool.
    let answer = server.get_json("/api/v1/query?game=hex%3A0.%5BF%5D&position=300");
    assert_eq!(answer["nim_value"], 300, "{answer}");
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
}

/// Sends a `POST` of `body` and gives up after `wait`, closing the connection unread.
fn abandon_post(port: u16, path: &str, body: &[u8], wait: Duration) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body).unwrap();
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut first = [0u8; 1];
    assert!(stream.read(&mut first).is_err(), "the batch was answered within {wait:?}");
}

/// Issue 34 H3: after one `GET` of Grundy's game at 20000 (its heap values kept), a `POST`
/// of heaps 10000..19999 (about 35 s of move lists) ran to its end after its client gave up:
/// nothing in it looked at the stop, since no heap value was computed. The batch looks at it
/// between items: it stops as its client leaves.
#[test]
fn an_abandoned_batch_stops_though_its_heap_values_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&small_nim(dir.path()), &[]);
    assert_eq!(server.get_json("/api/v1/query?game=grundy&position=20000&moves=false")["source"], "theory");
    let body = serde_json::to_vec(&(10_000..20_000).map(|h| vec![h]).collect::<Vec<_>>()).unwrap();
    abandon_post(server.port, "/api/v1/query?game=grundy&moves=false", &body, Duration::from_secs(1));
    // The whole batch takes about 35 s; stopped, the pool is free at once (polled up to 20 s).
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while health(&server, "theory_pool", "busy") > 0 {
        assert!(std::time::Instant::now() < deadline, "the batch ran on after its client left");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(health(&server, "theory_pool", "abandoned"), 1);
    assert_eq!(health(&server, "theory_pool", "over_limit"), 0, "stopped by the CPU limit, not its client");
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
}

/// Low finding: a server that opened another user's file as immutable (it cannot make the
/// side files a write-ahead log is read through) never saw later commits: 6,759 answers of
/// 404 for tiers stored after it started, until it was restarted. Its threads open the file
/// again when it changes.
#[test]
#[ignore = "needs root and setpriv to read as another user (.ci/run runs it with --ignored)"]
fn a_server_reading_another_user_s_file_sees_later_commits() {
    use std::os::unix::fs::PermissionsExt;
    let is_root =
        std::process::Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    if !is_root {
        common::missing("the test needs root and setpriv to read as an unprivileged user");
    }
    let prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let db = dir.path().join("theirs.sqlite");
    let text = db.to_str().unwrap();
    let solve = |total: &str| {
        common::ok(&["solve", "--quiet", "--db", text, "--game", "kayles", "--misere", "--max-total", total])
    };
    solve("10");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let server = Server::start_via(&prefix, &db, &[]);
    let path = "/api/v1/query?game=kayles&convention=misere&position=8,5&moves=false";
    for _ in 0..4 {
        let (status, body) = server.get(path);
        assert_eq!(status, 404, "{body}");
    }
    solve("14");
    for _ in 0..4 {
        let answer = server.get_json(path);
        assert_eq!(answer["source"], "database", "{answer}");
    }
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
    assert!(!side(&db, "-wal").exists() && !side(&db, "-shm").exists());
}

/// Finding M2 in `serve --solve-up-to`: a solve on the spot planned no memory, and one past
/// the address space killed the server (SIGABRT). It is planned as `nimdb solve` plans one:
/// past what the process may use it is refused (503) before anything is written, and the
/// server goes on.
#[test]
fn a_solve_on_the_spot_past_the_address_space_is_refused_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = small_nim(dir.path());
    let before = common::dump(&db);
    let prefix = ["sh", "-c", "ulimit -v 40000; exec \"$0\" \"$@\""];
    let extra = ["--solve-up-to", "5000000", "--workers", "1", "--theory-workers", "1"];
    let server = Server::start_via(&prefix, &db, &extra);
    let (status, body) = server.get("/api/v1/query?game=kayles&convention=misere&position=30,25&moves=false");
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("on the spot") && body.contains("nothing was written"), "{body}");
    assert_eq!(server.get_json("/healthz")["status"], "ok");
    assert_eq!(server.get_json(STORED)["source"], "database");
    let (status, stderr) = server.stop();
    assert!(status.success(), "{stderr}");
    assert_eq!(common::dump(&db), before, "the refused solve wrote");
}
