//! Reading writes nothing: refused queries leave no file, `info` and `verify` leave an empty
//! file empty, and a database in a directory the user cannot write to is still read.

mod common;

use std::path::Path;
use std::process::Command;

use common::{err, ok};

/// Every file in `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

#[test]
fn refusals_and_reads_leave_the_directory_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.sqlite");
    let new = new.to_str().unwrap();
    // A query that is refused (too big to solve, no theorem) creates no database.
    err(&["query", "--db", new, "--game", "dawson", "--misere", "40", "30", "20"]);
    err(&["query", "--db", new, "--game", "wythoff", "500", "300", "100"]);
    // Nor does a game that cannot start, or one whose start cannot be covered.
    err(&["play", "--db", new, "--game", "octal:0.1", "9", "7", "2"]);
    err(&["play", "--db", new, "--game", "dawson", "--misere", "40", "30", "20"]);
    // A theory answer needs no database either, nor does a misère quotient's answer (misère
    // Kayles; Dawson's Kayles above has no quotient, so it is refused).
    ok(&["query", "--db", new, "--game", "kayles", "100", "90", "80"]);
    ok(&["query", "--db", new, "--game", "kayles", "--misere", "40", "30", "20"]);
    assert!(snapshot(dir.path()).is_empty(), "{:?}", snapshot(dir.path()));
    // An empty file stays empty.
    let empty = dir.path().join("empty.sqlite");
    std::fs::write(&empty, b"").unwrap();
    let empty = empty.to_str().unwrap();
    err(&["info", "--db", empty]);
    err(&["verify", "--db", empty, "--game", "nim"]);
    err(&["query", "--db", empty, "--game", "dawson", "--misere", "40", "30", "20"]);
    let before = snapshot(dir.path());
    assert_eq!(before, vec![("empty.sqlite".to_string(), Vec::new())]);
    // Lookups in a stored solve change no byte.
    let db = dir.path().join("db.sqlite");
    let db = db.to_str().unwrap();
    ok(&["solve", "--quiet", "--db", db, "--game", "kayles", "--max-total", "20"]);
    let main_file =
        |files: Vec<(String, Vec<u8>)>| files.into_iter().find(|(n, _)| n == "db.sqlite").unwrap();
    let before = main_file(snapshot(dir.path()));
    ok(&["query", "--db", db, "--game", "kayles", "9", "4"]);
    ok(&["info", "--db", db]);
    ok(&["verify", "--db", db, "--game", "kayles"]);
    err(&["query", "--db", db, "--game", "dawson", "--misere", "40", "30", "20"]);
    let after = snapshot(dir.path());
    // SQLite's write-ahead log may leave its (empty) side files; the database is untouched.
    for (name, bytes) in &after {
        assert!(
            name == "db.sqlite"
                || name == "empty.sqlite"
                || name.ends_with("-shm")
                || (name.ends_with("-wal") && bytes.is_empty()),
            "a read left {name}"
        );
    }
    assert!(main_file(after) == before, "a read changed the database file");
}

#[test]
#[ignore = "needs root and su to read as another user (.ci/run runs it with --ignored)"]
fn a_database_in_a_read_only_directory_answers() {
    // Root ignores permissions, so the reads run as `nobody` where that is possible.
    let is_root = Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let su = Path::new("/bin/su").exists() || Path::new("/usr/bin/su").exists();
    if !is_root || !su {
        common::missing("the test needs root and su to read as an unprivileged user");
    }
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let db = ro.join("x.sqlite");
    ok(&["solve", "--quiet", "--db", db.to_str().unwrap(), "--game", "nim", "--max-total", "10"]);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    let bin = env!("CARGO_BIN_EXE_nimdb");
    let as_nobody = |args: &str| {
        Command::new("su").args(["nobody", "-s", "/bin/sh", "-c", &format!("{bin} {args}")]).output().unwrap()
    };
    let probe = as_nobody("--version");
    if !probe.status.success() {
        common::missing(&format!(
            "nobody cannot run the test binary: {}",
            String::from_utf8_lossy(&probe.stderr)
        ));
    }
    let db = db.to_str().unwrap();
    for args in [
        format!("query --db {db} --game nim 3 4"),
        format!("info --db {db}"),
        format!("verify --db {db} --game nim"),
    ] {
        let out = as_nobody(&args);
        assert!(out.status.success(), "{args}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let out = as_nobody(&format!("query --db {db} --game nim --json 3 4"));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["source"], "database");
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn read_only_forbids_every_write_and_reads_leave_no_side_files() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let db = db.to_str().unwrap();
    ok(&["solve", "--quiet", "--db", db, "--game", "nim", "--max-total", "8"]);
    let before = snapshot(dir.path());
    assert_eq!(before.len(), 1, "only the database file");
    // Reads answer, and leave no -wal or -shm file behind.
    let out = ok(&["--read-only", "query", "--db", db, "3", "4"]);
    assert!(out.contains("source: database"), "{out}");
    ok(&["info", "--read-only", "--db", db]);
    ok(&["verify", "--read-only", "--db", db, "--game", "nim"]);
    ok(&["export", "--read-only", "--db", db, "--game", "nim"]);
    assert_eq!(snapshot(dir.path()), before);
    // Everything that would write is refused, before touching anything.
    for args in [
        vec!["query", "--read-only", "--db", db, "--game", "kayles", "--misere", "5", "4"],
        vec!["solve", "--read-only", "--db", db, "--game", "nim", "--max-total", "9"],
        vec!["heaps", "--read-only", "--db", db, "--game", "kayles", "--up-to", "40"],
        vec!["quotient", "--read-only", "--db", db, "--game", "kayles"],
        vec!["serve", "--read-only", "--db", db, "--solve-up-to", "1000", "--addr", "127.0.0.1:0"],
    ] {
        let e = err(&args);
        assert!(e.contains("writes are forbidden (--read-only)"), "{args:?}: {e}");
        assert_eq!(snapshot(dir.path()), before, "{args:?}");
    }
    let fresh = dir.path().join("fresh.sqlite");
    err(&["--read-only", "solve", "--db", fresh.to_str().unwrap(), "--game", "nim", "--max-total", "4"]);
    assert!(!fresh.exists());
}

#[test]
fn dev_null_is_refused_in_one_line() {
    // Not a database, and nothing to wait for: one line each (the schema step used to retry
    // every error for 20 s; only lock contention is retried now, see crates/store/src/open.rs).
    let e = err(&["info", "--db", "/dev/null"]);
    assert!(e.contains("no nimdb database at /dev/null"), "{e}");
    let e = err(&["verify", "--game", "nim", "--db", "/dev/null"]);
    assert!(e.contains("no nimdb database at /dev/null"), "{e}");
    let e = err(&["solve", "--game", "nim", "--max-total", "4", "--db", "/dev/null"]);
    assert!(e.contains("could not apply the schema"), "{e}");
}
