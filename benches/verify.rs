//! `verify` throughput in positions a second, each against a plain baseline in the same run:
//! - a heap game (misère Kayles to total 45): the whole check of every stored position (the
//!   tame prediction and the misère quotient, in parallel stretches), against a plain pass
//!   on one thread that loads each tier, walks its positions and applies the tame prediction
//!   to a vector of the heaps' nim-values (what verify did per position before);
//! - a family with many small tiers (`raise:2` with 150 heaps, 11,476 tiers of one position):
//!   every position checked against its children, against a plain read of every record once,
//!   tier by tier.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nimdb::game::{Convention, Game, GameSpec};
use nimdb::index::Universe;
use nimdb::solve::Silent;
use nimdb::store::Database;
use nimdb::verify::{VerifyOptions, verify_with};

fn heap_game(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kayles.sqlite");
    let mut db = Database::open(&path).unwrap();
    let kayles: GameSpec = "kayles".parse().unwrap();
    let universe = Universe::new(kayles.rules(), "kayles", Some(45), None, None).unwrap();
    let (solve, report) =
        nimdb::driver::solve_into(&mut db, &kayles, Convention::Misere, universe, false, &Silent).unwrap();
    let game = Game::Heaps(kayles.clone());
    let options = VerifyOptions { sample: 0, seed: 1, full: false };
    let mut group = c.benchmark_group("verify/kayles_misere_45");
    group.throughput(Throughput::Elements(report.positions));
    group.sample_size(10);
    group.bench_function("verify", |b| {
        b.iter(|| {
            let r = verify_with(&db, &game, Convention::Misere, &options).unwrap();
            assert_eq!(r.checked, report.positions);
            black_box(r)
        })
    });
    let table = universe.table().unwrap();
    let g = nimdb::theory::nim_values(kayles.heap_rules().unwrap(), universe.part_cap());
    group.bench_function("plain_tier_walk", |b| {
        b.iter(|| {
            let mut agree = 0u64;
            for tier in universe.tiers() {
                let stored = db.load_tier(solve.id, tier).unwrap();
                let mut walk = table.walk(tier);
                for &r in &stored.remoteness {
                    let heaps = walk.next().unwrap();
                    let values: Vec<u32> = heaps.iter().map(|&h| g[h as usize]).collect();
                    let loss = nimdb::theory::tame_misere_loss(&values);
                    agree += u64::from(loss != Convention::Misere.is_win(r as u32));
                }
            }
            black_box(agree)
        })
    });
    group.finish();
}

fn family(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("raise.sqlite");
    let mut db = Database::open(&path).unwrap();
    let game: Game = "raise:2".parse().unwrap();
    let bounds = nimdb::space::space_bounds(&game, None, None, Some(150)).unwrap();
    let space = nimdb::space::space_of(&game, bounds).unwrap();
    let (solve, _) =
        nimdb::driver::solve_space_into(&mut db, &game, Convention::Normal, space.as_ref(), &Silent).unwrap();
    let positions = space.positions();
    let mut group = c.benchmark_group("verify/raise2_150_heaps");
    group.throughput(Throughput::Elements(positions));
    group.sample_size(10);
    let options = VerifyOptions { sample: 0, seed: 1, full: false };
    group.bench_function("verify", |b| {
        b.iter(|| {
            let r = verify_with(&db, &game, Convention::Normal, &options).unwrap();
            assert_eq!(r.sampled, positions);
            black_box(r)
        })
    });
    group.bench_function("plain_read_every_record", |b| {
        b.iter(|| {
            let mut sum = 0u64;
            for tier in space.tiers() {
                db.for_each_record(solve.id, tier, space.size(tier), |_, record| {
                    sum += u64::from(record.remoteness);
                    Ok::<(), nimdb::store::StoreError>(())
                })
                .unwrap();
            }
            black_box(sum)
        })
    });
    group.finish();
}

criterion_group!(benches, heap_game, family);
criterion_main!(benches);
