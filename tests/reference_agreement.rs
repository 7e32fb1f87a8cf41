//! The retrograde solver and the full sweep agree with an independent forward search
//! (memoized minimax) on the outcome and remoteness of every position, under both
//! conventions, and the sweep's nim-values agree with a forward mex.

use std::collections::HashMap;

use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::solve::reference::ReferenceSearch;
use nimdb::solve::{SolveOptions, Strategy, solve_in_memory};

fn check(game: &str, max_total: u32) {
    let spec: GameSpec = game.parse().unwrap();
    for convention in [Convention::Normal, Convention::Misere] {
        let universe = Universe::new(spec.rules(), game, Some(max_total), None, None).unwrap();
        let table = universe.table().unwrap();
        let retro = solve_in_memory(
            &spec,
            &SolveOptions { convention, universe, nim_values: false, strategy: Strategy::Retrograde },
        )
        .unwrap();
        let sweep = solve_in_memory(
            &spec,
            &SolveOptions { convention, universe, nim_values: true, strategy: Strategy::Sweep },
        )
        .unwrap();
        let mut reference = ReferenceSearch::new(spec.rules(), convention);
        let mut values = HashMap::new();
        let mut checked = 0;
        for tier in universe.tiers() {
            let r_tier = &retro.tiers[&tier];
            let s_tier = &sweep.tiers[&tier];
            for (rank, position) in table.positions(tier).enumerate() {
                let (win, remoteness) = reference.solve(&position);
                let r = r_tier.remoteness[rank] as u32;
                let s = s_tier.remoteness[rank] as u32;
                assert_eq!(
                    (convention.is_win(r), r),
                    (win, remoteness),
                    "{game} {convention} {position}: retrograde"
                );
                assert_eq!(
                    (convention.is_win(s), s),
                    (win, remoteness),
                    "{game} {convention} {position}: sweep"
                );
                let g = s_tier.nim_values.as_ref().unwrap()[rank] as u32;
                assert_eq!(
                    g,
                    reference.nim_value(&position, &mut values),
                    "{game} {convention} {position}: nim-value"
                );
                assert_eq!(g == 0, !win, "{game} {convention} {position}: nim-value 0 iff loss");
                checked += 1;
            }
        }
        assert_eq!(checked, universe.positions(&table));
    }
}

#[test]
fn nim_to_14() {
    check("nim", 14);
}

#[test]
fn subtraction_123_to_30() {
    check("subtraction:1,2,3", 30);
}

#[test]
fn kayles_to_16() {
    check("kayles", 16);
}

#[test]
fn dawson_to_16() {
    check("dawson", 16);
}

#[test]
fn lines_to_16() {
    check("lines", 16);
}

#[test]
fn grundy_to_16() {
    check("grundy", 16);
}

#[test]
fn octal_0137_to_14() {
    check("octal:0.137", 14);
}

#[test]
fn octal_4_7_to_14() {
    check("octal:4.7", 14);
}

#[test]
fn capped_nim_universe() {
    // Caps on heap size and count: the retrograde solver must respect them when marking.
    let spec = GameSpec::nim();
    for convention in [Convention::Normal, Convention::Misere] {
        let universe = Universe::new(spec.rules(), "nim", None, Some(5), Some(3)).unwrap();
        let table = universe.table().unwrap();
        let retro = solve_in_memory(
            &spec,
            &SolveOptions { convention, universe, nim_values: false, strategy: Strategy::Retrograde },
        )
        .unwrap();
        let mut reference = ReferenceSearch::new(spec.rules(), convention);
        for tier in universe.tiers() {
            for (rank, position) in table.positions(tier).enumerate() {
                let (_, remoteness) = reference.solve(&position);
                assert_eq!(retro.tiers[&tier].remoteness[rank] as u32, remoteness, "{position}");
            }
        }
    }
}
