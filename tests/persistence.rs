//! Solves survive the process: reopened in a new process they give the same answers, a
//! killed solve resumes to the same result, raising the total reuses stored tiers, and a
//! payload altered by hand is caught by its checksum.

mod common;

use std::time::{Duration, Instant};

use common::{assert_one_line_error, dump, nimdb, tier_payloads};
use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::solve::{SolveOptions, Strategy, solve_in_memory};

fn json(args: &[&str]) -> serde_json::Value {
    let out = nimdb().args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn reopened_in_a_new_process_gives_identical_answers() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    let db = db.to_str().unwrap();
    nimdb()
        .args(["solve", "--game", "kayles", "--misere", "--max-total", "14", "--quiet", "--db", db])
        .assert()
        .success();
    let spec: GameSpec = "kayles".parse().unwrap();
    let universe = Universe::new(spec.rules(), "kayles", Some(14), None, None).unwrap();
    let options = SolveOptions {
        convention: Convention::Misere,
        universe,
        nim_values: false,
        strategy: Strategy::Sweep,
    };
    let memory = solve_in_memory(&spec, &options).unwrap();
    let table = universe.table().unwrap();
    let mut asked = 0;
    for tier in universe.tiers() {
        for (rank, position) in table.positions(tier).enumerate().step_by(7) {
            let position = position.to_string();
            let v = json(&["query", "--game", "kayles", "--misere", "--json", "--db", db, &position]);
            let want = memory.tiers[&tier].remoteness[rank] as u64;
            assert_eq!(v["remoteness"].as_u64(), Some(want), "{position}");
            assert_eq!(v["source"], "database");
            assert_eq!(v["outcome"], if Convention::Misere.is_win(want as u32) { "win" } else { "loss" });
            asked += 1;
        }
    }
    assert!(asked > 50);
}

#[test]
fn killed_solve_resumes_to_the_uninterrupted_result() {
    let dir = tempfile::tempdir().unwrap();
    let killed = dir.path().join("killed.sqlite");
    let clean = dir.path().join("clean.sqlite");
    let args =
        ["solve", "--game", "nim", "--misere", "--max-heaps", "8", "--max-heap", "24", "--quiet", "--db"];
    let mut child =
        std::process::Command::new(env!("CARGO_BIN_EXE_nimdb")).args(args).arg(&killed).spawn().unwrap();
    // Wait until some tiers are committed, then SIGKILL it mid-way.
    let started = Instant::now();
    let mut stored = 0;
    while started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
        if let Ok(conn) =
            rusqlite::Connection::open_with_flags(&killed, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        {
            stored = conn.query_row("SELECT COUNT(*) FROM tiers", [], |r| r.get::<_, i64>(0)).unwrap_or(0);
            if stored >= 300 {
                break;
            }
        }
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success(), "the solve finished before it could be killed");
    assert!(stored >= 300, "no tiers were committed before the kill");
    {
        let conn = rusqlite::Connection::open(&killed).unwrap();
        let status: String = conn.query_row("SELECT status FROM solves", [], |r| r.get(0)).unwrap();
        assert_eq!(status, "partial");
    }
    let info = nimdb().args(["info", "--db"]).arg(&killed).output().unwrap();
    assert!(String::from_utf8_lossy(&info.stdout).contains("partial up to tier"));

    nimdb().args(args).arg(&killed).assert().success();
    nimdb().args(args).arg(&clean).assert().success();
    let a = tier_payloads(&rusqlite::Connection::open(&killed).unwrap());
    let b = tier_payloads(&rusqlite::Connection::open(&clean).unwrap());
    assert_eq!(a.len(), b.len());
    assert!(a == b, "resumed tiers differ from the uninterrupted solve");
    let status: String = rusqlite::Connection::open(&killed)
        .unwrap()
        .query_row("SELECT status || ' ' || positions FROM solves", [], |r| r.get(0))
        .unwrap();
    assert_eq!(status, "complete 10518300");
}

#[test]
fn raising_the_total_reuses_stored_tiers() {
    let dir = tempfile::tempdir().unwrap();
    let grown = dir.path().join("grown.sqlite");
    let direct = dir.path().join("direct.sqlite");
    let solve = |db: &std::path::Path, total: &str| {
        let out = nimdb()
            .args(["solve", "--game", "lines", "--max-total", total, "--db"])
            .arg(db)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    solve(&grown, "20");
    let before = tier_payloads(&rusqlite::Connection::open(&grown).unwrap());
    let report = solve(&grown, "25");
    // Tiers of totals 21..=25: one per heap count.
    let new_tiers: usize = (21..=25).sum();
    assert!(report.contains(&format!("{new_tiers} new tiers")), "{report}");
    solve(&direct, "25");
    let after = tier_payloads(&rusqlite::Connection::open(&grown).unwrap());
    assert_eq!(&after[..before.len()], &before[..], "stored tiers were rewritten");
    assert_eq!(after, tier_payloads(&rusqlite::Connection::open(&direct).unwrap()));
}

#[test]
fn altered_payload_is_caught_by_its_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    nimdb()
        .args(["solve", "--game", "nim", "--max-total", "12", "--quiet", "--db"])
        .arg(&db)
        .assert()
        .success();
    nimdb().args(["query", "--game", "nim", "--db"]).arg(&db).args(["5", "4", "3"]).assert().success();
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        // Change the first record of [5,4,3]'s tier by hand, keeping the payload's length.
        let mut payload: Vec<u8> = conn
            .query_row("SELECT payload FROM tiers WHERE total = 12 AND heaps = 3", [], |r| r.get(0))
            .unwrap();
        payload[0] ^= 2;
        let changed =
            conn.execute("UPDATE tiers SET payload = ?1 WHERE total = 12 AND heaps = 3", [payload]).unwrap();
        assert_eq!(changed, 1);
    }
    let before = dump(&db);
    let out =
        nimdb().args(["query", "--game", "nim", "--db"]).arg(&db).args(["5", "4", "3"]).output().unwrap();
    assert_one_line_error(&out, "checksum");
    assert_eq!(dump(&db), before);
}

#[test]
fn concurrent_solves_of_the_same_universe_agree() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.sqlite");
    let spawn = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_nimdb"))
            .args(["solve", "--game", "kayles", "--misere", "--max-total", "34", "--quiet", "--db"])
            .arg(&db)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (status, positions, tiers): (String, i64, i64) = conn
        .query_row("SELECT status, positions, (SELECT COUNT(*) FROM tiers) FROM solves", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    let spec: GameSpec = "kayles".parse().unwrap();
    let universe = Universe::new(spec.rules(), "kayles", Some(34), None, None).unwrap();
    assert_eq!(status, "complete");
    assert_eq!(positions as u64, universe.positions(&universe.table().unwrap()), "positions counted twice");
    assert_eq!(tiers as usize, universe.tiers().len());
}

#[test]
fn a_total_beyond_the_caps_completes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.sqlite");
    let out = nimdb()
        .args(["solve", "--game", "nim", "--max-total", "300", "--max-heap", "5", "--max-heaps", "3", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("total ≤ 15, heap ≤ 5, heaps ≤ 3") && text.contains("status complete"), "{text}");
}

#[test]
fn queries_run_while_a_solve_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.sqlite");
    let mut solver = std::process::Command::new(env!("CARGO_BIN_EXE_nimdb"))
        .args([
            "solve",
            "--game",
            "nim",
            "--misere",
            "--max-heaps",
            "8",
            "--max-heap",
            "24",
            "--quiet",
            "--db",
        ])
        .arg(&db)
        .spawn()
        .unwrap();
    let started = Instant::now();
    let mut answered = 0;
    let mut while_running = 0;
    while started.elapsed() < Duration::from_secs(60) && answered < 5 {
        std::thread::sleep(Duration::from_millis(30));
        let stored = rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .and_then(|c| c.query_row("SELECT COUNT(*) FROM tiers", [], |r| r.get::<_, i64>(0)))
            .unwrap_or(0);
        if stored < 50 {
            continue;
        }
        let running = solver.try_wait().unwrap().is_none();
        let out = nimdb()
            .args(["query", "--game", "nim", "--misere", "--json", "--db"])
            .arg(&db)
            .args(["3", "2", "1"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!((v["source"].as_str(), v["outcome"].as_str()), (Some("database"), Some("loss")));
        answered += 1;
        if running && solver.try_wait().unwrap().is_none() {
            while_running += 1;
        }
    }
    assert!(solver.wait().unwrap().success());
    assert_eq!(answered, 5);
    assert!(while_running > 0, "no query was answered while the solve was writing");
}

/// A storm of SIGKILLs at pseudo-random moments (some during start-up, some mid-tier, some
/// while a tier commits): every interrupted run leaves a database the next run resumes, and
/// the end result is byte-identical to an uninterrupted solve.
#[test]
#[ignore = "long: 14 solves killed at random moments, then compared; .ci/run runs it with --ignored"]
fn a_kill_storm_leaves_the_uninterrupted_result() {
    let dir = tempfile::tempdir().unwrap();
    let stormed = dir.path().join("storm.sqlite");
    let clean = dir.path().join("clean.sqlite");
    let args = ["solve", "--game", "kayles", "--misere", "--max-total", "60", "--quiet", "--db"];
    // A fixed pseudo-random sequence of delays (xorshift), so a failure can be replayed.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut kills = 0;
    let mut finished_early = 0;
    for _ in 0..14 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let delay = Duration::from_millis(5 + state % 120);
        let mut child =
            std::process::Command::new(env!("CARGO_BIN_EXE_nimdb")).args(args).arg(&stormed).spawn().unwrap();
        std::thread::sleep(delay);
        match child.try_wait().unwrap() {
            Some(_) => finished_early += 1,
            None => {
                child.kill().unwrap();
                child.wait().unwrap();
                kills += 1;
            }
        }
        // Between kills the file always opens and lists its solve (or has none yet).
        let info = nimdb().args(["info", "--db"]).arg(&stormed).output().unwrap();
        let stderr = String::from_utf8_lossy(&info.stderr);
        assert!(info.status.success() || stderr.contains("no nimdb database"), "{stderr}");
    }
    assert!(kills >= 10, "only {kills} runs were killed ({finished_early} finished first)");
    nimdb().args(args).arg(&stormed).assert().success();
    nimdb().args(args).arg(&clean).assert().success();
    let a = tier_payloads(&rusqlite::Connection::open(&stormed).unwrap());
    let b = tier_payloads(&rusqlite::Connection::open(&clean).unwrap());
    assert_eq!(a.len(), b.len());
    assert!(a == b, "tiers after the kill storm differ from the uninterrupted solve");
}

/// The time of a run killed with SIGKILL is kept for every tier it committed.
#[test]
fn a_killed_run_keeps_its_solve_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("timed.sqlite");
    let args =
        ["solve", "--game", "nim", "--misere", "--max-heaps", "8", "--max-heap", "24", "--quiet", "--db"];
    let spawned = Instant::now();
    let mut child =
        std::process::Command::new(env!("CARGO_BIN_EXE_nimdb")).args(args).arg(&db).spawn().unwrap();
    let mut stored = 0;
    while spawned.elapsed() < Duration::from_secs(60) && stored < 300 {
        std::thread::sleep(Duration::from_millis(20));
        if let Ok(conn) =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        {
            stored = conn.query_row("SELECT COUNT(*) FROM tiers", [], |r| r.get::<_, i64>(0)).unwrap_or(0);
        }
    }
    child.kill().unwrap(); // SIGKILL
    let lived = spawned.elapsed().as_secs_f64();
    assert!(!child.wait().unwrap().success(), "the solve finished before it could be killed");
    assert!(stored >= 300, "no tiers were committed before the kill");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (status, seconds, tier_seconds): (String, f64, f64) = conn
        .query_row(
            "SELECT status, solve_seconds, (SELECT SUM(solve_seconds) FROM tiers) FROM solves",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    drop(conn);
    assert_eq!(status, "partial");
    // At least the time spent solving the committed tiers, at most the process's life.
    assert!(
        seconds > 0.0 && seconds >= tier_seconds - 1e-9,
        "{seconds} s recorded, tiers took {tier_seconds} s"
    );
    assert!(seconds <= lived, "{seconds} s recorded in a process that lived {lived} s");

    // The resumed run adds its own time to what was kept.
    nimdb().args(args).arg(&db).assert().success();
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (status, after, tier_seconds): (String, f64, f64) = conn
        .query_row(
            "SELECT status, solve_seconds, (SELECT SUM(solve_seconds) FROM tiers) FROM solves",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(status, "complete");
    assert!(after > seconds && after >= tier_seconds - 1e-9, "{after} s after resuming, {seconds} s before");
}
