//! Pins the on-disk format described in `docs/FORMAT.md`: exact payload bytes, block and
//! payload CRC-32s, and the `tiers` row a solve writes. A change here is a format change:
//! update `docs/FORMAT.md` and add a migration.

use nimdb::driver::solve_into;
use nimdb::game::{Convention, GameSpec};
use nimdb::index::TierId;
use nimdb::index::Universe;
use nimdb::solve::Silent;
use nimdb::store::codec::{BLOCK_RECORDS, block_checksum, decode_all, encode, encode_records, identity_text};
use nimdb::store::{Database, SCHEMA_VERSION, SolveKey};

/// The key of a normal Nim solve with no caps (Nim's storage id is `v1:tb:0.[3]`).
fn nim_key(nim_values: bool) -> SolveKey {
    SolveKey::from_columns("v1:tb:0.[3]".into(), "normal", None, None, nim_values)
}

/// CRC-32 of the concatenation of `parts`.
fn crc(parts: &[&[u8]]) -> u32 {
    crc32fast::hash(&parts.concat())
}

#[test]
fn one_byte_records_and_their_checksums() {
    // Tier (4,2) of normal Nim in rank order: [2,2] (a loss in 4) and [3,1] (a win in 3).
    let tier = TierId { total: 4, heaps: 2 };
    let enc = encode(&nim_key(false), tier, &[4, 3], None);
    assert_eq!(enc.payload, [0x04, 0x03]);
    assert_eq!((enc.layout.remoteness_bytes, enc.layout.nim_value_bytes), (1, 0));
    assert_eq!(enc.layout.block_records, 4096);
    let identity = "nimdb-tier\u{1f}v1:tb:0.[3]\u{1f}normal\u{1f}\u{1f}\u{1f}0\u{1f}4\u{1f}2\u{1f}1\u{1f}0\u{1f}4096\u{1e}";
    assert_eq!(identity_text(&nim_key(false), tier, &enc.layout), identity);
    // The payload CRC starts with the identity; a block's also covers its index.
    assert_eq!(enc.checksum, 0xBC41_6FB4);
    assert_eq!(enc.checksum, crc(&[identity.as_bytes(), &enc.payload]));
    assert_eq!(enc.block_checksums, 0xFA3E_A757u32.to_le_bytes());
    assert_eq!(
        enc.block_checksums,
        crc(&[identity.as_bytes(), &0u32.to_le_bytes(), &enc.payload]).to_le_bytes()
    );

    // With nim-values: each record is remoteness then nim-value.
    let enc = encode(&nim_key(true), tier, &[4, 3], Some(&[0, 2]));
    assert_eq!(enc.payload, [0x04, 0x00, 0x03, 0x02]);
    assert_eq!(enc.checksum, 0xCD74_6AE5);
    assert_eq!(enc.block_checksums, 0x197C_A893u32.to_le_bytes());
}

#[test]
fn two_byte_fields_are_little_endian() {
    let (layout, payload) = encode_records(&[300, 1], Some(&[0, 256]));
    assert_eq!((layout.remoteness_bytes, layout.nim_value_bytes), (2, 2));
    assert_eq!(payload, [0x2C, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x01]);
    assert_eq!(decode_all(&layout, &payload), (vec![300, 1], Some(vec![0, 256])));
}

#[test]
fn blocks_hold_4096_records_each_with_its_own_crc() {
    assert_eq!(BLOCK_RECORDS, 4096);
    let remoteness: Vec<u16> = (0..BLOCK_RECORDS as u16 + 1).map(|i| i % 7).collect();
    let tier = TierId { total: 20, heaps: 3 };
    let enc = encode(&nim_key(false), tier, &remoteness, None);
    let identity = identity_text(&nim_key(false), tier, &enc.layout);
    assert_eq!(enc.block_checksums.len(), 8, "two blocks, one CRC-32 each");
    let first = crc(&[identity.as_bytes(), &0u32.to_le_bytes(), &enc.payload[..BLOCK_RECORDS]]);
    let last = crc(&[identity.as_bytes(), &1u32.to_le_bytes(), &enc.payload[BLOCK_RECORDS..]]);
    assert_eq!(block_checksum(&enc.block_checksums, 0), Some(first));
    assert_eq!(block_checksum(&enc.block_checksums, 1), Some(last));
    assert_eq!(block_checksum(&enc.block_checksums, 2), None);
    assert_eq!(enc.checksum, crc(&[identity.as_bytes(), &enc.payload]));
}

#[test]
fn the_identity_names_the_caps_and_the_convention() {
    let key = SolveKey::from_columns("v1:tb:0.77".into(), "misere", Some(9), Some(3), false);
    let (layout, _) = encode_records(&[1], None);
    assert_eq!(
        identity_text(&key, TierId { total: 7, heaps: 3 }, &layout),
        "nimdb-tier\u{1f}v1:tb:0.77\u{1f}misere\u{1f}9\u{1f}3\u{1f}0\u{1f}7\u{1f}3\u{1f}1\u{1f}0\u{1f}4096\u{1e}"
    );
}

#[test]
fn a_solve_writes_the_documented_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("format.sqlite");
    let nim = GameSpec::nim();
    let universe = Universe::new(nim.rules(), "nim", Some(4), None, None).unwrap();
    let mut db = Database::open(&path).unwrap();
    let (solve, _) = solve_into(&mut db, &nim, Convention::Normal, universe, false, &Silent).unwrap();
    drop(db);

    let conn = rusqlite::Connection::open(&path).unwrap();
    let (app, version): (i64, i64) = conn
        .query_row("SELECT (SELECT application_id FROM pragma_application_id()), (SELECT user_version FROM pragma_user_version())", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(app, 0x4E49_4D44, "'NIMD'");
    assert_eq!(version, SCHEMA_VERSION as i64);
    let (game, convention, target, solved, status): (String, String, i64, i64, String) = conn
        .query_row(
            "SELECT game, convention, target_total, solved_total, status FROM solves WHERE id = ?1",
            [solve.id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap();
    assert_eq!(
        (game.as_str(), convention.as_str(), target, solved, status.as_str()),
        ("v1:tb:0.[3]", "normal", 4, 4, "complete")
    );
    type Row = (i64, i64, i64, i64, i64, i64, i64, Vec<u8>, Vec<u8>, i64);
    let row: Row = conn
        .query_row(
            "SELECT positions, losses, max_remoteness, remoteness_bytes, nim_value_bytes, block_records, checksum,
                    block_checksums, payload, checksum_scheme
             FROM tiers WHERE solve_id = ?1 AND total = 4 AND heaps = 2",
            [solve.id],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                ))
            },
        )
        .unwrap();
    let (layout, _) = encode_records(&[4, 3], None);
    let key = solve.key();
    assert_eq!(key, nim_key(false));
    let identity = identity_text(&key, TierId { total: 4, heaps: 2 }, &layout);
    let block = crc(&[identity.as_bytes(), &0u32.to_le_bytes(), &[4, 3]]);
    let payload = crc(&[identity.as_bytes(), &[4, 3]]);
    assert_eq!(
        row,
        (2, 1, 4, 1, 0, 4096, payload as i64, block.to_le_bytes().to_vec(), vec![0x04, 0x03], 1),
        "scheme 1: bound when written"
    );

    // The run's row: every tier and position it committed, its time (the solve's time) and
    // the peak memory of its process.
    type Run = (i64, i64, i64, i64, f64, f64, Option<i64>, i64, i64, String, String, bool);
    let run: Run = conn
        .query_row(
            "SELECT r.solve_id, r.target_total, r.tiers, r.positions, r.seconds, s.solve_seconds,
                    r.peak_memory_bytes, r.threads, r.processes, r.nimdb_version, r.outcome,
                    r.started_at <= r.updated_at
             FROM solve_runs r JOIN solves s ON s.id = r.solve_id",
            [],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                    r.get(10)?,
                    r.get(11)?,
                ))
            },
        )
        .unwrap();
    let (tiers, positions): (i64, i64) = conn
        .query_row("SELECT COUNT(*), SUM(positions) FROM tiers", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    let (
        id,
        target,
        run_tiers,
        run_positions,
        seconds,
        solve_seconds,
        peak,
        threads,
        processes,
        version,
        outcome,
        ordered,
    ) = run;
    assert_eq!((id, target, run_tiers, run_positions), (solve.id, 4, tiers, positions));
    assert_eq!(
        (processes, version.as_str(), outcome.as_str(), ordered),
        (1, env!("CARGO_PKG_VERSION"), "complete", true)
    );
    assert!(seconds > 0.0 && seconds == solve_seconds, "{seconds} s, the solve {solve_seconds} s");
    assert!(threads >= 1 && peak.is_some_and(|p| p > 1 << 20), "{threads} threads, peak {peak:?}");
}

/// The migrations `docs/FORMAT.md` lists are the files in `migrations/`, in order, and
/// their number is the schema version.
#[test]
fn the_documented_migrations_are_the_migrations() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = std::fs::read_dir(root.join("migrations"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files.len(), SCHEMA_VERSION);
    for (i, file) in files.iter().enumerate() {
        assert!(file.starts_with(&format!("{:04}_", i + 1)) && file.ends_with(".sql"), "{file}");
    }
    let format = std::fs::read_to_string(root.join("docs/FORMAT.md")).unwrap();
    let listed = files.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ");
    assert!(
        format.contains(&format!("({SCHEMA_VERSION} today: {listed})")),
        "docs/FORMAT.md should list ({SCHEMA_VERSION} today: {listed})"
    );
}

/// The schema of version 4, as an older nimdb created it.
const SCHEMA_4: [&str; 4] = [
    include_str!("../migrations/0001_solves_and_tiers.sql"),
    include_str!("../migrations/0002_theory.sql"),
    include_str!("../migrations/0003_quotients.sql"),
    include_str!("../migrations/0004_heap_value_checksums.sql"),
];

/// Runs nimdb, expecting success; returns stdout.
fn nimdb_ok(args: &[&str], stdin: &str) -> String {
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_nimdb"))
        .env_remove("NIMDB_DB")
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap();
    assert!(out.status.success(), "nimdb {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// Builds, at `old`, the database a schema-4 nimdb would have written for the solves in
/// `fresh`: the same rows, with plain CRC-32 checksums.
fn write_schema_4_copy(fresh: &std::path::Path, old: &std::path::Path) {
    let conn = rusqlite::Connection::open(old).unwrap();
    for sql in SCHEMA_4 {
        conn.execute_batch(sql).unwrap();
    }
    conn.pragma_update(None, "user_version", 4).unwrap();
    conn.execute("ATTACH DATABASE ?1 AS fresh", [fresh.to_str().unwrap()]).unwrap();
    conn.execute_batch(
        "INSERT INTO solves (id, game, convention, max_heap, max_heaps, nim_values, target_total, solved_total,
                             status, positions, losses, solve_seconds, solver_version)
         SELECT id, game, convention, max_heap, max_heaps, nim_values, target_total, solved_total, status,
                positions, losses, solve_seconds, '0.1.0' FROM fresh.solves;
         UPDATE solves SET game = CASE game WHEN 'v1:tb:0.77' THEN 'kayles' WHEN 'v1:tb:0.[3]' THEN 'nim' END;",
    )
    .unwrap();
    type TierRow = (i64, i64, i64, i64, i64, i64, i64, i64, i64, Vec<u8>);
    let rows: Vec<TierRow> = conn
        .prepare(
            "SELECT solve_id, total, heaps, positions, losses, max_remoteness, remoteness_bytes, nim_value_bytes,
                    block_records, payload FROM fresh.tiers ORDER BY id",
        )
        .unwrap()
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
                r.get(8)?,
                r.get(9)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (solve, total, heaps, positions, losses, max_r, rb, vb, br, payload) in rows {
        let block_bytes = ((rb + vb) * br) as usize;
        let blocks: Vec<u8> =
            payload.chunks(block_bytes).flat_map(|b| crc32fast::hash(b).to_le_bytes()).collect();
        conn.execute(
            "INSERT INTO tiers (solve_id, total, heaps, positions, losses, max_remoteness, remoteness_bytes,
                                nim_value_bytes, block_records, checksum, solve_seconds, block_checksums, payload)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0, ?11, ?12)",
            rusqlite::params![
                solve,
                total,
                heaps,
                positions,
                losses,
                max_r,
                rb,
                vb,
                br,
                crc32fast::hash(&payload) as i64,
                blocks,
                payload
            ],
        )
        .unwrap();
    }
    // A quotient row as version 3 wrote it: the CRC-32 of its data alone.
    conn.execute(
        "INSERT INTO quotients (game, max_heap, status, proven, note, engine)
         VALUES ('octal:0.137', 40, 'open', 0, 'no period proven by heap 40', 'quotient-1')",
        [],
    )
    .unwrap();
    conn.execute_batch("DETACH DATABASE fresh").unwrap();
}

#[test]
fn a_schema_4_database_is_read_as_it_is_then_upgraded_with_its_checksums_recomputed() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh.sqlite");
    let old = dir.path().join("old.sqlite");
    let (fresh_s, old_s) = (fresh.to_str().unwrap(), old.to_str().unwrap());
    nimdb_ok(&["solve", "--quiet", "--db", fresh_s, "--game", "kayles", "--misere", "--max-total", "16"], "");
    nimdb_ok(
        &["solve", "--quiet", "--db", fresh_s, "--game", "nim", "--max-total", "12", "--nim-values"],
        "",
    );
    write_schema_4_copy(&fresh, &old);
    // One tier of the old database was damaged after its checksums were written.
    rusqlite::Connection::open(&old)
        .unwrap()
        .execute(
            "UPDATE tiers SET payload = CAST(char(unicode(substr(payload, 1, 1)) + 2) || substr(payload, 2) AS BLOB)
             WHERE solve_id = 1 AND total = 15 AND heaps = 3",
            [],
        )
        .unwrap();

    let positions = "9 4\n7 5 3\n1 1 1 1\n6 6 2\n12\n5 4 3 2\n";
    // Every line's answer (a damaged tier's line is an error, and the run exits 1).
    let batch = |db: &str, game: &[&str]| {
        let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_nimdb"))
            .env_remove("NIMDB_DB")
            .args(["query", "--batch", "--db", db])
            .args(game)
            .write_stdin(positions)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    // Line 2, [7,5,3], lies in the damaged tier (15,3): refused, never answered wrongly.
    let same_but_line_2 = |old: &str, fresh: &str, why: &str| {
        assert_eq!(old.lines().count(), 6, "{old}");
        for (a, b) in old.lines().zip(fresh.lines()) {
            if a.contains("\"line\":2,") {
                assert!(a.contains("\"error\"") && a.contains(why), "{a}");
            } else {
                assert_eq!(a, b);
            }
        }
    };
    let kayles_fresh = batch(fresh_s, &["--game", "kayles", "--misere"]);
    let nim_fresh = batch(fresh_s, &["--game", "nim"]);

    // Read as it is: the same answers, and the file is left exactly as it was.
    let bytes = std::fs::read(&old).unwrap();
    same_but_line_2(&batch(old_s, &["--game", "kayles", "--misere"]), &kayles_fresh, "fails its checksum");
    assert_eq!(batch(old_s, &["--game", "nim"]), nim_fresh);
    let info = nimdb_ok(&["info", "--db", old_s], "");
    assert!(info.contains("schema version 4 (read as it is)"), "{info}");
    assert_eq!(std::fs::read(&old).unwrap(), bytes, "reading wrote nothing");

    // A command that writes upgrades it: every tier that passes its plain checksums gets
    // checksums bound to its identity, exactly those a fresh write gives.
    nimdb_ok(&["solve", "--quiet", "--db", old_s, "--game", "nim", "--max-total", "12", "--nim-values"], "");
    let conn = rusqlite::Connection::open(&old).unwrap();
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION as i64);
    conn.execute("ATTACH DATABASE ?1 AS fresh", [fresh_s]).unwrap();
    let (rebound, same, failed): (i64, i64, i64) = conn
        .query_row(
            "SELECT SUM(o.checksum_scheme = 2),
                    SUM(o.checksum = f.checksum AND o.block_checksums = f.block_checksums),
                    SUM(o.checksum_scheme = 0)
             FROM tiers o JOIN fresh.tiers f USING (solve_id, total, heaps)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    let tiers: i64 = conn.query_row("SELECT COUNT(*) FROM tiers", [], |r| r.get(0)).unwrap();
    assert_eq!((rebound, same, failed), (tiers - 1, tiers - 1, 1));
    // The checksums are rebound by the step to version 5, which the row names, whatever
    // the version the whole upgrade reaches.
    let recorded: (i64, i64, i64, i64, i64, i64) = conn
        .query_row(
            "SELECT from_version, to_version, tiers_rebound, tiers_failed, quotients_rebound, quotients_failed
             FROM checksum_upgrades",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )
        .unwrap();
    assert_eq!(recorded, (4, 5, tiers - 1, 1, 1, 0));
    drop(conn);
    let info = nimdb_ok(&["info", "--db", old_s], "");
    assert!(
        info.contains(&format!("upgrading schema version 4 to 5: {} tier(s) and 1 quotient(s)", tiers - 1)),
        "{info}"
    );
    // Solves stored before runs were recorded have none; the upgrading solve found its
    // tiers stored, so it solved nothing and recorded no run.
    let listed: serde_json::Value =
        serde_json::from_str(&nimdb_ok(&["info", "--json", "--db", old_s], "")).unwrap();
    for solve in listed.as_array().unwrap() {
        assert_eq!((&solve["run_count"], &solve["runs"]), (&0.into(), &serde_json::json!([])), "{solve}");
    }
    assert!(info.contains("octal:0.137") && info.contains("open"), "{info}");

    // The upgraded database answers as the fresh one does.
    assert_eq!(batch(old_s, &["--game", "nim"]), nim_fresh);
    same_but_line_2(
        &batch(old_s, &["--game", "kayles", "--misere"]),
        &kayles_fresh,
        "not bound to its identity",
    );
}
