//! Misère quotients against the position database: the certified quotient of Kayles (which
//! answers every position, of any size) and the quotients of lines (0.[7], no certificate:
//! heaps 1..N) against a retrograde solve of every misère position up to total 40.

use criterion::{Criterion, criterion_group, criterion_main};
use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::solve::{DiscardStore, Silent, SolveOptions, Strategy, solve};
use nimdb::theory::quotient::{QuotientOptions, compute_quotient};

fn quotient(game: &str, max_heap: Option<u32>) -> usize {
    let spec: GameSpec = game.parse().unwrap();
    let opts = QuotientOptions { max_heap, ..Default::default() };
    compute_quotient(spec.octal().unwrap(), opts, &mut |_, _| true).unwrap().size()
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("quotient");
    group.sample_size(10);
    group.bench_function("kayles_certified", |b| b.iter(|| quotient("kayles", None)));
    group.bench_function("lines_to_heap_128", |b| b.iter(|| quotient("lines", Some(128))));
    let kayles: GameSpec = "kayles".parse().unwrap();
    let universe = Universe::new(kayles.rules(), "kayles", Some(40), None, None).unwrap();
    let options = SolveOptions {
        convention: Convention::Misere,
        universe,
        nim_values: false,
        strategy: Strategy::Retrograde,
    };
    group.bench_function("kayles_database_total_40", |b| {
        b.iter(|| solve(&kayles, &options, &mut DiscardStore::new(Convention::Misere), &Silent).unwrap())
    });
    group.finish();
}

criterion_group!(quotient_benches, benches);
criterion_main!(quotient_benches);
