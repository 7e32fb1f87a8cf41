use super::*;
use crate::game::{Convention, GameSpec};
use crate::solve::reference::ReferenceSearch;

fn code(game: &str) -> OctalCode {
    game.parse::<GameSpec>().unwrap().octal().unwrap().clone()
}

fn quotient(game: &str, n: Option<u32>) -> Quotient {
    let opts = QuotientOptions { max_heap: n, ..Default::default() };
    compute_quotient(&code(game), opts, &mut |_, _| true).unwrap()
}

/// Every partition of every total up to `max_total`, largest part first.
pub(crate) fn partitions(max_total: u32) -> Vec<Vec<u32>> {
    fn rec(left: u32, max: u32, cur: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        out.push(cur.clone());
        for h in (1..=max.min(left)).rev() {
            cur.push(h);
            rec(left - h, h, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    rec(max_total, max_total, &mut Vec::new(), &mut out);
    out
}

fn check_against_search(game: &str, total: u32) {
    let q = quotient(game, Some(total));
    let c = code(game);
    let mut search = ReferenceSearch::new(&c, Convention::Misere);
    for heaps in partitions(total) {
        let p = Position::new(heaps.clone());
        let (win, _) = search.solve(&p);
        assert_eq!(q.is_p(&heaps).unwrap(), !win, "{game} {heaps:?}");
        let m = q.winning_move(&p).unwrap();
        let terminal = crate::game::all_moves(&c, &p).is_empty();
        assert_eq!(m.is_some(), win && !terminal, "{game} {heaps:?}");
        if let Some(m) = m {
            assert!(!search.solve(&m.apply(&p)).0, "{game} {heaps:?} {m}");
        }
    }
}

#[test]
fn predictions_match_forward_search() {
    for game in [
        "nim",
        "kayles",
        "lines",
        "subtraction:1,3,4",
        "octal:0.75",
        "octal:0.71",
        "octal:0.15",
        "octal:0.53",
    ] {
        check_against_search(game, 16);
    }
}

#[test]
fn trivial_and_nim_quotients() {
    // Heaps of one token only: the quotient of *1 is Z2 = {1, a}, P = {a}.
    let q = quotient("nim", Some(1));
    assert_eq!((q.size(), q.p_count()), (2, 1));
    // Nim heaps 1..3 give the tame quotient of order 6 (a² = 1, b³ = b).
    let q = quotient("nim", Some(3));
    assert_eq!((q.size(), q.p_count()), (6, 2));
    assert!(q.tame);
    assert_eq!(q.presentation().relations, ["a^2 = 1", "b^3 = b"]);
}
