//! Load test for `nimdb serve`: concurrent keep-alive clients send a fixed number of
//! lookups (`GET /api/v1/query` of one position, or batches by `POST`) over loopback. Reports the workload,
//! requests/s, p50/p99 latency and every error; exits 1 on any 5xx or failed request.
//!
//! ```text
//! cargo build --release && cargo run --release --example load -- [OPTIONS] [REQUESTS] [CLIENTS]
//! ```
//!
//! Workloads (`--workload`):
//! * `nim4x16` (default): normal-play Nim, 4 heaps of 0..=16 (4,096 positions cycled), every
//!   move listed, while `nimdb solve --game kayles --misere --max-total 58` writes another
//!   solve to the same file.
//! * `misere8x32`: misère Nim with 8 heaps of up to 32 (`nimdb solve --game nim --misere
//!   --max-heaps 8 --max-heap 32`, 76,904,685 positions, built in a temporary directory
//!   unless `--db FILE` holds it), one random 8-heap position (each heap 1..=32) per request.
//!
//! Options: `--batch N` (with `misere8x32`) sends `POST /api/v1/query` of N random
//! positions per request instead of one `GET` each; `--moves false` asks with `moves=false` (outcome, remoteness, best move and
//! source only; default `true`, every move listed); `--writer` / `--no-writer` runs the
//! concurrent solve or not (default: on for `nim4x16`, off for `misere8x32`); `--db FILE`
//! serves FILE (for `misere8x32`; it must hold that solve); `--workers N` passes
//! `--workers N` to `serve`. Defaults: 200,000 requests, 64 clients. Not a test: it asserts
//! nothing about time.

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
    body_bytes: usize,
    failures: Vec<String>,
}

/// One request: `GET path`, or `POST path` with a JSON body.
struct Request {
    path: String,
    body: Option<String>,
}

/// Sends a request on a keep-alive connection; returns the status and the body's length.
async fn send(stream: &mut BufReader<TcpStream>, request: &Request) -> std::io::Result<(u16, usize)> {
    let path = &request.path;
    let head = match &request.body {
        None => format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n"),
        Some(body) => format!(
            "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    };
    stream.get_mut().write_all(head.as_bytes()).await?;
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
    Ok((status, length))
}

async fn client(
    port: u16,
    next: Arc<AtomicUsize>,
    total: usize,
    requests: Arc<Vec<Request>>,
) -> ClientReport {
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
        let request = &requests[i % requests.len()];
        let start = Instant::now();
        match send(stream.as_mut().unwrap(), request).await {
            Ok((status, length)) => {
                report.latencies_us.push(start.elapsed().as_micros().min(u32::MAX as u128) as u32);
                report.statuses[(status / 100).min(5) as usize] += 1;
                report.body_bytes += length;
            }
            Err(e) => {
                report.failures.push(format!("{}: {e}", request.path));
                stream = None;
            }
        }
    }
}

/// What to run: parsed from the command line.
struct Options {
    requests: usize,
    clients: usize,
    workload: String,
    moves: bool,
    writer: Option<bool>,
    db: Option<PathBuf>,
    workers: Option<String>,
    batch: usize,
}

fn usage(message: &str) -> ! {
    eprintln!("error: {message}");
    eprintln!(
        "usage: cargo run --release --example load -- [--workload nim4x16|misere8x32] [--moves true|false] [--writer|--no-writer] [--db FILE] [--workers N] [--batch N] [REQUESTS] [CLIENTS]"
    );
    std::process::exit(2);
}

fn options() -> Options {
    let mut o = Options {
        requests: 200_000,
        clients: 64,
        workload: "nim4x16".into(),
        moves: true,
        writer: None,
        db: None,
        workers: None,
        batch: 0,
    };
    let mut numbers = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().unwrap_or_else(|| usage(&format!("{name} needs a value")));
        match arg.as_str() {
            "--workload" => o.workload = value("--workload"),
            "--moves" => {
                o.moves = match value("--moves").as_str() {
                    "true" => true,
                    "false" => false,
                    other => usage(&format!("bad --moves '{other}': true or false")),
                }
            }
            "--writer" => o.writer = Some(true),
            "--no-writer" => o.writer = Some(false),
            "--db" => o.db = Some(value("--db").into()),
            "--workers" => o.workers = Some(value("--workers")),
            "--batch" => {
                let n = value("--batch");
                o.batch = n.parse().unwrap_or_else(|_| usage(&format!("bad --batch '{n}'")));
            }
            _ if arg.starts_with('-') => usage(&format!("unknown option '{arg}'")),
            _ => numbers.push(arg.parse::<usize>().unwrap_or_else(|_| usage(&format!("bad number '{arg}'")))),
        }
    }
    if o.batch > 0 && o.workload != "misere8x32" {
        usage("--batch goes with --workload misere8x32");
    }
    if !["nim4x16", "misere8x32"].contains(&o.workload.as_str()) {
        usage(&format!("unknown workload '{}' (nim4x16 or misere8x32)", o.workload));
    }
    match numbers[..] {
        [] => {}
        [r] => o.requests = r,
        [r, c] => (o.requests, o.clients) = (r, c),
        _ => usage("at most two numbers: REQUESTS CLIENTS"),
    }
    o
}

/// xorshift64: the positions asked about, the same every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

fn main() {
    let o = options();
    let exe = nimdb_exe();
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let moves = if o.moves { "" } else { "&moves=false" };
    let (db, requests, description) = if o.workload == "nim4x16" {
        let db = o.db.clone().unwrap_or_else(|| dir.path().join("load.sqlite"));
        let status = Command::new(&exe)
            .args(["solve", "--game", "nim", "--max-heaps", "4", "--max-heap", "16", "--db"])
            .arg(&db)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let requests: Vec<Request> = (0..4096)
            .map(|_| {
                let heaps: Vec<String> = (0..4).map(|_| rng.below(17).to_string()).collect();
                let path =
                    format!("/api/v1/query?game=nim&convention=normal&position={}{moves}", heaps.join("%2C"));
                Request { path, body: None }
            })
            .collect();
        (db, requests, "normal-play Nim, 4 heaps of 0..=16 (4,096 random positions cycled)".to_string())
    } else {
        let db = match &o.db {
            Some(db) => db.clone(),
            None => {
                let db = dir.path().join("nim8x32.sqlite");
                eprintln!("solving misère Nim 8×32 into {} …", db.display());
                let status = Command::new(&exe)
                    .args([
                        "solve",
                        "--game",
                        "nim",
                        "--misere",
                        "--max-heaps",
                        "8",
                        "--max-heap",
                        "32",
                        "--db",
                    ])
                    .arg(&db)
                    .stdout(Stdio::null())
                    .status()
                    .unwrap();
                assert!(status.success());
                db
            }
        };
        let mut position = || (0..8).map(|_| (1 + rng.below(32)).to_string()).collect::<Vec<_>>();
        let requests: Vec<Request> = match 1_000_000usize.checked_div(o.batch) {
            None => (0..o.requests.min(1_000_000))
                .map(|_| Request {
                    path: format!(
                        "/api/v1/query?game=nim&convention=misere&position={}{moves}",
                        position().join("%2C")
                    ),
                    body: None,
                })
                .collect(),
            // Batches: at most a million positions made up front, cycled.
            Some(most) => (0..o.requests.min(most).max(1))
                .map(|_| {
                    let positions: Vec<String> =
                        (0..o.batch).map(|_| format!("[{}]", position().join(","))).collect();
                    Request {
                        path: format!("/api/v1/query?game=nim&convention=misere{moves}"),
                        body: Some(format!("[{}]", positions.join(","))),
                    }
                })
                .collect(),
        };
        let per_request = if o.batch == 0 { "one per request" } else { "a batch of them per request" };
        (
            db,
            requests,
            format!("misère Nim 8×32 database, random 8-heap positions (each heap 1..=32), {per_request}"),
        )
    };
    let db_str = db.to_str().unwrap();

    let mut serve = Command::new(&exe);
    serve.args(["serve", "--db", db_str, "--addr", "127.0.0.1:0"]);
    if let Some(w) = &o.workers {
        serve.args(["--workers", w]);
    }
    let mut server = serve.stdout(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(server.stdout.take().unwrap()), &mut line)
        .unwrap();
    let port: u16 = line.trim().rsplit(':').next().unwrap().parse().expect("serve's address");

    // A solve writing to the same file while the load runs.
    let mut writer = o.writer.unwrap_or(o.workload == "nim4x16").then(|| {
        Command::new(&exe)
            .args(["solve", "--game", "kayles", "--misere", "--max-total", "58", "--db", db_str])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    });

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let requests = Arc::new(requests);
    let next = Arc::new(AtomicUsize::new(0));
    let (total, clients) = (o.requests, o.clients);
    let start = Instant::now();
    let reports: Vec<ClientReport> = runtime.block_on(async {
        let tasks: Vec<_> =
            (0..clients).map(|_| tokio::spawn(client(port, next.clone(), total, requests.clone()))).collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap());
        }
        out
    });
    let elapsed = start.elapsed();
    let solve = writer.as_mut().map(|w| (w.try_wait().unwrap().is_none(), w.wait().unwrap()));
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
    let bytes: usize = reports.iter().map(|r| r.body_bytes).sum();
    let failures: Vec<&String> = reports.iter().flat_map(|r| &r.failures).collect();
    println!("workload: {description}");
    let listing = if o.moves { "every move listed" } else { "moves=false, no move list" };
    if o.batch == 0 {
        println!("request: GET /api/v1/query, {listing}, keep-alive");
    } else {
        println!("request: POST /api/v1/query of {} positions, {listing}, keep-alive", o.batch);
    }
    println!("requests: {} by {clients} clients in {:.2} s", latencies.len(), elapsed.as_secs_f64());
    println!("throughput: {:.0} requests/s", latencies.len() as f64 / elapsed.as_secs_f64());
    if o.batch > 0 {
        println!("positions: {:.0} positions/s", (latencies.len() * o.batch) as f64 / elapsed.as_secs_f64());
    }
    println!(
        "latency: p50 {} µs, p99 {} µs, max {} µs",
        pct(0.5).unwrap_or(&0),
        pct(0.99).unwrap_or(&0),
        latencies.last().unwrap_or(&0)
    );
    println!("mean body: {} bytes", bytes / latencies.len().max(1));
    println!("statuses: 2xx {}, 4xx {}, 5xx {}", statuses[2], statuses[4], statuses[5]);
    println!("failed requests: {}", failures.len());
    for f in failures.iter().take(5) {
        println!("  {f}");
    }
    match &solve {
        Some((running, status)) => println!(
            "concurrent solve: {} ({status})",
            if *running { "still running when the load ended" } else { "finished during the load" },
        ),
        None => println!("concurrent solve: none"),
    }
    println!("server shutdown on SIGTERM: {server_status:?}");
    if statuses[5] > 0 || !failures.is_empty() || solve.is_some_and(|(_, s)| !s.success()) {
        std::process::exit(1);
    }
}
