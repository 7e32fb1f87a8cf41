//! The `heap_values` table: single-heap values stored per game, so that later runs reuse
//! them (a stored prefix covering a request is read back; a shorter one is extended).
//!
//! Written against a plain [`rusqlite::Connection`] whose schema has migrations 0001 and
//! 0002 applied. `heap_sequences` records, per game, how far each column is stored; rows are
//! contiguous from heap 0.

use rusqlite::{Connection, OptionalExtension, params};

use super::genus::Genus;
use super::period::Periodicity;

/// The most heaps stored per game (beyond it values are recomputed, which is fast).
pub const CACHE_LIMIT: u32 = 1_000_000;

/// A game's stored single-heap values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StoredSequence {
    /// g(0..=up_to).
    pub values: Vec<u32>,
    /// Misère values of single heaps, `Some` for n ≤ the misère range.
    pub misere: Vec<Option<u32>>,
    /// Genus of single heaps, `Some` for n ≤ the genus range.
    pub genus: Vec<Option<Genus>>,
    /// Tameness of single heaps, `Some` for n ≤ the genus range.
    pub tame: Vec<Option<bool>>,
    /// The depth (number of added *2s) the genus was computed to.
    pub genus_depth: Option<u16>,
}

impl StoredSequence {
    /// The largest heap with a nim-value.
    pub fn up_to(&self) -> Option<u32> {
        self.values.len().checked_sub(1).map(|n| n as u32)
    }

    /// The largest heap with a misère value (all smaller ones have one too).
    pub fn misere_up_to(&self) -> Option<u32> {
        self.misere.iter().take_while(|v| v.is_some()).count().checked_sub(1).map(|n| n as u32)
    }

    /// The largest heap with a genus (all smaller ones have one too).
    pub fn genus_up_to(&self) -> Option<u32> {
        self.genus.iter().take_while(|v| v.is_some()).count().checked_sub(1).map(|n| n as u32)
    }

    /// The same sequence cut to heaps `0..=up_to`.
    pub fn truncated(&self, up_to: u32) -> StoredSequence {
        let len = (up_to as usize + 1).min(self.values.len());
        StoredSequence {
            values: self.values[..len].to_vec(),
            misere: self.misere.iter().take(len).cloned().collect(),
            genus: self.genus.iter().take(len).cloned().collect(),
            tame: self.tame.iter().take(len).cloned().collect(),
            genus_depth: self.genus_depth,
        }
    }
}

/// The version of the engines (nim-values, periodicity, misère values, genus) that wrote a
/// game's rows. Rows written by another version are not trusted: they are recomputed and
/// replaced. Bump it whenever an engine's results could change.
pub const ENGINE_VERSION: &str = "2";

/// Everything stored for `game` by this engine version, if anything.
pub fn load_prefix(conn: &Connection, game: &str) -> rusqlite::Result<Option<StoredSequence>> {
    let summary: Option<(u32, Option<u16>)> = conn
        .query_row(
            "SELECT up_to, genus_depth FROM heap_sequences WHERE game = ?1 AND engine = ?2",
            [game, ENGINE_VERSION],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((up_to, genus_depth)) = summary else { return Ok(None) };
    let mut stmt = conn.prepare(
        "SELECT n, nim_value, misere_value, genus, tame FROM heap_values \
         WHERE game = ?1 AND n <= ?2 ORDER BY n",
    )?;
    let mut seq = StoredSequence { genus_depth, ..StoredSequence::default() };
    let mut rows = stmt.query(params![game, up_to])?;
    while let Some(row) = rows.next()? {
        let n: u32 = row.get(0)?;
        if n as usize != seq.values.len() {
            break; // a gap: trust only the contiguous prefix
        }
        seq.values.push(row.get(1)?);
        seq.misere.push(row.get(2)?);
        let genus: Option<String> = row.get(3)?;
        seq.genus.push(genus.and_then(|s| s.parse().ok()));
        let tame: Option<bool> = row.get(4)?;
        seq.tame.push(tame);
    }
    Ok((!seq.values.is_empty()).then_some(seq))
}

/// The stored values of `game` for heaps `0..=up_to`, if the stored nim-values cover them.
pub fn load_sequence(conn: &Connection, game: &str, up_to: u32) -> rusqlite::Result<Option<StoredSequence>> {
    Ok(load_prefix(conn, game)?.filter(|s| s.up_to() >= Some(up_to)).map(|s| s.truncated(up_to)))
}

/// Stores `seq` for `game` (heaps up to [`CACHE_LIMIT`]), with the periodicity found and the
/// method used, in one transaction. Never shrinks what is stored: rows are upserted, a
/// column's existing value is kept where `seq` has none, and the recorded ranges only grow.
pub fn store_sequence(
    conn: &Connection,
    game: &str,
    seq: &StoredSequence,
    periodicity: &Periodicity,
    method: &str,
) -> rusqlite::Result<()> {
    let seq = seq.truncated(CACHE_LIMIT);
    let Some(up_to) = seq.up_to() else { return Ok(()) };
    let before = load_prefix(conn, game)?.unwrap_or_default();
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
        let mut upsert = tx.prepare(
            "INSERT INTO heap_values (game, n, nim_value, misere_value, genus, tame) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
             ON CONFLICT (game, n) DO UPDATE SET nim_value = excluded.nim_value, \
               misere_value = COALESCE(excluded.misere_value, heap_values.misere_value), \
               genus = COALESCE(excluded.genus, heap_values.genus), \
               tame = COALESCE(excluded.tame, heap_values.tame)",
        )?;
        for n in first..seq.values.len() {
            upsert.execute(params![
                game,
                n as u32,
                seq.values[n],
                seq.misere.get(n).copied().flatten(),
                seq.genus.get(n).cloned().flatten().map(|g| g.to_string()),
                seq.tame.get(n).copied().flatten(),
            ])?;
        }
    }
    let cert = periodicity.certificate.map(|c| c.to_string());
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
            periodicity.period,
            periodicity.preperiod,
            periodicity.proven,
            cert,
            method,
            values_grew,
            ENGINE_VERSION
        ],
    )?;
    tx.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameSpec;
    use crate::theory::period::analyse;
    use crate::theory::sequence::nim_values;
    use crate::theory::shape::HeapShape;

    fn db() -> crate::store::Database {
        crate::store::Database::open_in_memory().unwrap()
    }

    fn kayles(n: u32) -> (StoredSequence, Periodicity) {
        let spec: GameSpec = "kayles".parse().unwrap();
        let values = nim_values(spec.heap_rules().unwrap(), n);
        let p = analyse(&values, &HeapShape::of(spec.heap_rules().unwrap()));
        let len = values.len();
        let mut seq = StoredSequence { values, ..Default::default() };
        seq.misere = (0..len).map(|i| (i <= 3).then_some([1, 0, 2, 3][i.min(3)])).collect();
        seq.genus = (0..len).map(|i| (i <= 1).then(|| ["0^120", "1^031"][i].parse().unwrap())).collect();
        seq.tame = (0..len).map(|i| (i <= 1).then_some(true)).collect();
        seq.genus_depth = Some(8);
        (seq, p)
    }

    #[test]
    fn rows_of_another_engine_are_replaced() {
        let store = db();
        let conn = store.conn();
        let (seq, p) = kayles(100);
        store_sequence(conn, "kayles", &seq, &p, "test").unwrap();
        // As if an older engine had written a wrong value and a misère value.
        conn.execute("UPDATE heap_sequences SET engine = '1'", []).unwrap();
        conn.execute("UPDATE heap_values SET nim_value = 99, misere_value = 7 WHERE n = 50", []).unwrap();
        assert_eq!(load_prefix(conn, "kayles").unwrap(), None, "old rows must not be trusted");
        let (mut fresh, p) = kayles(60);
        fresh.misere = vec![None; fresh.values.len()];
        store_sequence(conn, "kayles", &fresh, &p, "test").unwrap();
        let back = load_prefix(conn, "kayles").unwrap().unwrap();
        assert_eq!(back.values, fresh.values);
        assert_eq!(back.misere[50], None, "the old engine's misère value was kept");
        assert_eq!(back.values.len(), 61, "the old engine's longer rows were kept");
    }

    #[test]
    fn round_trip_and_extension() {
        let store = db();
        let conn = store.conn();
        assert_eq!(load_prefix(conn, "kayles").unwrap(), None);
        let (seq, p) = kayles(100);
        store_sequence(conn, "kayles", &seq, &p, "test").unwrap();
        assert_eq!(load_sequence(conn, "kayles", 100).unwrap().as_ref(), Some(&seq));
        assert_eq!(load_sequence(conn, "kayles", 40).unwrap(), Some(seq.truncated(40)));
        assert_eq!(load_sequence(conn, "kayles", 101).unwrap(), None);
        // A longer run extends the rows; a shorter one changes nothing.
        let (long, p) = kayles(300);
        store_sequence(conn, "kayles", &long, &p, "test").unwrap();
        store_sequence(conn, "kayles", &seq, &p, "test").unwrap();
        let back = load_prefix(conn, "kayles").unwrap().unwrap();
        assert_eq!(back, long);
        assert_eq!(back.misere_up_to(), Some(3));
        assert_eq!(back.genus_up_to(), Some(1));
        let (period, proven): (Option<u32>, bool) = conn
            .query_row("SELECT period, proven FROM heap_sequences WHERE game = 'kayles'", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!((period, proven), (Some(12), true));
    }

    #[test]
    fn misere_values_may_be_null() {
        let store = db();
        let conn = store.conn();
        conn.execute("INSERT INTO heap_values (game, n, nim_value) VALUES ('nim', 0, 0)", []).unwrap();
    }
}
