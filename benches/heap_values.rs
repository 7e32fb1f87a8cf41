//! Nim-value sequences: the fast methods against the plain mex baseline in the same run, in
//! heaps per second (criterion's throughput). The plain mex is O(n²), so it runs to 20,000;
//! the rare-pair engine (codes with no period: 0.161, Grundy's game) to 200,000 and more.
//!
//! Run: `cargo bench --bench heap_values -- --sample-size 10`

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use nimdb::game::GameSpec;
use nimdb::theory::shape::HeapShape;
use nimdb::theory::sparse::{MethodChoice, compute_with};

fn shape(game: &str) -> HeapShape {
    HeapShape::of(game.parse::<GameSpec>().unwrap().heap_rules().unwrap())
}

fn bench(c: &mut Criterion, game: &str, cases: &[(&str, MethodChoice, u32)]) {
    let s = shape(game);
    let mut group = c.benchmark_group(game);
    group.sample_size(10);
    for &(name, choice, n) in cases {
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new(name, n), &n, |b, &n| {
            b.iter(|| compute_with(black_box(&s), n, &[], choice).0.len())
        });
    }
    group.finish();
}

fn heap_values(c: &mut Criterion) {
    use MethodChoice::*;
    // Kayles: the sparse method alone, the automatic choice (which stops at a certified
    // period), and the plain baseline.
    bench(c, "kayles", &[("sparse", Sparse, 1_000_000), ("auto", Auto, 1_000_000), ("plain", Plain, 20_000)]);
    // Dawson's Kayles has no sparse space (about a third of its heaps are "rare" under every
    // mask): its speed comes from the Guy–Smith certificate.
    bench(c, "dawson", &[("auto", Auto, 1_000_000), ("plain", Plain, 20_000)]);
    // Codes with no period: the rare-pair engine does all the work, against the plain mex
    // over the same first heaps and further.
    bench(
        c,
        "grundy",
        &[("rare-pair", Auto, 20_000), ("rare-pair", Auto, 200_000), ("plain", Plain, 20_000)],
    );
    bench(
        c,
        "octal:0.161",
        &[("rare-pair", Auto, 20_000), ("rare-pair", Auto, 1_000_000), ("plain", Plain, 20_000)],
    );
}

criterion_group!(benches, heap_values);
criterion_main!(benches);
