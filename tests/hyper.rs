//! Hypergraph Nim (`hyper:N:EDGES`): the solver against a forward search written here
//! (over full rows, with the edges written again as lists, no canonical form, no tiers, no
//! parents), under both conventions; the nim-values of a whole space against the search's
//! mex; the hypergraphs equal to built-in games (`moore:2`, `nim`) against those games; and
//! each theorem (Bouton's, Moore's, exact k-Nim's longest play) against the solver on whole
//! universes.

mod common;

use std::collections::HashMap;

use nimdb::game::{Convention, Game, GameSpec, Outcome};
use nimdb::index::{SpaceBounds, space_for};
use nimdb::solve::family::solve_family;
use nimdb::solve::{MemoryStore, Silent};
use nimdb::theory::Stop;
use nimdb::theory::families::{decide, evaluate};
use nimdb::theory::space_values::space_nim_values;

/// Edges as lists of heap indices from 0.
type Edges = Vec<Vec<usize>>;

fn subsets(n: usize, keep: impl Fn(usize) -> bool) -> Edges {
    (1u32..1 << n)
        .filter(|m| keep(m.count_ones() as usize))
        .map(|m| (0..n).filter(|i| m >> i & 1 == 1).collect())
        .collect()
}

fn circular(n: usize, k: usize) -> Edges {
    let mut out: Edges = (0..n)
        .map(|i| {
            let mut e: Vec<usize> = (0..k).map(|j| (i + j) % n).collect();
            e.sort();
            e
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The positions one move leads to, by the rules: an edge whose heaps are all nonempty,
/// each lowered to any smaller size.
fn children(edges: &Edges, row: &[u32]) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for e in edges {
        if e.iter().any(|&i| row[i] == 0) {
            continue;
        }
        let mut acc = vec![row.to_vec()];
        for &i in e {
            acc = acc
                .into_iter()
                .flat_map(|r| {
                    (0..row[i]).map(move |v| {
                        let mut r = r.clone();
                        r[i] = v;
                        r
                    })
                })
                .collect();
        }
        out.extend(acc);
    }
    out
}

/// What the search knows of a full row: outcome for the player to move, remoteness, and
/// the normal and misère nim-values.
#[derive(Clone, Copy, Debug)]
struct Known {
    win: bool,
    remoteness: u32,
    nim: u32,
}

fn mex(values: impl Iterator<Item = u32>) -> u32 {
    let mut seen: Vec<u32> = values.collect();
    seen.sort();
    seen.dedup();
    seen.iter().enumerate().find(|&(i, &v)| i as u32 != v).map_or(seen.len() as u32, |(i, _)| i as u32)
}

/// The forward search, memoised on full rows.
fn search(edges: &Edges, row: &[u32], convention: Convention, memo: &mut HashMap<Vec<u32>, Known>) -> Known {
    if let Some(&k) = memo.get(row) {
        return k;
    }
    let kids: Vec<Known> = children(edges, row).iter().map(|c| search(edges, c, convention, memo)).collect();
    let terminal_value = if convention == Convention::Normal { 0 } else { 1 };
    let known = if kids.is_empty() {
        Known { win: convention == Convention::Misere, remoteness: 0, nim: terminal_value }
    } else {
        let nim = mex(kids.iter().map(|k| k.nim));
        match kids.iter().filter(|k| !k.win).map(|k| k.remoteness).min() {
            Some(r) => Known { win: true, remoteness: r + 1, nim },
            None => {
                Known { win: false, remoteness: kids.iter().map(|k| k.remoteness).max().unwrap() + 1, nim }
            }
        }
    };
    memo.insert(row.to_vec(), known);
    known
}

/// Every full row of `n` heaps with total at most `t`.
fn rows(n: usize, t: u32) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut row = vec![0u32; n];
    loop {
        if row.iter().sum::<u32>() <= t {
            out.push(row.clone());
        }
        let mut j = 0;
        while j < n && row[j] == t {
            row[j] = 0;
            j += 1;
        }
        if j == n {
            return out;
        }
        row[j] += 1;
    }
}

/// The library's solve of `game` over every position of total at most `t`: each full row's
/// remoteness, through the family's canonical form and the space's (tier, rank).
fn solved(game: &Game, t: u32, convention: Convention) -> impl Fn(&[u32]) -> u16 {
    let family = game.family();
    let bounds = SpaceBounds { max_total: t, max_heaps: t, max_heap: None };
    let space = space_for(family.layout(), bounds).unwrap();
    let mut store = MemoryStore::default();
    solve_family(family, space.as_ref(), convention, &mut store, &Silent).unwrap();
    let game = game.clone();
    move |row: &[u32]| {
        let p = game.family().canonical(row.to_vec()).unwrap();
        let (tier, rank) = space.locate(&p).unwrap();
        store.tiers[&tier].remoteness[rank as usize]
    }
}

/// Compares the solver and the nim-values of the whole space with the search on every row.
fn check(spec: &str, edges: &Edges, n: usize, t: u32) {
    let game: Game = spec.parse().unwrap();
    for convention in [Convention::Normal, Convention::Misere] {
        let mut memo = HashMap::new();
        let stored = solved(&game, t, convention);
        let bounds = SpaceBounds { max_total: t, max_heaps: t, max_heap: None };
        let space = space_for(game.family().layout(), bounds).unwrap();
        let values = space_nim_values(game.family(), space.as_ref(), convention, &Stop::never()).unwrap();
        assert_eq!(values.len() as u64, space.positions());
        for row in rows(n, t) {
            let want = search(edges, &row, convention, &mut memo);
            let r = stored(&row);
            assert_eq!(convention.is_win(r as u32), want.win, "{spec} {convention}: outcome of {row:?}");
            assert_eq!(r as u32, want.remoteness, "{spec} {convention}: remoteness of {row:?}");
            let p = game.family().canonical(row.clone()).unwrap();
            assert_eq!(
                values.get(space.as_ref(), &p),
                Some(want.nim),
                "{spec} {convention}: nim-value of {row:?}"
            );
            // The moves listed are the rules' children (each once), in canonical form.
            let mut listed: Vec<Vec<u32>> = game.family().moves(&p).into_iter().map(|m| m.to).collect();
            let mut ruled: Vec<Vec<u32>> =
                children(edges, &row).into_iter().map(|c| game.family().canonical(c).unwrap()).collect();
            ruled.sort();
            ruled.dedup();
            let before = listed.len();
            listed.sort();
            listed.dedup();
            assert_eq!(before, listed.len(), "{spec}: a child listed twice from {row:?}");
            assert_eq!(listed, ruled, "{spec}: the moves of {row:?}");
        }
    }
}

#[test]
fn circular_nim_agrees_with_the_forward_search() {
    check("hyper:4:circular:2", &circular(4, 2), 4, 9);
    check("hyper:5:circular:2", &circular(5, 2), 5, 7);
    check("hyper:5:circular:3", &circular(5, 3), 5, 7);
}

#[test]
fn exact_k_nim_agrees_with_the_forward_search() {
    check("hyper:4:exact:2", &subsets(4, |s| s == 2), 4, 9);
    check("hyper:5:exact:3", &subsets(5, |s| s == 3), 5, 7);
    check("hyper:3:exact:3", &subsets(3, |s| s == 3), 3, 9);
}

#[test]
fn listed_hypergraphs_agree_with_the_forward_search() {
    check("hyper:4:1+2,2+3+4,4", &vec![vec![0, 1], vec![1, 2, 3], vec![3]], 4, 9);
    check("hyper:3:1+2+3,1", &vec![vec![0, 1, 2], vec![0]], 3, 10);
    check("hyper:3:moore:2", &subsets(3, |s| s <= 2), 3, 10);
}

/// Every position of the heap game `heap_spec` with at most `n` heaps and total at most
/// `t`, solved as that game, equals the hypergraph's on the same heaps.
fn equals_heap_game(spec: &str, heap_spec: &str, n: usize, t: u32) {
    let game: Game = spec.parse().unwrap();
    let heaps: GameSpec = heap_spec.parse().unwrap();
    let heap_game = Game::Heaps(heaps);
    for convention in [Convention::Normal, Convention::Misere] {
        let hyper = solved(&game, t, convention);
        let bounds = SpaceBounds { max_total: t, max_heaps: n as u32, max_heap: None };
        let space = space_for(heap_game.family().layout(), bounds).unwrap();
        let mut store = MemoryStore::default();
        solve_family(heap_game.family(), space.as_ref(), convention, &mut store, &Silent).unwrap();
        let mut compared = 0;
        for row in rows(n, t) {
            let p = heap_game.family().canonical(row.clone()).unwrap();
            let (tier, rank) = space.locate(&p).unwrap();
            let want = store.tiers[&tier].remoteness[rank as usize];
            assert_eq!(hyper(&row), want, "{spec} against {heap_spec} {convention}: {row:?}");
            compared += 1;
        }
        assert!(compared > 100);
    }
}

#[test]
fn every_set_of_at_most_two_of_three_heaps_is_moore_s_nim_2() {
    equals_heap_game("hyper:3:1+2,1+3,2+3,1,2,3", "moore:2", 3, 15);
}

#[test]
fn the_singletons_are_nim() {
    equals_heap_game("hyper:3:singletons", "nim", 3, 15);
    equals_heap_game("hyper:4:1,2,3,4", "nim", 4, 10);
}

/// A theorem's outcome (and nim-value, where it gives one) against the solver and the
/// search's nim-values on every position of a universe, under `conventions`.
fn theorem_holds(spec: &str, name: &str, n: usize, t: u32, conventions: &[Convention]) {
    let game: Game = spec.parse().unwrap();
    for &convention in conventions {
        let stored = solved(&game, t, convention);
        let bounds = SpaceBounds { max_total: t, max_heaps: t, max_heap: None };
        let space = space_for(game.family().layout(), bounds).unwrap();
        let values = space_nim_values(game.family(), space.as_ref(), convention, &Stop::never()).unwrap();
        let mut losses = 0;
        for row in rows(n, t) {
            let p = game.family().canonical(row.clone()).unwrap();
            let v = evaluate(game.family(), &p, convention).expect("the family declares a theorem");
            assert_eq!(v.formula.name(), name);
            let win = convention.is_win(stored(&row) as u32);
            assert_eq!(
                v.outcome,
                if win { Outcome::Win } else { Outcome::Loss },
                "{spec} {convention}: {row:?}"
            );
            if let Some(g) = v.nim_value {
                assert_eq!(
                    Some(g as u32),
                    values.get(space.as_ref(), &p),
                    "{spec} {convention}: value of {row:?}"
                );
            }
            losses += u32::from(!win);
            // The theorem's move, where it finds one, leads to a loss.
            if let Some(to) = decide(game.family(), &p, convention).unwrap().best {
                let padded: Vec<u32> = (0..n).map(|i| to.get(i).copied().unwrap_or(0)).collect();
                if game.family().layout()
                    == (nimdb::game::SpaceLayout::Row { heaps: n as u32, sorted: false })
                {
                    assert!(!convention.is_win(stored(&padded) as u32), "{spec}: move {row:?} → {to:?}");
                }
            }
        }
        assert!(losses >= 1, "{spec} {convention}: the universe has losses to test");
    }
}

#[test]
fn bouton_decides_the_singletons_under_both_conventions() {
    let both = [Convention::Normal, Convention::Misere];
    theorem_holds("hyper:3:singletons", "Bouton's theorem", 3, 15, &both);
    theorem_holds("hyper:4:singletons", "Bouton's theorem", 4, 10, &both);
}

#[test]
fn moore_decides_every_set_of_at_most_k_heaps_under_both_conventions() {
    let both = [Convention::Normal, Convention::Misere];
    theorem_holds("hyper:3:moore:2", "Moore's theorem", 3, 15, &both);
    theorem_holds("hyper:4:moore:2", "Moore's theorem", 4, 11, &both);
    theorem_holds("hyper:4:moore:3", "Moore's theorem", 4, 11, &both);
    theorem_holds("hyper:3:moore:3", "Moore's theorem", 3, 12, &both);
}

#[test]
fn exact_k_nim_with_more_than_half_the_heaps_has_its_longest_play_for_nim_value() {
    // Boros, Gurvich, Ho, Makino and Mursić (2018): with 2k > n the nim-value of exact
    // k-Nim is its height; every nim-value of each universe below is checked, not only the
    // outcome, against the mex of the whole space.
    let name = "exact k-Nim's longest play, Boros–Gurvich–Ho–Makino–Mursić 2018";
    let normal = [Convention::Normal];
    theorem_holds("hyper:3:exact:2", name, 3, 24, &normal);
    theorem_holds("hyper:4:exact:3", name, 4, 14, &normal);
    theorem_holds("hyper:5:exact:3", name, 5, 10, &normal);
    theorem_holds("hyper:5:exact:4", name, 5, 10, &normal);
    theorem_holds("hyper:6:exact:4", name, 6, 8, &normal);
    theorem_holds("hyper:3:exact:3", name, 3, 15, &normal);
    // No misère form is known: misère play declares none, and the database answers.
    for spec in ["hyper:3:exact:2", "hyper:5:exact:3"] {
        let game: Game = spec.parse().unwrap();
        assert_eq!(game.family().formula(Convention::Misere), None, "{spec}");
    }
}

#[test]
fn hypergraphs_without_a_published_theorem_declare_none() {
    // Exact k-Nim with 2k = n (its published formula is not stated here) and 2k < n (open).
    for spec in
        ["hyper:4:exact:2", "hyper:6:exact:3", "hyper:5:exact:2", "hyper:4:circular:2", "hyper:3:1+2,3"]
    {
        let game: Game = spec.parse().unwrap();
        for convention in [Convention::Normal, Convention::Misere] {
            assert_eq!(game.family().formula(convention), None, "{spec}");
        }
    }
}

#[test]
fn specs_print_back_canonically_with_a_stable_storage_id() {
    for (typed, shown, id) in [
        ("hyper:3:1,2,3", "hyper:3:singletons", "v1:hyper:3:1,2,3"),
        ("HYPER:3:singletons", "hyper:3:singletons", "v1:hyper:3:1,2,3"),
        ("hyper:3:2+3,1+2,1+3,3,2,1", "hyper:3:moore:2", "v1:hyper:3:1,2,3,1+2,1+3,2+3"),
        ("hyper:4:exact:2", "hyper:4:exact:2", "v1:hyper:4:1+2,1+3,1+4,2+3,2+4,3+4"),
        ("hyper:4:circular:2", "hyper:4:circular:2", "v1:hyper:4:1+2,1+4,2+3,3+4"),
        ("hyper:4:4+3,2,2+1", "hyper:4:2,1+2,3+4", "v1:hyper:4:2,1+2,3+4"),
    ] {
        let game: Game = typed.parse().unwrap();
        assert_eq!(game.to_string(), shown, "{typed}");
        assert_eq!(game.storage_id(), id, "{typed}");
        assert_eq!(Game::from_storage_id(id), Some(game.clone()), "{id}");
        assert_eq!(shown.parse::<Game>().unwrap(), game);
    }
    for bad in [
        "hyper:3:1+2,2+1",
        "hyper:3:1+4",
        "hyper:3:1,,2",
        "hyper:17:singletons",
        "hyper:3: 1",
        "hyper:3:moore:0",
        "hyper:3",
        "hyper:3:1+1",
    ] {
        let e = bad.parse::<Game>().unwrap_err().to_string();
        assert!(!e.contains('\n'), "{bad}: {e}");
    }
    assert_eq!(Game::from_storage_id("v1:hyper:3:singletons"), None, "the id lists the edges");
}

/// The command line on a box of heaps (`--max-heap`): `solve`, `export` and `values` give
/// every row of the box, each as the forward search says; a second box of another bound is
/// another solve; a family without rows still refuses `--max-heap`.
#[test]
fn a_box_of_heaps_is_solved_exported_and_valued_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("box.sqlite");
    let db = db.to_str().unwrap();
    let spec = "hyper:3:1+2,3";
    let edges: Edges = vec![vec![0, 1], vec![2]];
    let run = |args: &[&str]| {
        let out = common::nimdb().args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    run(&["solve", "-q", "--game", spec, "--max-heap", "4", "--db", db]);
    run(&["solve", "-q", "--game", spec, "--max-heap", "3", "--misere", "--db", db]);
    let in_box = |row: &[u32], h: u32| row.iter().all(|&x| x <= h);
    for (convention, h, flag) in [(Convention::Normal, 4, None), (Convention::Misere, 3, Some("--misere"))] {
        let mut memo = HashMap::new();
        let mut args = vec!["export", "--game", spec, "--db", db];
        args.extend(flag);
        let csv = run(&args);
        let mut seen = 0;
        for line in csv.lines().skip(1) {
            let cells: Vec<&str> = line.split(',').collect();
            let mut row: Vec<u32> = cells[0].split_whitespace().map(|c| c.parse().unwrap()).collect();
            row.resize(3, 0);
            assert!(in_box(&row, h), "{row:?} is outside the box of {h}");
            let want = search(&edges, &row, convention, &mut memo);
            assert_eq!(cells[1], if want.win { "win" } else { "loss" }, "{line}");
            assert_eq!(cells[2].parse::<u32>().unwrap(), want.remoteness, "{line}");
            seen += 1;
        }
        assert_eq!(seen, (h + 1).pow(3), "every row of the box, once");
        let h_text = h.to_string();
        let mut args = vec!["values", "--game", spec, "--max-heap", &h_text];
        args.extend(flag);
        let values = run(&args);
        let mut valued = 0;
        for line in values.lines().skip(1) {
            let (position, value) = line.split_once(',').unwrap();
            let mut row: Vec<u32> = position.split_whitespace().map(|c| c.parse().unwrap()).collect();
            row.resize(3, 0);
            assert_eq!(
                value.parse::<u32>().unwrap(),
                search(&edges, &row, convention, &mut memo).nim,
                "{line}"
            );
            valued += 1;
        }
        assert_eq!(valued, (h + 1).pow(3));
    }
    let out = common::nimdb()
        .args(["solve", "--game", "staircase", "--max-heap", "3", "--db", db])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-heap"));
}

mod random {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

        /// Any hypergraph on 2 to 4 heaps (edges as nonempty bit sets, listed in any order
        /// and possibly repeated, which the spec refuses): the solver, the nim-values and the
        /// moves agree with the forward search under both conventions, and the spec prints
        /// back to the same game.
        #[test]
        fn any_hypergraph_agrees_with_the_forward_search(
            n in 2usize..=4,
            masks in proptest::collection::vec(1u32..16, 1..6),
        ) {
            let mut edges: Vec<u32> = masks.iter().map(|m| m & ((1 << n) - 1)).filter(|&m| m != 0).collect();
            edges.sort();
            edges.dedup();
            prop_assume!(!edges.is_empty());
            let listed: Vec<String> = edges
                .iter()
                .map(|e| (0..n).filter(|i| e >> i & 1 == 1).map(|i| (i + 1).to_string()).collect::<Vec<_>>().join("+"))
                .collect();
            let spec = format!("hyper:{n}:{}", listed.join(","));
            let game: Game = spec.parse().unwrap();
            prop_assert_eq!(game.to_string().parse::<Game>().unwrap(), game.clone());
            let as_lists: Edges =
                edges.iter().map(|e| (0..n).filter(|i| e >> i & 1 == 1).collect()).collect();
            check(&spec, &as_lists, n, if n == 4 { 6 } else { 8 });
        }
    }
}
