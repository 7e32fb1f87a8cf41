//! The record of solve runs (`solve_runs`, schema version 6) and what `nimdb info` shows of
//! it: each run's tiers, positions, seconds and peak memory, written with every committed
//! tier, so a run killed with SIGKILL keeps an exact record; a resumed or extended solve adds
//! a run; a schema-5 database, which has no such record, is still listed.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{nimdb, ok};
use nimdb::store::SCHEMA_VERSION;
use serde_json::Value;

/// `nimdb info --json` of `db`.
fn info_json(db: &Path) -> Value {
    let out = nimdb().args(["info", "--json", "--db"]).arg(db).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `nimdb info` of `db` with `extra` arguments, as text.
fn info_text(db: &Path, extra: &[&str]) -> String {
    let out = nimdb().arg("info").args(extra).arg("--db").arg(db).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The machine's memory, from `/proc/meminfo`.
fn machine_memory() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap();
    let line = text.lines().find(|l| l.starts_with("MemTotal:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

/// A peak resident memory a nimdb process can have had: more than a megabyte (its code and
/// SQLite alone take more) and no more than the machine has.
fn assert_plausible_peak(peak: &Value) {
    let peak = peak.as_u64().unwrap_or_else(|| panic!("no peak memory: {peak}"));
    assert!(peak > 1 << 20 && peak <= machine_memory(), "peak memory {peak} bytes");
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// (tiers, positions) stored for solve 1 with totals in `low..=high`.
fn stored(db: &Path, low: u32, high: u32) -> (u64, u64) {
    try_stored(db, low, high).expect("a nimdb database")
}

/// [`stored`], or `None` while there is no database yet.
fn try_stored(db: &Path, low: u32, high: u32) -> Option<(u64, u64)> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
    conn.query_row(
        "SELECT COUNT(*), COALESCE(SUM(positions), 0) FROM tiers WHERE solve_id = 1 AND total BETWEEN ?1 AND ?2",
        [low, high],
        |r| Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as u64)),
    )
    .ok()
}

/// Checks a solve's totals against its runs: the rate is their positions over their
/// seconds, the peak their greatest, and the runs' time is the solve's time.
fn assert_totals(solve: &Value) {
    let runs = solve["runs"].as_array().unwrap();
    assert_eq!(u(&solve["run_count"]) as usize, runs.len());
    let positions: u64 = runs.iter().map(|r| u(&r["positions"])).sum();
    let seconds: f64 = runs.iter().map(|r| f(&r["seconds"])).sum();
    assert!(close(f(&solve["positions_per_second"]), positions as f64 / seconds), "{solve}");
    let peak = runs.iter().map(|r| u(&r["peak_memory_bytes"])).max();
    assert_eq!(solve["peak_memory_bytes"].as_u64(), peak);
    assert!(close(f(&solve["solve_seconds"]), seconds), "{solve}");
    for run in runs {
        assert!(close(f(&run["positions_per_second"]), f(&run["positions"]) / f(&run["seconds"])), "{run}");
    }
}

#[test]
fn a_solve_records_its_run_with_rate_and_peak_memory() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let solve = ["solve", "--game", "kayles", "--misere", "--max-total", "40", "--quiet", "--db"];
    nimdb().args(solve).arg(&db).assert().success();
    let (tiers, positions) = stored(&db, 0, 40);
    assert_eq!(positions, 215_308);

    let v = info_json(&db);
    let s = &v[0];
    assert_eq!(s["run_count"], 1, "{s}");
    let run = &s["runs"][0];
    assert_eq!((u(&run["tiers"]), u(&run["positions"])), (tiers, positions), "{run}");
    assert_eq!((u(&run["solve_id"]), u(&run["target_total"])), (1, 40));
    assert!(f(&run["seconds"]) > 0.0, "{run}");
    assert_plausible_peak(&run["peak_memory_bytes"]);
    assert!(u(&run["threads"]) >= 1 && u(&run["processes"]) == 1, "{run}");
    assert_eq!(run["outcome"], "complete");
    assert_eq!(run["nimdb_version"], env!("CARGO_PKG_VERSION"));
    let (started, until) = (run["started_at"].as_str().unwrap(), run["updated_at"].as_str().unwrap());
    assert_eq!(started.len(), "2025-01-01 00:00:00".len(), "{started}");
    assert!(started <= until, "{started} > {until}");
    assert_totals(s);

    // The text shows the same figures, in the columns named for them.
    let text = info_text(&db, &[]);
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = lines[1].split_whitespace().collect();
    assert!(header.ends_with(&["time", "rate", "peak", "runs"]), "{text}");
    let cells: Vec<&str> = lines[2].split("  ").filter(|c| !c.is_empty()).map(str::trim).collect();
    let n = cells.len();
    let rate = f(&s["positions_per_second"]);
    let want_rate =
        if rate >= 1e6 { format!("{:.2} M/s", rate / 1e6) } else { format!("{:.1} k/s", rate / 1e3) };
    assert_eq!(&cells[n - 3..], [want_rate.as_str(), cells[n - 2], "1"], "{text}");
    assert!(cells[n - 2].ends_with(" MB"), "{text}");

    // A run that finds everything stored solves nothing and leaves no row.
    nimdb().args(solve).arg(&db).assert().success();
    assert_eq!(info_json(&db)[0]["run_count"], 1);
}

#[test]
fn a_solve_extended_later_lists_both_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let solve = |total: &str| {
        nimdb()
            .args(["solve", "--game", "kayles", "--misere", "--quiet", "--max-total", total, "--db"])
            .arg(&db)
            .assert()
            .success();
    };
    solve("30");
    solve("40");
    let v = info_json(&db);
    assert_eq!(v.as_array().unwrap().len(), 1, "one solve, extended");
    let s = &v[0];
    let runs = s["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{s}");
    let (first, second) = (stored(&db, 0, 30), stored(&db, 31, 40));
    for (run, (tiers, positions), target) in [(&runs[0], first, 30), (&runs[1], second, 40)] {
        assert_eq!(
            (u(&run["tiers"]), u(&run["positions"]), u(&run["target_total"])),
            (tiers, positions, target)
        );
        assert_eq!(run["outcome"], "complete");
        assert!(f(&run["seconds"]) > 0.0);
        assert_plausible_peak(&run["peak_memory_bytes"]);
    }
    assert!(
        u(&runs[0]["id"]) < u(&runs[1]["id"])
            && runs[0]["started_at"].as_str() <= runs[1]["started_at"].as_str()
    );
    assert_eq!(first.1 + second.1, u(&s["positions"]));
    assert_totals(s);

    let text = info_text(&db, &["--runs"]);
    let listed: Vec<&str> = text.lines().skip_while(|l| *l != "runs:").skip(2).collect();
    assert_eq!(listed.len(), 2, "{text}");
    for (line, nth, target) in [(listed[0], "1", "30"), (listed[1], "2", "40")] {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!((words[0], words[1], words[6]), ("1", nth, target), "{text}");
        assert!(line.ends_with("complete"), "{text}");
    }
}

/// A run killed with SIGKILL leaves a row that counts exactly the tiers it committed; the
/// resumed run adds its own.
#[test]
fn a_killed_run_keeps_an_exact_record() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.sqlite");
    let args =
        ["solve", "--game", "nim", "--misere", "--max-heaps", "8", "--max-heap", "24", "--quiet", "--db"];
    let mut child =
        std::process::Command::new(env!("CARGO_BIN_EXE_nimdb")).args(args).arg(&db).spawn().unwrap();
    let started = Instant::now();
    let mut committed = 0;
    while started.elapsed() < Duration::from_secs(60) && committed < 300 {
        std::thread::sleep(Duration::from_millis(20));
        committed = try_stored(&db, 0, u32::MAX).map_or(0, |(tiers, _)| tiers);
    }
    child.kill().unwrap(); // SIGKILL
    assert!(!child.wait().unwrap().success(), "the solve finished before it could be killed");
    assert!(committed >= 300, "no tiers were committed before the kill");

    let (tiers, positions) = stored(&db, 0, u32::MAX);
    let v = info_json(&db);
    let s = &v[0];
    assert_eq!(s["status"], "partial");
    let runs = s["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{s}");
    let run = &runs[0];
    assert_eq!((u(&run["tiers"]), u(&run["positions"])), (tiers, positions), "{run}");
    assert_eq!(u(&s["positions"]), positions);
    assert_eq!(run["outcome"], "running", "killed: its last commit said running");
    assert!(f(&run["seconds"]) > 0.0);
    assert_plausible_peak(&run["peak_memory_bytes"]);
    assert_totals(s);
    let text = info_text(&db, &["--runs"]);
    assert!(text.lines().last().unwrap().ends_with("running or killed"), "{text}");

    nimdb().args(args).arg(&db).assert().success();
    let v = info_json(&db);
    let s = &v[0];
    let runs = s["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{s}");
    assert_eq!(
        (u(&runs[0]["tiers"]), u(&runs[0]["positions"])),
        (tiers, positions),
        "the kill's record stays"
    );
    assert_eq!(runs[0]["outcome"], "running");
    assert_eq!(runs[1]["outcome"], "complete");
    let (all_tiers, all_positions) = stored(&db, 0, u32::MAX);
    assert_eq!(u(&runs[1]["tiers"]), all_tiers - tiers);
    assert_eq!(u(&runs[1]["positions"]), all_positions - positions);
    assert_eq!(u(&s["positions"]), 10_518_300);
    assert_totals(s);
}

/// The schema of version 5, as the nimdb before `solve_runs` created it.
const SCHEMA_5: [&str; 5] = [
    include_str!("../migrations/0001_solves_and_tiers.sql"),
    include_str!("../migrations/0002_theory.sql"),
    include_str!("../migrations/0003_quotients.sql"),
    include_str!("../migrations/0004_heap_value_checksums.sql"),
    include_str!("../migrations/0005_bound_checksums.sql"),
];

/// Builds, at `old`, the database a schema-5 nimdb would have written for the solves in
/// `fresh`: the same rows (the tier format did not change), and no record of runs.
fn write_schema_5_copy(fresh: &Path, old: &Path) {
    let conn = rusqlite::Connection::open(old).unwrap();
    for sql in SCHEMA_5 {
        conn.execute_batch(sql).unwrap();
    }
    conn.pragma_update(None, "user_version", 5).unwrap();
    conn.execute("ATTACH DATABASE ?1 AS fresh", [fresh.to_str().unwrap()]).unwrap();
    conn.execute_batch(
        "INSERT INTO solves (id, game, convention, max_heap, max_heaps, nim_values, target_total, solved_total,
                             status, positions, losses, solve_seconds, solver_version, created_at, updated_at)
         SELECT id, game, convention, max_heap, max_heaps, nim_values, target_total, solved_total, status,
                positions, losses, solve_seconds, solver_version, created_at, updated_at FROM fresh.solves;
         INSERT INTO tiers (id, solve_id, total, heaps, positions, losses, max_remoteness, remoteness_bytes,
                            nim_value_bytes, block_records, checksum, solve_seconds, block_checksums, payload,
                            checksum_scheme)
         SELECT id, solve_id, total, heaps, positions, losses, max_remoteness, remoteness_bytes, nim_value_bytes,
                block_records, checksum, solve_seconds, block_checksums, payload, checksum_scheme
         FROM fresh.tiers;
         DETACH DATABASE fresh;",
    )
    .unwrap();
}

/// `info --json` without the keys schema 6 added.
fn without_runs(v: &Value) -> Value {
    let mut v = v.clone();
    for s in v.as_array_mut().unwrap() {
        let s = s.as_object_mut().unwrap();
        for key in ["run_count", "positions_per_second", "peak_memory_bytes", "runs"] {
            assert!(s.remove(key).is_some(), "{key} missing");
        }
    }
    v
}

#[test]
fn a_schema_5_database_is_listed_without_runs_then_upgraded() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh.sqlite");
    let old = dir.path().join("old.sqlite");
    let (fresh_s, old_s) = (fresh.to_str().unwrap(), old.to_str().unwrap());
    ok(&["solve", "--quiet", "--db", fresh_s, "--game", "kayles", "--misere", "--max-total", "16"]);
    ok(&["solve", "--quiet", "--db", fresh_s, "--game", "nim", "--max-total", "12", "--nim-values"]);
    write_schema_5_copy(&fresh, &old);
    let bytes = std::fs::read(&old).unwrap();

    // Read as it is: every solve listed, the figures it cannot have shown as absent.
    let text = info_text(&old, &[]);
    assert!(text.contains("schema version 5 (read as it is): it has no record of solve runs"), "{text}");
    assert!(!text.contains("plain CRC-32s"), "schema 5's checksums are bound: {text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with(' ')).collect();
    assert_eq!(rows.len(), 2, "{text}");
    for row in &rows {
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(&cells[cells.len() - 3..], ["—", "—", "—"], "{text}");
    }
    let v = info_json(&old);
    for s in v.as_array().unwrap() {
        for key in ["run_count", "positions_per_second", "peak_memory_bytes", "runs"] {
            assert!(s[key].is_null(), "{key}: {s}");
        }
    }
    assert_eq!(without_runs(&v), without_runs(&info_json(&fresh)), "the same solves");
    let runs = info_text(&old, &["--runs"]);
    assert!(runs.contains("runs: not recorded in a database of schema version 5"), "{runs}");
    let query = ["query", "--game", "kayles", "--misere", "--json", "--db"];
    assert_eq!(
        ok(&[&query[..], &[old_s, "9", "4"]].concat()),
        ok(&[&query[..], &[fresh_s, "9", "4"]].concat())
    );
    assert_eq!(std::fs::read(&old).unwrap(), bytes, "reading wrote nothing");

    // A solve upgrades it; the run that extends the old solve is its first recorded one.
    ok(&["solve", "--quiet", "--db", old_s, "--game", "kayles", "--misere", "--max-total", "20"]);
    let conn = rusqlite::Connection::open(&old).unwrap();
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION as i64);
    let upgrades: i64 = conn.query_row("SELECT COUNT(*) FROM checksum_upgrades", [], |r| r.get(0)).unwrap();
    assert_eq!(upgrades, 0, "nothing to rebind from schema 5");
    drop(conn);
    let v = info_json(&old);
    let kayles = v.as_array().unwrap().iter().find(|s| s["game"] == "kayles").unwrap();
    let nim = v.as_array().unwrap().iter().find(|s| s["game"] == "nim").unwrap();
    assert_eq!(nim["run_count"], 0, "solved before runs were recorded: {nim}");
    assert!(nim["positions_per_second"].is_null() && nim["peak_memory_bytes"].is_null());
    let runs = kayles["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{kayles}");
    assert_eq!((u(&runs[0]["tiers"]), u(&runs[0]["positions"])), stored(&old, 17, 20));
    assert_eq!(u(&runs[0]["target_total"]), 20);
    let old_seconds = f(&info_json(&fresh)[0]["solve_seconds"]);
    assert!(close(f(&kayles["solve_seconds"]), old_seconds + f(&runs[0]["seconds"])), "{kayles}");
    let text = info_text(&old, &[]);
    assert!(!text.contains("read as it is") && !text.contains("checksums recomputed"), "{text}");
}
