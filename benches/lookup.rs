//! In-process lookup latency: one position probed in a stored solve (one block read by
//! offset and checked), against the plain way of loading and checking its whole tier.
//! Also prints the bytes per stored position.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nimdb::game::{Convention, GameSpec, Position};
use nimdb::index::{TierId, Universe};
use nimdb::solve::Silent;
use nimdb::store::{Database, Prober};

fn lookups(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.sqlite");
    let mut db = Database::open(&path).unwrap();
    let nim = GameSpec::nim();
    let universe = Universe::new(nim.rules(), "nim", None, Some(24), Some(8)).unwrap();
    let (solve, report) =
        nimdb::driver::solve_into(&mut db, &nim, Convention::Misere, universe, false, &Silent).unwrap();
    drop(db);
    let bytes = std::fs::metadata(&path).unwrap().len();
    eprintln!(
        "stored {} positions: payload {:.3} bytes/position, file {:.3} bytes/position",
        report.positions,
        solve.bytes as f64 / report.positions as f64,
        bytes as f64 / report.positions as f64
    );
    let db = Database::open(&path).unwrap();
    // Positions spread over the universe, from a fixed pseudo-random sequence.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let positions: Vec<Position> = (0..4096)
        .map(|_| {
            let heaps = (0..8)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    ((state >> 33) % 25) as u32
                })
                .collect();
            Position::new(heaps)
        })
        .collect();
    let mut group = c.benchmark_group("lookup/nim_misere_8x24");
    group.throughput(Throughput::Elements(1));
    let mut i = 0;
    let mut prober = Prober::new(&db, solve.clone(), u32::MAX).unwrap();
    group.bench_function("probe_cold_block", |b| {
        b.iter(|| {
            // Every lookup reads and checks its block from the database.
            prober.clear_block_cache();
            i = (i + 1) % positions.len();
            black_box(prober.record(&positions[i]).unwrap())
        })
    });
    group.bench_function("probe_new_prober", |b| {
        b.iter(|| {
            // A one-off query: a new prober (rank table, tier metadata) per lookup.
            let mut prober = Prober::new(&db, solve.clone(), u32::MAX).unwrap();
            i = (i + 1) % positions.len();
            black_box(prober.record(&positions[i]).unwrap())
        })
    });
    group.sample_size(10);
    let table = universe.table().unwrap();
    group.bench_function("load_whole_tier_baseline", |b| {
        b.iter(|| {
            i = (i + 1) % positions.len();
            let p = &positions[i];
            let tier = db.load_tier(solve.id, TierId::of(p)).unwrap();
            let rank = table.rank(p.heaps()) as usize;
            black_box(tier.remoteness[rank])
        })
    });
    group.finish();
}

criterion_group!(benches, lookups);
criterion_main!(benches);
