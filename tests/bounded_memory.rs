//! A solve under a tiny window limit (what `--memory-limit` sets when the lower tiers do not
//! fit) spills its lower tiers to mapped files, marks a batch of whole totals at once where
//! their arrays fit the window's budget (fewer totals where they do not, tier by tier where
//! not even one total's fit), and stores exactly the tiers of the solve that held everything
//! in memory.

mod common;

use common::{nimdb, tier_payloads};

fn solve(
    dir: &std::path::Path,
    name: &str,
    args: &[&str],
    limit: Option<&str>,
) -> (Vec<(i64, i64, Vec<u8>)>, String) {
    let db = dir.join(name);
    let mut cmd = nimdb();
    cmd.args(["solve", "--db", db.to_str().unwrap()]).args(args);
    if let Some(limit) = limit {
        cmd.args(["--window-limit", limit]);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let conn = rusqlite::Connection::open(&db).unwrap();
    (tier_payloads(&conn), text)
}

#[test]
fn spilled_solves_store_the_same_tiers() {
    for args in [
        &["--game", "lines", "--misere", "--max-total", "40"][..],
        &["--game", "kayles", "--misere", "--max-total", "40"],
        &["--game", "kayles", "--max-total", "36"],
        &["--game", "nim", "--misere", "--max-heap", "16", "--max-heaps", "8"],
        // Splits that take nothing (marks within a total) and splits into three heaps
        // (parents that join three), marked a whole total at once in memory and tier by
        // tier when spilling.
        &["--game", "octal:4.7", "--misere", "--max-total", "40"],
        &["--game", "hex:4.9", "--max-total", "36"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (held, text) = solve(dir.path(), "held.sqlite", args, None);
        assert!(!text.contains("spill"), "{args:?}: {text}");
        assert!(held.len() > 100, "{args:?}");
        // 16 KB of lower tiers in memory: nearly every tier spills, and no total's marking
        // arrays fit. Lines 40 under 100 KB: those of one total near the top fit (75 KB at
        // total 40) and those of the batch of totals an unbounded solve marks together do
        // not, so the batch is cut to the totals that fit.
        let limits: &[&str] = if args[1] == "lines" { &["16K", "100K"] } else { &["16K"] };
        for &limit in limits {
            let (spilled, text) = solve(dir.path(), &format!("spilled-{limit}.sqlite"), args, Some(limit));
            assert!(text.contains("spilled:"), "{args:?} did not spill under {limit}: {text}");
            assert!(spilled == held, "{args:?}: the solve spilled under {limit} stored different tiers");
        }
        // The spill files were unlinked as soon as they were mapped.
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".spill-"))
            .collect();
        assert!(left.is_empty(), "{args:?} left {left:?}");
    }
}

#[test]
fn a_budget_below_the_fixed_part_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("x.sqlite");
    let out = nimdb()
        .args(["solve", "--game", "lines", "--misere", "--max-total", "40", "--memory-limit", "1M", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("even with its lower tiers spilled to disk"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!db.exists());
}

/// Finding: every spill file of a solve was named `.NAME.values` (the tier and process in
/// the name were cut off as an "extension"), unique only because each is unlinked at once:
/// a file of that name left in the directory (a crash, or another process spilling at that
/// moment) failed the solve with "File exists". Each tier's file now keeps its whole name.
#[test]
fn a_spill_file_of_the_old_shared_name_does_not_stop_a_solve() {
    let dir = tempfile::tempdir().unwrap();
    for name in [".taken.sqlite.values", ".taken.sqlite.losses"] {
        std::fs::write(dir.path().join(name), b"someone else's").unwrap();
    }
    let args = ["--game", "kayles", "--misere", "--max-total", "30"];
    let (spilled, text) = solve(dir.path(), "taken.sqlite", &args, Some("1K"));
    assert!(text.contains("spilled:"), "{text}");
    let (held, _) = solve(dir.path(), "held.sqlite", &args, None);
    assert!(spilled == held, "the spilled solve stored different tiers");
    assert_eq!(std::fs::read(dir.path().join(".taken.sqlite.values")).unwrap(), b"someone else's");
}

/// The peak resident set of `nimdb ARGS`, in bytes, and what it printed.
fn peak(args: &[&str], db: &std::path::Path) -> (u64, String) {
    let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    common::peak_of(&args, db)
}

/// Issue 33: under `--memory-limit` a solve that spills kept its own memory within the
/// limit, but every page of the spill files it had read stayed mapped in its resident set:
/// lines misère to 70 under 36 MiB peaked at 49.8 MiB. The window now lets go of a spilled
/// tier's pages once no tier about to be solved reads them, and the plan sets aside the
/// spilled bytes one tier reads: the whole resident set stays within the limit (with 2 MiB
/// for the estimate's slack), and the tiers are those of the solve held in memory.
#[test]
fn a_spilling_solve_keeps_its_whole_resident_set_within_the_memory_limit() {
    let dir = tempfile::tempdir().unwrap();
    let game = ["--game", "lines", "--misere", "--max-total", "70"];
    let (held, text) = solve(dir.path(), "held.sqlite", &game, None);
    assert!(!text.contains("spill"), "{text}");
    let db = dir.path().join("limited.sqlite");
    let limit: u64 = 36 << 20;
    let args = [&["solve", "--memory-limit", "36M", "--db", db.to_str().unwrap()][..], &game].concat();
    let (peak, text) = peak(&args, &db);
    assert!(text.contains("spilled:"), "{text}");
    assert!(peak <= limit + (2 << 20), "peak {peak} bytes over the 36 MiB limit: {text}");
    let conn = rusqlite::Connection::open(&db).unwrap();
    assert!(tier_payloads(&conn) == held, "the solve under the limit stored different tiers");
}
