//! The families whose moves change several heaps (Moore's Nim_k, Wythoff's game) and the
//! hexadecimal codes: the retrograde solver and the sweep agree with the forward reference
//! search on every position under both conventions, and the stored databases obey the
//! theorems the families declare (Moore's theorem, Wythoff's pairs).

mod common;

use std::collections::HashMap;

use common::{err, ok};
use nimdb::game::{Convention, GameSpec, HeapFamily, MooreRules, Position, Rules, TakeBreakCode};
use nimdb::index::Universe;
use nimdb::solve::reference::ReferenceSearch;
use nimdb::solve::{SolveOptions, Strategy as SolveStrategy, solve_in_memory};
use nimdb::theory::{moore_loss, wythoff_loss};
use proptest::prelude::*;

/// Solves `spec` over `universe` both ways under both conventions and compares every
/// position with the reference (outcome, remoteness, nim-value). Returns the positions
/// checked.
fn agree(spec: &GameSpec, universe: Universe) -> u64 {
    let table = universe.table().unwrap();
    let mut checked = 0;
    for convention in [Convention::Normal, Convention::Misere] {
        let retro = solve_in_memory(
            spec,
            &SolveOptions { convention, universe, nim_values: false, strategy: SolveStrategy::Retrograde },
        )
        .unwrap();
        let sweep = solve_in_memory(
            spec,
            &SolveOptions { convention, universe, nim_values: true, strategy: SolveStrategy::Sweep },
        )
        .unwrap();
        let mut reference = ReferenceSearch::new(spec.rules(), convention);
        let mut values = HashMap::new();
        for tier in universe.tiers() {
            for (rank, p) in table.positions(tier).enumerate() {
                let (win, remoteness) = reference.solve(&p);
                let r = retro.tiers[&tier].remoteness[rank] as u32;
                let s = sweep.tiers[&tier].remoteness[rank] as u32;
                assert_eq!(
                    (convention.is_win(r), r),
                    (win, remoteness),
                    "{spec} {convention} {p}: retrograde"
                );
                assert_eq!(s, remoteness, "{spec} {convention} {p}: sweep");
                let g = sweep.tiers[&tier].nim_values.as_ref().unwrap()[rank] as u32;
                assert_eq!(g, reference.nim_value(&p, &mut values), "{spec} {convention} {p}: nim-value");
                checked += 1;
            }
        }
    }
    checked
}

fn universe(spec: &GameSpec, total: u32, heap: Option<u32>, heaps: Option<u32>) -> Universe {
    Universe::new(spec.rules(), "g", Some(total), heap, heaps).unwrap()
}

#[test]
fn new_families_agree_with_the_reference_to_total_12() {
    for game in
        ["moore:2", "moore:3", "moore:4", "wythoff", "hex:0.F", "hex:0.8F", "hex:4.9", "hex:0.[B]", "hex:C.1"]
    {
        let spec: GameSpec = game.parse().unwrap();
        let checked = agree(&spec, universe(&spec, 12, None, None));
        assert_eq!(checked, 2 * 272, "{game}: every position with at most 12 tokens, twice");
    }
}

#[test]
fn capped_universes_are_closed_for_families_that_never_split() {
    for game in ["moore:2", "moore:3", "wythoff"] {
        let spec: GameSpec = game.parse().unwrap();
        agree(&spec, universe(&spec, 30, Some(7), Some(3)));
        agree(&spec, universe(&spec, 14, Some(5), None));
        agree(&spec, universe(&spec, 14, None, Some(2)));
    }
    // A hexadecimal code that splits cannot cap the heap count.
    let hex: GameSpec = "hex:0.F".parse().unwrap();
    assert!(Universe::new(hex.rules(), "hex:0.F", Some(10), None, Some(3)).is_err());
}

/// Any hexadecimal code: d0 ∈ {0, 4, 8, C}, up to three digits 0-F, maybe a repeated digit.
fn hex_code() -> impl Strategy<Value = TakeBreakCode> {
    (
        prop_oneof![Just(0u8), Just(4u8), Just(8u8), Just(12u8)],
        prop::collection::vec(0u8..16, 0..4),
        prop::option::of(0u8..16),
    )
        .prop_filter_map("a code with no move", |(d0, digits, repeat)| {
            TakeBreakCode::new(d0, &digits, repeat).ok()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random hexadecimal codes against the reference, both conventions, total 12.
    #[test]
    fn random_hex_codes_match_the_reference(code in hex_code()) {
        let spec = GameSpec::from_rules(Rules::Heap(HeapFamily::TakeBreak(code)));
        let again: GameSpec = spec.to_string().parse().unwrap();
        prop_assert_eq!(&again, &spec);
        agree(&spec, universe(&spec, 12, None, None));
    }

    /// Random Moore's Nim_k against the reference, both conventions, total 12.
    #[test]
    fn random_moore_k_match_the_reference(k in 1u32..=6) {
        let spec = GameSpec::from_rules(Rules::Moore(MooreRules::new(k).unwrap()));
        agree(&spec, universe(&spec, 12, None, None));
    }
}

/// Every stored position of a solve, as (position, loss for the player to move).
fn every_position(spec: &GameSpec, universe: Universe, convention: Convention) -> Vec<(Position, bool)> {
    let table = universe.table().unwrap();
    let solved = solve_in_memory(
        spec,
        &SolveOptions { convention, universe, nim_values: false, strategy: SolveStrategy::Retrograde },
    )
    .unwrap();
    let mut out = Vec::new();
    for tier in universe.tiers() {
        for (p, &r) in table.positions(tier).zip(&solved.tiers[&tier].remoteness) {
            out.push((p, !convention.is_win(r as u32)));
        }
    }
    out
}

#[test]
fn moores_theorem_holds_on_nim_2_with_six_heaps_of_up_to_15() {
    let spec: GameSpec = "moore:2".parse().unwrap();
    let u = universe(&spec, 90, Some(15), Some(6));
    for convention in [Convention::Normal, Convention::Misere] {
        let all = every_position(&spec, u, convention);
        // Multisets of at most 6 heaps from 1..=15: C(21, 6).
        assert_eq!(all.len(), 54_264);
        for (p, loss) in &all {
            assert_eq!(moore_loss(p.heaps(), 2, convention), *loss, "{convention} {p}");
        }
        let losses = all.iter().filter(|(_, l)| *l).count();
        assert!(losses > 100, "{convention}: {losses} losses");
    }
}

#[test]
fn wythoffs_pairs_hold_on_two_heaps_up_to_1000_under_both_conventions() {
    let spec: GameSpec = "wythoff".parse().unwrap();
    let u = universe(&spec, 2000, Some(1000), Some(2));
    for convention in [Convention::Normal, Convention::Misere] {
        let all = every_position(&spec, u, convention);
        assert_eq!(all.len(), 1 + 1000 + 1000 * 1001 / 2);
        let mut losses = 0;
        for (p, loss) in &all {
            assert_eq!(wythoff_loss(p.heaps(), convention), Some(*loss), "{convention} {p}");
            losses += usize::from(*loss);
        }
        // One pair (a_n, a_n + n) per n with a_n + n ≤ 1000; misère swaps (0,0) for (0,1)
        // and (1,2) for (2,2), so the count is the same.
        assert_eq!(losses, 383, "{convention}");
    }
}

#[test]
fn queries_answer_new_families_from_the_database_and_verify_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("families.sqlite");
    let db = db.to_str().unwrap();
    let wythoff = ok(&["query", "--db", db, "--game", "wythoff", "--json", "10", "6", "3"]);
    let v: serde_json::Value = serde_json::from_str(&wythoff).unwrap();
    assert_eq!(v["source"], "solved");
    assert!(v["remoteness"].is_u64());
    assert!(v["best_move"]["to"].is_array());
    let moore = ok(&["query", "--db", db, "--game", "moore:2", "--misere", "--json", "7", "5", "3", "1"]);
    let v: serde_json::Value = serde_json::from_str(&moore).unwrap();
    assert!(v["remoteness"].is_u64() && v["best_move"]["to"].is_array());
    // Moore's theorem decides this position; the database must agree.
    let loss = moore_loss(&[7, 5, 3, 1], 2, Convention::Misere);
    assert_eq!(v["outcome"], if loss { "loss" } else { "win" });

    let report = ok(&["verify", "--db", db, "--game", "moore:2", "--misere", "--json"]);
    let r: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(r["mismatches"], 0);
    assert!(r["checked"].as_u64().unwrap() > 0);
    assert_eq!(r["theorem"], true);
    let report = ok(&["verify", "--db", db, "--game", "wythoff"]);
    assert!(report.contains("Wythoff"), "{report}");
    // [10,6,3] has three heaps: positions of three heaps are beyond Wythoff's pairs.
    assert!(report.contains("no theorem applies; self-consistency only"), "{report}");
}

#[test]
fn three_heap_wythoff_too_big_to_solve_gets_no_theory_answer() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.sqlite");
    let e = err(&["query", "--db", db.to_str().unwrap(), "--game", "wythoff", "500", "300", "100"]);
    assert!(e.contains("no theorem"), "{e}");
    assert!(!e.contains("nim-value") && !e.contains("Sprague"), "{e}");
    // Two heaps: Wythoff's pairs answer at once, beyond any database.
    let out = ok(&["query", "--db", db.to_str().unwrap(), "--game", "wythoff", "--json", "20000", "12360"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["source"], "theory");
    let want = wythoff_loss(&[20000, 12360], Convention::Normal).unwrap();
    assert_eq!(v["outcome"], if want { "loss" } else { "win" });
}

#[test]
fn moore_answers_beyond_the_database_name_moores_theorem() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    let out =
        ok(&["query", "--db", db.to_str().unwrap(), "--game", "moore:2", "--json", "900", "800", "700"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["source"], "theory");
    let loss = moore_loss(&[900, 800, 700], 2, Convention::Normal);
    assert_eq!(v["outcome"], if loss { "loss" } else { "win" });
    if !loss {
        let to: Vec<u32> =
            v["best_move"]["to"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as u32).collect();
        assert!(moore_loss(&to, 2, Convention::Normal), "{to:?}");
    }
}
