//! Solving is byte-identical for any thread count: the marking and the child reads run in
//! parallel inside a tier, and the stored tiers must not depend on how the work was split.

mod common;

use common::{nimdb, tier_payloads};

fn payloads(game: &str, misere: bool, total: &str, threads: &str) -> Vec<(i64, i64, Vec<u8>)> {
    payloads_of(&["--game", game, "--max-total", total], misere, threads)
}

/// The stored tiers of a solve of the game and bounds `args`, with `threads` threads.
fn payloads_of(args: &[&str], misere: bool, threads: &str) -> Vec<(i64, i64, Vec<u8>)> {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.sqlite");
    let mut cmd = nimdb();
    cmd.env("RAYON_NUM_THREADS", threads).args(["solve", "--quiet", "--db", db.to_str().unwrap()]);
    cmd.args(args).current_dir(dir.path());
    if misere {
        cmd.arg("--misere");
    }
    cmd.assert().success();
    let conn = rusqlite::Connection::open(&db).unwrap();
    tier_payloads(&conn)
}

#[test]
fn tiers_are_byte_identical_for_1_2_and_7_threads() {
    for (game, misere, total) in
        [("kayles", true, "40"), ("lines", true, "28"), ("moore:2", false, "22"), ("wythoff", true, "22")]
    {
        let one = payloads(game, misere, total, "1");
        assert!(one.len() > 50, "{game}");
        for threads in ["2", "7"] {
            assert!(payloads(game, misere, total, threads) == one, "{game}: {threads} threads differ from 1");
        }
    }
}

#[test]
fn batched_totals_of_capped_nim_are_byte_identical_for_1_2_and_7_threads() {
    // Heaps capped and a long reach: several totals are marked at once, in parallel
    // (atomic minimums) once a batch has enough losses.
    let args = ["--game", "nim", "--max-heaps", "8", "--max-heap", "20"];
    for misere in [true, false] {
        let one = payloads_of(&args, misere, "1");
        assert!(one.len() > 500, "nim 8x20: {} tiers", one.len());
        for threads in ["2", "7"] {
            assert!(payloads_of(&args, misere, threads) == one, "nim 8x20: {threads} threads differ from 1");
        }
    }
}
