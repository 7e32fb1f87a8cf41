//! Solve throughput: the retrograde solver against the sweeps that visit every child of
//! every position, on the same universes in the same run. Throughput is in positions; the
//! edges each follows are printed once before the timings. `sweep` is nimdb's own
//! (`Strategy::Sweep`, the code path of nim-values); for Nim, `plain_sweep` is the
//! independent plain forward sweep of `benches/plain`, the baseline of docs/performance.md's
//! figures (it shares no code with the solvers). `partitioned_alone` is the partitioned
//! solver as one member alone (what `nimdb solve --mpi` runs without `mpirun`), against the
//! retrograde solver of the same group: the overhead of partitioning (docs/DISTRIBUTED.md).

#[path = "plain/mod.rs"]
#[allow(dead_code)] // The tiers themselves are compared in tests/plain_sweep.rs, not here.
mod plain;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::solve::{
    Alone, DiscardStore, Silent, SolveOptions, SolveReport, Strategy, solve, solve_partitioned,
};

fn run(game: &GameSpec, options: &SolveOptions) -> SolveReport {
    solve(game, options, &mut DiscardStore::new(options.convention), &Silent).unwrap()
}

fn bench_universe(c: &mut Criterion, name: &str, game: &str, convention: Convention, universe: Universe) {
    let spec: GameSpec = game.parse().unwrap();
    let mut group = c.benchmark_group(format!("solve/{name}"));
    group.sample_size(10);
    for strategy in [Strategy::Retrograde, Strategy::Sweep] {
        let options = SolveOptions { convention, universe, nim_values: false, strategy };
        let report = run(&spec, &options);
        eprintln!(
            "{name} {strategy:?}: {} positions, {} edges ({:.1} edges/position)",
            report.positions,
            report.edges,
            report.edges as f64 / report.positions as f64
        );
        group.throughput(Throughput::Elements(report.positions));
        group.bench_function(format!("{strategy:?}").to_lowercase(), |b| b.iter(|| run(&spec, &options)));
    }
    let options = SolveOptions { convention, universe, nim_values: false, strategy: Strategy::Retrograde };
    group.bench_function("partitioned_alone", |b| {
        b.iter(|| {
            solve_partitioned(&spec, &options, &mut DiscardStore::new(convention), &Silent, &Alone).unwrap()
        })
    });
    if game == "nim"
        && let (Some(max_heap), Some(max_heaps)) = (universe.max_heap, universe.max_heaps)
    {
        let misere = convention == Convention::Misere;
        let solved = plain::solve_nim(max_heaps, max_heap, misere);
        eprintln!(
            "{name} plain sweep: {} positions, {} edges ({:.1} edges/position)",
            solved.positions,
            solved.edges,
            solved.edges as f64 / solved.positions as f64
        );
        group.throughput(Throughput::Elements(solved.positions));
        group.bench_function("plain_sweep", |b| b.iter(|| plain::solve_nim(max_heaps, max_heap, misere)));
    }
    group.finish();
}

fn solve_benches(c: &mut Criterion) {
    let nim = GameSpec::nim();
    let nim_8x16 = Universe::new(nim.rules(), "nim", None, Some(16), Some(8)).unwrap();
    bench_universe(c, "nim_misere_8x16", "nim", Convention::Misere, nim_8x16);
    let lines = "lines".parse::<GameSpec>().unwrap();
    let lines_36 = Universe::new(lines.rules(), "lines", Some(36), None, None).unwrap();
    bench_universe(c, "lines_misere_36", "lines", Convention::Misere, lines_36);
    let kayles = "kayles".parse::<GameSpec>().unwrap();
    let kayles_40 = Universe::new(kayles.rules(), "kayles", Some(40), None, None).unwrap();
    bench_universe(c, "kayles_misere_40", "kayles", Convention::Misere, kayles_40);
    // Families whose moves change several heaps.
    let wythoff = "wythoff".parse::<GameSpec>().unwrap();
    let wythoff_3x64 = Universe::new(wythoff.rules(), "wythoff", None, Some(64), Some(3)).unwrap();
    bench_universe(c, "wythoff_misere_3x64", "wythoff", Convention::Misere, wythoff_3x64);
    let moore = "moore:2".parse::<GameSpec>().unwrap();
    let moore_6x10 = Universe::new(moore.rules(), "moore:2", None, Some(10), Some(6)).unwrap();
    bench_universe(c, "moore2_normal_6x10", "moore:2", Convention::Normal, moore_6x10);
}

criterion_group!(benches, solve_benches);
criterion_main!(benches);
