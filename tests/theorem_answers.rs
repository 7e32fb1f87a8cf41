//! Theorems answer without a move search, for any heap sizes that fit in u64: Bouton's rule
//! (Nim, normal and misère), Moore's theorem (Nim_k) and Wythoff's pairs give the outcome
//! and a winning move directly, with remoteness unknown. On small positions the answers
//! agree with the forward search (`solve::reference`); on huge ones the move returned is
//! legal and leads to a position the theorem calls a loss.

mod common;

use common::{assert_one_line_error, nimdb, ok};
use nimdb::Source;
use nimdb::game::Outcome;
use nimdb::game::{BigPosition, Convention, GameSpec, Position, all_moves};
use nimdb::query::answer_from_theory;
use nimdb::query::decided;
use nimdb::solve::reference::ReferenceSearch;
use nimdb::theory::{bouton_loss, moore_loss_u64, wythoff_loss_u64};
use serde_json::Value;

/// Every position of at most `heaps` heaps of at most `top`, largest first.
fn positions(heaps: usize, top: u32) -> Vec<Position> {
    let mut out = vec![vec![]];
    for _ in 0..heaps {
        let mut next = out.clone();
        for p in &out {
            for h in 1..=top {
                if p.last().is_none_or(|&l: &u32| h <= l) {
                    let mut q = p.clone();
                    q.push(h);
                    next.push(q);
                }
            }
        }
        next.sort();
        next.dedup();
        out = next;
    }
    out.into_iter().map(Position::new).collect()
}

#[test]
fn theory_answers_agree_with_the_forward_search_on_small_positions() {
    let cases: [(&str, usize, u32); 5] =
        [("nim", 4, 7), ("moore:2", 4, 7), ("moore:3", 5, 5), ("moore:4", 5, 4), ("wythoff", 2, 30)];
    for (game, heaps, top) in cases {
        let spec: GameSpec = game.parse().unwrap();
        for convention in [Convention::Normal, Convention::Misere] {
            let mut search = ReferenceSearch::new(spec.rules(), convention);
            for p in positions(heaps, top) {
                let (win, _) = search.solve(&p);
                let answer = answer_from_theory(&spec, convention, &p).unwrap().expect("a theorem answers");
                let wide = decided(&spec, convention, &BigPosition::from(&p), None).unwrap().unwrap();
                let want = if win { Outcome::Win } else { Outcome::Loss };
                assert_eq!((answer.outcome, wide.outcome), (want, want), "{game} {convention} {p}");
                assert_eq!((answer.source, answer.remoteness), (Source::Theory, None));
                // The bounded and the unbounded answers give the same move.
                assert_eq!(
                    answer.best_move.as_ref().map(|m| m.to.clone()),
                    wide.best_move.as_ref().map(|m| m.to.clone()),
                    "{game} {convention} {p}"
                );
                let children: Vec<Position> =
                    all_moves(spec.rules(), &p).iter().map(|m| m.apply(&p)).collect();
                match &answer.best_move {
                    None => assert!(children.is_empty(), "{game} {convention} {p}: no move given"),
                    Some(m) => {
                        let to = Position::from_cells(&m.to).unwrap();
                        assert!(children.contains(&to), "{game} {p}: {} is not a move", m.description);
                        if win {
                            assert!(
                                !search.solve(&to).0,
                                "{game} {convention} {p}: {} does not win",
                                m.description
                            );
                        }
                    }
                }
                // Every listed move's outcome is the search's.
                for m in &answer.moves {
                    let child_win = search.solve(&Position::from_cells(&m.to).unwrap()).0;
                    assert_eq!(m.outcome == Outcome::Win, child_win, "{game} {convention} {p} -> {:?}", m.to);
                }
            }
        }
    }
}

/// The heaps of a JSON position.
fn heaps(v: &Value) -> Vec<u64> {
    v.as_array().unwrap().iter().map(|h| h.as_u64().unwrap()).collect()
}

/// Removes `to` from `from` as multisets: (heaps only in `from`, heaps only in `to`), each
/// largest first.
fn changed(from: &[u64], to: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let mut left = from.to_vec();
    let mut added = Vec::new();
    for &h in to {
        match left.iter().position(|&x| x == h) {
            Some(i) => {
                left.remove(i);
            }
            None => added.push(h),
        }
    }
    left.sort_unstable_by(|a, b| b.cmp(a));
    added.sort_unstable_by(|a, b| b.cmp(a));
    (left, added)
}

fn query_json(args: &[&str]) -> Value {
    serde_json::from_str(&ok(args)).unwrap()
}

#[test]
fn huge_heaps_get_legal_moves_to_losses() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.sqlite");
    let db = db.to_str().unwrap();
    let huge: [&[&str]; 5] = [
        &["18446744073709551615", "99999999999999", "5"],
        &["1000000", "999", "5"],
        &["18446744073709551615", "18446744073709551614", "1", "1"],
        &["123456789012345678", "9876543210987", "1000001", "77", "3", "2"],
        &["4000000000", "1"],
    ];
    for convention in ["normal", "misere"] {
        for game in ["nim", "moore:2", "moore:3", "moore:5", "wythoff"] {
            for position in huge {
                if game == "wythoff" && position.len() > 2 {
                    continue;
                }
                let mut args = vec!["query", "--json", "--db", db, "--game", game];
                if convention == "misere" {
                    args.push("--misere");
                }
                args.extend_from_slice(position);
                let v = query_json(&args);
                let from = heaps(&v["position"]);
                let conv = if convention == "misere" { Convention::Misere } else { Convention::Normal };
                let loss = |h: &[u64]| match game {
                    "nim" => bouton_loss(h, conv),
                    "wythoff" => wythoff_loss_u64(h, conv).unwrap(),
                    _ => moore_loss_u64(h, game[6..].parse().unwrap(), conv),
                };
                assert_eq!(v["source"], "theory", "{game} {position:?}");
                assert!(v["remoteness"].is_null());
                assert_eq!(
                    v["outcome"],
                    if loss(&from) { "loss" } else { "win" },
                    "{game} {convention} {position:?}"
                );
                let to = heaps(&v["best_move"]["to"]);
                // Legal: heaps only lowered, as many as the game allows.
                let (lowered, left) = changed(&from, &to);
                assert!(!lowered.is_empty() && left.len() <= lowered.len(), "{game} {from:?} -> {to:?}");
                let most = match game {
                    "nim" => 1,
                    "wythoff" => 2,
                    g => g[6..].parse().unwrap(),
                };
                assert!(lowered.len() <= most, "{game} {from:?} -> {to:?}");
                let mut new = left.clone();
                new.resize(lowered.len(), 0);
                // Some pairing lowers every changed heap (largest with largest suffices).
                assert!(lowered.iter().zip(&new).all(|(a, b)| b < a), "{game} {from:?} -> {to:?}");
                if game == "wythoff" && lowered.len() == 2 {
                    assert_eq!(lowered[0] - new[0], lowered[1] - new[1], "{from:?} -> {to:?}");
                }
                let taken: u128 = lowered.iter().map(|&h| h as u128).sum::<u128>()
                    - new.iter().map(|&h| h as u128).sum::<u128>();
                assert_eq!(v["best_move"]["taken"].as_u64().map(u128::from).unwrap_or(taken), taken);
                if v["outcome"] == "win" {
                    assert!(loss(&to), "{game} {convention}: {from:?} -> {to:?} is not a loss");
                    assert_eq!(v["best_move"]["outcome"], "loss");
                }
            }
        }
    }
}

#[test]
fn moore_positions_refused_before_are_answered_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    let db = db.to_str().unwrap();
    // Batch mode reads an existing database.
    ok(&["solve", "--game", "moore:2", "--max-total", "4", "--quiet", "--db", db]);
    // Refused before ("too many moves to search").
    let v = query_json(&["query", "--json", "--db", db, "--game", "moore:2", "1000000", "999", "5"]);
    assert_eq!((v["source"].as_str(), v["outcome"].as_str()), (Some("theory"), Some("win")));
    assert!(v["moves_omitted"].as_u64().unwrap() > 1_000_000_000);
    // 30 CPU seconds and 760 MB before: every move was listed and judged.
    let out = nimdb()
        .args(["query", "--game", "moore:2", "--batch", "--db", db])
        .write_stdin("1400 1300 1200 7\n18446744073709551615 3 2 1\n")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    for (line, heaps) in lines.iter().zip([vec![1400u64, 1300, 1200, 7], vec![u64::MAX, 3, 2, 1]]) {
        assert_eq!(line["source"], "theory");
        assert!(line["remoteness"].is_null());
        let loss = moore_loss_u64(&heaps, 2, Convention::Normal);
        assert_eq!(line["outcome"], if loss { "loss" } else { "win" });
    }
    // The words say the remoteness is unknown.
    let text = ok(&["query", "--db", db, "--game", "moore:2", "18446744073709551615", "99999999999999", "5"]);
    assert!(text.contains("remoteness unknown") && text.contains("source: theory"), "{text}");
}

#[test]
fn huge_heaps_without_a_theorem_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let db = db.to_str().unwrap();
    ok(&["solve", "--game", "wythoff", "--max-total", "4", "--quiet", "--db", db]);
    let refused = |args: &[&str], needle: &str| {
        let out = nimdb().args(args).env("NIMDB_DB", db).output().unwrap();
        assert_one_line_error(&out, needle);
    };
    refused(&["query", "--game", "kayles", "99999999999"], "needs the nim-value of a 99999999999-heap");
    refused(&["query", "--game", "wythoff", "99999999999", "3", "2"], "at most two heaps");
    refused(
        &["query", "--game", "grundy", "--misere", "2000000"],
        "no theorem decides grundy under misère play",
    );
    refused(&["query", "--game", "nim", "18446744073709551616"], "larger than 18446744073709551615");
    // Paths that hold positions in a database or a game tree keep their limits.
    refused(&["play", "--game", "nim", "2000000", "3"], "larger than the limit of 1000000");
    refused(&["tree", "--game", "nim", "2000000"], "larger than the limit of 1000000");
    // A batch line gets its error and the run goes on (exit status 1).
    let out = nimdb()
        .args(["query", "--game", "wythoff", "--batch", "--db", db])
        .write_stdin("99999999999 3 2\n99999999999 3\n")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let lines: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines[0]["error"].as_str().unwrap().contains("at most two heaps"), "{}", lines[0]);
    assert_eq!(lines[1]["source"], "theory");
}
