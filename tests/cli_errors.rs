//! Bad input gets one clear error line and a non-zero exit, and leaves the database as it was.

mod common;

use std::path::{Path, PathBuf};

use common::{assert_one_line_error, dump, nimdb};
use nimdb::driver::DatabaseSink;
use nimdb::game::{Convention, GameSpec};
use nimdb::index::{TierId, Universe};
use nimdb::solve::{Silent, SinkError, SolveOptions, SolvedTier, Strategy, TierStore, solve};
use nimdb::store::{Database, SolveKey};

/// A database holding a small complete solve.
fn seeded() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("seeded.sqlite");
    nimdb()
        .args(["solve", "--game", "kayles", "--max-total", "10", "--quiet", "--db"])
        .arg(&db)
        .assert()
        .success();
    (dir, db)
}

/// `sha256sum` of a directory tree: every entry's path and type (so a new file or
/// directory shows, even an empty one), then the SHA-256 of every file's contents.
fn tree_sha256(dir: &Path) -> String {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("find . -printf '%y %p\\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum")
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `args` against `db`, expects one error line containing `needle`, and checks that
/// the directory holding `db` is byte for byte as it was (`sha256sum` of the whole tree:
/// no file changed, none created, none removed) and the database's rows are the same.
fn refused_at(db: &Path, args: &[&str], needle: &str) {
    let dir = db.parent().unwrap();
    let tree = tree_sha256(dir);
    // The rows, read from a copy (reading the file itself could leave SQLite's side files).
    let copy = tempfile::tempdir().unwrap();
    let rows = match std::fs::copy(db, copy.path().join("copy.sqlite")) {
        Ok(_) => dump(&copy.path().join("copy.sqlite")),
        Err(_) => Vec::new(),
    };
    let out = nimdb().args(args).arg("--db").arg(db).current_dir(dir).output().unwrap();
    assert_one_line_error(&out, needle);
    assert_eq!(tree_sha256(dir), tree, "{args:?} changed the directory of {}", db.display());
    let _ = std::fs::copy(db, copy.path().join("after.sqlite"));
    assert_eq!(dump(&copy.path().join("after.sqlite")), rows, "{args:?} changed the database");
}

/// [`refused_at`] for `db`, and for a database path that does not exist yet, in an empty
/// directory (where nothing may be created).
fn refused(db: &Path, args: &[&str], needle: &str) {
    refused_at(db, args, needle);
    let empty = tempfile::tempdir().unwrap();
    let missing = empty.path().join("never.sqlite");
    refused_at(&missing, args, needle);
    assert!(!missing.exists());
}

#[test]
fn bad_game_specs() {
    let (_dir, db) = seeded();
    refused(&db, &["solve", "--game", "chess", "--max-total", "5"], "unknown game");
    refused(&db, &["solve", "--game", "octal:0.8", "--max-total", "5"], "not an octal digit");
    refused(&db, &["solve", "--game", "octal:2.7", "--max-total", "5"], "0 or 4");
    refused(&db, &["solve", "--game", "subtraction:1,x", "--max-total", "5"], "'x'");
    refused(&db, &["solve", "--game", "subtraction:0", "--max-total", "5"], "may not contain 0");
    refused(&db, &["query", "--game", "foo:1", "3"], "unknown game family");
}

#[test]
fn bad_bounds() {
    let (_dir, db) = seeded();
    refused(&db, &["solve", "--game", "lines", "--max-total", "10", "--max-heaps", "3"], "split");
    refused(&db, &["solve", "--game", "grundy", "--max-total", "10", "--max-heaps", "3"], "split");
    refused(&db, &["solve", "--game", "nim"], "--max-total");
    refused(&db, &["solve", "--game", "nim", "--max-total", "1000000"], "too large");
    refused(&db, &["solve", "--game", "nim", "--max-total", "-3"], "");
}

#[test]
fn bad_heap_lists() {
    let (_dir, db) = seeded();
    refused(&db, &["query", "--game", "kayles", "3", "-1"], "negative");
    refused(&db, &["query", "--game", "kayles", "3", "x"], "'x'");
    refused(&db, &["query", "--game", "kayles", "99999999999"], "larger than");
    refused(&db, &["query", "--game", "kayles", "[3,4"], "brackets");
    refused(&db, &["query", "--game", "kayles", "2.5"], "'2.5'");
}

#[test]
fn position_outside_the_solved_range_names_the_solve_command() {
    let (_dir, db) = seeded();
    refused(
        &db,
        // Dawson's Kayles: no misère quotient answers it (misère Kayles now does).
        &["query", "--game", "dawson", "--misere", "40", "30", "20"],
        "run: nimdb solve --game dawson --misere --max-total 90",
    );
}

#[test]
fn a_suggested_solve_states_what_it_costs() {
    // Positions, memory, disk and CPU time at a measured rate (issue 36): a heap game's
    // uncovered position, and a family's.
    let (_dir, db) = seeded();
    let out = nimdb()
        .args(["query", "--game", "dawson", "--misere", "40", "30", "20", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    for part in [
        "run: nimdb solve --game dawson --misere --max-total 90; it ",
        " of memory, ~",
        " of disk and ~86 s of CPU at ~185 ns a position, the rate measured on misère Kayles to total 100",
    ] {
        assert!(msg.contains(part), "{msg}");
    }
    let out = nimdb()
        .args(["query", "--game", "hyper:5:exact:2", "30", "30", "30", "30", "30", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(msg.contains("--max-total 150 --max-heaps 5; it takes ~"), "{msg}");
    assert!(msg.contains(" of CPU at ~740 ns a position, the rate measured on hyper:4:exact:2"), "{msg}");
    let out = nimdb()
        .args(["solve", "--game", "staircase", "--max-total", "70", "--dry-run", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "time:        ~31 s of CPU at ~1020 ns a position, the rate measured on staircase to total 70"
        ),
        "{text}"
    );
}

#[test]
fn files_that_are_not_nimdb_databases() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "not a database, just some notes\n").unwrap();
    refused_at(&text, &["query", "--game", "nim", "3"], "not a nimdb database");
    refused_at(&text, &["info"], "not a nimdb database");
    refused_at(&text, &["solve", "--game", "nim", "--max-total", "4"], "not a nimdb database");

    let other = dir.path().join("other.sqlite");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE notes(x); INSERT INTO notes VALUES (1);")
        .unwrap();
    refused_at(&other, &["solve", "--game", "nim", "--max-total", "4"], "another program");
    refused_at(&other, &["query", "--game", "nim", "3"], "another program");
    refused_at(&other, &["info"], "another program");

    let missing = dir.path().join("missing.sqlite");
    refused_at(&missing, &["info"], "no nimdb database");
    assert!(!missing.exists());
}

#[test]
fn database_from_a_newer_schema_is_refused_untouched() {
    let (_dir, db) = seeded();
    rusqlite::Connection::open(&db).unwrap().pragma_update(None, "user_version", 99).unwrap();
    refused_at(&db, &["info"], "newer");
    refused_at(&db, &["query", "--game", "kayles", "3"], "newer");
    refused_at(&db, &["solve", "--game", "kayles", "--max-total", "12"], "newer");
}

/// Stores tiers until it is told to fail: an interrupted solve.
struct FailAfter<'a> {
    inner: DatabaseSink<'a>,
    left: usize,
}

impl TierStore for FailAfter<'_> {
    fn solved_tiers(&mut self) -> Result<std::collections::BTreeSet<TierId>, SinkError> {
        self.inner.solved_tiers()
    }
    fn load(&mut self, tier: TierId) -> Result<SolvedTier, SinkError> {
        self.inner.load(tier)
    }
    fn save(&mut self, solved: SolvedTier) -> Result<(), SinkError> {
        if self.left == 0 {
            return Err(SinkError::new("interrupted"));
        }
        self.left -= 1;
        self.inner.save(solved)
    }
}

#[test]
fn interrupted_solve_is_named_and_resumable() {
    // Misère Kayles has no theorem to fall back on, so an uncovered position needs a solve.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("i.sqlite");
    let kayles: GameSpec = "dawson".parse().unwrap();
    let universe = Universe::new(kayles.rules(), "dawson", Some(70), None, None).unwrap();
    {
        let mut db = Database::open(&path).unwrap();
        let key = SolveKey::new(&kayles, Convention::Misere, &universe, false);
        let row = db.begin_solve(&key, universe.max_total).unwrap();
        let mut store = FailAfter { inner: DatabaseSink::new(&db, &row, universe), left: 40 };
        let options = SolveOptions {
            convention: Convention::Misere,
            universe,
            nim_values: false,
            strategy: Strategy::Retrograde,
        };
        assert!(solve(&kayles, &options, &mut store, &Silent).is_err());
    }
    let info = nimdb().args(["info", "--db"]).arg(&path).output().unwrap();
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(info.contains("partial up to tier"), "{info}");
    // Stored positions still answer; a position past the interruption names the resume command.
    nimdb()
        .args(["query", "--game", "dawson", "--misere", "--db"])
        .arg(&path)
        .args(["2", "1"])
        .assert()
        .success();
    refused_at(&path, &["query", "--game", "dawson", "--misere", "35", "35"], "was interrupted after tier");
    let out = nimdb()
        .args(["query", "--game", "dawson", "--misere", "35", "35", "--db"])
        .arg(&path)
        .output()
        .unwrap();
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(msg.contains("run: nimdb solve --game dawson --misere --max-total 70"), "{msg}");
}

#[test]
fn the_refusals_that_used_to_write() {
    // Each of these once stored a solve, a schema or a new file before refusing.
    let (_dir, db) = seeded();
    refused(&db, &["play", "--game", "octal:0.1", "9", "7", "2"], "no move from [9,7,2]");
    refused(&db, &["query", "--game", "dawson", "--misere", "40", "30", "20"], "run: nimdb solve");
    refused_at(&db, &["verify", "--game", "kayles", "--misere", "--sample", "0"], "no stored solve");
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.sqlite");
    std::fs::write(&empty, b"").unwrap();
    refused_at(&empty, &["info"], "no nimdb database");
    refused_at(&empty, &["verify", "--game", "kayles"], "no nimdb database");
    refused_at(&empty, &["query", "--game", "dawson", "--misere", "40", "30", "20"], "run: nimdb solve");
    refused_at(&empty, &["export", "--game", "kayles"], "");
}

#[test]
fn each_thing_is_said_once() {
    // A 10,000-character spec is echoed once, shortened.
    let long = "x".repeat(10_000);
    let out = nimdb().args(["query", "--game", &long, "3"]).output().unwrap();
    assert_one_line_error(&out, "unknown game");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("'x").count(), 1, "{stderr}");
    assert!(stderr.chars().count() < 400, "{stderr}");

    // A damaged file: SQLite's message once, not once per layer.
    let (_dir, db) = seeded();
    let mut bytes = std::fs::read(&db).unwrap();
    bytes[4096..3 * 4096].fill(0xff);
    std::fs::write(&db, &bytes).unwrap();
    for args in [&["info"][..], &["query", "--game", "kayles", "3", "2"]] {
        let out = nimdb().args(args).arg("--db").arg(&db).output().unwrap();
        assert_one_line_error(&out, "malformed");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.matches("malformed").count(), 1, "{stderr}");
        assert!(!stderr.contains("Error code"), "{stderr}");
    }
}
