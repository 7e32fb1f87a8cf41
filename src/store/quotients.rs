//! The `quotients` table: misère quotients stored per game and heap range, with a CRC-32
//! over the stored data, so later runs (and `query --misere`) reuse them.

use rusqlite::{OptionalExtension, params};

use super::Database;

use crate::theory::quotient::{Quotient, QuotientData};

/// The engine version written with each row; rows of another engine are recomputed.
pub const QUOTIENT_ENGINE: &str = "quotient-1";

/// Why a stored quotient could not be read.
#[derive(Debug, thiserror::Error)]
pub enum QuotientStoreError {
    /// SQLite failed.
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
    /// The stored data does not match its checksum, or does not decode.
    #[error("the stored quotient of {game} (heaps 1..{max_heap}) is corrupt: {why}")]
    Corrupt {
        /// The game.
        game: String,
        /// Its heap range.
        max_heap: u32,
        /// What is wrong.
        why: String,
    },
}

/// One row, as `info` lists it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct QuotientRow {
    /// Canonical game.
    pub game: String,
    /// Heaps 1..=max_heap.
    pub max_heap: u32,
    /// `solved` or `open`.
    pub status: String,
    /// |Q|.
    pub size: Option<u32>,
    /// |P|.
    pub p_count: Option<u32>,
    /// Certified period.
    pub period: Option<u32>,
    /// Its preperiod.
    pub preperiod: Option<u32>,
    /// Whether the period is proven.
    pub proven: bool,
    /// Tame.
    pub tame: Option<bool>,
    /// Why it was left open.
    pub note: Option<String>,
}

impl Database {
    /// Stores a computed quotient of `game` (replacing any row for the same heap range).
    pub fn save_quotient(&self, game: &str, q: &Quotient) -> Result<(), QuotientStoreError> {
        let conn = &self.conn;
        let data = serde_json::to_string(&q.to_data()).expect("quotient data serializes");
        let crc = crc32fast::hash(data.as_bytes());
        let c = q.certificate;
        conn.execute(
        "INSERT OR REPLACE INTO quotients \
         (game, max_heap, status, size, p_count, period, preperiod, proven, tame, note, data, checksum, engine) \
         VALUES (?1, ?2, 'solved', ?3, ?4, ?5, ?6, ?7, ?8, NULL, ?9, ?10, ?11)",
        params![
            game,
            q.max_heap,
            q.size() as i64,
            q.p_count() as i64,
            c.map(|c| c.period),
            c.map(|c| c.from),
            c.is_some(),
            q.tame,
            data,
            crc as i64,
            QUOTIENT_ENGINE
        ],
    )?;
        Ok(())
    }

    /// Records that the quotient of `game` to `max_heap` was left open, and why.
    pub fn save_open_quotient(
        &self,
        game: &str,
        max_heap: u32,
        note: &str,
    ) -> Result<(), QuotientStoreError> {
        self.conn.execute(
            "INSERT OR REPLACE INTO quotients (game, max_heap, status, proven, note, engine) \
         VALUES (?1, ?2, 'open', 0, ?3, ?4)",
            params![game, max_heap, note, QUOTIENT_ENGINE],
        )?;
        Ok(())
    }

    /// The stored row of `game` for exactly heaps 1..=`max_heap`, if any (this engine's only).
    pub fn quotient_row(&self, game: &str, max_heap: u32) -> Result<Option<QuotientRow>, QuotientStoreError> {
        Ok(self.list_quotients()?.into_iter().find(|r| r.game == game && r.max_heap == max_heap))
    }

    /// Loads a stored quotient of `game`: for `Some(n)` the one of heaps 1..=n, for `None` the
    /// proven one (or, failing that, the one with the most heaps). Checks the checksum.
    pub fn load_quotient(
        &self,
        game: &str,
        max_heap: Option<u32>,
    ) -> Result<Option<Quotient>, QuotientStoreError> {
        let row: Option<(u32, String, i64)> = self
            .conn
            .query_row(
                "SELECT max_heap, data, checksum FROM quotients \
             WHERE game = ?1 AND status = 'solved' AND engine = ?2 AND (?3 IS NULL OR max_heap = ?3) \
             ORDER BY proven DESC, max_heap DESC LIMIT 1",
                params![game, QUOTIENT_ENGINE, max_heap],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let Some((n, data, crc)) = row else { return Ok(None) };
        let corrupt = |why: String| QuotientStoreError::Corrupt { game: game.to_string(), max_heap: n, why };
        if crc32fast::hash(data.as_bytes()) as i64 != crc {
            return Err(corrupt("checksum mismatch".to_string()));
        }
        let d: QuotientData = serde_json::from_str(&data).map_err(|e| corrupt(e.to_string()))?;
        Quotient::from_data(d).map(Some).map_err(|e| corrupt(e.to_string()))
    }

    /// Every stored row, by game and heap range.
    pub fn list_quotients(&self) -> Result<Vec<QuotientRow>, QuotientStoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT game, max_heap, status, size, p_count, period, preperiod, proven, tame, note \
         FROM quotients WHERE engine = ?1 ORDER BY game, max_heap",
        )?;
        let rows = stmt.query_map([QUOTIENT_ENGINE], |r| {
            Ok(QuotientRow {
                game: r.get(0)?,
                max_heap: r.get(1)?,
                status: r.get(2)?,
                size: r.get(3)?,
                p_count: r.get(4)?,
                period: r.get(5)?,
                preperiod: r.get(6)?,
                proven: r.get(7)?,
                tame: r.get(8)?,
                note: r.get(9)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }
}

#[cfg(test)]
mod tests {
    use crate::game::GameSpec;
    use crate::store::Database;
    use crate::theory::quotient::{QuotientOptions, compute_quotient};

    #[test]
    fn round_trip_and_corruption_is_caught() {
        let db = Database::open_in_memory().unwrap();
        let conn = &db.conn;
        let spec: GameSpec = "octal:0.75".parse().unwrap();
        let q =
            compute_quotient(spec.octal().unwrap(), QuotientOptions::default(), &mut |_, _| true).unwrap();
        db.save_quotient("octal:0.75", &q).unwrap();
        let back = db.load_quotient("octal:0.75", None).unwrap().unwrap();
        assert_eq!(back.to_data(), q.to_data());
        assert_eq!(db.list_quotients().unwrap().len(), 1);
        conn.execute(
            "UPDATE quotients SET data = replace(data, '\"p\":[false,true', '\"p\":[true,true')",
            [],
        )
        .unwrap();
        let err = db.load_quotient("octal:0.75", None).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
    }
}
