//! Stored heap values carry a checksum per row: an edited row is caught when it is read,
//! not printed as fact.

mod common;

use common::{err, ok};

#[test]
fn an_edited_heap_values_row_is_caught_when_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    let first = ok(&["heaps", "--db", db, "--game", "kayles", "--up-to", "40"]);
    // Read back: the same table (only the line saying where the values came from differs).
    let table =
        |out: &str| out.lines().filter(|l| !l.starts_with("nim-values:")).collect::<Vec<_>>().join("\n");
    let again = ok(&["heaps", "--db", db, "--game", "kayles", "--up-to", "40"]);
    assert!(again.contains("read from the database"), "{again}");
    assert_eq!(table(&again), table(&first));
    let conn = rusqlite::Connection::open(db).unwrap();
    let changed = conn
        .execute("UPDATE heap_values SET genus = '7^777' WHERE game = 'v1:tb:0.77' AND n = 7", [])
        .unwrap();
    assert_eq!(changed, 1);
    drop(conn);
    let e = err(&["heaps", "--db", db, "--game", "kayles", "--up-to", "40"]);
    assert!(e.contains("heap 7 fails its checksum"), "{e}");
    assert!(!e.contains("7^777"), "{e}");
}

#[test]
fn rows_written_before_checksums_are_computed_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("old.sqlite");
    let db = db.to_str().unwrap();
    let fresh = ok(&["heaps", "--db", db, "--game", "dawson", "--up-to", "30"]);
    // As an older nimdb left them: no checksums.
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.execute("UPDATE heap_values SET checksum = NULL", []).unwrap();
    drop(conn);
    assert_eq!(ok(&["heaps", "--db", db, "--game", "dawson", "--up-to", "30"]), fresh);
    let conn = rusqlite::Connection::open(db).unwrap();
    let missing: i64 =
        conn.query_row("SELECT COUNT(*) FROM heap_values WHERE checksum IS NULL", [], |r| r.get(0)).unwrap();
    assert_eq!(missing, 0, "the rows were rewritten with their checksums");
}

#[test]
fn swapped_tier_labels_are_caught_by_the_lookup() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let db = db.to_str().unwrap();
    ok(&["solve", "--quiet", "--db", db, "--game", "kayles", "--max-total", "20"]);
    let conn = rusqlite::Connection::open(db).unwrap();
    // (15,3) holds 19 positions and (16,3) 21: swap their labels.
    conn.execute_batch(
        "UPDATE tiers SET total = -1 WHERE total = 15 AND heaps = 3;
         UPDATE tiers SET total = 15 WHERE total = 16 AND heaps = 3;
         UPDATE tiers SET total = 16 WHERE total = -1 AND heaps = 3;",
    )
    .unwrap();
    drop(conn);
    for heaps in [["8", "5", "2"], ["9", "5", "2"]] {
        let mut args = vec!["query", "--db", db, "--game", "kayles"];
        args.extend(heaps);
        let e = err(&args);
        assert!(e.contains("the row is not this tier's"), "{e}");
    }
}

/// Swaps the solve and tier labels of two tier rows (the payloads and checksums stay).
fn swap_rows(conn: &rusqlite::Connection, a: (i64, i64, i64), b: (i64, i64, i64)) {
    let tx = conn.unchecked_transaction().unwrap();
    let id = |(s, t, k): (i64, i64, i64)| -> i64 {
        tx.query_row(
            "SELECT id FROM tiers WHERE solve_id = ?1 AND total = ?2 AND heaps = ?3",
            [s, t, k],
            |r| r.get(0),
        )
        .unwrap()
    };
    let (ia, ib) = (id(a), id(b));
    let set = "UPDATE tiers SET solve_id = ?2, total = ?3, heaps = ?4 WHERE id = ?1";
    tx.execute(set, [ia, a.0, -1, -1]).unwrap();
    tx.execute(set, [ib, a.0, a.1, a.2]).unwrap();
    tx.execute(set, [ia, b.0, b.1, b.2]).unwrap();
    tx.commit().unwrap();
}

#[test]
fn swapped_tiers_of_equal_size_are_caught_by_the_lookup() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e.sqlite");
    let db = db.to_str().unwrap();
    // Two solves with the same universe: every tier has the same size in both.
    ok(&["solve", "--quiet", "--db", db, "--game", "kayles", "--max-total", "20"]);
    ok(&["solve", "--quiet", "--db", db, "--game", "kayles", "--misere", "--max-total", "20"]);
    let query = |args: &[&str]| {
        let mut all = vec!["query", "--db", db, "--game", "kayles"];
        all.extend(args);
        all.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let run = |args: Vec<String>| ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let normal = run(query(&["9", "6", "3"]));
    let misere = run(query(&["--misere", "9", "6", "3"]));
    assert_ne!(normal, misere, "the two solves answer [9,6,3] differently");

    let conn = rusqlite::Connection::open(db).unwrap();
    // Tier (18,3) of the normal solve (#1) and of the misère one (#2) trade places.
    swap_rows(&conn, (1, 18, 3), (2, 18, 3));
    // Within one solve: (5,1) and (6,1) hold one position each.
    swap_rows(&conn, (1, 5, 1), (1, 6, 1));
    drop(conn);
    for args in [query(&["9", "6", "3"]), query(&["--misere", "9", "6", "3"]), query(&["5"]), query(&["6"])] {
        let e = err(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(e.contains("fails its checksum"), "{args:?}: {e}");
    }
    // The rest still answers.
    ok(&query(&["9", "6", "2"]).iter().map(String::as_str).collect::<Vec<_>>());
}
