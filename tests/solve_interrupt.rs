//! Ctrl-C during a solve: the finished tiers stay committed, the command says how to
//! resume and exits 130, and the resumed solve stores exactly the tiers of an uninterrupted
//! one.

mod common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{nimdb, tier_payloads};

const SOLVE: [&str; 5] = ["--game", "kayles", "--misere", "--max-total", "62"];

fn stored_tiers(db: &std::path::Path) -> i64 {
    let Ok(conn) = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return 0;
    };
    conn.query_row("SELECT count(*) FROM tiers", [], |r| r.get(0)).unwrap_or(0)
}

#[test]
fn sigint_commits_the_finished_tiers_and_the_rerun_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.sqlite");
    let program = nimdb().get_program().to_owned();
    let child = std::process::Command::new(&program)
        .args(["solve", "--db"])
        .arg(&db)
        .args(SOLVE)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until some tiers are committed, then press Ctrl-C.
    let started = Instant::now();
    while stored_tiers(&db) < 200 {
        assert!(started.elapsed() < Duration::from_secs(120), "no tiers stored");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: sending a signal to our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        // The solve finished before the signal arrived: nothing to check about stopping.
        eprintln!("the solve finished before Ctrl-C");
    } else {
        assert_eq!(out.status.code(), Some(130), "{stderr}");
        assert!(stderr.contains("interrupted") && stderr.contains("run the same command again"), "{stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let after_stop = stored_tiers(&db);
    assert!(after_stop >= 200);
    // The run's record says how it ended, and counts every tier it committed.
    let interrupted = !out.status.success();
    let runs = || {
        let out = nimdb().args(["info", "--json", "--db"]).arg(&db).output().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v[0]["runs"].as_array().unwrap().clone()
    };
    let first = runs();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0]["outcome"], if interrupted { "interrupted" } else { "complete" });
    assert_eq!(first[0]["tiers"].as_i64(), Some(after_stop));
    // Resume, and compare with a solve that was never interrupted.
    let out = nimdb().args(["solve", "--db"]).arg(&db).args(SOLVE).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    if interrupted {
        let both = runs();
        assert_eq!(both.len(), 2, "the resumed run is recorded");
        assert_eq!((&both[0], &both[1]["outcome"]), (&first[0], &serde_json::json!("complete")));
        let tiers = both.iter().map(|r| r["tiers"].as_i64().unwrap()).sum::<i64>();
        assert_eq!(tiers, stored_tiers(&db));
    }
    let whole = dir.path().join("whole.sqlite");
    nimdb().args(["solve", "--quiet", "--db"]).arg(&whole).args(SOLVE).assert().success();
    let resumed = tier_payloads(&rusqlite::Connection::open(&db).unwrap());
    let uninterrupted = tier_payloads(&rusqlite::Connection::open(&whole).unwrap());
    assert!(resumed == uninterrupted, "the resumed solve differs");
}

/// A loopy family is solved whole (its draws are what no retrograde round decides), so
/// Ctrl-C stores none of the run: the message says so, and does not promise a resume.
#[test]
fn sigint_during_a_loopy_solve_says_nothing_is_stored_and_the_rerun_starts_over() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("loopy.sqlite");
    let program = nimdb().get_program().to_owned();
    let child = std::process::Command::new(&program)
        .args(["solve", "--db"])
        .arg(&db)
        .args(["--game", "raise:16", "--max-heaps", "8"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(400));
    // SAFETY: sending a signal to our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        eprintln!("the solve finished before Ctrl-C");
        return;
    }
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("solved whole, so nothing of this run is stored"), "{stderr}");
    assert!(stderr.contains("starts over"), "{stderr}");
    assert!(!stderr.contains("resume"), "{stderr}");
    assert_eq!(stored_tiers(&db), 0);
}
