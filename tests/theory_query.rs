//! Queries beyond the database: normal play is answered from heap nim-values (and misère Nim
//! by its rule), agreeing with the database wherever both apply.

mod common;

use common::{assert_one_line_error, nimdb};
use nimdb::Source;
use nimdb::game::Outcome;
use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::query::{answer_from_solve, answer_from_theory};
use nimdb::solve::Silent;
use nimdb::store::Database;

#[test]
fn theory_answers_agree_with_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let mut db = Database::open(&dir.path().join("t.sqlite")).unwrap();
    for (game, convention, total) in [
        ("nim", Convention::Normal, 12),
        ("nim", Convention::Misere, 12),
        ("kayles", Convention::Normal, 14),
        ("dawson", Convention::Normal, 14),
        ("lines", Convention::Normal, 12),
        ("grundy", Convention::Normal, 16),
        ("subtraction:2,3,7", Convention::Normal, 20),
        ("octal:4.7", Convention::Normal, 10),
    ] {
        let spec: GameSpec = game.parse().unwrap();
        let universe = Universe::new(spec.rules(), game, Some(total), None, None).unwrap();
        let (solve, _) =
            nimdb::driver::solve_into(&mut db, &spec, convention, universe, false, &Silent).unwrap();
        let table = universe.table().unwrap();
        for tier in universe.tiers() {
            for p in table.positions(tier) {
                let stored =
                    answer_from_solve(&db, &spec, convention, &solve, &p, Source::Database).unwrap().unwrap();
                let theory = answer_from_theory(&spec, convention, &p).unwrap().unwrap();
                assert_eq!(theory.source, Source::Theory);
                assert_eq!(theory.remoteness, None);
                assert_eq!(theory.outcome, stored.outcome, "{game} {convention} {p}");
                for (t, s) in theory.moves.iter().zip(&stored.moves) {
                    assert_eq!((&t.to, t.outcome), (&s.to, s.outcome), "{game} {convention} {p}");
                }
                if let Some(best) = &theory.best_move {
                    // From a win, the theory's move must win.
                    if theory.outcome == Outcome::Win {
                        assert_eq!(best.outcome, Outcome::Loss, "{game} {p}");
                    }
                }
            }
        }
    }
}

#[test]
fn large_positions_are_answered_from_theory() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.sqlite");
    let json = |args: &[&str]| -> serde_json::Value {
        let out = nimdb().args(args).arg("--db").arg(&db).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // Kayles nim-values computed independently by the reference mex.
    let v = json(&["query", "--game", "kayles", "--json", "100", "90", "80"]);
    assert_eq!(v["source"], "theory");
    assert!(v["remoteness"].is_null());
    let g =
        nimdb::theory::mex_values(&"kayles".parse::<GameSpec>().unwrap().heap_rules().unwrap().clone(), 100);
    let x = g[100] ^ g[90] ^ g[80];
    assert_eq!(v["nim_value"], x);
    assert_eq!(v["outcome"], if x == 0 { "loss" } else { "win" });
    let to: Vec<u32> = serde_json::from_value(v["best_move"]["to"].clone()).unwrap();
    assert_eq!(to.iter().fold(0, |acc, &h| acc ^ g[h as usize]), 0, "the best move leaves nim-value 0");

    // Misère Nim beyond any solve: the misère-Nim rule.
    let v = json(&[
        "query", "--game", "nim", "--misere", "--json", "30", "30", "30", "30", "30", "30", "30", "30", "29",
    ]);
    assert_eq!((v["source"].as_str(), v["outcome"].as_str()), (Some("theory"), Some("win")));
    let v = json(&[
        "query", "--game", "nim", "--misere", "--json", "40", "40", "40", "40", "40", "40", "40", "40",
    ]);
    assert_eq!(v["outcome"], "loss");

    // Huge Nim: the XOR move, without the millions of moves.
    let v = json(&["query", "--game", "nim", "--json", "1000000", "999999", "3"]);
    assert_eq!(v["best_move"]["to"], serde_json::json!([999999, 999996, 3]));
    assert!(v["moves_omitted"].as_u64().unwrap() > 1_000_000);

    // Misère play of other games has no theorem (misère Kayles is answered by its quotient,
    // see tests/quotient.rs; Dawson's Kayles has none), and the solve that would cover this
    // one (to total 270) does not fit a machine: none is suggested.
    let out = nimdb()
        .args(["query", "--game", "dawson", "--misere", "100", "90", "80", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_one_line_error(&out, "no solve that covers it fits this machine");
}
