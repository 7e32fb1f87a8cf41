//! Ranking a tier's neighbours: the children (every number of tokens a move of the game
//! takes) and the parents that join two heaps of every position of one tier, run by run
//! (the solver's routine) against heap by heap (the routine before it), in the same run.
//! Both give the same ranks: the sums are compared before the timings. Throughput is in
//! ranks (edges).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use nimdb_core::game::{GameRules, GameSpec};
use nimdb_core::index::{PartitionTable, TierId};
use nimdb_solve::{Routine, loss_neighbour_ranks, marking_ranks, neighbour_ranks};

fn bench_tier(c: &mut Criterion, game: &str, tier: TierId, max_total: u32) {
    let spec: GameSpec = game.parse().unwrap();
    let reach = spec.rules().max_take().unwrap_or(max_total);
    let table = PartitionTable::new(max_total, max_total, max_total).unwrap();
    let by_runs = neighbour_ranks(&spec, &table, tier, reach, Routine::Runs);
    let by_heaps = neighbour_ranks(&spec, &table, tier, reach, Routine::Heaps);
    assert_eq!(by_runs, by_heaps, "{game} {tier:?}: the routines rank differently");
    let mut group = c.benchmark_group(format!("ranks/{game}/{}x{}", tier.total, tier.heaps));
    group.sample_size(10);
    group.throughput(Throughput::Elements(by_runs.1));
    for (name, routine) in [("by_runs", Routine::Runs), ("by_heaps", Routine::Heaps)] {
        group.bench_function(name, |b| b.iter(|| neighbour_ranks(&spec, &table, tier, reach, routine)));
    }
    group.finish();
}

/// A loss's children and its parents in the totals above, every eighth position of `tier`
/// standing for the losses (misère Kayles's are one in eight): unranked once for both, as
/// the solver does, against once for the children and again for each number of tokens
/// added (marking one total at a time, before).
fn bench_losses(c: &mut Criterion, game: &str, tier: TierId, max_total: u32) {
    let spec: GameSpec = game.parse().unwrap();
    let reach = spec.rules().max_take().unwrap_or(max_total);
    let table = PartitionTable::new(max_total, max_total, max_total).unwrap();
    let once = loss_neighbour_ranks(&spec, &table, tier, reach, 8, true);
    let again = loss_neighbour_ranks(&spec, &table, tier, reach, 8, false);
    assert_eq!(once, again, "{game} {tier:?}: unranking once ranks differently");
    let mut group = c.benchmark_group(format!("losses/{game}/{}x{}", tier.total, tier.heaps));
    group.sample_size(10);
    group.throughput(Throughput::Elements(once.1));
    for (name, unrank_once) in [("unranked_once", true), ("unranked_per_total", false)] {
        group.bench_function(name, |b| {
            b.iter(|| loss_neighbour_ranks(&spec, &table, tier, reach, 8, unrank_once))
        });
    }
    group.finish();
}

/// A decoded loss's parents in every total above it, every eighth position of `tier`
/// standing for the losses: the totals in batches of four, the loss loaded once for a batch
/// and its grown and joined parents walked for the four at once (lines' marking since issue
/// 33's seventh round), against loaded again for each total with every kind walked for it.
fn bench_marking(c: &mut Criterion, game: &str, tier: TierId, max_total: u32) {
    let spec: GameSpec = game.parse().unwrap();
    let table = PartitionTable::new(max_total, max_total, max_total).unwrap();
    let batched = marking_ranks(&spec, &table, tier, 8, 4);
    let per_total = marking_ranks(&spec, &table, tier, 8, 1);
    assert_eq!(batched, per_total, "{game} {tier:?}: batched marking ranks differently");
    let mut group = c.benchmark_group(format!("marking/{game}/{}x{}", tier.total, tier.heaps));
    group.sample_size(10);
    group.throughput(Throughput::Elements(batched.1));
    for (name, batch) in [("four_totals_a_pass", 4), ("one_total_a_pass", 1)] {
        group.bench_function(name, |b| b.iter(|| marking_ranks(&spec, &table, tier, 8, batch)));
    }
    group.finish();
}

fn ranks(c: &mut Criterion) {
    bench_losses(c, "kayles", TierId { total: 60, heaps: 14 }, 62);
    bench_marking(c, "lines", TierId { total: 50, heaps: 12 }, 62);
    // Large tiers of the totals the performance chapter profiles (misère Kayles 50 and 60).
    bench_tier(c, "kayles", TierId { total: 50, heaps: 12 }, 52);
    bench_tier(c, "kayles", TierId { total: 60, heaps: 14 }, 62);
    bench_tier(c, "lines", TierId { total: 60, heaps: 14 }, 62);
}

criterion_group!(benches, ranks);
criterion_main!(benches);
