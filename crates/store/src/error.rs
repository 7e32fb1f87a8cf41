//! Why a database cannot be used: the store's one error type, which every room of it returns.

use std::path::PathBuf;

/// Why a database cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file exists but is not SQLite, or is SQLite but not nimdb's.
    #[error("{0} is not a nimdb database ({1})")]
    NotNimdb(PathBuf, String),
    /// Written by a newer nimdb.
    #[error(
        "{path} has schema version {found}, newer than this nimdb understands ({known}); upgrade nimdb — the file was not touched"
    )]
    TooNew {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// This binary's schema version.
        known: usize,
    },
    /// The schema is damaged (a table is missing); nothing was written.
    #[error("{0} is damaged ({1}); nothing was written")]
    Damaged(PathBuf, String),
    /// There is no database file where one was required.
    #[error("no nimdb database at {0}")]
    Missing(PathBuf),
    /// Written by an older nimdb; reading it needs its schema upgraded, which writes.
    #[error(
        "{path} has schema version {found}, older than this nimdb's ({known}); it is upgraded the first time it is opened for writing (a solve)"
    )]
    NeedsUpgrade {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// This binary's schema version.
        known: usize,
    },
    /// The file exists but this process may not write it (its mode or its owner).
    #[error("{0} cannot be written by this user (its mode or owner forbids it); nothing was written")]
    NotWritable(PathBuf),
    /// Writing was forbidden ([`forbid_writes`](crate::forbid_writes)) and this would have written.
    #[error("this would write to {0}, and writes are forbidden (--read-only); nothing was written")]
    WritesForbidden(PathBuf),
    /// A stored tier failed its checksum or has the wrong size.
    #[error("{0}")]
    Corrupt(String),
    /// SQLite failed.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A migration failed.
    #[error("could not apply the schema: {0}")]
    Migration(String),
    /// A stored solve's universe cannot be indexed.
    #[error(transparent)]
    Universe(#[from] nimdb_core::index::UniverseError),
    /// The tier writer failed to start or stopped.
    #[error("{0}")]
    Writer(String),
    /// A tier could not be written: the disk filled, the file-size limit (`ulimit -f`) was
    /// reached or the device failed. Its transaction was rolled back: every tier stored
    /// before it is intact, and the same solve resumes from them.
    #[error(
        "could not store tier {tier} in {}: {cause}; the tiers stored before it are intact, and the same command resumes from them once there is room",
        .path.display()
    )]
    NoRoom {
        /// The tier being stored.
        tier: nimdb_core::index::TierId,
        /// The database file.
        path: PathBuf,
        /// What SQLite said, in words.
        cause: String,
    },
    /// Another connection (a reader in another process) held a read of the database for
    /// so long that the write-ahead log could not restart, and it grew past the bound the
    /// solve was planned with; the solve waited [`LOG_READER_WAIT_SECONDS`] for the reader,
    /// then stopped. Every tier committed, this one included, is intact.
    #[error(
        "stopped after storing tier {tier} in {}: another connection holds a read of the database, so its write-ahead log cannot restart and has grown to {log} bytes, past the {bound} this solve allows (waited {LOG_READER_WAIT_SECONDS} s for the reader); the tiers stored are intact, and the same command resumes from them once the reader is done",
        .path.display()
    )]
    LogHeld {
        /// The last tier stored.
        tier: nimdb_core::index::TierId,
        /// The database file.
        path: PathBuf,
        /// The write-ahead log's size.
        log: u64,
        /// Its bound.
        bound: u64,
    },
}

/// How long a solve's writer waits for a reader that keeps the write-ahead log from
/// restarting past its bound ([`StoreError::LogHeld`]).
pub const LOG_READER_WAIT_SECONDS: u64 = 10;

impl StoreError {
    /// This error as [`StoreError::NoRoom`] when SQLite failed for want of room or of a
    /// working disk (`SQLITE_FULL`, `SQLITE_IOERR`) while `tier` was being stored in `path`.
    pub(crate) fn storing(self, tier: nimdb_core::index::TierId, path: &std::path::Path) -> StoreError {
        use rusqlite::ErrorCode::{DiskFull, SystemIoFailure};
        let cause = match &self {
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) if e.code == DiskFull => {
                "the disk is full"
            }
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) if e.code == SystemIoFailure => {
                "a write failed (a full disk, the file-size limit of ulimit -f, or the device)"
            }
            _ => return self,
        };
        StoreError::NoRoom { tier, path: path.to_path_buf(), cause: cause.to_string() }
    }
}
