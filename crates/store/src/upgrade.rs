//! The upgrades that seal stored rows again: to schema version 5, every tier's and quotient
//! row's checksums are checked the old way, then recomputed bound to the row's identity; to
//! schema version 7, every `game` column is rewritten from the display name to the game's
//! storage id, and every row whose checksums are bound to the game (tiers, quotients,
//! heap values) is checked under the old name and sealed again under the id. Each upgrade
//! that rechecked rows is recorded in `checksum_upgrades` (which `nimdb info` shows).
//!
//! A row that fails its old checksums is never sealed again: a tier or quotient row gets
//! `checksum_scheme` 0 and a heap-values row keeps its old checksum, so every later read
//! refuses it, as it would have refused it before.

use rusqlite::{Transaction, params};

use nimdb_core::game::GameSpec;
use nimdb_core::index::TierId;

use super::codec::{Binding, RecordLayout, StoredBytes, check_tier};
use super::error::StoreError;
use super::key::SolveKey;

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
    record(tx, from, 5, counts)
}

/// Runs inside the migration to schema version 7, after its SQL (see the module
/// documentation). A stored name that is not a game this nimdb parses, or whose storage id
/// another stored name already took, is left as it is (nothing finds its rows).
pub(crate) fn key_by_storage_ids(tx: &Transaction<'_>) -> Result<(), StoreError> {
    let from: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let mut counts = Counts::default();
    let mut taken = std::collections::HashSet::new();
    for name in super::games::stored_names(tx, true)? {
        let Ok(spec) = name.parse::<GameSpec>() else { continue };
        let id = spec.storage_id();
        if !taken.insert(id.clone()) {
            continue;
        }
        rekey_solves(tx, &name, &id, &mut counts)?;
        rekey_heap_values(tx, &name, &id)?;
        let (rebound, failed) = super::quotients::rekey_rows(tx, &name, &id)?;
        counts.quotients_rebound += rebound;
        counts.quotients_failed += failed;
    }
    record(tx, from, 7, counts)
}

/// Records an upgrade that rechecked rows (nothing when it rechecked none).
fn record(tx: &Transaction<'_>, from: i64, to: i64, counts: Counts) -> Result<(), StoreError> {
    if counts != Counts::default() {
        tx.execute(
            "INSERT INTO checksum_upgrades (from_version, to_version, tiers_rebound, tiers_failed,
                                            quotients_rebound, quotients_failed, engine)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                from,
                to,
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

/// Keys the solves of `name` by `id`: each of their tiers with bound checksums is checked
/// under `name` and, if it passes, sealed again under `id`; one that fails gets scheme 0.
fn rekey_solves(tx: &Transaction<'_>, name: &str, id: &str, counts: &mut Counts) -> Result<(), StoreError> {
    let tiers: Vec<i64> = tx
        .prepare(
            "SELECT t.id FROM tiers t JOIN solves s ON s.id = t.solve_id
             WHERE s.game = ?1 AND t.checksum_scheme IN (1, 2) ORDER BY t.id",
        )?
        .query_map([name], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for tier in tiers {
        let row = read_tier(tx, tier)?;
        let passes =
            RecordLayout::from_columns(row.layout.0, row.layout.1, row.layout.2).is_ok_and(|layout| {
                let stored = StoredBytes {
                    layout,
                    positions: row.positions.max(0) as u64,
                    payload: &row.payload,
                    block_checksums: &row.blocks,
                    checksum: row.checksum,
                };
                check_tier(&stored, &Binding::bound(&row.key, row.tier, &layout)).is_ok()
            });
        if !passes {
            tx.execute("UPDATE tiers SET checksum_scheme = 0 WHERE id = ?1", [tier])?;
            counts.tiers_failed += 1;
            continue;
        }
        let layout =
            RecordLayout::from_columns(row.layout.0, row.layout.1, row.layout.2).expect("checked above");
        let key = SolveKey { game: id.to_string(), ..row.key };
        let binding = Binding::bound(&key, row.tier, &layout);
        tx.execute(
            "UPDATE tiers SET checksum = ?2, block_checksums = ?3 WHERE id = ?1",
            params![
                tier,
                binding.payload(&row.payload) as i64,
                binding.block_checksums(&layout, &row.payload)
            ],
        )?;
        counts.tiers_rebound += 1;
    }
    tx.execute("UPDATE solves SET game = ?2 WHERE game = ?1", params![name, id])?;
    Ok(())
}

/// Keys the heap values of `name` by `id`: each row whose checksum passes under `name` gets
/// its checksum under `id`; a row that fails keeps its old one (and still fails).
fn rekey_heap_values(tx: &Transaction<'_>, name: &str, id: &str) -> Result<(), StoreError> {
    type Row = (u32, u32, Option<u32>, Option<String>, Option<bool>, Option<i64>);
    let rows: Vec<Row> = tx
        .prepare(
            "SELECT n, nim_value, misere_value, genus, tame, checksum FROM heap_values WHERE game = ?1 ORDER BY n",
        )?
        .query_map([name], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))?
        .collect::<Result<_, _>>()?;
    let mut update =
        tx.prepare("UPDATE heap_values SET game = ?3, checksum = ?4 WHERE game = ?1 AND n = ?2")?;
    for (n, value, misere, genus, tame, checksum) in rows {
        let sum =
            |game: &str| super::heap_values::row_checksum(game, n, value, misere, genus.as_deref(), tame);
        let checksum = match checksum {
            Some(c) if c == sum(name) => Some(sum(id)),
            other => other,
        };
        update.execute(params![name, n, id, checksum])?;
    }
    tx.execute("UPDATE heap_sequences SET game = ?2 WHERE game = ?1", params![name, id])?;
    Ok(())
}

/// One tier row, with its solve's key, as the upgrades read it.
struct TierRow {
    key: SolveKey,
    tier: TierId,
    positions: i64,
    layout: (i64, i64, i64),
    checksum: i64,
    blocks: Vec<u8>,
    payload: Vec<u8>,
}

fn read_tier(tx: &Transaction<'_>, id: i64) -> Result<TierRow, StoreError> {
    Ok(tx.query_row(
        "SELECT s.game, s.convention, s.max_heap, s.max_heaps, s.nim_values, t.total, t.heaps, t.positions,
                t.remoteness_bytes, t.nim_value_bytes, t.block_records, t.checksum, t.block_checksums, t.payload
         FROM tiers t JOIN solves s ON s.id = t.solve_id WHERE t.id = ?1",
        [id],
        |r| {
            Ok(TierRow {
                key: SolveKey::from_columns(r.get(0)?, &r.get::<_, String>(1)?, r.get(2)?, r.get(3)?, r.get(4)?),
                tier: TierId { total: r.get(5)?, heaps: r.get(6)? },
                positions: r.get(7)?,
                layout: (r.get(8)?, r.get(9)?, r.get(10)?),
                checksum: r.get(11)?,
                blocks: r.get(12)?,
                payload: r.get(13)?,
            })
        },
    )?)
}

/// Checks tier row `id` against its plain checksums and, when it passes, stores its bound
/// ones. Returns whether it passed.
fn rebind_tier(tx: &Transaction<'_>, id: i64) -> Result<bool, StoreError> {
    let TierRow { key, tier, positions, layout: (rb, vb, br), checksum, blocks, payload } =
        read_tier(tx, id)?;
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

impl super::database::Database {
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
