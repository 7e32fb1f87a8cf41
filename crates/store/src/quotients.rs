//! The `quotients` table: misère quotients stored per game and heap range, each row with a
//! CRC-32 over all its columns (checked whenever it is read), so later runs (and
//! `query --misere`) reuse them. Rows are written packed
//! ([`Quotient::pack`](nimdb_theory::quotient::Quotient::pack), schema version 9 on); rows
//! written before as JSON still load.

use rusqlite::{OptionalExtension, params};

use super::database::Database;
use super::error::StoreError;
use super::schema::PACKED_QUOTIENTS_SINCE_VERSION;

use nimdb_core::game::GameSpec;
use nimdb_theory::quotient::{Quotient, QuotientData};

/// The engine version written with each row; rows of another engine are recomputed.
pub const QUOTIENT_ENGINE: &str = "quotient-1";

/// Why a stored quotient could not be read.
#[derive(Debug, thiserror::Error)]
pub enum QuotientStoreError {
    /// SQLite failed.
    #[error(transparent)]
    Sql(#[from] rusqlite::Error),
    /// The database could not say how it keys the game.
    #[error(transparent)]
    Store(#[from] Box<StoreError>),
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
    /// The game's display name (its canonical spec today).
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

/// Every column of one stored row, as read.
struct StoredRow {
    /// The `game` column: the game's storage id (a display name before schema version 7).
    key: String,
    row: QuotientRow,
    data: Option<String>,
    engine: String,
    checksum: Option<i64>,
    scheme: i64,
    packed: Option<Vec<u8>>,
}

/// The checksum scheme of a packed row: the row's columns with `data` empty, then the
/// packed bytes.
const PACKED_SCHEME: i64 = 3;

/// The CRC-32 of a quotient row (schema version 5 on): over `nimdb-quotient` and every
/// column but `updated_at` (each followed by U+001F, empty for NULL; the data last, after
/// U+001E), so a row edited or moved to another game or heap range fails it. `key` is the
/// `game` column (the storage id since schema version 7).
pub(crate) fn row_checksum(key: &str, row: &QuotientRow, engine: &str, data: Option<&str>) -> i64 {
    crc32fast::hash(row_text(key, row, engine, data).as_bytes()) as i64
}

/// The CRC-32 of a packed row (scheme 3, schema version 9 on): the text of
/// [`row_checksum`] with `data` empty, then the packed bytes.
fn packed_checksum(key: &str, row: &QuotientRow, engine: &str, packed: &[u8]) -> i64 {
    let mut h = crc32fast::Hasher::new();
    h.update(row_text(key, row, engine, None).as_bytes());
    h.update(packed);
    h.finalize() as i64
}

/// The text a row's checksum covers (see [`row_checksum`]).
fn row_text(key: &str, row: &QuotientRow, engine: &str, data: Option<&str>) -> String {
    let o = |v: Option<u32>| v.map_or(String::new(), |v| v.to_string());
    format!(
        "nimdb-quotient\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1e}{}",
        key,
        row.max_heap,
        row.status,
        o(row.size),
        o(row.p_count),
        o(row.period),
        o(row.preperiod),
        u8::from(row.proven),
        row.tame.map_or(String::new(), |t| u8::from(t).to_string()),
        row.note.as_deref().unwrap_or(""),
        engine,
        data.unwrap_or(""),
    )
}

/// The columns a quotient row is read with (`checksum_scheme` is 0 in a database older than
/// schema version 5, which has no such column; `packed` is NULL before version 9).
fn columns(db: &Database) -> &'static str {
    if db.schema_version() >= PACKED_QUOTIENTS_SINCE_VERSION {
        COLUMNS_9
    } else if db.schema_version() >= 5 {
        COLUMNS_5
    } else {
        COLUMNS_4
    }
}

/// The columns of a row, schema version 9 on.
const COLUMNS_9: &str = "game, max_heap, status, size, p_count, period, preperiod, proven, tame, note, data, engine, checksum, checksum_scheme, packed";

/// The columns of a row, schema versions 5 to 8 (nothing packed).
const COLUMNS_5: &str = "game, max_heap, status, size, p_count, period, preperiod, proven, tame, note, data, engine, checksum, checksum_scheme, NULL";

/// The columns of a row before schema version 5 (no scheme: 0).
const COLUMNS_4: &str = "game, max_heap, status, size, p_count, period, preperiod, proven, tame, note, data, engine, checksum, 0, NULL";

fn stored_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredRow> {
    let key: String = r.get(0)?;
    Ok(StoredRow {
        row: QuotientRow {
            game: super::games::game_name(&key),
            max_heap: r.get(1)?,
            status: r.get(2)?,
            size: r.get(3)?,
            p_count: r.get(4)?,
            period: r.get(5)?,
            preperiod: r.get(6)?,
            proven: r.get(7)?,
            tame: r.get(8)?,
            note: r.get(9)?,
        },
        data: r.get(10)?,
        engine: r.get(11)?,
        checksum: r.get(12)?,
        scheme: r.get(13)?,
        // Any bytes, whatever SQLite's type for them (a text or number here fails the checksum).
        packed: match r.get_ref(14)? {
            rusqlite::types::ValueRef::Null => None,
            rusqlite::types::ValueRef::Blob(b) | rusqlite::types::ValueRef::Text(b) => Some(b.to_vec()),
            rusqlite::types::ValueRef::Integer(_) | rusqlite::types::ValueRef::Real(_) => Some(Vec::new()),
        },
        key,
    })
}

impl StoredRow {
    /// Checks the row's checksum: the whole row's in a database of schema version 5 on,
    /// the data's alone (solved rows only) in an older one read as it is.
    fn check(self, db: &Database) -> Result<StoredRow, QuotientStoreError> {
        let corrupt = |why: &str| QuotientStoreError::Corrupt {
            game: self.row.game.clone(),
            max_heap: self.row.max_heap,
            why: why.to_string(),
        };
        let ok = if db.schema_version() < 5 {
            self.row.status == "open"
                || self.checksum == self.data.as_deref().map(|d| crc32fast::hash(d.as_bytes()) as i64)
        } else if self.scheme == 0 {
            return Err(corrupt(
                "its checksum is not bound to the row (it failed its checksum when the database was upgraded)",
            ));
        } else if self.scheme == PACKED_SCHEME {
            match &self.packed {
                Some(p) => self.checksum == Some(packed_checksum(&self.key, &self.row, &self.engine, p)),
                None => return Err(corrupt("its packed quotient is missing")),
            }
        } else if !matches!(self.scheme, 1 | 2) {
            return Err(corrupt(&format!(
                "its checksum scheme {} is not one this nimdb knows (1 to 3)",
                self.scheme
            )));
        } else {
            self.checksum == Some(row_checksum(&self.key, &self.row, &self.engine, self.data.as_deref()))
        };
        if !ok {
            return Err(corrupt("checksum mismatch"));
        }
        Ok(self)
    }
}

/// The rows an upgrade rechecks (every column, the `game` column as the row's key), with
/// their rowids: those that match `filter`, a condition on `quotients` (schema version 5 on).
fn upgrade_rows(
    tx: &rusqlite::Transaction<'_>,
    filter: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<Vec<(i64, StoredRow)>> {
    let sql = format!("SELECT {}, rowid FROM quotients WHERE {filter}", COLUMNS_5);
    tx.prepare(&sql)?.query_map(params, |r| Ok((r.get(15)?, stored_row(r)?)))?.collect()
}

/// The upgrade to schema version 5: every row that passes its old check (the CRC-32 of
/// its data; open rows had none) gets its whole-row checksum, scheme 2. Returns the rows
/// rebound and the rows that failed (left with scheme 0, refused when read).
pub(crate) fn rebind_rows(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<(i64, i64)> {
    let rows = upgrade_rows(tx, "checksum_scheme = 0", [])?;
    let (mut rebound, mut failed) = (0, 0);
    for (rowid, stored) in rows {
        let old_ok = stored.row.status == "open"
            || stored.checksum == stored.data.as_deref().map(|d| crc32fast::hash(d.as_bytes()) as i64);
        if !old_ok {
            failed += 1;
            continue;
        }
        tx.execute(
            "UPDATE quotients SET checksum = ?2, checksum_scheme = 2 WHERE rowid = ?1",
            params![rowid, row_checksum(&stored.key, &stored.row, &stored.engine, stored.data.as_deref())],
        )?;
        rebound += 1;
    }
    Ok((rebound, failed))
}

/// The upgrade to schema version 7: the rows of `name` are keyed by the storage id `id`;
/// each with a bound checksum that passes under `name` is sealed again under `id`, and one
/// that fails gets scheme 0 (refused when read). Returns the rows sealed again and the rows
/// that failed.
pub(crate) fn rekey_rows(
    tx: &rusqlite::Transaction<'_>,
    name: &str,
    id: &str,
) -> rusqlite::Result<(i64, i64)> {
    let rows = upgrade_rows(tx, "game = ?1 AND checksum_scheme IN (1, 2)", [name])?;
    let (mut rebound, mut failed) = (0, 0);
    for (rowid, stored) in rows {
        let data = stored.data.as_deref();
        if stored.checksum == Some(row_checksum(name, &stored.row, &stored.engine, data)) {
            tx.execute(
                "UPDATE quotients SET checksum = ?2 WHERE rowid = ?1",
                params![rowid, row_checksum(id, &stored.row, &stored.engine, data)],
            )?;
            rebound += 1;
        } else {
            tx.execute("UPDATE quotients SET checksum_scheme = 0 WHERE rowid = ?1", [rowid])?;
            failed += 1;
        }
    }
    tx.execute("UPDATE quotients SET game = ?2 WHERE game = ?1", params![name, id])?;
    Ok((rebound, failed))
}

impl Database {
    /// Stores a computed, verified quotient of `game`, packed, keeping one quotient per game
    /// (this engine's `solved` rows): a proven quotient supersedes every other (an earlier
    /// proven one is kept, and `q` left out); otherwise the one that reaches the most heaps
    /// is kept (`q` replaces the game's unproven rows unless one goes further, which is then
    /// kept instead). Smaller ranges are read off the one kept
    /// ([`quotient_toward`](Self::quotient_toward)). `open` rows, and rows of other engines,
    /// are left alone. In one transaction (the caller's, when one is open): the old rows stay
    /// until the new one is in. Returns whether `q` was stored.
    pub fn save_quotient(&self, game: &GameSpec, q: &Quotient) -> Result<bool, QuotientStoreError> {
        let key = self.game_key(game).map_err(Box::new)?;
        let own = self.conn.is_autocommit().then(|| self.conn.unchecked_transaction()).transpose()?;
        let solved = "game = ?1 AND engine = ?2 AND status = 'solved'";
        let kept: Option<(bool, u32)> = self
            .conn
            .query_row(
                &format!("SELECT proven, max_heap FROM quotients WHERE {solved} ORDER BY proven DESC, max_heap DESC LIMIT 1"),
                params![key, QUOTIENT_ENGINE],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let stored = match kept {
            Some((true, _)) => false,
            Some((false, h)) if !q.proven() && h > q.max_heap => false,
            _ => {
                self.put_quotient_row(&key, &solved_row(game, q), Stored::Packed(&q.pack()))?;
                true
            }
        };
        // Every other solved row is superseded by the one kept.
        let (proven, heap) = if stored { (q.proven(), q.max_heap) } else { kept.expect("a row is kept") };
        self.conn.execute(
            &format!("DELETE FROM quotients WHERE {solved} AND NOT (proven = ?3 AND max_heap = ?4)"),
            params![key, QUOTIENT_ENGINE, proven, heap],
        )?;
        if let Some(tx) = own {
            tx.commit()?;
        }
        Ok(stored)
    }

    /// What the database holds toward the quotient of `game` for heaps 1..=`max_heap` (for
    /// `None`, open-ended: a proven quotient): the kept quotient itself, or one read off it
    /// ([`Quotient::restricted`], its closure check of at most `max_states` states run
    /// again), when it covers the range; else the kept unproven quotient of fewer heaps, for
    /// the computation to go on from; else nothing. A row for exactly `max_heap` (one
    /// written before one quotient was kept per game) is read as it is. Every row read is
    /// checked against its checksum.
    pub fn quotient_toward(
        &self,
        game: &GameSpec,
        max_heap: Option<u32>,
        max_states: usize,
    ) -> Result<Toward, QuotientStoreError> {
        if let Some(n) = max_heap
            && let Some(q) = self.load_quotient(game, Some(n))?
        {
            return Ok(Toward::Covered(q));
        }
        let Some(best) = self.load_quotient(game, None)? else { return Ok(Toward::Nothing) };
        Ok(match max_heap {
            None if best.proven() => Toward::Covered(best),
            None => Toward::GoOnFrom(best),
            // A restriction that cannot be checked within `max_states` is computed instead.
            Some(n) if best.covers(n) => match best.restricted(n, max_states) {
                Ok(q) => Toward::Covered(q),
                Err(_) => Toward::Nothing,
            },
            Some(_) => Toward::GoOnFrom(best),
        })
    }

    /// Stores a quotient of `game` as JSON, as schema versions before 9 did (for tests of
    /// old rows).
    #[cfg(test)]
    pub(crate) fn save_quotient_as_json(
        &self,
        game: &GameSpec,
        q: &Quotient,
    ) -> Result<(), QuotientStoreError> {
        let data = serde_json::to_string(&q.to_data()).expect("quotient data serializes");
        let row = solved_row(game, q);
        self.put_quotient_row(&self.game_key(game).map_err(Box::new)?, &row, Stored::Json(&data))
    }

    /// Records that the quotient of `game` to `max_heap` was left open, and why.
    pub fn save_open_quotient(
        &self,
        game: &GameSpec,
        max_heap: u32,
        note: &str,
    ) -> Result<(), QuotientStoreError> {
        let row = QuotientRow {
            game: game.canonical(),
            max_heap,
            status: "open".into(),
            size: None,
            p_count: None,
            period: None,
            preperiod: None,
            proven: false,
            tame: None,
            note: Some(note.to_string()),
        };
        self.put_quotient_row(&self.game_key(game).map_err(Box::new)?, &row, Stored::Nothing)
    }

    fn put_quotient_row(
        &self,
        key: &str,
        row: &QuotientRow,
        stored: Stored<'_>,
    ) -> Result<(), QuotientStoreError> {
        let (data, packed, checksum, scheme) = match stored {
            Stored::Nothing => (None, None, row_checksum(key, row, QUOTIENT_ENGINE, None), 1),
            Stored::Json(d) => (Some(d), None, row_checksum(key, row, QUOTIENT_ENGINE, Some(d)), 1),
            Stored::Packed(p) => {
                (None, Some(p), packed_checksum(key, row, QUOTIENT_ENGINE, p), PACKED_SCHEME)
            }
        };
        self.conn.execute(
            "INSERT OR REPLACE INTO quotients \
             (game, max_heap, status, size, p_count, period, preperiod, proven, tame, note, data, checksum, engine, \
              checksum_scheme, packed) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
            params![
                key,
                row.max_heap,
                row.status,
                row.size,
                row.p_count,
                row.period,
                row.preperiod,
                row.proven,
                row.tame,
                row.note,
                data,
                checksum,
                QUOTIENT_ENGINE,
                scheme,
                packed
            ],
        )?;
        Ok(())
    }

    /// Loads a stored quotient of `game`: for `Some(n)` the one of heaps 1..=n, for `None` the
    /// proven one (or, failing that, the one with the most heaps). Checks the checksum.
    pub fn load_quotient(
        &self,
        game: &GameSpec,
        max_heap: Option<u32>,
    ) -> Result<Option<Quotient>, QuotientStoreError> {
        let row = self
            .conn
            .query_row(
                &format!(
                    "SELECT {} FROM quotients \
                     WHERE game = ?1 AND status = 'solved' AND engine = ?2 AND (?3 IS NULL OR max_heap = ?3) \
                     ORDER BY proven DESC, max_heap DESC LIMIT 1",
                    columns(self)
                ),
                params![self.game_key(game).map_err(Box::new)?, QUOTIENT_ENGINE, max_heap],
                stored_row,
            )
            .optional()?;
        let Some(row) = row else { return Ok(None) };
        let row = row.check(self)?;
        let corrupt = |why: String| QuotientStoreError::Corrupt {
            game: game.canonical(),
            max_heap: row.row.max_heap,
            why,
        };
        let q = if row.scheme == PACKED_SCHEME {
            let packed = row.packed.as_deref().ok_or_else(|| corrupt("it has no packed quotient".into()))?;
            Quotient::unpack(packed).map_err(|e| corrupt(e.to_string()))?
        } else {
            let data = row.data.as_deref().ok_or_else(|| corrupt("it has no data".into()))?;
            let d: QuotientData = serde_json::from_str(data).map_err(|e| corrupt(e.to_string()))?;
            Quotient::from_data(d).map_err(|e| corrupt(e.to_string()))?
        };
        if q.max_heap != row.row.max_heap {
            return Err(corrupt(format!("it holds the quotient of heaps 1..{}", q.max_heap)));
        }
        Ok(Some(q))
    }

    /// Every stored row, by game and heap range, each checked against its checksum: a row
    /// that fails it is listed with status `corrupt`, the reason in its note, and nothing
    /// else of what it claims.
    pub fn list_quotients(&self) -> Result<Vec<QuotientRow>, QuotientStoreError> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {} FROM quotients WHERE engine = ?1 ORDER BY game, max_heap",
            columns(self)
        ))?;
        let rows = stmt.query_map([QUOTIENT_ENGINE], stored_row)?;
        let mut rows = rows
            .map(|r| {
                let r = r?;
                let (game, max_heap) = (r.row.game.clone(), r.row.max_heap);
                Ok(match r.check(self) {
                    Ok(r) => r.row,
                    Err(e) => QuotientRow {
                        game,
                        max_heap,
                        status: "corrupt".into(),
                        size: None,
                        p_count: None,
                        period: None,
                        preperiod: None,
                        proven: false,
                        tame: None,
                        note: Some(e.to_string()),
                    },
                })
            })
            .collect::<Result<Vec<_>, QuotientStoreError>>()?;
        rows.sort_by(|a, b| (&a.game, a.max_heap).cmp(&(&b.game, b.max_heap)));
        Ok(rows)
    }
}

/// What a database holds toward a quotient (see [`Database::quotient_toward`]).
#[derive(Clone, Debug)]
pub enum Toward {
    /// A quotient of exactly the heaps asked (or, open-ended, a proven one): the answer.
    Covered(Quotient),
    /// The kept quotient, of fewer heaps and no proven period: the computation goes on from
    /// it.
    GoOnFrom(Quotient),
    /// Nothing of this game: compute from heap 1.
    Nothing,
}

/// What a quotient row holds besides its columns.
enum Stored<'a> {
    /// Nothing (an open row).
    Nothing,
    /// The quotient as JSON (`data`, before schema version 9).
    #[cfg_attr(not(test), allow(dead_code))]
    Json(&'a str),
    /// The quotient packed (`packed`, schema version 9 on).
    Packed(&'a [u8]),
}

/// The row of a computed quotient.
fn solved_row(game: &GameSpec, q: &Quotient) -> QuotientRow {
    let c = q.certificate;
    QuotientRow {
        game: game.canonical(),
        max_heap: q.max_heap,
        status: "solved".into(),
        size: Some(q.size() as u32),
        p_count: Some(q.p_count() as u32),
        period: c.map(|c| c.period),
        preperiod: c.map(|c| c.from),
        proven: c.is_some(),
        tame: Some(q.tame),
        note: None,
    }
}

#[cfg(test)]
mod tests {
    use crate::database::Database;
    use nimdb_core::game::GameSpec;
    use nimdb_theory::quotient::{QuotientOptions, compute_quotient};

    #[test]
    fn round_trip_and_corruption_is_caught() {
        let db = Database::open_in_memory().unwrap();
        let conn = &db.conn;
        let spec: GameSpec = "octal:0.75".parse().unwrap();
        let q =
            compute_quotient(spec.octal().unwrap(), QuotientOptions::default(), &mut |_, _| true).unwrap();
        db.save_quotient(&spec, &q).unwrap();
        let back = db.load_quotient(&spec, None).unwrap().unwrap();
        assert_eq!(back.to_data(), q.to_data());
        assert_eq!(db.list_quotients().unwrap().len(), 1);
        let packed: Vec<u8> = conn.query_row("SELECT packed FROM quotients", [], |r| r.get(0)).unwrap();
        let (scheme, data): (i64, Option<String>) = conn
            .query_row("SELECT checksum_scheme, data FROM quotients", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!((scheme, data), (3, None));
        assert_eq!(&packed[..4], b"NQP1");
        // One bit of the packed bytes flipped.
        let mut flipped = packed.clone();
        flipped[packed.len() - 3] ^= 1;
        conn.execute("UPDATE quotients SET packed = ?1", [&flipped]).unwrap();
        let err = db.load_quotient(&spec, None).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
        // A packed row with its bytes gone.
        conn.execute("UPDATE quotients SET packed = NULL", []).unwrap();
        let err = db.load_quotient(&spec, None).unwrap_err();
        assert!(err.to_string().contains("packed quotient is missing"), "{err}");
    }

    /// A row written as JSON (before schema version 9) still loads, beside packed ones, and
    /// is checked as before.
    #[test]
    fn json_rows_still_load() {
        let db = Database::open_in_memory().unwrap();
        let spec: GameSpec = "kayles".parse().unwrap();
        let q =
            compute_quotient(spec.octal().unwrap(), QuotientOptions::to_heap(30).unwrap(), &mut |_, _| true)
                .unwrap();
        db.save_quotient_as_json(&spec, &q).unwrap();
        let (scheme, packed): (i64, Option<Vec<u8>>) = db
            .conn
            .query_row("SELECT checksum_scheme, packed FROM quotients", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!((scheme, packed), (1, None));
        assert_eq!(db.load_quotient(&spec, Some(30)).unwrap().unwrap().to_data(), q.to_data());
        db.conn
            .execute("UPDATE quotients SET data = replace(data, '\"tame\":false', '\"tame\":true')", [])
            .unwrap();
        let err = db.load_quotient(&spec, Some(30)).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
    }

    /// One quotient per game: a further one replaces the nearer ones, a nearer one is left
    /// out, and a proven one replaces them all and is not replaced; `open` rows stay.
    #[test]
    fn one_quotient_per_game_the_proven_or_the_furthest() {
        let db = Database::open_in_memory().unwrap();
        let spec: GameSpec = "dawson".parse().unwrap();
        let to = |n: u32| {
            compute_quotient(
                spec.octal().unwrap(),
                QuotientOptions::to_heap(n.into()).unwrap(),
                &mut |_, _| true,
            )
            .unwrap()
        };
        let heaps = |db: &Database| -> Vec<(String, u32, bool)> {
            db.list_quotients().unwrap().iter().map(|r| (r.game.clone(), r.max_heap, r.proven)).collect()
        };
        let d = |h: u32| ("dawson".to_string(), h, false);
        assert!(db.save_quotient(&spec, &to(8)).unwrap());
        assert_eq!(heaps(&db), [d(8)]);
        assert!(db.save_quotient(&spec, &to(10)).unwrap());
        assert_eq!(heaps(&db), [d(10)]);
        assert!(!db.save_quotient(&spec, &to(9)).unwrap());
        assert_eq!(heaps(&db), [d(10)]);
        assert!(db.save_quotient(&spec, &to(12)).unwrap());
        assert!(db.save_quotient(&spec, &to(12)).unwrap());
        assert_eq!(heaps(&db), [d(12)]);
        assert_eq!(db.load_quotient(&spec, None).unwrap().unwrap().to_data(), to(12).to_data());
        // Kayles' proven quotient replaces its unproven row and is kept against later ones;
        // an open row is left alone.
        let kayles: GameSpec = "kayles".parse().unwrap();
        let k = |opts: QuotientOptions| {
            compute_quotient(kayles.octal().unwrap(), opts, &mut |_, _| true).unwrap()
        };
        assert!(db.save_quotient(&kayles, &k(QuotientOptions::to_heap(20).unwrap())).unwrap());
        db.save_open_quotient(&kayles, 5000, "no period by heap 5000").unwrap();
        let proven = k(QuotientOptions::default());
        assert!(proven.proven());
        assert!(db.save_quotient(&kayles, &proven).unwrap());
        assert!(!db.save_quotient(&kayles, &k(QuotientOptions::to_heap(90).unwrap())).unwrap());
        let p200 = k(QuotientOptions::to_heap(200).unwrap());
        assert!(p200.proven());
        assert!(!db.save_quotient(&kayles, &p200).unwrap());
        let rows = db.list_quotients().unwrap();
        let k: Vec<(u32, &str, bool)> = rows
            .iter()
            .filter(|r| r.game == "kayles")
            .map(|r| (r.max_heap, r.status.as_str(), r.proven))
            .collect();
        assert_eq!(k, [(proven.max_heap, "solved", true), (5000, "open", false)]);
        assert_eq!(heaps(&db).iter().filter(|r| r.0 == "dawson").count(), 1);
    }

    /// Toward a range: the row kept answers it (read off when smaller, its own when equal,
    /// through the period when proven), or is gone on from when it has fewer heaps; a row
    /// for exactly the range, as older versions kept beside others, is read as it is.
    #[test]
    fn the_kept_quotient_answers_every_range_it_covers() {
        use crate::quotients::Toward;
        let db = Database::open_in_memory().unwrap();
        let spec: GameSpec = "dawson".parse().unwrap();
        let to = |spec: &GameSpec, n: Option<u32>| {
            let opts =
                n.map_or_else(QuotientOptions::default, |n| QuotientOptions::to_heap(n.into()).unwrap());
            compute_quotient(spec.octal().unwrap(), opts, &mut |_, _| true).unwrap()
        };
        let data = |t: Toward| match t {
            Toward::Covered(q) => ("covered", q.max_heap, q.to_data()),
            Toward::GoOnFrom(q) => ("from", q.max_heap, q.to_data()),
            Toward::Nothing => panic!("nothing"),
        };
        assert!(matches!(db.quotient_toward(&spec, Some(5), 1 << 20).unwrap(), Toward::Nothing));
        assert!(matches!(db.quotient_toward(&spec, None, 1 << 20).unwrap(), Toward::Nothing));
        db.save_quotient(&spec, &to(&spec, Some(14))).unwrap();
        for n in [1, 6, 13, 14] {
            assert_eq!(
                data(db.quotient_toward(&spec, Some(n), 1 << 20).unwrap()),
                ("covered", n, to(&spec, Some(n)).to_data())
            );
        }
        assert_eq!(data(db.quotient_toward(&spec, Some(15), 1 << 20).unwrap()).0, "from");
        assert_eq!(data(db.quotient_toward(&spec, None, 1 << 20).unwrap()).1, 14);
        // A row of exactly heaps 1..9 beside it (an older version's) is read as it is.
        let nine = to(&spec, Some(9));
        let key = db.game_key(&spec).unwrap();
        db.put_quotient_row(&key, &super::solved_row(&spec, &nine), super::Stored::Packed(&nine.pack()))
            .unwrap();
        assert_eq!(db.list_quotients().unwrap().len(), 2);
        assert_eq!(
            data(db.quotient_toward(&spec, Some(9), 1 << 20).unwrap()),
            ("covered", 9, nine.to_data())
        );
        // Kayles proven: every range, past its heaps too.
        let kayles: GameSpec = "kayles".parse().unwrap();
        let proven = to(&kayles, None);
        db.save_quotient(&kayles, &proven).unwrap();
        assert_eq!(
            data(db.quotient_toward(&kayles, None, 1 << 20).unwrap()),
            ("covered", proven.max_heap, proven.to_data())
        );
        for n in [3, proven.max_heap + 20] {
            assert_eq!(
                data(db.quotient_toward(&kayles, Some(n), 1 << 20).unwrap()),
                ("covered", n, to(&kayles, Some(n)).to_data())
            );
        }
    }

    #[test]
    fn every_column_is_covered() {
        let db = Database::open_in_memory().unwrap();
        let spec: GameSpec = "octal:0.75".parse().unwrap();
        let q =
            compute_quotient(spec.octal().unwrap(), QuotientOptions::default(), &mut |_, _| true).unwrap();
        db.save_quotient(&spec, &q).unwrap();
        db.save_open_quotient(&"octal:0.137".parse().unwrap(), 40, "no period by heap 40").unwrap();
        assert_eq!(db.list_quotients().unwrap().len(), 2);
        for edit in [
            "UPDATE quotients SET size = size + 1 WHERE game = 'v1:tb:0.75'",
            "UPDATE quotients SET proven = 1 - proven WHERE game = 'v1:tb:0.75'",
            "UPDATE quotients SET game = 'v1:tb:0.77' WHERE game = 'v1:tb:0.75'",
            "UPDATE quotients SET note = 'period 12, proven' WHERE game = 'v1:tb:0.137'",
            "UPDATE quotients SET checksum_scheme = 0 WHERE game = 'v1:tb:0.75'",
            "UPDATE quotients SET checksum_scheme = 1 WHERE game = 'v1:tb:0.75'",
            "UPDATE quotients SET checksum_scheme = 4 WHERE game = 'v1:tb:0.75'",
            "UPDATE quotients SET max_heap = max_heap + 1 WHERE game = 'v1:tb:0.75'",
            "UPDATE quotients SET packed = 7 WHERE game = 'v1:tb:0.75'",
            "UPDATE quotients SET packed = CAST(packed AS TEXT) || 'x' WHERE game = 'v1:tb:0.75'",
        ] {
            let tx = db.conn.unchecked_transaction().unwrap();
            tx.execute(edit, []).unwrap();
            let rows = db.list_quotients().unwrap();
            assert_eq!(rows.iter().filter(|r| r.status == "corrupt").count(), 1, "{edit}: {rows:?}");
            if !edit.contains("0.137'") {
                let game = if edit.contains("game = 'v1:tb:0.77'") { "kayles" } else { "octal:0.75" };
                let err = db.load_quotient(&game.parse().unwrap(), None).unwrap_err();
                assert!(err.to_string().contains("is corrupt"), "{edit}: {err}");
            }
            drop(tx); // rolled back
        }
        assert!(db.list_quotients().unwrap().iter().all(|r| r.status != "corrupt"));
        assert!(db.load_quotient(&spec, None).unwrap().is_some());
    }
}
