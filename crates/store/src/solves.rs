//! The `solves` table: one row per game, convention and universe caps.

use rusqlite::{OptionalExtension, Row, params};

use nimdb_core::game::{Convention, GameSpec};
use nimdb_core::index::{TierId, Universe};

use super::database::Database;
use super::error::StoreError;
use super::key::SolveKey;

/// Whether every tier up to the target total is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SolveStatus {
    /// Some tiers are missing (still running, or interrupted).
    Partial,
    /// Every tier up to the target total is stored.
    Complete,
}

/// A stored solve.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SolveRecord {
    /// Row id.
    pub id: i64,
    /// The game's display name (its canonical spec today, whatever name it was stored
    /// under).
    pub game: String,
    /// The game's storage id, as the row keys it (a display name in a database older than
    /// schema version 7).
    pub game_id: String,
    /// Convention.
    pub convention: Convention,
    /// Heap size cap.
    pub max_heap: Option<u32>,
    /// Heap count cap.
    pub max_heaps: Option<u32>,
    /// Whether records hold nim-values.
    pub nim_values: bool,
    /// The total the last run aimed for.
    pub target_total: u32,
    /// Every tier with total ≤ this is stored (-1: none).
    pub solved_total: i64,
    /// Complete or partial.
    pub status: SolveStatus,
    /// Positions stored.
    pub positions: u64,
    /// Losses stored.
    pub losses: u64,
    /// Seconds spent solving, over all runs.
    pub solve_seconds: f64,
    /// The last tier stored, in solve order.
    pub last_tier: Option<TierId>,
    /// Bytes of payload and checksums stored.
    pub bytes: u64,
}

impl SolveRecord {
    /// The solve's key.
    pub fn key(&self) -> SolveKey {
        SolveKey {
            game: self.game_id.clone(),
            convention: self.convention,
            max_heap: self.max_heap,
            max_heaps: self.max_heaps,
            nim_values: self.nim_values,
        }
    }

    /// The universe this solve covers at its target total.
    pub fn target_universe(&self) -> Universe {
        Universe { max_total: self.target_total, max_heap: self.max_heap, max_heaps: self.max_heaps }
    }
}

const SELECT: &str = "SELECT s.id, s.game, s.convention, s.max_heap, s.max_heaps, s.nim_values, s.target_total,
        s.solved_total, s.status, s.positions, s.losses, s.solve_seconds,
        (SELECT t.total || ',' || t.heaps FROM tiers t WHERE t.solve_id = s.id ORDER BY t.total DESC, t.heaps ASC LIMIT 1),
        (SELECT COALESCE(SUM(length(t.payload) + length(t.block_checksums)), 0) FROM tiers t WHERE t.solve_id = s.id)
    FROM solves s";

fn from_row(row: &Row<'_>) -> rusqlite::Result<SolveRecord> {
    let convention: String = row.get(2)?;
    let status: String = row.get(8)?;
    let last: Option<String> = row.get(12)?;
    let game_id: String = row.get(1)?;
    Ok(SolveRecord {
        id: row.get(0)?,
        game: super::games::game_name(&game_id),
        game_id,
        convention: Convention::parse(&convention).unwrap_or(Convention::Normal),
        max_heap: row.get(3)?,
        max_heaps: row.get(4)?,
        nim_values: row.get(5)?,
        target_total: row.get(6)?,
        solved_total: row.get(7)?,
        status: if status == "complete" { SolveStatus::Complete } else { SolveStatus::Partial },
        positions: row.get::<_, i64>(9)? as u64,
        losses: row.get::<_, i64>(10)? as u64,
        solve_seconds: row.get(11)?,
        last_tier: last.and_then(|s| {
            let (t, k) = s.split_once(',')?;
            Some(TierId { total: t.parse().ok()?, heaps: k.parse().ok()? })
        }),
        bytes: row.get::<_, i64>(13)? as u64,
    })
}

impl Database {
    /// Every stored solve, by game (its stored key), convention and caps.
    pub fn solves(&self) -> Result<Vec<SolveRecord>, StoreError> {
        let mut stmt = self.conn.prepare(&format!("{SELECT} ORDER BY s.id"))?;
        let mut rows = stmt.query_map([], from_row)?.collect::<Result<Vec<_>, _>>()?;
        rows.sort_by(|a, b| {
            (&a.game, a.convention.as_str(), a.id).cmp(&(&b.game, b.convention.as_str(), b.id))
        });
        Ok(rows)
    }

    /// The solves of one game and convention.
    pub fn solves_of(&self, game: &GameSpec, convention: Convention) -> Result<Vec<SolveRecord>, StoreError> {
        let mut stmt =
            self.conn.prepare(&format!("{SELECT} WHERE s.game = ?1 AND s.convention = ?2 ORDER BY s.id"))?;
        let rows = stmt
            .query_map(params![self.game_key(game)?, convention.as_str()], from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The solves stored under game id `game_id` (a [storage id](GameSpec::storage_id), as
    /// the `solves` table keys games since schema version 7) and `convention`, oldest first.
    pub fn solves_stored_as(
        &self,
        game_id: &str,
        convention: Convention,
    ) -> Result<Vec<SolveRecord>, StoreError> {
        let mut stmt =
            self.conn.prepare(&format!("{SELECT} WHERE s.game = ?1 AND s.convention = ?2 ORDER BY s.id"))?;
        let rows = stmt
            .query_map(params![game_id, convention.as_str()], from_row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    }

    /// The solve with this key, if stored.
    pub fn find_solve(&self, key: &SolveKey) -> Result<Option<SolveRecord>, StoreError> {
        // A database older than schema version 7 keys the solve by the name it was stored under.
        let game = match GameSpec::from_storage_id(&key.game) {
            Some(spec) if self.schema_version() < super::schema::STORAGE_IDS_SINCE_VERSION => {
                self.game_key(&spec)?
            }
            _ => key.game.clone(),
        };
        let sql = format!(
            "{SELECT} WHERE s.game = ?1 AND s.convention = ?2 AND s.max_heap IS ?3 AND s.max_heaps IS ?4 AND s.nim_values = ?5"
        );
        Ok(self
            .conn
            .query_row(
                &sql,
                params![game, key.convention.as_str(), key.max_heap, key.max_heaps, key.nim_values],
                from_row,
            )
            .optional()?)
    }

    /// The solve with this key, created if missing, with its target total raised to
    /// `target_total` if lower (its status goes back to partial when there is more to do).
    pub fn begin_solve(&mut self, key: &SolveKey, target_total: u32) -> Result<SolveRecord, StoreError> {
        // IMMEDIATE: take the write lock before reading, so two processes cannot both insert.
        let tx = self.conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let existing: Option<i64> = tx
            .query_row(
                "SELECT id FROM solves WHERE game = ?1 AND convention = ?2 AND max_heap IS ?3 AND max_heaps IS ?4
                   AND nim_values = ?5",
                params![key.game, key.convention.as_str(), key.max_heap, key.max_heaps, key.nim_values],
                |r| r.get(0),
            )
            .optional()?;
        match existing {
            Some(id) => tx.execute(
                "UPDATE solves SET target_total = max(target_total, ?2),
                    status = CASE WHEN solved_total >= max(target_total, ?2) THEN 'complete' ELSE 'partial' END,
                    updated_at = datetime('now')
                 WHERE id = ?1",
                params![id, target_total],
            )?,
            None => tx.execute(
                "INSERT INTO solves (game, convention, max_heap, max_heaps, nim_values, target_total, status, solver_version)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'partial', ?7)",
                params![
                    key.game,
                    key.convention.as_str(),
                    key.max_heap,
                    key.max_heaps,
                    key.nim_values,
                    target_total,
                    env!("CARGO_PKG_VERSION")
                ],
            )?,
        };
        tx.commit()?;
        Ok(self.find_solve(key)?.expect("solve row just written"))
    }
}
