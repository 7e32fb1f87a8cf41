//! The independent plain forward sweep of `benches/plain` (the baseline the solver's speed
//! is measured against) gives the solver's tiers, value for value, and the solver gives the
//! sweep's: on small Nim universes under both conventions, against the retrograde solver
//! and nimdb's own sweep.

#[path = "../benches/plain/mod.rs"]
mod plain;

use nimdb::game::{Convention, GameSpec};
use nimdb::index::{TierId, Universe};
use nimdb::solve::{SolveOptions, Strategy, solve_in_memory};

#[test]
fn plain_sweep_equals_the_solvers() {
    let nim = GameSpec::nim();
    for (heaps, max_heap) in [(5, 9), (8, 4), (3, 20)] {
        for misere in [true, false] {
            let solved = plain::solve_nim(heaps, max_heap, misere);
            let convention = Convention::from_misere(misere);
            let universe = Universe::new(nim.rules(), "nim", None, Some(max_heap), Some(heaps)).unwrap();
            let (mut positions, mut losses) = (0, 0);
            for strategy in [Strategy::Retrograde, Strategy::Sweep] {
                let options = SolveOptions { convention, universe, nim_values: false, strategy };
                let store = solve_in_memory(&nim, &options).unwrap();
                let mut tiers = 0;
                for (total, by_heaps) in solved.tiers.iter().enumerate() {
                    for (k, values) in by_heaps.iter().enumerate() {
                        let tier = TierId { total: total as u32, heaps: k as u32 };
                        if values.is_empty() {
                            assert!(
                                !store.tiers.contains_key(&tier),
                                "{heaps}x{max_heap} {convention} {tier}"
                            );
                            continue;
                        }
                        let theirs = &store.tiers[&tier].remoteness;
                        assert_eq!(
                            theirs, values,
                            "{heaps}x{max_heap} {convention} {strategy:?} tier {tier}"
                        );
                        tiers += 1;
                    }
                }
                assert_eq!(tiers, store.tiers.len());
                positions = store.tiers.values().map(|t| t.remoteness.len() as u64).sum::<u64>();
                losses = store.tiers.values().map(|t| t.losses(convention)).sum::<u64>();
            }
            assert_eq!((solved.positions, solved.losses), (positions, losses));
            assert!(
                solved.edges > solved.positions,
                "{heaps}x{max_heap}: every position but one has children"
            );
        }
    }
}
