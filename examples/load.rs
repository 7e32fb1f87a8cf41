//! Load test for `nimdb serve`: 64 concurrent keep-alive clients send a fixed number of
//! single-position lookups (`GET /api/v1/query`) over loopback while `nimdb solve` writes
//! another solve to the same database file. Reports requests/s, p50/p99 latency and every
//! error; exits 1 on any 5xx or failed request.
//!
//! ```text
//! cargo build --release && cargo run --release --example load -- [REQUESTS] [CLIENTS]
//! ```
//! (defaults: 200,000 requests, 64 clients). Not a test: it asserts nothing about time.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

fn nimdb_exe() -> PathBuf {
    // target/release/examples/load → target/release/nimdb
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().unwrap().parent().unwrap().join("nimdb");
    assert!(bin.is_file(), "build the binary first: cargo build --release ({} missing)", bin.display());
    bin
}

#[derive(Default)]
struct ClientReport {
    latencies_us: Vec<u32>,
    statuses: [usize; 6],
    failures: Vec<String>,
}

/// Sends `GET path` on a keep-alive connection; returns the status.
async fn get(stream: &mut BufReader<TcpStream>, path: &str) -> std::io::Result<u16> {
    let request = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n");
    stream.get_mut().write_all(request.as_bytes()).await?;
    let mut line = String::new();
    stream.read_line(&mut line).await?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line {line:?}")))?;
    let mut length = 0usize;
    loop {
        line.clear();
        stream.read_line(&mut line).await?;
        if line == "\r\n" || line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    stream.read_exact(&mut body).await?;
    Ok(status)
}

async fn client(port: u16, next: Arc<AtomicUsize>, total: usize, paths: Arc<Vec<String>>) -> ClientReport {
    let mut report = ClientReport::default();
    let mut stream = None;
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= total {
            return report;
        }
        if stream.is_none() {
            match TcpStream::connect(("127.0.0.1", port)).await {
                Ok(s) => {
                    s.set_nodelay(true).ok();
                    stream = Some(BufReader::new(s));
                }
                Err(e) => {
                    report.failures.push(format!("connect: {e}"));
                    continue;
                }
            }
        }
        let path = &paths[i % paths.len()];
        let start = Instant::now();
        match get(stream.as_mut().unwrap(), path).await {
            Ok(status) => {
                report.latencies_us.push(start.elapsed().as_micros().min(u32::MAX as u128) as u32);
                report.statuses[(status / 100).min(5) as usize] += 1;
            }
            Err(e) => {
                report.failures.push(format!("{path}: {e}"));
                stream = None;
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let total: usize = args.first().map_or(200_000, |s| s.parse().expect("REQUESTS"));
    let clients: usize = args.get(1).map_or(64, |s| s.parse().expect("CLIENTS"));
    let exe = nimdb_exe();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("load.sqlite");
    let db_str = db.to_str().unwrap();
    // The positions served: normal-play Nim, up to 4 heaps of up to 16.
    let status = Command::new(&exe)
        .args(["solve", "--game", "nim", "--max-heaps", "4", "--max-heap", "16", "--db", db_str])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let paths: Vec<String> = (0..4096)
        .map(|_| {
            let heaps: Vec<String> = (0..4)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state % 17).to_string()
                })
                .collect();
            format!("/api/v1/query?game=nim&convention=normal&position={}", heaps.join("%2C"))
        })
        .collect();

    let mut server = Command::new(&exe)
        .args(["serve", "--db", db_str, "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.stdout.take().unwrap()), &mut line)
        .unwrap();
    let port: u16 = line.trim().rsplit(':').next().unwrap().parse().expect("serve's address");

    // A solve writing to the same file while the load runs.
    let mut writer = Command::new(&exe)
        .args(["solve", "--game", "kayles", "--misere", "--max-total", "58", "--db", db_str])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let paths = Arc::new(paths);
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let reports: Vec<ClientReport> = runtime.block_on(async {
        let tasks: Vec<_> =
            (0..clients).map(|_| tokio::spawn(client(port, next.clone(), total, paths.clone()))).collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap());
        }
        out
    });
    let elapsed = start.elapsed();
    let solve_running = writer.try_wait().unwrap().is_none();
    let solve_status = writer.wait().unwrap();
    let _ = Command::new("kill").args(["-TERM", &server.id().to_string()]).status();
    let deadline = Instant::now() + Duration::from_secs(30);
    let server_status = loop {
        if let Some(s) = server.try_wait().unwrap() {
            break Some(s);
        }
        if Instant::now() > deadline {
            let _ = server.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };

    let mut latencies: Vec<u32> = reports.iter().flat_map(|r| r.latencies_us.iter().copied()).collect();
    latencies.sort_unstable();
    let pct = |p: f64| {
        latencies.get(((latencies.len() as f64 * p) as usize).min(latencies.len().saturating_sub(1)))
    };
    let mut statuses = [0usize; 6];
    for r in &reports {
        for (a, b) in statuses.iter_mut().zip(r.statuses) {
            *a += b;
        }
    }
    let failures: Vec<&String> = reports.iter().flat_map(|r| &r.failures).collect();
    println!("requests: {} by {clients} clients in {:.2} s", latencies.len(), elapsed.as_secs_f64());
    println!("throughput: {:.0} requests/s", latencies.len() as f64 / elapsed.as_secs_f64());
    println!(
        "latency: p50 {} µs, p99 {} µs, max {} µs",
        pct(0.5).unwrap_or(&0),
        pct(0.99).unwrap_or(&0),
        latencies.last().unwrap_or(&0)
    );
    println!("statuses: 2xx {}, 4xx {}, 5xx {}", statuses[2], statuses[4], statuses[5]);
    println!("failed requests: {}", failures.len());
    for f in failures.iter().take(5) {
        println!("  {f}");
    }
    println!(
        "concurrent solve: {} ({})",
        if solve_running { "still running when the load ended" } else { "finished during the load" },
        solve_status
    );
    println!("server shutdown on SIGTERM: {server_status:?}");
    if statuses[5] > 0 || !failures.is_empty() || !solve_status.success() {
        std::process::exit(1);
    }
}
