//! Reclaiming free pages. A row that is replaced or deleted (a quotient superseded by one of
//! more heaps, an atlas row charted again) frees its pages inside the file, where SQLite
//! reuses them for later rows but never gives them back. When they are a large share of the
//! file, [`Database::reclaim_free_pages`] rebuilds it without them (`VACUUM`).
//!
//! `VACUUM` is one transaction: the rebuilt file goes through the write-ahead log and
//! replaces the old pages only at its commit, so a kill at any point leaves the old file or
//! the new one, each with every row (tests/atlas.rs kills it mid-way). It needs free disk
//! space about the size of the rows kept (a temporary copy) and time in proportion to
//! them; asking for it only when free pages are at least a quarter of the file keeps that
//! time in proportion to what it gives back.

use super::Database;
use super::error::StoreError;
use super::open::writes_forbidden;

/// The least share of free pages at which [`Database::reclaim_free_pages`] rebuilds a file.
pub const RECLAIM_FREE_SHARE: f64 = 0.25;

/// The fewest free pages worth a rebuild (1 MiB at SQLite's default 4 KiB pages).
pub const RECLAIM_MIN_FREE_PAGES: i64 = 256;

/// What a rebuild gave back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reclaimed {
    /// The file's pages before.
    pub pages_before: i64,
    /// Its free pages before.
    pub free_before: i64,
    /// Its pages after.
    pub pages_after: i64,
    /// The page size in bytes.
    pub page_size: i64,
}

impl Database {
    /// The file's pages and its free pages (`PRAGMA page_count`, `PRAGMA freelist_count`).
    pub fn page_counts(&self) -> Result<(i64, i64), StoreError> {
        let pages = self.conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
        let free = self.conn.query_row("PRAGMA freelist_count", [], |r| r.get(0))?;
        Ok((pages, free))
    }

    /// Rebuilds the file without its free pages (`VACUUM`, then a checkpoint that folds
    /// the rebuilt pages back from the write-ahead log) when they are at least
    /// [`RECLAIM_FREE_SHARE`] of its pages and at least [`RECLAIM_MIN_FREE_PAGES`]; returns
    /// what it gave back, or `None` when it left the file as it was (too little free, a
    /// database in memory or read-only, or writes forbidden). Call it outside any
    /// transaction; a kill mid-way leaves every row as it was.
    pub fn reclaim_free_pages(&self) -> Result<Option<Reclaimed>, StoreError> {
        if self.in_memory || self.immutable || writes_forbidden() || !self.conn.is_autocommit() {
            return Ok(None);
        }
        let (pages_before, free_before) = self.page_counts()?;
        if free_before < RECLAIM_MIN_FREE_PAGES
            || (free_before as f64) < RECLAIM_FREE_SHARE * pages_before as f64
        {
            return Ok(None);
        }
        let page_size: i64 = self.conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        self.conn.execute_batch("VACUUM")?;
        // Readers still on the old pages keep the log until they finish; the file is then
        // folded back by the next checkpoint instead.
        let _ = self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        let (pages_after, _) = self.page_counts()?;
        Ok(Some(Reclaimed { pages_before, free_before, pages_after, page_size }))
    }
}

#[cfg(test)]
mod tests {
    use crate::Database;

    #[test]
    fn free_pages_are_given_back_only_when_they_are_many() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("r.sqlite")).unwrap();
        db.conn.execute_batch("CREATE TABLE filler (b BLOB); CREATE TABLE junk (b BLOB);").unwrap();
        let fill = |table: &str, rows: i64| {
            db.conn
                .execute(
                    &format!(
                        "INSERT INTO {table} SELECT randomblob(4000) FROM \
                         (WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < ?1) SELECT i FROM r)"
                    ),
                    [rows],
                )
                .unwrap();
        };
        fill("filler", 1000);
        fill("junk", 200);
        let rows = |db: &Database| -> Vec<Vec<u8>> {
            db.conn
                .prepare("SELECT b FROM filler ORDER BY rowid")
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let kept = rows(&db);
        db.conn.execute_batch("DROP TABLE junk").unwrap();
        let (pages, free) = db.page_counts().unwrap();
        assert!(free >= 200 && (free as f64) < 0.25 * pages as f64, "{pages} {free}");
        assert_eq!(db.reclaim_free_pages().unwrap(), None);
        db.conn.execute_batch("DELETE FROM filler WHERE rowid > 500").unwrap();
        let r = db.reclaim_free_pages().unwrap().expect("rebuilt");
        assert!(r.free_before >= 600 && r.pages_after <= r.pages_before - r.free_before + 8, "{r:?}");
        assert_eq!(db.page_counts().unwrap().1, 0);
        let back = rows(&db);
        assert_eq!(back, kept[..500]);
        // In a transaction it waits for the end of it.
        let tx = db.conn.unchecked_transaction().unwrap();
        db.conn.execute_batch("DELETE FROM filler").unwrap();
        assert_eq!(db.reclaim_free_pages().unwrap(), None);
        drop(tx);
    }
}
