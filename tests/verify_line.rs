//! `verify`'s problem line is bounded (issue 34, low finding).

mod common;

/// Low finding: the problem line of `verify` on a damaged file was unbounded (about 50 KB,
/// with duplicate entries). Each different problem is listed once, at most ten, and the rest
/// are counted.
#[test]
fn a_damaged_file_makes_a_bounded_problem_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    let text = db.to_str().unwrap();
    let args = ["solve", "--quiet", "--db", text, "--game", "nim", "--misere", "--max-heaps", "3"];
    common::ok(&[&args[..], &["--max-heap", "6"]].concat());
    // Every tier's count edited: one problem a tier.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let tiers = conn.execute("UPDATE tiers SET losses = losses + 1", []).unwrap();
    drop(conn);
    assert!(tiers > 20, "{tiers} tiers");
    let out = common::nimdb().args(["verify", "--db", text, "--game", "nim", "--misere"]).output().unwrap();
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().find(|l| l.starts_with("self-consistency:")).expect("a self-consistency line");
    assert!(line.len() < 2_000, "{} bytes: {line}", line.len());
    let listed: Vec<&str> = line.match_indices("tier (").map(|(at, _)| &line[at..at + 12]).collect();
    assert_eq!(listed.len(), 10, "{line}");
    let mut distinct = listed.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), listed.len(), "repeated problems: {line}");
    assert!(line.ends_with(&format!("; and {} more", tiers - 10)), "{line}");
}
