//! Opening a database: file checks, migrations and connection settings.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use rusqlite_migration::{M, Migrations};

use crate::database::{Database, file_path};
use crate::error::StoreError;
use crate::schema::{MIGRATIONS, OLDEST_READABLE_VERSION, SCHEMA_VERSION};
use nimdb_core::footprint::TIGHT_LOG_PAGES;

/// The `application_id` that marks a nimdb database ('NIMD').
const APPLICATION_ID: i64 = 0x4E49_4D44;

/// The migrations, with the Rust step that follows a migration's SQL where there is one.
fn migrations() -> Migrations<'static> {
    Migrations::new(
        MIGRATIONS
            .iter()
            .enumerate()
            .map(|(i, sql)| match i + 1 {
                5 => M::up_with_hook(sql, |tx: &rusqlite::Transaction<'_>| {
                    super::upgrade::bind_checksums(tx)
                        .map_err(|e| rusqlite_migration::HookError::Hook(e.to_string()))
                }),
                7 => M::up_with_hook(sql, |tx: &rusqlite::Transaction<'_>| {
                    super::upgrade::key_by_storage_ids(tx)
                        .map_err(|e| rusqlite_migration::HookError::Hook(e.to_string()))
                }),
                _ => M::up(sql),
            })
            .collect(),
    )
}

/// Set once writes are forbidden for the rest of the process ([`forbid_writes`]).
static WRITES_FORBIDDEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Forbids every write to any database for the rest of the process: [`Database::open`] (the
/// one way to a connection that can write, which on-the-spot solves, stored heap values
/// and quotients all take) refuses from then on, before touching the file. Reads are
/// unaffected.
pub fn forbid_writes() {
    WRITES_FORBIDDEN.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Whether [`forbid_writes`] was called.
pub fn writes_forbidden() -> bool {
    WRITES_FORBIDDEN.load(std::sync::atomic::Ordering::SeqCst)
}

impl Database {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        if writes_forbidden() {
            return Err(StoreError::WritesForbidden(path.to_path_buf()));
        }
        check_file(path)?;
        // SQLite would open such a file read-only and make side files it can never remove.
        if path.exists() && std::fs::OpenOptions::new().write(true).open(path).is_err() {
            return Err(StoreError::NotWritable(path.to_path_buf()));
        }
        // A file that is someone else's, or a newer nimdb's, is refused through a read-only
        // connection, so not even SQLite's side files (-wal, -shm) are touched.
        if std::fs::metadata(path).is_ok_and(|m| m.len() > 0)
            && let Ok((reader, _)) = open_without_writing(path)
        {
            check_identity(&reader, path)?;
        }
        let mut conn = Connection::open(file_path(path))?;
        let db_path = path.to_path_buf();
        check_identity(&conn, &db_path)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        retry_busy(|| conn.pragma_update(None, "journal_mode", "WAL"))?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        bound_the_log(&conn, TIGHT_LOG_PAGES)?;
        migrate(&mut conn)?;
        check_tables(&conn, &db_path)?;
        Ok(Database {
            conn,
            path: db_path,
            in_memory: false,
            schema_version: SCHEMA_VERSION as i64,
            immutable: false,
            log_pages: TIGHT_LOG_PAGES,
            group_commits: true,
        })
    }

    /// A new database in memory with the current schema, migrated the same way as a file
    /// (for tests and throwaway work).
    pub fn open_in_memory() -> Result<Self, StoreError> {
        let mut conn = Connection::open_in_memory()?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        migrate(&mut conn)?;
        Ok(Database {
            conn,
            path: PathBuf::from(":memory:"),
            in_memory: true,
            schema_version: SCHEMA_VERSION as i64,
            immutable: false,
            log_pages: TIGHT_LOG_PAGES,
            group_commits: true,
        })
    }

    /// Opens an existing database read-only (no migration; see [`Database::open_for_reading`]).
    pub fn open_read_only(path: &Path) -> Result<Self, StoreError> {
        match Self::open_for_reading(path)? {
            Some(db) => Ok(db),
            None => Err(StoreError::Missing(path.to_path_buf())),
        }
    }

    /// Opens a database to read it, writing nothing: `None` when there is no database yet
    /// (no file, or an empty one). A file in a directory this process cannot write to (so
    /// SQLite cannot make the files its write-ahead log reads through) is opened as
    /// immutable: nobody can be writing it. A database from an older nimdb is read as it is
    /// (its checksums are checked the way that version wrote them) back to
    /// [`OLDEST_READABLE_VERSION`]; an older one is refused, since upgrading it writes.
    pub fn open_for_reading(path: &Path) -> Result<Option<Self>, StoreError> {
        match std::fs::metadata(path) {
            Err(_) => return Ok(None),
            Ok(m) if m.is_file() && m.len() == 0 => return Ok(None),
            Ok(_) => {}
        }
        check_file(path)?;
        let (conn, immutable) =
            match open_without_writing(path).and_then(|c| check_readable(&c.0).map(|()| c)) {
                Ok(opened) => opened,
                Err(_) if !directory_writable(path) => (open_immutable(path)?, true),
                Err(e) => return Err(e.into()),
            };
        check_identity(&conn, path)?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        if version == 0 {
            // An SQLite file with no schema yet: no database to read.
            return Ok(None);
        }
        if version < OLDEST_READABLE_VERSION as i64 {
            return Err(StoreError::NeedsUpgrade {
                path: path.to_path_buf(),
                found: version,
                known: SCHEMA_VERSION,
            });
        }
        conn.busy_timeout(std::time::Duration::from_secs(10))?;
        Ok(Some(Database {
            conn,
            path: path.to_path_buf(),
            in_memory: false,
            schema_version: version,
            immutable,
            log_pages: TIGHT_LOG_PAGES,
            group_commits: true,
        }))
    }
}

/// Applies the schema migrations, tolerating another process applying them at the same time.
fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let migrations = migrations();
    // Another process may be creating or upgrading the schema at the same moment: SQLite
    // then answers BUSY at once (a lock upgrade inside a transaction skips the busy
    // handler), or the tables turn out to exist. Wait and look again.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        match migrations.to_latest(conn) {
            Ok(()) => break,
            Err(e) => {
                let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
                if version == SCHEMA_VERSION as i64 {
                    break;
                }
                // Only contention clears by waiting; any other failure (a file that is not a
                // database, a full disk, a read-only file) is reported at once.
                if !is_contention(&e) || std::time::Instant::now() > deadline {
                    return Err(StoreError::Migration(short_migration_error(&e)));
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        }
    }
    Ok(())
}

/// Opens an existing file so that nothing is written and nothing is left behind.
///
/// Bounds the write-ahead log of a writing connection: a commit that leaves more than
/// `pages` pages in the log folds it into the database, so it never grows past those pages
/// and one transaction (see [`footprint`](nimdb_core::footprint), which the disk estimates
/// use); below SQLite's default mark the log file is also cut back to that size when it
/// restarts.
pub(crate) fn bound_the_log(conn: &Connection, pages: u64) -> Result<(), StoreError> {
    use nimdb_core::footprint::{PAGE_BYTES, ROOMY_LOG_PAGES};
    let pages = pages.clamp(1, 1 << 20);
    conn.pragma_update(None, "wal_autocheckpoint", pages as i64)?;
    // Cutting the file back costs a truncation at each restart of the log, which only a
    // tight disk needs: with SQLite's default mark the log's peak was planned for.
    let limit = if pages < ROOMY_LOG_PAGES { (pages * PAGE_BYTES) as i64 } else { -1 };
    conn.pragma_update(None, "journal_size_limit", limit)?;
    Ok(())
}

/// A read-only connection to a write-ahead-log database makes SQLite's side files (`-wal`,
/// `-shm`) and cannot remove them when it closes. So when no `-wal` file exists (no writer
/// is connected, and none left a log), the file is opened read-write without creating it
/// and with `query_only` set: no statement can write, and being the last connection it
/// removes the side files on closing, leaving the directory as it was. When a `-wal` file
/// exists, a plain read-only connection is used (the side files are there already).
///
/// A file this process may not write (someone else's, or mode 0444) with no `-wal` beside it
/// is opened as immutable: a read-only connection would make side files it could never
/// remove (owned by this user, with the file's mode), and they would then refuse every
/// later writer. No writer is connected when there is no `-wal`; one that starts meanwhile
/// (its owner) is not seen, and pages it changes under the reader may be reported as
/// corruption (every tier's checksum catches a torn tier).
fn open_without_writing(path: &Path) -> rusqlite::Result<(Connection, bool)> {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    if Path::new(&wal).exists() {
        return Ok((Connection::open_with_flags(file_path(path), OpenFlags::SQLITE_OPEN_READ_ONLY)?, false));
    }
    if std::fs::OpenOptions::new().write(true).open(path).is_err() {
        return Ok((open_immutable(path)?, true));
    }
    let conn = Connection::open_with_flags(file_path(path), OpenFlags::SQLITE_OPEN_READ_WRITE)?;
    conn.pragma_update(None, "query_only", true)?;
    Ok((conn, false))
}

/// Reads the schema once, which is where a read-only open of a write-ahead-log database
/// fails when its shared-memory file cannot be made.
fn check_readable(conn: &Connection) -> rusqlite::Result<()> {
    conn.query_row("SELECT COUNT(*) FROM sqlite_schema", [], |r| r.get::<_, i64>(0)).map(|_| ())
}

/// Whether this process may create files next to `path`.
fn directory_writable(path: &Path) -> bool {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let probe = dir.join(format!(".nimdb-write-probe-{}", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            true
        }
        Err(_) => false,
    }
}

/// Removes the write-ahead log and shared-memory files that read-only connections leave
/// beside `path` (SQLite removes them only when the connection that closes last may write).
/// Call it after this process closed its own connections to the file: it opens one that may
/// write and closes it at once, and SQLite removes the files only if, under its own lock, no
/// other connection of any process holds the file (a writer or reader still at work keeps
/// them). Only an empty log is handled this way, since closing the last connection copies a
/// log's commits into the file, which is a write: a log with commits in it is left to its
/// writer. Nothing is done when writes are forbidden ([`forbid_writes`]) or the file cannot
/// be written. Returns whether neither file is there afterwards.
pub fn release_side_files(path: &Path) -> bool {
    let side = |suffix: &str| {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        PathBuf::from(p)
    };
    let (wal, shm) = (side("-wal"), side("-shm"));
    let gone = || !wal.exists() && !shm.exists();
    if gone() {
        return true;
    }
    let empty_log = match std::fs::metadata(&wal) {
        Ok(m) => m.is_file() && m.len() == 0,
        Err(_) => !wal.exists(),
    };
    if !empty_log || writes_forbidden() || std::fs::OpenOptions::new().write(true).open(path).is_err() {
        return false;
    }
    if let Ok(conn) = Connection::open_with_flags(file_path(path), OpenFlags::SQLITE_OPEN_READ_WRITE) {
        let _ = conn.busy_timeout(std::time::Duration::from_millis(200));
        let _ = check_readable(&conn);
        drop(conn);
    }
    gone()
}

/// Opens `path` as an immutable database (SQLite reads it without locks or a log).
fn open_immutable(path: &Path) -> rusqlite::Result<Connection> {
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file:");
    for c in absolute.to_string_lossy().chars() {
        match c {
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            '%' => uri.push_str("%25"),
            c => uri.push(c),
        }
    }
    uri.push_str("?immutable=1");
    let conn =
        Connection::open_with_flags(uri, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI)?;
    check_readable(&conn)?;
    Ok(conn)
}

/// Runs `f` again while SQLite answers BUSY or LOCKED, for up to 20 seconds.
fn retry_busy<T>(mut f: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        match f() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Whether a migration failed because another connection held a lock, or created the same
/// tables at the same moment.
fn is_contention(e: &rusqlite_migration::Error) -> bool {
    match e {
        rusqlite_migration::Error::RusqliteError { err: rusqlite::Error::SqliteFailure(f, msg), .. } => {
            matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                || msg.as_deref().is_some_and(|m| m.contains("already exists"))
        }
        _ => false,
    }
}

/// A migration error without the migration's SQL text.
fn short_migration_error(e: &rusqlite_migration::Error) -> String {
    match e {
        rusqlite_migration::Error::RusqliteError { err, .. } => err.to_string(),
        other => other.to_string().lines().next().unwrap_or("unknown error").chars().take(200).collect(),
    }
}

/// The tables of the current schema (see `migrations/`).
const TABLES: [&str; 8] = [
    "solves",
    "tiers",
    "heap_values",
    "heap_sequences",
    "quotients",
    "checksum_upgrades",
    "solve_runs",
    "atlas",
];

/// Refuses a database at the current version that lacks one of its tables (dropped by hand
/// or by damage), before anything is written to it.
fn check_tables(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    for table in TABLES {
        let found: i64 = conn.query_row(
            "SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
            [table],
            |r| r.get(0),
        )?;
        if found == 0 {
            return Err(StoreError::Damaged(path.to_path_buf(), format!("its table {table} is missing")));
        }
    }
    Ok(())
}

/// Refuses a file that exists, is not empty and does not start with SQLite's header.
fn check_file(path: &Path) -> Result<(), StoreError> {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok(());
    };
    let mut header = [0u8; 16];
    let n = file.read(&mut header).unwrap_or(0);
    if n == 0 {
        return Ok(());
    }
    if n < 16 || &header != b"SQLite format 3\0" {
        return Err(StoreError::NotNimdb(path.to_path_buf(), "it is not an SQLite file".into()));
    }
    Ok(())
}

/// Refuses SQLite files that belong to something else, or to a newer nimdb.
fn check_identity(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    // One statement, so one snapshot: another process may commit the schema (tables, id
    // and version together) between separate reads.
    let (app, version, tables): (i64, i64, i64) = conn.query_row(
        "SELECT (SELECT application_id FROM pragma_application_id()),
                (SELECT user_version FROM pragma_user_version()),
                (SELECT COUNT(*) FROM sqlite_schema)",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    if app != APPLICATION_ID && (tables > 0 || version != 0) {
        return Err(StoreError::NotNimdb(
            path.to_path_buf(),
            "it is an SQLite file of another program".into(),
        ));
    }
    if version > SCHEMA_VERSION as i64 {
        return Err(StoreError::TooNew { path: path.to_path_buf(), found: version, known: SCHEMA_VERSION });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lock_contention_is_retried() {
        let failure = |code: i32, msg: &str| rusqlite_migration::Error::RusqliteError {
            query: String::new(),
            err: rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), Some(msg.into())),
        };
        assert!(is_contention(&failure(rusqlite::ffi::SQLITE_BUSY, "database is locked")));
        assert!(is_contention(&failure(rusqlite::ffi::SQLITE_LOCKED, "database table is locked")));
        assert!(is_contention(&failure(rusqlite::ffi::SQLITE_ERROR, "table solves already exists")));
        assert!(!is_contention(&failure(rusqlite::ffi::SQLITE_IOERR, "disk I/O error")));
        assert!(!is_contention(&failure(
            rusqlite::ffi::SQLITE_READONLY,
            "attempt to write a readonly database"
        )));
        assert!(!is_contention(&failure(rusqlite::ffi::SQLITE_CORRUPT, "database disk image is malformed")));
    }

    #[test]
    fn refuses_foreign_and_newer_files() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, "hello, this is not a database at all").unwrap();
        assert!(matches!(Database::open(&text), Err(StoreError::NotNimdb(..))));
        assert_eq!(std::fs::read(&text).unwrap(), b"hello, this is not a database at all");

        let other = dir.path().join("other.sqlite");
        Connection::open(&other).unwrap().execute_batch("CREATE TABLE t(x);").unwrap();
        assert!(matches!(Database::open(&other), Err(StoreError::NotNimdb(..))));

        let newer = dir.path().join("newer.sqlite");
        drop(Database::open(&newer).unwrap());
        Connection::open(&newer).unwrap().pragma_update(None, "user_version", 99).unwrap();
        let err = Database::open(&newer).err().unwrap();
        assert!(matches!(err, StoreError::TooNew { found: 99, .. }), "{err}");

        let fresh = dir.path().join("fresh.sqlite");
        drop(Database::open(&fresh).unwrap());
        drop(Database::open(&fresh).unwrap());
    }
}
