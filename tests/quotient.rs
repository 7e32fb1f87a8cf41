//! Misère quotients: sizes, P-counts and certified periods for a dozen octal codes, each
//! prediction checked against the forward reference search on every position of total ≤ 22,
//! the structure theorems the literature proves, and the `nimdb quotient` command line.

mod common;

use nimdb::game::{Convention, GameSpec, Position, all_moves};
use nimdb::solve::reference::ReferenceSearch;
use nimdb::theory::quotient::{Quotient, QuotientOptions, compute_quotient};

fn quotient(game: &str, max_heap: Option<u32>) -> Quotient {
    let spec: GameSpec = game.parse().unwrap();
    let opts = QuotientOptions { max_heap, ..Default::default() };
    compute_quotient(spec.octal().unwrap(), opts, &mut |_, _| true).unwrap()
}

fn partitions(max_total: u32) -> Vec<Vec<u32>> {
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

/// Every position of total ≤ `total`: the quotient's outcome and winning move agree with
/// the forward search.
fn agrees_with_search(game: &str, q: &Quotient, total: u32) {
    let spec: GameSpec = game.parse().unwrap();
    let mut search = ReferenceSearch::new(spec.rules(), Convention::Misere);
    for heaps in partitions(total) {
        let p = Position::new(heaps.clone());
        let (win, _) = search.solve(&p);
        assert_eq!(q.is_p(&heaps).unwrap(), !win, "{game} {heaps:?}");
        let m = q.winning_move(&p).unwrap();
        let terminal = all_moves(spec.rules(), &p).is_empty();
        assert_eq!(m.is_some(), win && !terminal, "{game} {heaps:?}");
        if let Some(m) = m {
            assert!(!search.solve(&m.apply(&p)).0, "{game} {heaps:?}: {m} is not winning");
        }
    }
}

/// (game, |Q|, |P|, period, preperiod) of the quotient for every heap size, as nimdb
/// computes and certifies it. Every row is checked against the forward search below and
/// against the structure theorems of the literature (even order; |P| = 2 ⇒ |Q| = 2ⁿ + 2 or
/// 2ⁿ + 4, Siegel, "The structure and classification of misère quotients", arXiv
/// math/0703070).
const TABLE: &[(&str, usize, usize, u32, u32)] = &[
    ("kayles", 40, 9, 12, 71),
    ("octal:0.75", 8, 2, 2, 8),
    ("octal:0.71", 36, 9, 6, 3),
    ("octal:0.15", 42, 12, 10, 66),
    ("octal:0.53", 16, 3, 9, 21),
    ("octal:0.72", 24, 5, 4, 16),
    ("octal:0.34", 12, 3, 8, 7),
    ("octal:0.31", 6, 2, 2, 3),
    ("octal:0.52", 6, 2, 4, 6),
    ("octal:0.73", 6, 2, 4, 2),
    ("octal:0.51", 2, 1, 1, 1),
    ("subtraction:1,2,3", 6, 2, 4, 1),
    ("subtraction:1,3,4", 6, 2, 7, 1),
];

#[test]
fn certified_quotients_agree_with_forward_search() {
    for &(game, size, p, period, pre) in TABLE {
        let q = quotient(game, None);
        let c = q.certificate.unwrap_or_else(|| panic!("{game}: no certificate"));
        assert_eq!((q.size(), q.p_count(), c.period, c.from), (size, p, period, pre), "{game}");
        assert!(q.max_heap >= c.needs, "{game}");
        agrees_with_search(game, &q, 22);
    }
}

#[test]
fn structure_theorems_hold() {
    for &(game, size, p, _, _) in TABLE {
        assert_eq!(size % 2, 0, "{game}: misère quotients have even order");
        if p == 2 {
            let ok = (1..12).any(|n| size == (1 << n) + 2 || size == (1 << n) + 4);
            assert!(ok, "{game}: |P| = 2 needs |Q| = 2^n + 2 or 2^n + 4, not {size}");
        }
    }
}

#[test]
fn order_eight_is_r8() {
    // Siegel (arXiv math/0703070) proves there is exactly one misère quotient of order 8; it
    // is the quotient of 0.75 in Plambeck's "Taming the wild in impartial combinatorial
    // games" (INTEGERS 5, 2005).
    let q = quotient("octal:0.75", None);
    let pres = q.presentation();
    assert_eq!(pres.generator_heaps, [1, 2, 5]);
    assert_eq!(pres.relations, ["a^2 = 1", "bc = ab", "c^2 = b^2", "b^3 = b"]);
    let p: Vec<&str> = q.monoid.p_elements().iter().map(|&x| pres.words[x as usize].as_str()).collect();
    assert_eq!(p, ["a", "b^2"]);
}

#[test]
fn kayles_worked_example() {
    // The README's worked example.
    let q = quotient("kayles", None);
    let pres = q.presentation();
    assert_eq!(pres.generator_heaps, [1, 2, 5, 9, 12, 25, 27]);
    assert_eq!(pres.generators, ["a", "b", "c", "d", "e", "f", "g"]);
    assert!(
        pres.relations.contains(&"a^2 = 1".to_string()) && pres.relations.contains(&"b^3 = b".to_string())
    );
    let c = q.certificate.unwrap();
    assert_eq!((c.from, c.to, c.needs, q.max_heap), (71, 156, 167, 168));
    // [5,1] is a P-position (ac ∈ P), though the tame prediction calls it a win.
    let x = q.element(&[5, 1]).unwrap();
    assert_eq!(pres.words[x as usize], "ac");
    assert!(q.monoid.is_p(x));
    assert!(!q.tame);
    // A heap of 5 and a heap of 9 multiply to c·d = b², a P-element.
    assert_eq!(pres.words[q.element(&[9, 5]).unwrap() as usize], "b^2");
    assert!(q.is_p(&[9, 5]).unwrap());
}

#[test]
fn tame_games_are_named() {
    for (game, tame) in [("nim", true), ("subtraction:1,2,3", true), ("kayles", false), ("octal:0.75", false)]
    {
        let q = quotient(game, Some(12));
        assert_eq!(q.tame, tame, "{game}");
    }
    // Lines (0.[7]) has nim-values g(n) = n and is tame: the quotient of heaps up to 2ⁿ − 1
    // is misère Nim's, of order 2ⁿ + 2.
    let q = quotient("lines", Some(31));
    assert!(q.tame);
    assert_eq!(q.size(), 34);
    agrees_with_search("lines", &q, 20);
    agrees_with_search("nim", &quotient("nim", Some(20)), 20);
}

#[test]
fn kayles_answers_far_beyond_any_database() {
    let q = quotient("kayles", None);
    let p = Position::new(vec![100, 90, 80, 7]);
    let loss = q.is_p(p.heaps()).unwrap();
    let m = q.winning_move(&p).unwrap();
    assert_eq!(m.is_some(), !loss);
    if let Some(m) = m {
        assert!(q.is_p(m.apply(&p).heaps()).unwrap());
    }
    // Heaps past the computed range follow the certified period.
    assert_eq!(q.image(1_000_003).unwrap(), q.image(1_000_003 - 12 * 80_000).unwrap());
}

#[test]
fn cli_prints_stores_and_reuses_the_quotient() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("q.sqlite");
    let db = db.to_str().unwrap();
    let out = common::ok(&["quotient", "--game", "kayles", "--json", "--db", db]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in [
        "game",
        "size",
        "p_count",
        "heap_elements",
        "p_elements",
        "table",
        "presentation",
        "period",
        "preperiod",
        "proven",
        "certificate",
        "tame",
        "max_heap",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["size"], 40);
    assert_eq!(v["period"], 12);
    assert_eq!(v["proven"], true);
    assert_eq!(v["reused"], false);
    let again: serde_json::Value =
        serde_json::from_str(&common::ok(&["quotient", "--game", "kayles", "--json", "--db", db])).unwrap();
    assert_eq!(again["reused"], true);
    assert_eq!(again["table"], v["table"]);
    let info = common::ok(&["info", "--db", db]);
    assert!(info.contains("1 stored misère quotient(s)") && info.contains("kayles"), "{info}");
    let out = common::ok(&["quotient", "--game", "octal:0.75", "--max-heap", "4", "--json", "--db", db]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["max_heap"], 4);
    assert_eq!(v["heap_elements"].as_array().unwrap().len(), 5);
    assert_eq!(v["period"], serde_json::Value::Null);
}

#[test]
fn cli_refuses_bad_input_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("untouched.sqlite");
    for (mut args, needle) in [
        (vec!["quotient", "--game", "grundy"], "not an octal game"),
        (vec!["quotient", "--game", "kayles", "--max-heap", "0"], "--max-heap must be between 1"),
        (vec!["quotient", "--game", "kayles", "--max-heap", "99999999999"], "--max-heap must be between 1"),
        (vec!["quotient", "--game", "octal:0.9"], "not an octal digit"),
        (vec!["quotient", "--game", "octal:077"], "needs a point"),
    ] {
        args.extend(["--db", db.to_str().unwrap()]);
        let err = common::err(&args);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!db.exists(), "a refusal must not create or touch the database");
    }
}

fn solve(db: &str, game: &str, total: u32) {
    common::ok(&[
        "solve",
        "--game",
        game,
        "--misere",
        "--max-total",
        &total.to_string(),
        "--db",
        db,
        "--quiet",
    ]);
}

#[test]
fn verify_cross_checks_every_stored_position_against_the_quotient() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v.sqlite");
    let db = db.to_str().unwrap();
    for game in ["kayles", "lines", "octal:0.75", "octal:0.71", "octal:0.15"] {
        solve(db, game, 40);
        let out = common::ok(&["verify", "--game", game, "--misere", "--db", db, "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let q = &v["quotient"];
        assert!(q["checked"].as_u64().unwrap() > 10_000, "{game}: {q}");
        if game == "kayles" {
            assert_eq!(q["checked"], 215_308);
        }
        assert_eq!(q["mismatches"], 0, "{game}: {q}");
    }
}

#[test]
fn verify_catches_a_corrupted_quotient_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.sqlite");
    let db = path.to_str().unwrap();
    solve(db, "kayles", 30);
    common::ok(&["quotient", "--game", "kayles", "--db", db]);
    // Corrupt the table (a checksum-consistent rewrite: the mark of heap 5's element flips).
    {
        let store = nimdb::store::Database::open(&path).unwrap();
        let mut q = store.load_quotient("kayles", None).unwrap().unwrap();
        let mut d = q.to_data();
        let x = d.heap_images[5] as usize;
        d.p[x] = !d.p[x];
        q = Quotient::from_data(d).unwrap();
        store.save_quotient("kayles", &q).unwrap();
    }
    let (ok, out, _) = common::run(&["verify", "--game", "kayles", "--misere", "--db", db]);
    assert!(!ok, "a corrupted quotient must fail verify: {out}");
    assert!(out.contains("contradictions"), "{out}");
    // Corrupting the stored bytes instead is caught by the checksum.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE quotients SET data = replace(data, '\"tame\":false', '\"tame\":true')", []).unwrap();
    let (ok, _, err) = common::run(&["query", "--game", "kayles", "--misere", "--db", db, "200", "100"]);
    assert!(!ok && err.contains("checksum"), "{err}");
}

#[test]
fn query_answers_huge_misere_positions_from_the_quotient() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("q.sqlite");
    let db = db.to_str().unwrap();
    let out =
        common::ok(&["query", "--game", "kayles", "--misere", "--json", "--db", db, "100", "90", "80", "7"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["source"], "quotient");
    assert_eq!(v["remoteness"], serde_json::Value::Null);
    let q = quotient("kayles", None);
    let loss = q.is_p(&[100, 90, 80, 7]).unwrap();
    assert_eq!(v["outcome"], if loss { "loss" } else { "win" });
    let to: Vec<u32> = serde_json::from_value(v["best_move"]["to"].clone()).unwrap();
    assert_eq!(q.is_p(&to).unwrap(), !loss || q.is_p(&to).unwrap());
    if !loss {
        assert_eq!(v["best_move"]["outcome"], "loss");
    }
    // Thousands of tokens.
    let out = common::ok(&[
        "query", "--game", "kayles", "--misere", "--json", "--db", db, "3000", "2999", "1500", "7",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["source"], "quotient");
}

#[test]
fn survey_of_one_digit_codes_is_stored_and_reused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let db = db.to_str().unwrap();
    let first = common::ok(&["quotient", "--survey", "--digits", "1", "--json", "--db", db]);
    let v: serde_json::Value = serde_json::from_str(&first).unwrap();
    let codes = v["codes"].as_array().unwrap();
    assert_eq!(codes.len(), 7);
    for c in codes {
        assert!(c["status"] == "solved" || c["note"].as_str().unwrap().starts_with("open at heap"), "{c}");
    }
    let again = common::ok(&["quotient", "--survey", "--digits", "1", "--json", "--db", db]);
    assert_eq!(first, again);
    let csv = common::ok(&["quotient", "--survey", "--digits", "1", "--csv", "--db", db]);
    assert_eq!(csv.lines().count(), 8);
    let err = common::err(&["quotient", "--survey", "--digits", "0", "--db", db]);
    assert!(err.contains("--digits must be between 1 and 4"), "{err}");
}
