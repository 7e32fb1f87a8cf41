//! Published and first-principles test vectors for the theory module and `nimdb heaps`.

use std::collections::HashMap;

use assert_cmd::Command;
use nimdb::game::{GameSpec, HeapFamily, Position, TakeBreakCode, all_moves};
use nimdb::theory::bouton::{misere_nim_loss, normal_nim_loss, tame_misere_loss};
use nimdb::theory::genus::{Genus, GenusSolver, tame_sum_loss};
use nimdb::theory::misere::MisereSolver;
use nimdb::theory::period::analyse;
use nimdb::theory::sequence::{mex_values, nim_values};
use nimdb::theory::shape::HeapShape;
use nimdb::theory::sparse::{MethodChoice, SparseSpace, SplitMethod, compute_with};

fn spec(s: &str) -> GameSpec {
    s.parse().unwrap()
}

fn words(s: &str) -> Vec<u32> {
    s.split_whitespace().map(|w| w.parse().unwrap()).collect()
}

#[test]
fn kayles_values_and_period() {
    let k = spec("kayles");
    let want = words("0 1 2 3 1 4 3 2 1 4 2 6 4 1 2 7 1 4 3 2 1 4 6 7 4 1 2 8 5 4 7 2 1 8 6 7 4 1 2 3 1");
    assert_eq!(nim_values(k.heap_rules().unwrap(), 40), want);
    assert_eq!(mex_values(k.heap_rules().unwrap(), 40), want);
    let g = nim_values(k.heap_rules().unwrap(), 1000);
    let p = analyse(&g, &HeapShape::of(k.heap_rules().unwrap()));
    assert_eq!((p.period, p.preperiod, p.proven), (Some(12), Some(71), true));
    // The last exception is at 70.
    assert_ne!(g[70], g[82]);
}

#[test]
fn dawsons_kayles_values_and_period() {
    let d = spec("dawson");
    let want = words("0 0 1 1 2 0 3 1 1 0 3 3 2 2 4 0 5 2 2 3 3 0 1 1 3 0 2 1 1 0 4 5 2 7 4 0 1 1 2 0 3");
    assert_eq!(nim_values(d.heap_rules().unwrap(), 40), want);
    let g = nim_values(d.heap_rules().unwrap(), 2000);
    let p = analyse(&g, &HeapShape::of(d.heap_rules().unwrap()));
    assert_eq!((p.period, p.preperiod, p.proven), (Some(34), Some(53), true));
}

#[test]
fn grundys_game_values() {
    let g = nim_values(spec("grundy").heap_rules().unwrap(), 20);
    assert_eq!(g[1..], words("0 0 1 0 2 1 0 2 1 0 2 1 3 2 1 3 2 4 3 0")[..]);
    let p = analyse(&nim_values(spec("grundy").heap_rules().unwrap(), 3000), &HeapShape::grundy());
    assert_eq!((p.period, p.proven), (None, false));
}

/// Flammenkamp's list of the rare ("sparse") values of Grundy's game below 200, under Winning
/// Ways' bitstring ...1110: the heaps whose value has an even number of 1s above the lowest bit.
#[test]
fn grundys_game_rare_heaps_match_flammenkamp() {
    let g = nim_values(spec("grundy").heap_rules().unwrap(), 200);
    let space = SparseSpace { mask: !1, domain: false, rare_class: 0 };
    let rare: Vec<u32> = (0..200).filter(|&n| space.is_rare(n, g[n as usize])).collect();
    let want = words(
        "0 1 2 3 4 6 7 9 10 12 15 20 23 26 28 31 34 37 40 43 46 49 50 52 53 55 58 61 87 90 93 146 149 152 \
         158 161 164 167 176 179 181 182 185 188 190 193 196",
    );
    assert_eq!(rare, want);
    for (n, v) in [(87, 7), (146, 6), (158, 11), (181, 12), (196, 10)] {
        assert_eq!(g[n], v, "G({n})");
    }
}

#[test]
fn subtraction_2_3_7_has_period_5() {
    let s = spec("subtraction:2,3,7");
    let g = nim_values(s.heap_rules().unwrap(), 500);
    let p = analyse(&g, &HeapShape::of(s.heap_rules().unwrap()));
    assert_eq!((p.period, p.proven), (Some(5), true));
    assert_eq!(g[..10], [0, 0, 1, 1, 2, 0, 0, 1, 1, 2]);
}

#[test]
fn nim_and_lines_have_g_equal_n() {
    for game in ["nim", "lines"] {
        let s = spec(game);
        let g = nim_values(s.heap_rules().unwrap(), 3000);
        assert!(g.iter().enumerate().all(|(n, &v)| v == n as u32), "{game}");
        assert_eq!(mex_values(s.heap_rules().unwrap(), 200), g[..=200]);
        let p = analyse(&g, &HeapShape::of(s.heap_rules().unwrap()));
        assert_eq!((p.period, p.proven), (None, false));
        assert_eq!(p.arithmetic.map(|a| (a.period, a.saltus)), Some((1, 1)));
    }
}

/// Every method agrees with the reference mex, for the named games and for pseudo-random
/// octal codes.
#[test]
fn fast_methods_agree_with_the_reference() {
    let named = [
        "kayles",
        "dawson",
        "octal:0.137",
        "octal:4.7",
        "octal:0.16",
        "octal:0.51",
        "subtraction:1,2,3",
        "subtraction:2,3,7",
        "subtraction:1,4,5,9",
    ];
    for game in named {
        check_all_methods(spec(game).heap_rules().unwrap(), 3000, game);
    }
    for game in ["lines", "nim", "grundy", "octal:0.3[7]", "octal:4.[7]", "octal:0.[6]"] {
        check_all_methods(spec(game).heap_rules().unwrap(), 300, game);
    }
    // Pseudo-random codes (a fixed LCG, so failures reproduce).
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |m: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % m
    };
    let mut tried = 0;
    while tried < 24 {
        let d0 = if next(4) == 0 { 4 } else { 0 };
        let len = 1 + next(4) as usize;
        let finite: Vec<u8> = (0..len).map(|_| next(8) as u8).collect();
        let repeat = if next(5) == 0 { Some(next(8) as u8) } else { None };
        let Ok(code) = TakeBreakCode::new(d0, &finite, repeat) else { continue };
        tried += 1;
        let n = if code.repeat().is_some() { 250 } else { 2500 };
        check_all_methods(&HeapFamily::TakeBreak(code.clone()), n, &code.to_string());
    }
}

fn check_all_methods(rules: &HeapFamily, n: u32, name: &str) {
    let reference = mex_values(rules, n);
    let shape = HeapShape::of(rules);
    for choice in [MethodChoice::Auto, MethodChoice::Plain, MethodChoice::Sparse] {
        let (g, _, _) = compute_with(&shape, n, &[], choice);
        assert_eq!(g, reference, "{name} {choice:?}");
    }
}

#[test]
fn kayles_to_a_million_by_the_sparse_method() {
    let shape = HeapShape::of(spec("kayles").heap_rules().unwrap());
    let (g, method, stats) = compute_with(&shape, 1_000_000, &[], MethodChoice::Sparse);
    assert!(matches!(method, SplitMethod::Sparse(_)));
    assert_eq!(stats.certified_at, None);
    assert!((83..=1_000_000).all(|n| g[n] == g[n - 12]));
    let (auto, _, stats) = compute_with(&shape, 1_000_000, &[], MethodChoice::Auto);
    assert!(stats.certified_at.is_some());
    assert_eq!(auto, g);
}

/// Independent misère outcomes by plain search over whole positions.
fn misere_loss(rules: &HeapFamily, p: &Position, memo: &mut HashMap<Position, bool>) -> bool {
    if let Some(&l) = memo.get(p) {
        return l;
    }
    let moves = all_moves(rules, p);
    let loss = !moves.is_empty() && moves.iter().all(|m| !misere_loss(rules, &m.apply(p), memo));
    memo.insert(p.clone(), loss);
    loss
}

#[test]
fn misere_heap_values_decide_misere_outcomes() {
    for game in ["kayles", "dawson", "grundy", "octal:0.312", "subtraction:1,2,3"] {
        let s = spec(game);
        let mut solver = MisereSolver::new(s.heap_rules().unwrap());
        let mut memo = HashMap::new();
        for n in 0..=16 {
            let p = Position::new(vec![n]);
            assert_eq!(
                solver.heap_value(n) == 0,
                misere_loss(s.heap_rules().unwrap(), &p, &mut memo),
                "{game} heap {n}"
            );
        }
    }
    // The single-heap take-1..3 game: the last mover loses from a heap of 1 mod 4.
    let take3 = spec("subtraction:1,2,3");
    let mut s = MisereSolver::new(take3.heap_rules().unwrap());
    let losses: Vec<u32> = (0..20).filter(|&n| s.heap_value(n) == 0).collect();
    assert_eq!(losses, [1, 5, 9, 13, 17]);
}

#[test]
fn misere_nim_rule_matches_search() {
    let nim = spec("nim");
    let mut memo = HashMap::new();
    let mut solver = MisereSolver::new(nim.heap_rules().unwrap());
    for heaps in [vec![1], vec![1, 1], vec![2, 2], vec![3, 2, 1], vec![4, 4, 1], vec![5, 1, 1], vec![7, 6, 1]]
    {
        let p = Position::new(heaps.clone());
        let loss = misere_loss(nim.heap_rules().unwrap(), &p, &mut memo);
        assert_eq!(misere_nim_loss(&heaps), loss, "{heaps:?}");
        assert_eq!(tame_misere_loss(&heaps), loss);
        assert_eq!(solver.value(&heaps) == 0, loss);
        assert_eq!(normal_nim_loss(&heaps), heaps.iter().fold(0, |x, h| x ^ h) == 0);
    }
}

/// Genus of Nim heaps from first principles: *0 = 0^120, *1 = 1^031, *g = g^{g, g⊕2}.
#[test]
fn nim_heap_genus() {
    let nim = spec("nim");
    let g = nim_values(nim.heap_rules().unwrap(), 10);
    let mut s = GenusSolver::new(nim.heap_rules().unwrap(), 8);
    let got: Vec<String> = (0..=6).map(|n| s.genus(&[n], &g).to_string()).collect();
    assert_eq!(got, ["0^120", "1^031", "2^20", "3^31", "4^46", "5^57", "6^64"]);
    assert!((0..=10).all(|n| s.is_tame(&[n], &g)));
}

/// Plambeck's published genus sequence of the quaternary game 0.312, heaps 1..=6:
/// 1^03131, 2^20, 0^02, 2^1420, 0^02, 1^13 (1^03131 is 1^031 written long).
#[test]
fn genus_of_0_312_matches_plambeck() {
    let game = spec("octal:0.312");
    let g = nim_values(game.heap_rules().unwrap(), 10);
    assert_eq!(g[1..=6], [1, 2, 0, 2, 0, 1]);
    let mut s = GenusSolver::new(game.heap_rules().unwrap(), 8);
    let want = ["1^03131", "2^20", "0^02", "2^1420", "0^02", "1^13"];
    for (n, w) in (1..=6).zip(want) {
        let got = s.genus(&[n], &g);
        let w: Genus = w.parse().unwrap();
        for k in 0..10 {
            assert_eq!(got.gamma(k), w.gamma(k), "heap {n} γ{k}");
        }
        assert!(got.settled);
    }
}

#[test]
fn kayles_genus_and_tameness() {
    let k = spec("kayles");
    let g = nim_values(k.heap_rules().unwrap(), 30);
    let mut s = GenusSolver::new(k.heap_rules().unwrap(), 8);
    let got: Vec<String> = (0..=5).map(|n| s.genus(&[n], &g).to_string()).collect();
    assert_eq!(got, ["0^120", "1^031", "2^20", "3^31", "1^031", "4^146"]);
    assert!((0..=4).all(|n| s.is_tame(&[n], &g)));
    assert!(!s.is_tame(&[5], &g));
    // Tame sums play like misère Nim on fickle/firm parts, and match the solver.
    for heaps in [vec![4, 1], vec![3, 2], vec![4, 4, 2], vec![1, 4]] {
        let genera: Vec<Genus> = heaps.iter().map(|&h| s.genus(&[h], &g)).collect();
        let v = s.misere().value(&heaps);
        assert_eq!(tame_sum_loss(&genera), Some(v == 0), "{heaps:?}");
    }
}

fn nimdb() -> Command {
    let mut c = Command::cargo_bin("nimdb").unwrap();
    c.env_remove("NIMDB_DB");
    c
}

#[test]
fn cli_json_and_cache() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.sqlite");
    let out = nimdb()
        .args(["heaps", "--game", "octal:0.77", "--up-to", "200", "--json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["game"], "kayles");
    assert_eq!(v["values"].as_array().unwrap().len(), 201);
    assert_eq!(v["values"][27], 8);
    assert_eq!(
        (v["period"].as_u64(), v["preperiod"].as_u64(), v["proven"].as_bool()),
        (Some(12), Some(71), Some(true))
    );
    assert_eq!(v["genus"][5], "4^146");
    assert_eq!(v["misere_values"][0], 1);
    assert!(v["misere_values"][31].is_null());
    // A second, shorter run reads the database.
    let out = nimdb().args(["heaps", "--game", "kayles", "--up-to", "50", "--db"]).arg(&db).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("read from the database"), "{text}");
    assert!(text.contains("no period found") || text.contains("not proven"));
}

#[test]
fn cli_csv_and_errors() {
    let out =
        nimdb().args(["heaps", "--game", "nim", "--up-to", "3", "--csv", "--no-cache"]).output().unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "n,nim_value,misere_value,genus\n0,0,1,0^120\n1,1,0,1^031\n2,2,2,2^20\n3,3,3,3^31\n"
    );
    let out =
        nimdb().args(["heaps", "--game", "kayles", "--up-to", "200000000", "--no-cache"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("nimdb: error:") && err.contains("too large") && err.lines().count() == 1,
        "{err}"
    );
    let out = nimdb().args(["heaps", "--game", "chess", "--no-cache"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr).unwrap().contains("unknown game"));
}
