//! The seed documents' games, as nimdb solves them.

use std::collections::BTreeSet;

use nimdb::game::Outcome;
use nimdb::game::{Convention, GameSpec, Position};
use nimdb::index::Universe;
use nimdb::query::{AUTO_SOLVE_LIMIT, query};
use nimdb::solve::{SolveOptions, Strategy, solve_in_memory};
use nimdb::store::Database;

/// Seeds 000/004: take 1..3, last mover loses — a loss exactly at n ≡ 1 (mod 4).
#[test]
fn take_one_to_three_misere_loses_at_one_mod_four() {
    let spec: GameSpec = "subtraction:1,2,3".parse().unwrap();
    let universe = Universe::new(spec.rules(), "s", Some(400), None, Some(1)).unwrap();
    let options = SolveOptions {
        convention: Convention::Misere,
        universe,
        nim_values: false,
        strategy: Strategy::Retrograde,
    };
    let store = solve_in_memory(&spec, &options).unwrap();
    for n in 0..=400u32 {
        let tier = nimdb::index::TierId { total: n, heaps: u32::from(n > 0) };
        let r = store.tiers[&tier].remoteness[0] as u32;
        assert_eq!(Convention::Misere.is_win(r), n % 4 != 1, "n = {n}");
    }
}

/// Seed 004: with n = 6 the player to move wins, and the winning move is to take 1.
#[test]
fn seed_004_six_sticks_win_by_taking_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(&dir.path().join("t.sqlite")).unwrap();
    let spec: GameSpec = "subtraction:1,2,3".parse().unwrap();
    let a = query(&mut db, &spec.into(), Convention::Misere, &[6], AUTO_SOLVE_LIMIT).unwrap();
    assert_eq!(a.outcome, Outcome::Win);
    let best = a.best_move.unwrap();
    assert_eq!((best.taken, best.to), (Some(1), vec![5]));
    let winning: Vec<u128> =
        a.moves.iter().filter(|m| m.outcome == Outcome::Loss).filter_map(|m| m.taken).collect();
    assert_eq!(winning, [1], "taking 1 is the only winning move");
}

/// Seed 002: in the misère line game, [3,1] has exactly five children and wins by moving to [1].
#[test]
fn seed_002_line_game_three_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(&dir.path().join("t.sqlite")).unwrap();
    let spec: GameSpec = "lines".parse().unwrap();
    let a = query(&mut db, &spec.into(), Convention::Misere, &[3, 1], AUTO_SOLVE_LIMIT).unwrap();
    let children: BTreeSet<String> =
        a.moves.iter().map(|m| Position::from_cells(&m.to).unwrap().to_string()).collect();
    let want: BTreeSet<String> =
        ["[2,1]", "[1,1,1]", "[1,1]", "[3]", "[1]"].iter().map(|s| s.to_string()).collect();
    assert_eq!(children, want);
    assert_eq!(a.outcome, Outcome::Win);
    assert_eq!(a.best_move.unwrap().to, vec![1]);
}
