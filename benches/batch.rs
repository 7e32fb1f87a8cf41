//! Batch queries against one-process queries, on stored positions of misère Nim 8×32
//! (76,904,685 positions): `nimdb query --batch` reading 100,000 random positions from a
//! file, against `nimdb query --json` run once per position (1,000 runs in all). Also the
//! in-process lookup rate of a [`Session`].
//!
//! `cargo bench --bench batch`. Set `NIMDB_BENCH_DB` to reuse a database that holds the
//! solve (it is built in a temporary directory otherwise, which takes a few seconds).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nimdb::batch::Session;
use nimdb::game::{Convention, GameSpec, Position};
use nimdb::index::Universe;
use nimdb::solve::Silent;
use nimdb::store::Database;

const BATCH_LINES: usize = 100_000;
const ONE_PROCESS_PER_SAMPLE: usize = 100;

fn positions(n: usize, seed: u64) -> Vec<Position> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            let heaps = (0..8)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    ((state >> 33) % 33) as u32
                })
                .collect();
            Position::new(heaps)
        })
        .collect()
}

fn database(dir: &Path) -> PathBuf {
    if let Ok(path) = std::env::var("NIMDB_BENCH_DB") {
        return PathBuf::from(path);
    }
    let path = dir.join("nim_misere_8x32.sqlite");
    let mut db = Database::open(&path).unwrap();
    let nim = GameSpec::nim();
    let universe = Universe::new(nim.rules(), "nim", None, Some(32), Some(8)).unwrap();
    nimdb::driver::solve_into(&mut db, &nim, Convention::Misere, universe, false, &Silent).unwrap();
    path
}

fn batch(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path());
    let input = dir.path().join("positions.txt");
    let lines: Vec<String> = positions(BATCH_LINES, 7)
        .iter()
        .map(|p| p.heaps().iter().map(u32::to_string).collect::<Vec<_>>().join(" "))
        .collect();
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let exe = env!("CARGO_BIN_EXE_nimdb");

    let mut group = c.benchmark_group("batch/nim_misere_8x32");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.throughput(Throughput::Elements(BATCH_LINES as u64));
    group.bench_function("query_batch_process_100k_lines", |b| {
        b.iter(|| {
            let status = Command::new(exe)
                .args(["query", "--misere", "--batch", "--db"])
                .arg(&db)
                .stdin(std::fs::File::open(&input).unwrap())
                .stdout(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success());
        })
    });
    group.throughput(Throughput::Elements(ONE_PROCESS_PER_SAMPLE as u64));
    let mut i = 0;
    group.bench_function("one_process_query_json", |b| {
        b.iter(|| {
            for _ in 0..ONE_PROCESS_PER_SAMPLE {
                i = (i + 1) % lines.len();
                let out = Command::new(exe)
                    .args(["query", "--misere", "--json", "--db"])
                    .arg(&db)
                    .args(lines[i].split(' '))
                    .stderr(Stdio::null())
                    .output()
                    .unwrap();
                assert!(out.status.success());
            }
        })
    });
    group.finish();

    let database = Database::open_read_only(&db).unwrap();
    let mut session = Session::new(&database);
    let queries: Vec<Vec<u64>> = positions(1 << 16, 11).iter().map(Position::cells).collect();
    let game = nimdb::game::Game::from(GameSpec::nim());
    let mut group = c.benchmark_group("batch/nim_misere_8x32_in_process");
    group.throughput(Throughput::Elements(1));
    let mut j = 0;
    group.bench_function("session_lookup", |b| {
        b.iter(|| {
            j = (j + 1) % queries.len();
            black_box(session.lookup(&game, Convention::Misere, &queries[j]).unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, batch);
criterion_main!(benches);
