//! What `verify` and `info` say of a damaged file (issue 34, low findings).

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

/// Low finding: `info` showed a tampered `positions=999999` without comment. It says when a
/// solve's recorded counts disagree with its tiers', and nothing for an intact file.
#[test]
fn info_says_when_a_solve_s_counts_disagree_with_its_tiers() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    let text = db.to_str().unwrap();
    let args = ["solve", "--quiet", "--db", text, "--game", "nim", "--misere", "--max-heaps", "3"];
    common::ok(&[&args[..], &["--max-heap", "6"]].concat());
    let kayles =
        ["solve", "--quiet", "--db", text, "--game", "staircase", "--max-total", "8", "--max-heaps", "3"];
    common::ok(&kayles);
    let intact = common::ok(&["info", "--db", text]);
    assert!(!intact.contains("edited or damaged"), "{intact}");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("UPDATE solves SET positions = 999999 WHERE id = 1", []).unwrap();
    drop(conn);
    let said = common::ok(&["info", "--db", text]);
    let line = said.lines().find(|l| l.contains("edited or damaged")).unwrap_or_else(|| panic!("{said}"));
    assert!(
        line.starts_with("solve #1 records 999999 positions and 11 losses, but its tiers hold 84 and 11"),
        "{line}"
    );
    assert_eq!(said.matches("edited or damaged").count(), 1, "{said}");
}
