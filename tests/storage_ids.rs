//! Games are stored under storage ids that follow from their rules (schema version 7), so a
//! new alias or display name finds what was stored before. `tests/fixtures/schema6` holds a
//! database written by the nimdb before storage ids, with `octal:4.[3]` stored under that
//! name; today the game is shown as `lasker`.

mod common;

use std::path::{Path, PathBuf};

use nimdb::game::GameSpec;
use nimdb::store::{Database, SCHEMA_VERSION};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema6").join(name)
}

/// A copy of the schema-6 database in a new temporary directory.
fn copy_of_fixture() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite");
    std::fs::copy(fixture("nimdb.sqlite"), &path).unwrap();
    (dir, path)
}

/// The expected answers (one JSON line each, as the schema-6 nimdb printed them) and the
/// positions they answer, one a line.
fn expected(name: &str) -> (String, String) {
    let answers = std::fs::read_to_string(fixture(name)).unwrap();
    let positions = answers
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let heaps: Vec<String> =
                v["position"].as_array().unwrap().iter().map(|h| h.to_string()).collect();
            if heaps.is_empty() { "0".to_string() } else { heaps.join(" ") }
        })
        .collect::<Vec<_>>()
        .join("\n");
    (answers, positions + "\n")
}

/// `nimdb query --batch` of `positions` (its stdout, and whether it succeeded).
fn batch(db: &Path, game: &[&str], extra: &[&str], positions: &str) -> (bool, String) {
    let out = common::nimdb()
        .args(["query", "--batch", "--db", db.to_str().unwrap()])
        .args(game)
        .args(extra)
        .write_stdin(positions)
        .output()
        .unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap())
}

const GAMES: [(&str, &[&str]); 3] = [
    ("lasker_normal.jsonl", &["--game", "lasker"]),
    ("lasker_misere.jsonl", &["--game", "lasker", "--misere"]),
    ("kayles_misere.jsonl", &["--game", "kayles", "--misere"]),
];

/// Every position of every stored solve is answered from the database exactly as the
/// schema-6 nimdb answered it.
fn answers_as_before(db: &Path, extra: &[&str]) {
    for (file, game) in GAMES {
        let (answers, positions) = expected(file);
        let (ok, out) = batch(db, game, extra, &positions);
        assert!(ok, "{file} {extra:?}: {out}");
        assert_eq!(out, answers, "{file} {extra:?}");
    }
}

fn version(db: &Path) -> i64 {
    rusqlite::Connection::open(db).unwrap().pragma_query_value(None, "user_version", |r| r.get(0)).unwrap()
}

#[test]
fn a_renamed_game_finds_its_solves_before_and_after_the_upgrade() {
    let (_dir, db) = copy_of_fixture();
    let db_s = db.to_str().unwrap();
    let lasker: GameSpec = "octal:4.[3]".parse().unwrap();
    assert_eq!(lasker.canonical(), "lasker", "the game stored as octal:4.[3] is shown as lasker today");

    // Read as it is, under the new name: the old answers, `verify` passes, nothing written.
    let bytes = std::fs::read(&db).unwrap();
    answers_as_before(&db, &["--read-only"]);
    for conv in [&[][..], &["--misere"]] {
        let out =
            common::ok(&[&["verify", "--game", "lasker", "--read-only", "--db", db_s][..], conv].concat());
        assert!(out.contains("verdict: ok") && out.contains("solve #"), "{out}");
    }
    let info = common::ok(&["info", "--db", db_s]);
    assert!(
        info.contains("schema version 6 (read as it is)") && info.contains("not by storage ids"),
        "{info}"
    );
    assert!(info.contains(" lasker ") && !info.contains("octal:4.[3]"), "{info}");
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "reading wrote nothing");
    assert_eq!(version(&db), 6);

    // A command that writes upgrades it. The solve finds the stored one complete: no new
    // solve, no new tier.
    common::ok(&["solve", "--quiet", "--game", "lasker", "--max-total", "10", "--db", db_s]);
    assert_eq!(version(&db), SCHEMA_VERSION as i64);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let games: Vec<String> = conn
        .prepare("SELECT game FROM solves ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(games, ["v1:tb:4.[3]", "v1:tb:4.[3]", "v1:tb:0.77", "v1:tb:0.[3]"]);
    let tiers: i64 = conn.query_row("SELECT COUNT(*) FROM tiers", [], |r| r.get(0)).unwrap();
    let upgrade: (i64, i64, i64, i64, i64, i64) = conn
        .query_row(
            "SELECT from_version, to_version, tiers_rebound, tiers_failed, quotients_rebound, quotients_failed
             FROM checksum_upgrades",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )
        .unwrap();
    assert_eq!(upgrade, (6, 7, tiers, 0, 2, 0));
    for table in ["heap_values", "heap_sequences", "quotients"] {
        let names: Vec<String> = conn
            .prepare(&format!("SELECT DISTINCT game FROM {table} ORDER BY 1"))
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(names, ["v1:tb:0.77", "v1:tb:4.[3]"], "{table}");
    }
    drop(conn);

    // The same answers, read-only or not; verify passes; info names the game as today.
    answers_as_before(&db, &["--read-only"]);
    answers_as_before(&db, &[]);
    for args in
        [&["--game", "lasker"][..], &["--game", "lasker", "--misere"], &["--game", "kayles", "--misere"]]
    {
        let out = common::ok(&[&["verify", "--read-only", "--db", db_s][..], args].concat());
        assert!(out.contains("verdict: ok"), "{args:?}: {out}");
    }
    let json =
        common::ok(&["query", "--game", "octal:4.[3]", "--json", "--read-only", "--db", db_s, "4", "3", "2"]);
    let answer: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (&answer["game"], &answer["source"], &answer["solve_id"]),
        (&"lasker".into(), &"database".into(), &1.into())
    );
    let info = common::ok(&["info", "--db", db_s]);
    assert!(info.contains("upgrading schema version 6 to 7") && info.contains("storage id"), "{info}");
    assert!(info.contains(" lasker ") && info.contains(" kayles "), "{info}");
    assert!(!info.contains("v1:"), "ids are for the file, names for people: {info}");

    // Its heap values and quotients are found under the new name, checksums passing.
    let store = Database::open_read_only(&db).unwrap();
    let rows = store.heap_rows(&lasker, nimdb::theory::cache::ENGINE_VERSION).unwrap().unwrap();
    assert_eq!(rows.up_to(), Some(30));
    assert_eq!(rows.misere_up_to(), Some(8));
    assert_eq!(store.load_quotient(&lasker, None).unwrap().unwrap().max_heap, 8);
    let listed = store.list_quotients().unwrap();
    assert_eq!(
        listed.iter().map(|r| (r.game.as_str(), r.status.as_str())).collect::<Vec<_>>(),
        [("kayles", "solved"), ("lasker", "solved")]
    );
}

#[test]
fn a_tier_damaged_before_the_upgrade_is_not_sealed_again() {
    let (_dir, db) = copy_of_fixture();
    let db_s = db.to_str().unwrap();
    // Damage a tier of solve 1 (normal Lasker) and a heap-values row of Lasker, as stored.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let damaged = conn
        .execute(
            "UPDATE tiers SET payload = CAST(char(unicode(substr(payload, 1, 1)) + 2) || substr(payload, 2) AS BLOB)
             WHERE solve_id = 1 AND total = 9 AND heaps = 3",
            [],
        )
        .unwrap();
    assert_eq!(damaged, 1);
    conn.execute("UPDATE heap_values SET nim_value = nim_value + 1 WHERE game = 'octal:4.[3]' AND n = 7", [])
        .unwrap();
    drop(conn);

    common::ok(&[
        "solve",
        "--quiet",
        "--game",
        "kayles",
        "--misere",
        "--max-total",
        "12",
        "--nim-values",
        "--db",
        db_s,
    ]);
    assert_eq!(version(&db), SCHEMA_VERSION as i64);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (scheme, failed): (i64, i64) = conn
        .query_row(
            "SELECT t.checksum_scheme, (SELECT tiers_failed FROM checksum_upgrades WHERE to_version = 7)
             FROM tiers t WHERE solve_id = 1 AND total = 9 AND heaps = 3",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((scheme, failed), (0, 1), "the damaged tier failed its checksums at the upgrade");
    drop(conn);

    // [5,3,1] lies in the damaged tier: refused, never answered wrongly; its neighbours in
    // other tiers are answered as before.
    let (answers, _) = expected("lasker_normal.jsonl");
    let (_, out) = batch(&db, &["--game", "lasker"], &["--read-only"], "5 3 1\n4 3\n");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("\"error\"") && lines[0].contains("not bound to its identity"), "{out}");
    let without_line = |l: &str| {
        let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
        v.as_object_mut().unwrap().remove("line");
        v
    };
    let before =
        answers.lines().map(without_line).find(|v| v["position"] == serde_json::json!([4, 3])).unwrap();
    assert_eq!(without_line(lines[1]), before, "{out}");
    let (ok, out, _) = common::run(&["verify", "--game", "lasker", "--read-only", "--db", db_s]);
    assert!(!ok, "verify must fail on the damaged tier: {out}");
    let e = Database::open_read_only(&db)
        .unwrap()
        .heap_rows(&"lasker".parse().unwrap(), nimdb::theory::cache::ENGINE_VERSION)
        .unwrap_err()
        .to_string();
    assert!(e.contains("heap 7 fails its checksum"), "{e}");
}
