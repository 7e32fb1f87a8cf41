//! `nimdb query --batch` and `nimdb export`: batch lines answered in order with errors per
//! line; an export re-imported tier by tier equals the stored payloads.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

use common::{nimdb, ok};
use nimdb::game::{Convention, Position};
use nimdb::index::{PartitionTable, TierId};
use nimdb::store::Database;
use serde_json::Value;

fn batch(db: &str, extra: &[&str], input: &str) -> (bool, Vec<Value>) {
    batch_bytes(db, extra, input.as_bytes().to_vec())
}

fn batch_bytes(db: &str, extra: &[&str], input: Vec<u8>) -> (bool, Vec<Value>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nimdb"))
        .args(["query", "--batch", "--db", db])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let lines =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (out.status.success(), lines)
}

#[test]
fn batch_answers_every_line_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("b.sqlite");
    let db = db.to_str().unwrap();
    ok(&["solve", "--game", "nim", "--misere", "--max-heaps", "4", "--max-heap", "8", "--db", db]);
    let (success, out) =
        batch(db, &["--misere"], "7 5 3\n7,5,3\n[7,5,3]\n3 x\n\n# a comment\n9 9 9 9 9\n[]\n");
    assert!(!success, "a bad line makes the exit status 1");
    let lines: Vec<u64> = out.iter().map(|v| v["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [1, 2, 3, 4, 7, 8]);
    let single: Value =
        serde_json::from_str(&ok(&["query", "--misere", "--json", "--db", db, "7", "5", "3"])).unwrap();
    for v in &out[..3] {
        assert_eq!(v["position"], serde_json::json!([7, 5, 3]));
        assert_eq!(v["outcome"], single["outcome"]);
        assert_eq!(v["remoteness"], single["remoteness"]);
        assert_eq!(v["source"], "database");
    }
    assert!(out[3]["error"].as_str().unwrap().contains('x'), "{}", out[3]);
    assert_eq!(out[4]["source"], "theory", "outside the solve, misère Nim theory answers");
    assert_eq!(out[5]["position"], serde_json::json!([]));

    // --moves: each object is `query --json` plus its line number.
    let (success, out) = batch(db, &["--misere", "--moves"], "7 5 3\n2 2 1\n");
    assert!(success);
    for v in out {
        let mut v = v.as_object().unwrap().clone();
        v.remove("line");
        let heaps: Vec<String> = v["position"].as_array().unwrap().iter().map(|h| h.to_string()).collect();
        let mut args = vec!["query", "--misere", "--json", "--db", db];
        args.extend(heaps.iter().map(String::as_str));
        let want: Value = serde_json::from_str(&ok(&args)).unwrap();
        assert_eq!(Value::Object(v), want);
    }
}

/// A line that is not UTF-8, or longer than 1 MiB, gets its own error and the run goes on
/// (issue 24: one bad byte used to end the run, and a long line was read whole).
/// With no database, a single query answers [7,5,3] from Bouton's rule; a batch does too (it
/// said there was no database), and neither leaves a file behind.
#[test]
fn batch_answers_from_theory_without_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.sqlite");
    let db = db.to_str().unwrap();
    let (success, out) = batch(db, &[], "7 5 3\n3 2 1\n");
    assert!(success, "{out:?}");
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!((&out[0]["outcome"], &out[0]["source"]), (&"win".into(), &"theory".into()), "{out:?}");
    assert_eq!(out[1]["outcome"], "loss", "{out:?}");
    // No theorem decides misère Kayles: the line says so, and the run goes on.
    let (success, out) = batch(db, &["--game", "kayles", "--misere"], "9 4\n1\n");
    assert!(!success);
    assert!(out[0]["error"].is_string(), "{out:?}");
    assert_eq!(out.len(), 2, "{out:?}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the batch made a file");
}

#[test]
fn batch_goes_on_past_a_line_that_is_not_utf8_or_too_long() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("u.sqlite");
    let db = db.to_str().unwrap();
    ok(&["solve", "--game", "nim", "--misere", "--max-heaps", "4", "--max-heap", "8", "--db", db]);
    let mut input = b"7 5 3\n\xff\n2 2\n".to_vec();
    input.extend(std::iter::repeat_n(b'1', 3 << 20));
    input.extend(b"\n[3,3]\n");
    let (success, out) = batch_bytes(db, &["--misere"], input);
    assert!(!success, "bad lines make the exit status 1");
    let lines: Vec<u64> = out.iter().map(|v| v["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [1, 2, 3, 4, 5]);
    assert!(out[1]["error"].as_str().unwrap().contains("UTF-8"), "{}", out[1]);
    assert_eq!(out[2]["position"], serde_json::json!([2, 2]));
    assert!(out[3]["error"].as_str().unwrap().contains("longer than"), "{}", out[3]);
    assert_eq!(out[4]["position"], serde_json::json!([3, 3]));
}

#[test]
fn query_without_heaps_or_batch_refuses_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("q.sqlite");
    let out = nimdb().args(["query", "--db", db.to_str().unwrap()]).write_stdin("3 4 5\n").output().unwrap();
    common::assert_one_line_error(&out, "--batch");
    // --game defaults to nim; `[]` still asks about the empty position.
    let answer: Value =
        serde_json::from_str(&ok(&["query", "--json", "--db", db.to_str().unwrap(), "[]"])).unwrap();
    assert_eq!(answer["game"], "nim");
    assert_eq!(answer["outcome"], "loss");
}

/// Parses `nimdb export --format csv`: (position, outcome, remoteness, nim-value).
fn parse_csv(text: &str) -> Vec<(Vec<u32>, String, u16, Option<u16>)> {
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with("position,outcome,remoteness"), "{header}");
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let heaps = f[0].split(' ').filter(|s| !s.is_empty()).map(|h| h.parse().unwrap()).collect();
            (heaps, f[1].to_string(), f[2].parse().unwrap(), f.get(3).map(|g| g.parse().unwrap()))
        })
        .collect()
}

#[test]
fn export_round_trips_to_the_stored_tiers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.sqlite");
    let db = path.to_str().unwrap();
    ok(&["solve", "--game", "kayles", "--misere", "--max-total", "14", "--db", db]);
    ok(&["solve", "--game", "nim", "--max-heaps", "4", "--max-heap", "7", "--nim-values", "--db", db]);
    let database = Database::open(&path).unwrap();
    for solve in database.solves().unwrap() {
        let id = solve.id.to_string();
        let csv = ok(&["export", "--solve", &id, "--db", db]);
        let rows = parse_csv(&csv);
        assert_eq!(rows.len() as u64, solve.positions, "solve #{id}");
        // Re-import: group the rows into tiers in order, and compare with the payloads.
        let universe = solve.target_universe();
        let table = PartitionTable::new(
            universe.max_total,
            universe.heaps_cap().min(universe.max_total),
            universe.part_cap().min(universe.max_total),
        )
        .unwrap();
        let mut tiers: BTreeMap<TierId, (Vec<u16>, Vec<u16>)> = BTreeMap::new();
        for (heaps, outcome, remoteness, nim_value) in &rows {
            let position = Position::new(heaps.clone());
            assert_eq!(position.heaps(), &heaps[..], "heaps largest first");
            let tier = TierId::of(&position);
            let entry = tiers.entry(tier).or_default();
            assert_eq!(table.rank(heaps), entry.0.len() as u64, "rank order in tier {tier}");
            entry.0.push(*remoteness);
            entry.1.extend(nim_value);
            let win = solve.convention.is_win(*remoteness as u32);
            assert_eq!(outcome, if win { "win" } else { "loss" });
        }
        assert_eq!(tiers.len(), database.stored_tiers(solve.id).unwrap().len());
        for (tier, (remoteness, nim_values)) in tiers {
            let stored = database.load_tier(solve.id, tier).unwrap();
            assert_eq!(remoteness, stored.remoteness, "solve #{id} tier {tier}");
            assert_eq!(Some(nim_values).filter(|v| !v.is_empty()), stored.nim_values, "tier {tier}");
        }
        // JSON lines carry the same rows.
        let jsonl = ok(&["export", "--solve", &id, "--format", "jsonl", "--db", db]);
        assert_eq!(jsonl.lines().count(), rows.len());
        for (line, (heaps, outcome, remoteness, nim_value)) in jsonl.lines().zip(&rows) {
            let v: Value = serde_json::from_str(line).unwrap();
            assert_eq!(v["position"], serde_json::json!(heaps));
            assert_eq!(v["outcome"], *outcome);
            assert_eq!(v["remoteness"], *remoteness);
            assert_eq!(v.get("nim_value").and_then(Value::as_u64), nim_value.map(u64::from));
        }
        // Filters: the P-positions up to a total are exactly those rows.
        let losses =
            parse_csv(&ok(&["export", "--solve", &id, "--losses-only", "--max-total", "9", "--db", db]));
        let want: Vec<_> =
            rows.iter().filter(|r| r.1 == "loss" && r.0.iter().sum::<u32>() <= 9).cloned().collect();
        assert_eq!(losses, want);
        assert!(!want.is_empty());
    }
    // Picking by game and convention.
    let by_game = ok(&["export", "--game", "kayles", "--misere", "--db", db]);
    assert_eq!(
        parse_csv(&by_game).len() as u64,
        database.solves_of(&"kayles".parse().unwrap(), Convention::Misere).unwrap()[0].positions
    );
    let out = nimdb().args(["export", "--game", "dawson", "--db", db]).output().unwrap();
    common::assert_one_line_error(&out, "no stored solve");
}
