//! The `atlas` table (schema version 8): one row per octal code charted by the misère atlas
//! ([`theory::quotient::atlas`](nimdb_theory::quotient::atlas)), each committed on its own so
//! a killed run keeps every code it finished, with a CRC-32 over all its columns (checked
//! whenever it is read).

use rusqlite::{OptionalExtension, params};

use super::Database;
use super::quotients::{QUOTIENT_ENGINE, QuotientStoreError};

use nimdb_core::game::GameSpec;
use nimdb_theory::quotient::Quotient;
use nimdb_theory::quotient::atlas::{Chart, Entry};

/// The first schema version with the `atlas` table.
pub const ATLAS_SINCE_VERSION: i64 = 8;

/// Why the atlas could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum AtlasStoreError {
    /// SQLite failed.
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
    /// The code's quotient could not be stored.
    #[error(transparent)]
    Quotient(#[from] QuotientStoreError),
    /// A stored row does not match its checksum, or does not decode.
    #[error("the atlas row of {code} is corrupt: {why}")]
    Corrupt {
        /// The code.
        code: String,
        /// What is wrong.
        why: String,
    },
    /// The database is older than the atlas (opened read-only at an older schema version).
    #[error("this database (schema version {found}) is older than the atlas (version {ATLAS_SINCE_VERSION})")]
    TooOld {
        /// The file's schema version.
        found: i64,
    },
}

/// A stored entry and the run that charted it.
#[derive(Clone, Debug, PartialEq)]
pub struct AtlasRow {
    /// The entry.
    pub entry: Entry,
    /// The atlas run that charted it (1, 2, …).
    pub run: i64,
}

/// The columns of a row as stored (all but `updated_at`).
struct Columns {
    code: String,
    digits: u32,
    status: String,
    size: i64,
    p_count: i64,
    period: Option<u32>,
    preperiod: Option<u32>,
    tame: Option<bool>,
    heap: u32,
    reason: Option<String>,
    seconds: f64,
    run: i64,
    entry: String,
    engine: String,
    checksum: i64,
}

const COLUMNS: &str = "code, digits, status, size, p_count, period, preperiod, tame, heap, reason, seconds, run, entry, engine, checksum";

impl Columns {
    fn of(entry: &Entry, run: i64) -> Columns {
        let json = serde_json::to_string(entry).expect("an atlas entry serializes");
        let (size, p_count, period, preperiod, tame, heap, reason) = match &entry.chart {
            Chart::Certified(c) => {
                (c.size, c.p_count, Some(c.period), Some(c.preperiod), Some(c.tame), c.certified_heap, None)
            }
            Chart::Partial(p) => {
                (p.size, p.p_count, None, None, None, p.heap, Some(p.reason.name().to_string()))
            }
        };
        let mut c = Columns {
            code: entry.code.clone(),
            digits: entry.digits,
            status: entry.status().to_string(),
            size: size as i64,
            p_count: p_count as i64,
            period,
            preperiod,
            tame,
            heap,
            reason,
            seconds: entry.seconds,
            run,
            entry: json,
            engine: QUOTIENT_ENGINE.to_string(),
            checksum: 0,
        };
        c.checksum = c.crc();
        c
    }

    fn read(r: &rusqlite::Row<'_>) -> rusqlite::Result<Columns> {
        Ok(Columns {
            code: r.get(0)?,
            digits: r.get(1)?,
            status: r.get(2)?,
            size: r.get(3)?,
            p_count: r.get(4)?,
            period: r.get(5)?,
            preperiod: r.get(6)?,
            tame: r.get(7)?,
            heap: r.get(8)?,
            reason: r.get(9)?,
            seconds: r.get(10)?,
            run: r.get(11)?,
            entry: r.get(12)?,
            engine: r.get(13)?,
            checksum: r.get(14)?,
        })
    }

    /// CRC-32 of `nimdb-atlas` and every column but `checksum` and `updated_at`, each
    /// preceded by U+001F (NULL as nothing; `seconds` as Rust prints an f64), then U+001E
    /// and `entry`.
    fn crc(&self) -> i64 {
        let o = |v: Option<u32>| v.map_or(String::new(), |v| v.to_string());
        let text = format!(
            "nimdb-atlas\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1e}{}",
            self.code,
            self.digits,
            self.status,
            self.size,
            self.p_count,
            o(self.period),
            o(self.preperiod),
            self.tame.map_or(String::new(), |t| u8::from(t).to_string()),
            self.heap,
            self.reason.as_deref().unwrap_or(""),
            self.seconds,
            self.run,
            self.engine,
            self.entry,
        );
        crc32fast::hash(text.as_bytes()) as i64
    }

    /// The entry, after the checksum and every column are checked against it.
    fn check(self) -> Result<AtlasRow, AtlasStoreError> {
        let corrupt = |why: &str| AtlasStoreError::Corrupt { code: self.code.clone(), why: why.to_string() };
        if self.checksum != self.crc() {
            return Err(corrupt("checksum mismatch"));
        }
        let entry: Entry = serde_json::from_str(&self.entry).map_err(|e| corrupt(&e.to_string()))?;
        let again = Columns::of(&entry, self.run);
        if (again.code, again.checksum) != (self.code.clone(), self.checksum) {
            return Err(corrupt("its columns do not match its entry"));
        }
        Ok(AtlasRow { entry, run: self.run })
    }
}

impl Database {
    fn atlas_ready(&self) -> Result<bool, AtlasStoreError> {
        Ok(self.schema_version() >= ATLAS_SINCE_VERSION)
    }

    /// Stores a charted code (replacing its row), in its own transaction.
    pub fn save_atlas_entry(&self, entry: &Entry, run: i64) -> Result<(), AtlasStoreError> {
        self.save_charted_code(entry, run, None)
    }

    /// Stores a charted code in one transaction: its atlas row (replacing the old one) and,
    /// when given, the quotient of `game` it certified or reached, kept as
    /// [`save_quotient`](Database::save_quotient) keeps one quotient per game (proven first,
    /// else the furthest; `nimdb quotient` keeps it the same way). A kill before the commit
    /// leaves the old rows, atlas and quotient, as they were.
    pub fn save_charted_code(
        &self,
        entry: &Entry,
        run: i64,
        quotient: Option<(&GameSpec, &Quotient)>,
    ) -> Result<(), AtlasStoreError> {
        if !self.atlas_ready()? {
            return Err(AtlasStoreError::TooOld { found: self.schema_version() });
        }
        let tx = self.conn.unchecked_transaction()?;
        if let Some((game, q)) = quotient {
            self.save_quotient(game, q)?;
        }
        self.put_atlas_row(entry, run)?;
        tx.commit()?;
        Ok(())
    }

    fn put_atlas_row(&self, entry: &Entry, run: i64) -> Result<(), AtlasStoreError> {
        let c = Columns::of(entry, run);
        self.conn.execute(
            &format!("INSERT OR REPLACE INTO atlas ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"),
            params![
                c.code, c.digits, c.status, c.size, c.p_count, c.period, c.preperiod, c.tame, c.heap, c.reason,
                c.seconds, c.run, c.entry, c.engine, c.checksum
            ],
        )?;
        Ok(())
    }

    /// The stored row of `code` (as `0.77`) charted by this engine, checked; `None` when
    /// there is none (or only one of another engine, which is charted again).
    pub fn atlas_entry(&self, code: &str) -> Result<Option<AtlasRow>, AtlasStoreError> {
        if !self.atlas_ready()? {
            return Ok(None);
        }
        let row = self
            .conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM atlas WHERE code = ?1 AND engine = ?2"),
                params![code, QUOTIENT_ENGINE],
                Columns::read,
            )
            .optional()?;
        row.map(Columns::check).transpose()
    }

    /// Every stored row of this engine with at most `digits` digits, checked, in the
    /// atlas's order (fewer digits first, then the code).
    pub fn atlas_entries(&self, digits: u32) -> Result<Vec<AtlasRow>, AtlasStoreError> {
        if !self.atlas_ready()? {
            return Ok(Vec::new());
        }
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM atlas WHERE engine = ?1 AND digits <= ?2 ORDER BY digits, code"
        ))?;
        let rows = stmt.query_map(params![QUOTIENT_ENGINE, digits], Columns::read)?;
        rows.map(|r| r?.check()).collect()
    }

    /// The number of the next atlas run: one more than any stored.
    pub fn next_atlas_run(&self) -> Result<i64, AtlasStoreError> {
        if !self.atlas_ready()? {
            return Ok(1);
        }
        Ok(self.conn.query_row("SELECT COALESCE(MAX(run), 0) + 1 FROM atlas", [], |r| r.get(0))?)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use crate::Database;
    use nimdb_core::game::TakeBreakCode;
    use nimdb_theory::quotient::atlas::{Budget, chart_code};

    fn entry(digits: &[u8], budget: &Budget) -> nimdb_theory::quotient::atlas::Entry {
        let code = TakeBreakCode::new(0, digits, None).unwrap();
        let start = Instant::now();
        chart_code(&code, budget, &|| start.elapsed(), &|| false).unwrap().entry
    }

    #[test]
    fn rows_round_trip_and_every_column_is_covered() {
        let db = Database::open_in_memory().unwrap();
        let big = Budget { seconds: 1e9, ..Budget::default() };
        let kayles = entry(&[7, 7], &big);
        let dawson = entry(&[0, 7], &Budget { max_elements: 30, ..big });
        assert_eq!(db.next_atlas_run().unwrap(), 1);
        db.save_atlas_entry(&kayles, 1).unwrap();
        db.save_atlas_entry(&dawson, 2).unwrap();
        assert_eq!(db.next_atlas_run().unwrap(), 3);
        let back = db.atlas_entry("0.77").unwrap().unwrap();
        assert_eq!((back.entry, back.run), (kayles.clone(), 1));
        let all = db.atlas_entries(4).unwrap();
        assert_eq!(all.iter().map(|r| r.entry.code.as_str()).collect::<Vec<_>>(), ["0.07", "0.77"]);
        assert!(db.atlas_entries(1).unwrap().is_empty());
        assert!(db.atlas_entry("0.7").unwrap().is_none());
        for edit in [
            "UPDATE atlas SET size = size + 1 WHERE code = '0.77'",
            "UPDATE atlas SET status = 'partial' WHERE code = '0.77'",
            "UPDATE atlas SET period = 6 WHERE code = '0.77'",
            "UPDATE atlas SET tame = 1 WHERE code = '0.77'",
            "UPDATE atlas SET heap = 12 WHERE code = '0.77'",
            "UPDATE atlas SET reason = 'time' WHERE code = '0.77'",
            "UPDATE atlas SET seconds = seconds + 1 WHERE code = '0.77'",
            "UPDATE atlas SET run = 7 WHERE code = '0.77'",
            "UPDATE atlas SET entry = replace(entry, '\"size\":40', '\"size\":42') WHERE code = '0.77'",
            "UPDATE atlas SET checksum = checksum + 1 WHERE code = '0.77'",
            "UPDATE atlas SET code = '0.76' WHERE code = '0.77'",
        ] {
            let tx = db.conn.unchecked_transaction().unwrap();
            assert_eq!(tx.execute(edit, []).unwrap(), 1, "{edit}");
            let err = db.atlas_entries(4).unwrap_err();
            assert!(err.to_string().contains("is corrupt"), "{edit}: {err}");
            drop(tx); // rolled back
        }
        assert_eq!(db.atlas_entries(4).unwrap().len(), 2);
        // Seconds whose shortest decimal the default float parser misses by one ulp read back.
        let mut slow = dawson.clone();
        slow.seconds = 1.1262830369999999;
        db.save_atlas_entry(&slow, 5).unwrap();
        assert_eq!(db.atlas_entry("0.07").unwrap().unwrap().entry.seconds.to_bits(), slow.seconds.to_bits());
        // A row of another engine is not read: it is charted again.
        db.conn.execute("UPDATE atlas SET engine = 'quotient-0' WHERE code = '0.07'", []).unwrap();
        assert!(db.atlas_entry("0.07").unwrap().is_none());
    }
}
