//! The `heap_values` and `heap_sequences` tables: single-heap values stored per game, so
//! that later runs reuse them (a stored prefix is read back; a shorter one is extended).
//!
//! `heap_sequences` records, per game, how far each column is stored and by which engine
//! version; rows are contiguous from heap 0. Values are plain numbers and strings here: what
//! they mean (a genus, a period certificate) is the theory's business.

use rusqlite::{Connection, OptionalExtension, params};

use super::database::Database;
use super::error::StoreError;
use nimdb_core::game::GameSpec;

/// The most heaps stored per game (beyond it values are recomputed, which is fast).
pub const HEAP_ROWS_LIMIT: u32 = 1_000_000;

/// A game's stored single-heap values, contiguous from heap 0, the genus in its written
/// form (the theory's table with strings for genera).
pub type HeapRows = nimdb_theory::cache::HeapTable<String>;

/// What is known of a game's sequence, stored beside its rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SequenceFacts {
    /// The smallest period found.
    pub period: Option<u32>,
    /// Its preperiod.
    pub preperiod: Option<u32>,
    /// Whether a certificate proves the period.
    pub proven: bool,
    /// The certificate, in words.
    pub certificate: Option<String>,
    /// How the nim-values were computed, in words.
    pub method: String,
    /// The version of the engines that computed the rows: rows of another version are not
    /// trusted (they are read as absent, and replaced when written).
    pub engine: String,
}

impl Database {
    /// Everything stored for `game` by engine version `engine`, if anything.
    pub fn heap_rows(&self, game: &GameSpec, engine: &str) -> Result<Option<HeapRows>, StoreError> {
        match load_prefix(&self.conn, &self.game_key(game)?, engine)? {
            Ok(rows) => Ok(rows),
            Err(n) => Err(StoreError::Corrupt(format!(
                "the stored heap values of {game} are corrupt: the row of heap {n} fails its checksum"
            ))),
        }
    }

    /// Stores `rows` for `game` (heaps up to [`HEAP_ROWS_LIMIT`]) with `facts`, in one
    /// transaction. Never shrinks what is stored: rows are upserted, a column's existing
    /// value is kept where `rows` has none, and the recorded ranges only grow.
    pub fn store_heap_rows(
        &self,
        game: &GameSpec,
        rows: &HeapRows,
        facts: &SequenceFacts,
    ) -> Result<(), StoreError> {
        Ok(store_rows(&self.conn, &self.game_key(game)?, rows, facts)?)
    }
}

impl Database {
    /// Appends the nim-values `values` of heaps `from, from + 1, …` of `game` (nothing else
    /// in their rows), up to [`HEAP_ROWS_LIMIT`], in one transaction, and records how far the
    /// rows now go. The game's `heap_sequences` row must exist (written by
    /// [`store_heap_rows`](Self::store_heap_rows) by the same engine version) and the rows
    /// must continue it: rows before `from` are left as they are, existing rows are kept.
    /// Returns the last heap stored (`None`: nothing was).
    pub fn append_heap_values(
        &self,
        game: &GameSpec,
        engine: &str,
        from: u32,
        values: &[u32],
    ) -> Result<Option<u32>, StoreError> {
        let game = &self.game_key(game)?;
        let keep = (HEAP_ROWS_LIMIT as u64 + 1).saturating_sub(from as u64).min(values.len() as u64) as usize;
        if keep == 0 {
            return Ok(None);
        }
        let last = from + keep as u32 - 1;
        let tx = self.conn.unchecked_transaction()?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO heap_values (game, n, nim_value, checksum) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (game, n) DO NOTHING",
            )?;
            for (i, &v) in values[..keep].iter().enumerate() {
                let n = from + i as u32;
                insert.execute(params![game, n, v, row_checksum(game, n, v, None, None, None)])?;
            }
        }
        tx.execute(
            "UPDATE heap_sequences SET up_to = max(up_to, ?3), updated_at = datetime('now') \
             WHERE game = ?1 AND engine = ?2 AND up_to >= ?4",
            params![game, engine, last, from as i64 - 1],
        )?;
        tx.commit()?;
        Ok(Some(last))
    }

    /// Records what is known of `game`'s sequence (period, certificate, method) beside its
    /// stored rows, when they were written by `facts.engine`, from a run that looked at heaps
    /// `0..=reached`. Never weakens what is stored, and writes nothing when nothing changes:
    /// a run that reached less far than the stored rows go, or that found no proof where one
    /// is stored, leaves the record as it is, and equal facts are not rewritten.
    pub fn set_heap_facts(
        &self,
        game: &GameSpec,
        facts: &SequenceFacts,
        reached: u32,
    ) -> Result<(), StoreError> {
        let game = self.game_key(game)?;
        self.conn.execute(
            "UPDATE heap_sequences SET period = ?2, preperiod = ?3, proven = ?4, certificate = ?5, \
               method = ?6, updated_at = datetime('now') \
             WHERE game = ?1 AND engine = ?7 AND ?8 >= up_to AND (?4 OR NOT proven) \
               AND (period IS NOT ?2 OR preperiod IS NOT ?3 OR proven IS NOT ?4 OR certificate IS NOT ?5)",
            params![
                game,
                facts.period,
                facts.preperiod,
                facts.proven,
                facts.certificate,
                facts.method,
                facts.engine,
                reached
            ],
        )?;
        Ok(())
    }
}

/// The CRC-32 of one `heap_values` row's contents (the game as keyed, i.e. its storage id,
/// and the heap included, so a row moved to another game or heap fails too).
pub(crate) fn row_checksum(
    game: &str,
    n: u32,
    nim_value: u32,
    misere: Option<u32>,
    genus: Option<&str>,
    tame: Option<bool>,
) -> i64 {
    let text = format!("{game}\u{1f}{n}\u{1f}{nim_value}\u{1f}{misere:?}\u{1f}{genus:?}\u{1f}{tame:?}");
    crc32fast::hash(text.as_bytes()) as i64
}

/// Everything stored for `game` by engine version `engine`, if anything, as the verified
/// contiguous prefix; `Err(n)` when the row of heap `n` fails its checksum. Rows without a
/// checksum (written before schema version 4) end the prefix: they are computed again.
fn load_prefix(
    conn: &Connection,
    game: &str,
    engine: &str,
) -> rusqlite::Result<Result<Option<HeapRows>, u32>> {
    let summary: Option<(u32, Option<u16>)> = conn
        .query_row(
            "SELECT up_to, genus_depth FROM heap_sequences WHERE game = ?1 AND engine = ?2",
            [game, engine],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((up_to, genus_depth)) = summary else { return Ok(Ok(None)) };
    let mut stmt = conn.prepare(
        "SELECT n, nim_value, misere_value, genus, tame, checksum FROM heap_values \
         WHERE game = ?1 AND n <= ?2 ORDER BY n",
    )?;
    let mut seq = HeapRows { genus_depth, ..HeapRows::default() };
    let mut rows = stmt.query(params![game, up_to])?;
    while let Some(row) = rows.next()? {
        let n: u32 = row.get(0)?;
        if n as usize != seq.values.len() {
            break; // a gap: trust only the contiguous prefix
        }
        let (value, misere, genus, tame): (u32, Option<u32>, Option<String>, Option<bool>) =
            (row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?);
        match row.get::<_, Option<i64>>(5)? {
            None => break, // written before checksums: computed again
            Some(c) if c != row_checksum(game, n, value, misere, genus.as_deref(), tame) => {
                return Ok(Err(n));
            }
            Some(_) => {}
        }
        seq.values.push(value);
        seq.misere.push(misere);
        seq.genus.push(genus);
        seq.tame.push(tame);
    }
    Ok(Ok((!seq.values.is_empty()).then_some(seq)))
}

/// Stores `seq` for `game` (heaps up to [`HEAP_ROWS_LIMIT`]), with what is known of the sequence, in one transaction. Never shrinks what is stored: rows are upserted, a
/// column's existing value is kept where `seq` has none, and the recorded ranges only grow.
fn store_rows(conn: &Connection, game: &str, seq: &HeapRows, facts: &SequenceFacts) -> rusqlite::Result<()> {
    let seq = seq.truncated(HEAP_ROWS_LIMIT);
    let Some(up_to) = seq.up_to() else { return Ok(()) };
    // A corrupt stored prefix is replaced whole.
    let before = load_prefix(conn, game, &facts.engine)?.ok().flatten().unwrap_or_default();
    // The first heap whose row has anything new.
    let first = [
        before.values.len(),
        before
            .misere_up_to()
            .map_or(0, |m| m as usize + 1)
            .min(seq.misere_up_to().map_or(usize::MAX, |m| m as usize + 1)),
        before
            .genus_up_to()
            .map_or(0, |m| m as usize + 1)
            .min(seq.genus_up_to().map_or(usize::MAX, |m| m as usize + 1)),
    ]
    .into_iter()
    .min()
    .unwrap_or(0);
    let grows = seq.values.len() > before.values.len()
        || seq.misere_up_to() > before.misere_up_to()
        || seq.genus_up_to() > before.genus_up_to();
    if !grows {
        return Ok(());
    }
    let values_grew = seq.values.len() > before.values.len();
    let tx = conn.unchecked_transaction()?;
    // Rows of another engine version (or with no summary) are replaced, not merged.
    if before.values.is_empty() {
        tx.execute("DELETE FROM heap_values WHERE game = ?1", [game])?;
        tx.execute("DELETE FROM heap_sequences WHERE game = ?1", [game])?;
    }
    {
        // Each row as it will be stored (new values, else the ones kept), with its checksum.
        let mut upsert = tx.prepare(
            "INSERT INTO heap_values (game, n, nim_value, misere_value, genus, tame, checksum) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
             ON CONFLICT (game, n) DO UPDATE SET nim_value = excluded.nim_value, \
               misere_value = excluded.misere_value, genus = excluded.genus, \
               tame = excluded.tame, checksum = excluded.checksum",
        )?;
        for n in first..seq.values.len() {
            let misere = seq.misere.get(n).copied().flatten().or(before.misere.get(n).copied().flatten());
            let genus = seq.genus.get(n).cloned().flatten().or(before.genus.get(n).cloned().flatten());
            let tame = seq.tame.get(n).copied().flatten().or(before.tame.get(n).copied().flatten());
            let checksum = row_checksum(game, n as u32, seq.values[n], misere, genus.as_deref(), tame);
            upsert.execute(params![game, n as u32, seq.values[n], misere, genus, tame, checksum])?;
        }
    }
    let up_to = up_to.max(before.up_to().unwrap_or(0));
    let misere_up_to = seq.misere_up_to().max(before.misere_up_to());
    let genus_up_to = seq.genus_up_to().max(before.genus_up_to());
    let genus_depth =
        if seq.genus_up_to() >= before.genus_up_to() { seq.genus_depth } else { before.genus_depth };
    tx.execute(
        "INSERT INTO heap_sequences (game, up_to, misere_up_to, genus_up_to, genus_depth, period, preperiod, \
           proven, certificate, method, engine, updated_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?12, datetime('now')) \
         ON CONFLICT (game) DO UPDATE SET up_to = excluded.up_to, misere_up_to = excluded.misere_up_to, \
           genus_up_to = excluded.genus_up_to, genus_depth = excluded.genus_depth, \
           period = CASE WHEN ?11 THEN excluded.period ELSE heap_sequences.period END, \
           preperiod = CASE WHEN ?11 THEN excluded.preperiod ELSE heap_sequences.preperiod END, \
           proven = CASE WHEN ?11 THEN excluded.proven ELSE heap_sequences.proven END, \
           certificate = CASE WHEN ?11 THEN excluded.certificate ELSE heap_sequences.certificate END, \
           method = CASE WHEN ?11 THEN excluded.method ELSE heap_sequences.method END, \
           engine = excluded.engine, updated_at = excluded.updated_at",
        params![
            game,
            up_to,
            misere_up_to,
            genus_up_to,
            genus_depth,
            facts.period,
            facts.preperiod,
            facts.proven,
            facts.certificate,
            facts.method,
            values_grew,
            facts.engine
        ],
    )?;
    tx.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kayles() -> GameSpec {
        "kayles".parse().unwrap()
    }

    /// Kayles-like rows: nim-values of period 12 and a few misère values and genera.
    fn rows(n: u32) -> HeapRows {
        let period = [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6];
        let len = n as usize + 1;
        HeapRows {
            values: (0..len).map(|i| period[i % 12]).collect(),
            misere: (0..len).map(|i| (i <= 3).then_some([1, 0, 2, 3][i.min(3)])).collect(),
            genus: (0..len).map(|i| (i <= 1).then(|| ["0^120", "1^031"][i].to_string())).collect(),
            tame: (0..len).map(|i| (i <= 1).then_some(true)).collect(),
            genus_depth: Some(8),
        }
    }

    fn facts(engine: &str) -> SequenceFacts {
        SequenceFacts {
            period: Some(12),
            preperiod: Some(0),
            proven: true,
            certificate: None,
            method: "test".into(),
            engine: engine.into(),
        }
    }

    #[test]
    fn rows_of_another_engine_are_replaced() {
        let db = Database::open_in_memory().unwrap();
        db.store_heap_rows(&kayles(), &rows(100), &facts("1")).unwrap();
        // As if the older engine had written a wrong value and a misère value.
        db.conn.execute("UPDATE heap_values SET nim_value = 99, misere_value = 7 WHERE n = 50", []).unwrap();
        assert_eq!(db.heap_rows(&kayles(), "2").unwrap(), None, "old rows must not be trusted");
        let mut fresh = rows(60);
        fresh.misere = vec![None; fresh.values.len()];
        db.store_heap_rows(&kayles(), &fresh, &facts("2")).unwrap();
        let back = db.heap_rows(&kayles(), "2").unwrap().unwrap();
        assert_eq!(back.values, fresh.values);
        assert_eq!(back.misere[50], None, "the old engine's misère value was kept");
        assert_eq!(back.values.len(), 61, "the old engine's longer rows were kept");
    }

    #[test]
    fn round_trip_and_extension() {
        let db = Database::open_in_memory().unwrap();
        assert_eq!(db.heap_rows(&kayles(), "2").unwrap(), None);
        let short = rows(100);
        db.store_heap_rows(&kayles(), &short, &facts("2")).unwrap();
        assert_eq!(db.heap_rows(&kayles(), "2").unwrap().as_ref(), Some(&short));
        // A longer run extends the rows; a shorter one changes nothing.
        let long = rows(300);
        db.store_heap_rows(&kayles(), &long, &facts("2")).unwrap();
        db.store_heap_rows(&kayles(), &short, &facts("2")).unwrap();
        let back = db.heap_rows(&kayles(), "2").unwrap().unwrap();
        assert_eq!(back, long);
        assert_eq!(back.misere_up_to(), Some(3));
        assert_eq!(back.genus_up_to(), Some(1));
        let (period, proven): (Option<u32>, bool) = db
            .conn
            .query_row("SELECT period, proven FROM heap_sequences WHERE game = 'v1:tb:0.77'", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((period, proven), (Some(12), true));
    }

    #[test]
    fn misere_values_may_be_null() {
        let db = Database::open_in_memory().unwrap();
        db.conn.execute("INSERT INTO heap_values (game, n, nim_value) VALUES ('nim', 0, 0)", []).unwrap();
    }
}
