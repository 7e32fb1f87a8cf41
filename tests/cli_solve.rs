//! `nimdb solve`, `query` and `info` from the command line.

mod common;

use common::{nimdb, ok};

#[test]
fn dry_run_estimates_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.sqlite");
    let out = nimdb()
        .args([
            "solve",
            "--game",
            "nim",
            "--misere",
            "--max-heaps",
            "8",
            "--max-heap",
            "32",
            "--dry-run",
            "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("positions:   76904685"), "{text}");
    assert!(text.contains("memory:") && text.contains("disk:"), "{text}");
    assert!(!db.exists(), "a dry run created the database");
}

#[test]
fn nim_values_are_stored_and_shown() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v.sqlite");
    nimdb()
        .args(["solve", "--game", "kayles", "--max-total", "12", "--nim-values", "--quiet", "--db"])
        .arg(&db)
        .assert()
        .success();
    let out = nimdb()
        .args(["query", "--game", "kayles", "--json", "--db"])
        .arg(&db)
        .args(["4", "3"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Kayles g(4) = 1, g(3) = 3: the sum has nim-value 1 ^ 3 = 2.
    assert_eq!(v["nim_value"], 2);
    assert_eq!(v["outcome"], "win");
    assert_eq!(v["source"], "database");
    let out = nimdb().args(["query", "--game", "kayles", "--db"]).arg(&db).args(["4", "1"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("loss for the player to move") && text.contains("nim-value 0"), "{text}");
}

#[test]
fn query_json_has_the_documented_keys() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.sqlite");
    let out =
        nimdb().args(["query", "--game", "nim", "--json", "--db"]).arg(&db).args(["3,4,7"]).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["game", "convention", "position", "outcome", "remoteness", "best_move", "moves", "source"] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["position"], serde_json::json!([7, 4, 3]));
    assert_eq!(v["outcome"], "loss");
    assert_eq!(v["source"], "solved");
    assert_eq!(v["moves"].as_array().unwrap().len(), 14);
    assert!(v["best_move"]["to"].is_array());
    // The empty position: no best move.
    let out = nimdb().args(["query", "--game", "nim", "--json", "--db"]).arg(&db).arg("[]").output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["best_move"].is_null());
    assert_eq!(v["remoteness"], 0);
}

#[test]
fn info_lists_solves() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.sqlite");
    nimdb()
        .args(["solve", "--game", "dawson", "--misere", "--max-total", "20", "--quiet", "--db"])
        .arg(&db)
        .assert()
        .success();
    let out = nimdb().args(["info", "--json", "--db"]).arg(&db).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &v[0];
    assert_eq!(s["game"], "dawson");
    assert_eq!(s["convention"], "misere");
    assert_eq!(s["status"], "complete");
    assert_eq!(s["target_total"], 20);
    assert!(s["positions"].as_u64().unwrap() > 2000);
    let text = String::from_utf8(nimdb().args(["info", "--db"]).arg(&db).output().unwrap().stdout).unwrap();
    assert!(text.contains("dawson") && text.contains("complete"), "{text}");
}

/// A cap of 0 heaps (or heaps of 0) leaves only the empty position, whatever the total: the
/// solve is complete once that one position is stored (it was left "partial" for good, its
/// higher totals holding no tier to complete them).
#[test]
fn a_cap_of_zero_leaves_only_the_empty_position_and_the_solve_completes() {
    let dir = tempfile::tempdir().unwrap();
    for (i, cap) in [["--max-heaps", "0"], ["--max-heap", "0"]].iter().enumerate() {
        let db = dir.path().join(format!("zero-{i}.sqlite"));
        let solve = || {
            let out = nimdb()
                .args(["solve", "--game", "nim", "--max-total", "5"])
                .args(cap)
                .arg("--db")
                .arg(&db)
                .output()
                .unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8(out.stdout).unwrap()
        };
        let first = solve();
        assert!(first.contains("status complete") && first.contains("1 positions"), "{cap:?}: {first}");
        let again = solve();
        assert!(again.contains("already stored") && again.contains("status complete"), "{cap:?}: {again}");
    }
    // The spaced families with no heaps (steps, coins) likewise.
    for game in ["staircase", "welter"] {
        let db = dir.path().join(format!("{game}.sqlite"));
        let out = nimdb()
            .args(["solve", "--game", game, "--max-total", "5", "--max-heaps", "0", "--db"])
            .arg(&db)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("1 positions") && text.contains("status complete"),
            "{game}: {text}"
        );
    }
}

/// The summary's size is the stored tiers' payload, and it says so: it called it "on disk",
/// beside a file of 376,832 bytes for 213.5 KB.
#[test]
fn the_summary_calls_the_payload_a_payload() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let out =
        ok(&["solve", "--game", "kayles", "--misere", "--max-total", "40", "--db", db.to_str().unwrap()]);
    let stored = out.lines().find(|l| l.starts_with("stored: ")).unwrap_or_else(|| panic!("{out}"));
    assert!(!stored.contains("on disk"), "{stored}");
    assert!(stored.contains("213.5 KB of tier payload"), "{stored}");
    let file = std::fs::metadata(&db).unwrap().len();
    assert!(file > 213 * 1024, "the file ({file} bytes) holds the payload and more");
    // `info` names the column what it is, too: it was `disk`, beside a larger file.
    let info = ok(&["info", "--db", db.to_str().unwrap()]);
    let header = info.lines().find(|l| l.starts_with("id ")).unwrap_or_else(|| panic!("{info}"));
    assert!(header.contains(" payload ") && !header.contains("disk"), "{header}");
    assert!(info.contains("213.5 KB"), "{info}");
}
