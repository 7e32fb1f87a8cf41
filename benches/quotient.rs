//! Misère quotients against the position database, in one run.
//!
//! * `kayles_certified`: the open-ended Kayles computation, which stops at the first proven
//!   period (heap 168) and then answers every position of any size.
//! * `kayles_to_heap_1000`, `lines_to_heap_1000`: the quotients of heaps 1..1000
//!   (`nimdb quotient --max-heap 1000`). They answer every position whose heaps are at most
//!   1000; no database reaches that (the positions of total 1000 alone number about
//!   2.4·10³¹).
//! * Same outcome coverage: `*_to_heap_40` (every position whose heaps are at most 40, so
//!   every position of total ≤ 40 and infinitely many more) against `*_database_total_40`,
//!   a retrograde solve of every misère position of total ≤ 40 (215,308 positions).
//! * MisereSolver's examples, open-ended to the first proven period: `octal_0123_certified`
//!   (|Q| = 20), `octal_0144_certified` (30); and Dawson's Kayles, which recalibrates:
//!   `dawson_to_heap_25` (144 elements) and `dawson_to_heap_33` (638), against
//!   `dawson_database_total_40`, a solve of every misère position of total ≤ 40 with heaps
//!   ≤ 25 (the quotient of heaps 1..25 covers those and infinitely more).

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::solve::{DiscardStore, Silent, SolveOptions, Strategy, solve};
use nimdb::theory::quotient::{QuotientOptions, compute_quotient};

fn quotient(game: &str, max_heap: Option<u32>) -> usize {
    let spec: GameSpec = game.parse().unwrap();
    let opts = QuotientOptions { max_heap, ..Default::default() };
    compute_quotient(spec.octal().unwrap(), opts, &mut |_, _| true).unwrap().size()
}

fn database(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    game: &str,
    max_heap: Option<u32>,
) {
    let spec: GameSpec = game.parse().unwrap();
    let universe = Universe::new(spec.rules(), game, Some(40), max_heap, None).unwrap();
    let options = SolveOptions {
        convention: Convention::Misere,
        universe,
        nim_values: false,
        strategy: Strategy::Retrograde,
    };
    c.bench_function(format!("{game}_database_total_40"), |b| {
        b.iter(|| solve(&spec, &options, &mut DiscardStore::new(Convention::Misere), &Silent).unwrap())
    });
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("quotient");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.bench_function("kayles_certified", |b| b.iter(|| quotient("kayles", None)));
    group.bench_function("kayles_to_heap_1000", |b| b.iter(|| quotient("kayles", Some(1000))));
    group.bench_function("lines_to_heap_1000", |b| b.iter(|| quotient("lines", Some(1000))));
    for game in ["kayles", "lines"] {
        group.bench_function(format!("{game}_to_heap_40"), |b| b.iter(|| quotient(game, Some(40))));
        database(&mut group, game, None);
    }
    group.bench_function("octal_0123_certified", |b| b.iter(|| quotient("octal:0.123", None)));
    group.bench_function("octal_0144_certified", |b| b.iter(|| quotient("octal:0.144", None)));
    group.bench_function("dawson_to_heap_25", |b| b.iter(|| quotient("dawson", Some(25))));
    group.bench_function("dawson_to_heap_33", |b| b.iter(|| quotient("dawson", Some(33))));
    database(&mut group, "dawson", Some(25));
    group.finish();
}

criterion_group!(quotient_benches, benches);
criterion_main!(quotient_benches);
