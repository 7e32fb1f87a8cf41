//! The tier writer beside the solver, in the same run: misère Nim solved into a new SQLite
//! file, the writer committing the whole tiers it finds queued together in one transaction
//! (`grouped`, the default) against one tier a transaction (`plain`, as before), on rayon
//! pools of one and two threads, with the solver alone (nothing stored) as the yardstick.
//! Each iteration opens a new file, so the schema's creation and the last fold of the log
//! are in every figure. Criterion times the wall clock: the comparison of thread counts
//! means something only on a machine whose two cores are otherwise idle; docs/performance.md
//! ("The tier writer beside two threads") measures the CPU from outside.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::solve::{DiscardStore, Silent, SolveOptions, Strategy, solve};
use nimdb::{Database, solve_into};

/// Solves `universe` into a new file in `dir`, grouping commits or not; the positions.
fn into_file(dir: &std::path::Path, nim: &GameSpec, universe: Universe, grouped: bool) -> u64 {
    let path = dir.join("writer.sqlite");
    for side in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{side}", path.display()));
    }
    let mut db = Database::open(&path).unwrap();
    db.set_group_commits(grouped);
    let (solve, _) = solve_into(&mut db, nim, Convention::Misere, universe, false, &Silent).unwrap();
    solve.positions
}

fn writer_benches(c: &mut Criterion) {
    let nim = GameSpec::nim();
    let universe = Universe::new(nim.rules(), "nim", None, Some(20), Some(8)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let positions = into_file(dir.path(), &nim, universe, true);
    let mut group = c.benchmark_group("writer/nim_misere_8x20");
    group.sample_size(10);
    group.throughput(Throughput::Elements(positions));
    let options = SolveOptions {
        convention: Convention::Misere,
        universe,
        nim_values: false,
        strategy: Strategy::Retrograde,
    };
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        group.bench_function(format!("{threads}_threads_solver_alone"), |b| {
            b.iter(|| {
                pool.install(|| solve(&nim, &options, &mut DiscardStore::new(Convention::Misere), &Silent))
            })
        });
        for (name, grouped) in [("grouped", true), ("plain", false)] {
            group.bench_function(format!("{threads}_threads_into_sqlite_{name}"), |b| {
                b.iter(|| pool.install(|| into_file(dir.path(), &nim, universe, grouped)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, writer_benches);
criterion_main!(benches);
