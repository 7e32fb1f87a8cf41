//! Every stored answer's best move is a legal move to a child of the stated outcome and
//! remoteness, and the answer agrees with the forward reference search.

use std::collections::BTreeSet;

use nimdb::Source;
use nimdb::game::Outcome;
use nimdb::game::{Convention, GameSpec, Position, all_moves};
use nimdb::index::Universe;
use nimdb::query::answer_from_solve;
use nimdb::solve::Silent;
use nimdb::solve::reference::ReferenceSearch;
use nimdb::store::Database;

fn check(game: &str, max_total: u32) {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(&dir.path().join("t.sqlite")).unwrap();
    let spec: GameSpec = game.parse().unwrap();
    for convention in [Convention::Normal, Convention::Misere] {
        let universe = Universe::new(spec.rules(), game, Some(max_total), None, None).unwrap();
        let (solve, _) =
            nimdb::driver::solve_into(&mut db, &spec, convention, universe, false, &Silent).unwrap();
        let table = universe.table().unwrap();
        let mut reference = ReferenceSearch::new(spec.rules(), convention);
        for tier in universe.tiers() {
            for position in table.positions(tier) {
                let a = answer_from_solve(&db, &spec, convention, &solve, &position, Source::Database)
                    .unwrap()
                    .unwrap();
                let (win, r) = reference.solve(&position);
                assert_eq!(a.outcome == Outcome::Win, win, "{game} {convention} {position}");
                assert_eq!(a.remoteness, Some(r), "{game} {convention} {position}");
                let legal: BTreeSet<Position> =
                    all_moves(spec.rules(), &position).iter().map(|m| m.apply(&position)).collect();
                match a.best_move {
                    None => {
                        assert!(legal.is_empty() && r == 0, "{game} {position}: no best move but moves exist")
                    }
                    Some(best) => {
                        let to = Position::from_cells(&best.to).unwrap();
                        assert!(legal.contains(&to), "{game} {position}: best move to {to} is illegal");
                        let (child_win, child_r) = reference.solve(&to);
                        assert!(win != child_win || !win, "{game} {convention} {position} → {to}");
                        if win {
                            assert!(!child_win);
                        }
                        assert_eq!(child_r + 1, r, "{game} {convention} {position} → {to}");
                        assert_eq!(best.remoteness, Some(child_r));
                        assert_eq!(best.outcome == Outcome::Win, child_win);
                    }
                }
                assert_eq!(a.moves.len(), legal.len());
            }
        }
    }
}

#[test]
fn nim() {
    check("nim", 10);
}

#[test]
fn subtraction() {
    check("subtraction:1,2,3", 20);
}

#[test]
fn kayles() {
    check("kayles", 12);
}

#[test]
fn dawson() {
    check("dawson", 12);
}

#[test]
fn lines() {
    check("lines", 12);
}

#[test]
fn grundy() {
    check("grundy", 14);
}

#[test]
fn octal_4_7() {
    check("octal:4.7", 10);
}
