//! The upgrade to schema version 5: every tier's and quotient row's checksums are checked
//! the old way, then recomputed bound to the row's identity, and the upgrade is recorded in
//! `checksum_upgrades` (which `nimdb info` shows).
//!
//! A row that fails its old checksums is left as it was, with `checksum_scheme` 0: every
//! later read refuses it, as it would have refused it before.

use rusqlite::{Transaction, params};

use crate::index::TierId;

use super::codec::{Binding, RecordLayout, StoredBytes, check_tier};
use super::open::StoreError;
use super::solves::SolveKey;

/// What the upgrade did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    tiers_rebound: i64,
    tiers_failed: i64,
    quotients_rebound: i64,
    quotients_failed: i64,
}

/// Runs inside the migration's transaction, after its SQL (see the module documentation).
pub(crate) fn bind_checksums(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let from: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let mut counts = Counts::default();
    let ids: Vec<i64> = tx
        .prepare("SELECT id FROM tiers WHERE checksum_scheme = 0 ORDER BY id")?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for id in ids {
        if rebind_tier(tx, id)? {
            counts.tiers_rebound += 1;
        } else {
            counts.tiers_failed += 1;
        }
    }
    let (rebound, failed) = super::quotients::rebind_rows(tx)?;
    counts.quotients_rebound = rebound;
    counts.quotients_failed = failed;
    if counts != Counts::default() {
        tx.execute(
            "INSERT INTO checksum_upgrades (from_version, to_version, tiers_rebound, tiers_failed,
                                            quotients_rebound, quotients_failed, engine)
             VALUES (?1, 5, ?2, ?3, ?4, ?5, ?6)",
            params![
                from,
                counts.tiers_rebound,
                counts.tiers_failed,
                counts.quotients_rebound,
                counts.quotients_failed,
                concat!("nimdb ", env!("CARGO_PKG_VERSION"))
            ],
        )?;
    }
    Ok(())
}

/// Checks tier row `id` against its plain checksums and, when it passes, stores its bound
/// ones. Returns whether it passed.
fn rebind_tier(tx: &Transaction<'_>, id: i64) -> Result<bool, StoreError> {
    type Row = (SolveKey, TierId, i64, (i64, i64, i64), i64, Vec<u8>, Vec<u8>);
    let (key, tier, positions, (rb, vb, br), checksum, blocks, payload): Row = tx.query_row(
        "SELECT s.game, s.convention, s.max_heap, s.max_heaps, s.nim_values, t.total, t.heaps, t.positions,
                t.remoteness_bytes, t.nim_value_bytes, t.block_records, t.checksum, t.block_checksums, t.payload
         FROM tiers t JOIN solves s ON s.id = t.solve_id WHERE t.id = ?1",
        [id],
        |r| {
            Ok((
                SolveKey::from_columns(r.get(0)?, &r.get::<_, String>(1)?, r.get(2)?, r.get(3)?, r.get(4)?),
                TierId { total: r.get(5)?, heaps: r.get(6)? },
                r.get(7)?,
                (r.get(8)?, r.get(9)?, r.get(10)?),
                r.get(11)?,
                r.get(12)?,
                r.get(13)?,
            ))
        },
    )?;
    let Ok(layout) = RecordLayout::from_columns(rb, vb, br) else {
        return Ok(false);
    };
    let stored = StoredBytes {
        layout,
        positions: positions.max(0) as u64,
        payload: &payload,
        block_checksums: &blocks,
        checksum,
    };
    if check_tier(&stored, &Binding::Plain).is_err() {
        return Ok(false);
    }
    let binding = Binding::bound(&key, tier, &layout);
    tx.execute(
        "UPDATE tiers SET checksum = ?2, block_checksums = ?3, checksum_scheme = 2 WHERE id = ?1",
        params![id, binding.payload(&payload) as i64, binding.block_checksums(&layout, &payload)],
    )?;
    Ok(true)
}

/// One recorded upgrade of a database's checksums (a row of `checksum_upgrades`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ChecksumUpgrade {
    /// When it ran (UTC, SQLite's `datetime('now')`).
    pub upgraded_at: String,
    /// The schema version upgraded from.
    pub from_version: i64,
    /// The schema version upgraded to.
    pub to_version: i64,
    /// Tiers whose checksums were checked the old way and recomputed bound.
    pub tiers_rebound: i64,
    /// Tiers that failed their old checksums (refused when read).
    pub tiers_failed: i64,
    /// Quotient rows recomputed.
    pub quotients_rebound: i64,
    /// Quotient rows that failed their old checksum.
    pub quotients_failed: i64,
    /// The nimdb that ran it.
    pub engine: String,
}

impl super::Database {
    /// The recorded checksum upgrades, oldest first (none in a database created at schema
    /// version 5 or later, or older than 5).
    pub fn checksum_upgrades(&self) -> Result<Vec<ChecksumUpgrade>, StoreError> {
        if self.schema_version() < 5 {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare(
            "SELECT upgraded_at, from_version, to_version, tiers_rebound, tiers_failed, quotients_rebound,
                    quotients_failed, engine
             FROM checksum_upgrades ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(ChecksumUpgrade {
                upgraded_at: r.get(0)?,
                from_version: r.get(1)?,
                to_version: r.get(2)?,
                tiers_rebound: r.get(3)?,
                tiers_failed: r.get(4)?,
                quotients_rebound: r.get(5)?,
                quotients_failed: r.get(6)?,
                engine: r.get(7)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
