//! One thread against two in the same run: the retrograde solver on a rayon pool of each
//! size, on universes large enough that the marking runs in parallel (each thread into its
//! own copy of the arrays marked) and the children are read in parallel. Throughput is in
//! positions. Criterion times the wall clock: on a machine whose two cores are shared it
//! says little about the CPU a second thread costs, which docs/performance.md measures
//! from outside (paired whole-process runs, `RAYON_NUM_THREADS=1` against `2`, CPU = user + system).
//!
//! `threads_keep/…` times two threads with each solved tier kept (its losses found and
//! decoded, its unmarked positions gathered, its arrays set up) in parallel, the solver's
//! way, against the same two threads keeping on the solving thread alone (the plain
//! baseline, the solver before branch `threads5`) and against one thread, in the same run.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::solve::{
    DiscardStore, Silent, SolveOptions, SolveReport, Strategy, keep_on_the_solving_thread, solve,
};

/// Outcome and remoteness of misère `universe` by the retrograde solver.
fn misere(universe: Universe) -> SolveOptions {
    SolveOptions {
        convention: Convention::Misere,
        universe,
        nim_values: false,
        strategy: Strategy::Retrograde,
    }
}

fn run(game: &GameSpec, options: &SolveOptions) -> SolveReport {
    solve(game, options, &mut DiscardStore::new(options.convention), &Silent).unwrap()
}

fn bench_threads(c: &mut Criterion, name: &str, game: &str, universe: Universe) {
    let spec: GameSpec = game.parse().unwrap();
    let options = misere(universe);
    let mut group = c.benchmark_group(format!("threads/{name}"));
    group.sample_size(10);
    let report = run(&spec, &options);
    eprintln!("{name}: {} positions, {} edges", report.positions, report.edges);
    group.throughput(Throughput::Elements(report.positions));
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        group.bench_function(format!("{threads}_threads"), |b| {
            b.iter(|| pool.install(|| run(&spec, &options)))
        });
    }
    group.finish();
}

/// Two threads keeping each solved tier in parallel against two keeping on the solving
/// thread alone, and one thread, on misère `universe` of `game`.
fn bench_keep(c: &mut Criterion, name: &str, game: &str, universe: Universe) {
    let spec: GameSpec = game.parse().unwrap();
    let options = misere(universe);
    let mut group = c.benchmark_group(format!("threads_keep/{name}"));
    group.sample_size(10);
    let report = run(&spec, &options);
    group.throughput(Throughput::Elements(report.positions));
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    for (label, pool, alone) in [
        ("1_thread", &one, false),
        ("2_threads_keeping_alone", &two, true),
        ("2_threads_keeping_in_parallel", &two, false),
    ] {
        group.bench_function(label, |b| {
            keep_on_the_solving_thread(alone);
            b.iter(|| pool.install(|| run(&spec, &options)))
        });
    }
    keep_on_the_solving_thread(false);
    group.finish();
}

fn threads_benches(c: &mut Criterion) {
    let nim = GameSpec::nim();
    let nim_8x20 = Universe::new(nim.rules(), "nim", None, Some(20), Some(8)).unwrap();
    bench_threads(c, "nim_misere_8x20", "nim", nim_8x20);
    let kayles = "kayles".parse::<GameSpec>().unwrap();
    let kayles_56 = Universe::new(kayles.rules(), "kayles", Some(56), None, None).unwrap();
    bench_threads(c, "kayles_misere_56", "kayles", kayles_56);
    let nim_8x24 = Universe::new(nim.rules(), "nim", None, Some(24), Some(8)).unwrap();
    bench_keep(c, "nim_misere_8x24", "nim", nim_8x24);
}

criterion_group!(benches, threads_benches);
criterion_main!(benches);
