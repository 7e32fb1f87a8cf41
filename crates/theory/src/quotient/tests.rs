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

/// The plain walk over pairs (Φ(G), S(G)), with S(G) kept whole and every heap a letter: the
/// definition the signature walk of [`closure_check`] must match.
fn naive_check(q: &BipartiteMonoid, images: &[u32], options: &[Vec<u32>]) -> bool {
    use std::collections::{BTreeSet, HashSet};
    let mut seen: HashSet<(u32, BTreeSet<u32>)> = HashSet::new();
    let mut todo = vec![(0u32, BTreeSet::new())];
    seen.insert(todo[0].clone());
    while let Some((x, s)) = todo.pop() {
        if q.is_p(x) != (!s.is_empty() && s.iter().all(|&e| !q.is_p(e))) {
            return false;
        }
        for h in 1..images.len() {
            let mut ns: BTreeSet<u32> = s.iter().map(|&e| q.mul(e, images[h])).collect();
            ns.extend(options[h].iter().map(|&o| q.mul(x, o)));
            let next = (q.mul(x, images[h]), ns);
            if seen.insert(next.clone()) {
                todo.push(next);
            }
        }
    }
    true
}

#[test]
fn signature_closure_check_matches_the_plain_walk() {
    for game in ["kayles", "octal:0.71", "octal:0.53", "subtraction:1,3,4"] {
        let q = quotient(game, Some(40));
        let (table, p) = (q.monoid.table().to_vec(), q.monoid.p_marks().to_vec());
        assert!(naive_check(&q.monoid, &q.heap_images, &q.heap_options));
        assert!(closure_check(&q.monoid, &q.heap_images, &q.heap_options, 1 << 20).is_ok());
        let mut caught = 0;
        // Every single flipped P mark.
        for x in 0..q.size() {
            let mut p2 = p.clone();
            p2[x] = !p2[x];
            let m = BipartiteMonoid::from_table(q.size(), table.clone(), p2).unwrap();
            let naive = naive_check(&m, &q.heap_images, &q.heap_options);
            let fast = closure_check(&m, &q.heap_images, &q.heap_options, 1 << 20).is_ok();
            assert_eq!(fast, naive, "{game}: P mark of {x} flipped");
            caught += usize::from(!fast);
        }
        // Every heap image moved to another element (options kept).
        for h in 1..q.heap_images.len() {
            for y in [0, (q.heap_images[h] + 1) % q.size() as u32] {
                let mut imgs = q.heap_images.clone();
                imgs[h] = y;
                let naive = naive_check(&q.monoid, &imgs, &q.heap_options);
                let fast = closure_check(&q.monoid, &imgs, &q.heap_options, 1 << 20).is_ok();
                assert_eq!(fast, naive, "{game}: heap {h} sent to {y}");
            }
        }
        assert_eq!(caught, q.size(), "{game}: every flipped mark is caught");
    }
}

/// A computation resumed from a stored quotient of heaps 1..n adds the next heaps exactly as
/// one from heap 1 does (same table, P-set and images), and a tampered quotient is refused.
#[test]
fn a_resumed_computation_equals_one_from_heap_one() {
    for (game, from, to) in
        [("dawson", 20u32, 30u32), ("kayles", 8, 40), ("octal:0.35", 9, 12), ("octal:0.144", 3, 20)]
    {
        let c = code(game);
        let mut whole = QuotientBuilder::new(&c, Limits::default());
        while whole.max_heap() < to {
            whole.add_heap().unwrap();
        }
        let mut part = QuotientBuilder::new(&c, Limits::default());
        while part.max_heap() < from {
            part.add_heap().unwrap();
        }
        let mut resumed = QuotientBuilder::resume(
            &c,
            Limits::default(),
            part.monoid().clone(),
            part.heap_images().to_vec(),
        )
        .unwrap();
        while resumed.max_heap() < to {
            resumed.add_heap().unwrap();
        }
        assert_eq!(resumed.monoid(), whole.monoid(), "{game}");
        assert_eq!(resumed.heap_images(), whole.heap_images(), "{game}");
        assert_eq!(resumed.heap_options(), whole.heap_options(), "{game}");
    }
    // A P-mark flipped, or an image moved, fails the closure check.
    let c = code("dawson");
    let mut b = QuotientBuilder::new(&c, Limits::default());
    while b.max_heap() < 14 {
        b.add_heap().unwrap();
    }
    let q = b.monoid();
    let mut p = q.p_marks().to_vec();
    p[1] = !p[1];
    let flipped = BipartiteMonoid::from_table(q.size(), q.table().to_vec(), p).unwrap();
    let e = QuotientBuilder::resume(&c, Limits::default(), flipped, b.heap_images().to_vec()).unwrap_err();
    assert!(matches!(e, QuotientError::Resume(_)), "{e}");
    let mut images = b.heap_images().to_vec();
    images[14] = images[13];
    if images[14] != b.heap_images()[14] {
        assert!(QuotientBuilder::resume(&c, Limits::default(), q.clone(), images).is_err());
    }
    let mut images = b.heap_images().to_vec();
    images[3] = q.size() as u32;
    assert!(QuotientBuilder::resume(&c, Limits::default(), q.clone(), images).is_err());
}
