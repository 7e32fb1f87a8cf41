//! The open database itself: its connection and what it was opened as. How a file is opened,
//! checked and migrated is `open`'s; each table's reads and writes are `impl Database` blocks
//! in the table's own room, which all import this leaf.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

/// An open nimdb database.
///
/// ```
/// use nimdb_store::{Database, SCHEMA_VERSION, StoreError};
///
/// # fn main() -> Result<(), StoreError> {
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("nimdb.sqlite");
/// // Nothing to read yet: reading never creates a file.
/// assert!(Database::open_for_reading(&path)?.is_none());
/// // Opening to write creates it with the current schema.
/// let db = Database::open(&path)?;
/// assert_eq!(db.schema_version(), SCHEMA_VERSION as i64);
/// assert!(db.solves()?.is_empty());
/// # Ok(())
/// # }
/// ```
pub struct Database {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    pub(crate) in_memory: bool,
    /// The schema version of the file (older than [`SCHEMA_VERSION`](crate::schema::SCHEMA_VERSION) only when it was
    /// opened to read, never upgraded).
    pub(crate) schema_version: i64,
    /// Opened as immutable (a file this process cannot write, with no write-ahead log):
    /// SQLite reads it without locks and never sees what a writer commits later.
    pub(crate) immutable: bool,
    /// The mark, in pages, at which a tier writer folds the write-ahead log into the file
    /// ([`Database::set_log_pages`]).
    pub(crate) log_pages: u64,
    /// Whether a tier writer commits the whole tiers it finds queued together in one
    /// transaction ([`Database::set_group_commits`]).
    pub(crate) group_commits: bool,
}

impl Database {
    /// The file (`:memory:` for a database in memory).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the database lives in memory (it then has exactly one connection).
    pub fn is_in_memory(&self) -> bool {
        self.in_memory
    }

    /// The schema version of the file as opened: [`SCHEMA_VERSION`](crate::schema::SCHEMA_VERSION), or an older one for a
    /// database opened to read and left as it was.
    pub fn schema_version(&self) -> i64 {
        self.schema_version
    }

    /// Sets the mark, in pages, at which the tier writers made from now on fold the
    /// write-ahead log into the file ([`nimdb_core::footprint`]: `TIGHT_LOG_PAGES`, the
    /// default, or `ROOMY_LOG_PAGES` when the solve's plan found room for that log).
    pub fn set_log_pages(&mut self, pages: u64) {
        self.log_pages = pages;
    }

    /// Sets whether the tier writers made from now on commit the whole tiers they find
    /// queued together in one transaction (the default; see
    /// [`TierWriter`](crate::TierWriter)), or each tier in its own, as before (what
    /// `benches/writer.rs` compares against). The tiers stored are the same either way.
    pub fn set_group_commits(&mut self, grouped: bool) {
        self.group_commits = grouped;
    }

    /// Whether the file was opened as immutable (see [`Database::open_for_reading`]): it
    /// never sees later commits, so a reader that lives long must open it again to see them.
    pub fn is_immutable(&self) -> bool {
        self.immutable
    }
}

/// `path` as SQLite must be given it to open that very file: a relative path that starts
/// with `file:` gets `./` in front, since SQLite would read it as a URI (`--db file:x.db`
/// would open `x.db`, and `file::memory:` a database that keeps nothing).
pub(crate) fn file_path(path: &Path) -> PathBuf {
    if path.is_relative() && path.as_os_str().as_encoded_bytes().starts_with(b"file:") {
        Path::new(".").join(path)
    } else {
        path.to_path_buf()
    }
}
