//! Pins the on-disk format described in `docs/FORMAT.md`: exact payload bytes, block and
//! payload CRC-32s, and the `tiers` row a solve writes. A change here is a format change:
//! update `docs/FORMAT.md` and add a migration.

use nimdb::driver::solve_into;
use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::solve::Silent;
use nimdb::store::codec::{BLOCK_RECORDS, block_checksum, decode_all, encode};
use nimdb::store::{Database, SCHEMA_VERSION};

#[test]
fn one_byte_records_and_their_checksums() {
    // Tier (4,2) of normal Nim in rank order: [2,2] (a loss in 4) and [3,1] (a win in 3).
    let enc = encode(&[4, 3], None);
    assert_eq!(enc.payload, [0x04, 0x03]);
    assert_eq!((enc.layout.remoteness_bytes, enc.layout.nim_value_bytes), (1, 0));
    assert_eq!(enc.layout.block_records, 4096);
    assert_eq!(enc.checksum, 0xBCBC_8641);
    assert_eq!(enc.block_checksums, [0x41, 0x86, 0xBC, 0xBC]);

    // With nim-values: each record is remoteness then nim-value.
    let enc = encode(&[4, 3], Some(&[0, 2]));
    assert_eq!(enc.payload, [0x04, 0x00, 0x03, 0x02]);
    assert_eq!(enc.checksum, 0x6B05_7AA4);
}

#[test]
fn two_byte_fields_are_little_endian() {
    let enc = encode(&[300, 1], Some(&[0, 256]));
    assert_eq!((enc.layout.remoteness_bytes, enc.layout.nim_value_bytes), (2, 2));
    assert_eq!(enc.payload, [0x2C, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x01]);
    assert_eq!(enc.checksum, 0xA237_F437);
    assert_eq!(decode_all(&enc.layout, &enc.payload), (vec![300, 1], Some(vec![0, 256])));
}

#[test]
fn blocks_hold_4096_records_each_with_its_own_crc() {
    assert_eq!(BLOCK_RECORDS, 4096);
    let remoteness: Vec<u16> = (0..BLOCK_RECORDS as u16 + 1).map(|i| i % 7).collect();
    let enc = encode(&remoteness, None);
    assert_eq!(enc.block_checksums.len(), 8, "two blocks, one CRC-32 each");
    let first = crc32fast::hash(&enc.payload[..BLOCK_RECORDS]);
    let last = crc32fast::hash(&enc.payload[BLOCK_RECORDS..]);
    assert_eq!(block_checksum(&enc.block_checksums, 0), Some(first));
    assert_eq!(block_checksum(&enc.block_checksums, 1), Some(last));
    assert_eq!(block_checksum(&enc.block_checksums, 2), None);
    assert_eq!(enc.checksum, crc32fast::hash(&enc.payload));
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
        ("nim", "normal", 4, 4, "complete")
    );
    type Row = (i64, i64, i64, i64, i64, i64, i64, Vec<u8>, Vec<u8>);
    let row: Row = conn
        .query_row(
            "SELECT positions, losses, max_remoteness, remoteness_bytes, nim_value_bytes, block_records, checksum,
                    block_checksums, payload
             FROM tiers WHERE solve_id = ?1 AND total = 4 AND heaps = 2",
            [solve.id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?)),
        )
        .unwrap();
    assert_eq!(row, (2, 1, 4, 1, 0, 4096, 0xBCBC_8641, vec![0x41, 0x86, 0xBC, 0xBC], vec![0x04, 0x03]));
}
