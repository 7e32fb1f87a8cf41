//! Writing and reading whole tiers: the plain tier API a solve driver writes through.

use std::collections::{BTreeMap, BTreeSet};

use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use rusqlite::{Connection, TransactionBehavior, params};

use nimdb_core::game::Convention;
use nimdb_core::index::{TierId, Universe};

use super::codec::{self, CodecError, PartEncoder, RecordLayout, StoredBytes};
use super::database::Database;
use super::error::StoreError;
use super::key::SolveKey;
use super::runs::{RunLog, RunStart, RunTick};
use super::solves::SolveRecord;

/// One tier's values as stored: one remoteness (and optionally nim-value) per position, in
/// rank order.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredTier {
    /// Which tier.
    pub tier: TierId,
    /// Remoteness by rank. The outcome follows from its parity and the convention.
    pub remoteness: Vec<u16>,
    /// Nim-values by rank, when the solve has them.
    pub nim_values: Option<Vec<u16>>,
    /// Seconds spent solving the tier (0 when read back).
    pub seconds: f64,
}

impl StoredTier {
    /// The number of losses for the player to move under `convention`.
    pub fn losses(&self, convention: Convention) -> u64 {
        self.remoteness.iter().filter(|&&r| convention.loses(r)).count() as u64
    }

    /// The greatest remoteness in the tier.
    pub fn max_remoteness(&self) -> u16 {
        self.remoteness.iter().copied().max().unwrap_or(0)
    }
}

/// Writes the tiers of one solve, in the order they are given, as one run.
///
/// For a database file the tiers are written by a background thread with its own
/// connection, each in a transaction together with the solve's counters and the run's row
/// in `solve_runs` (inserted with the first tier committed), so the database always holds a
/// consistent prefix of the solve and an exact record of the run, and the caller never
/// waits for the disk. Whole tiers that are already queued when the writer comes to a tier
/// are committed with it in one transaction (a group commit, in solve order), as long as
/// that transaction writes no more of the log than the largest single tier so far did
/// (so the log's bound, [`footprint::log_peak_bytes`](nimdb_core::footprint::log_peak_bytes),
/// holds): small tiers then share the pages every commit rewrites (the solve's row, the
/// run's, the trees' paths). At most [`QUEUE`] tiers wait to be written; a tier still queued
/// or in a group not yet committed when the process dies is simply solved again on resume.
/// A database in memory has only the one connection, so its tiers are written at once
/// through it, each in its own transaction.
pub struct TierWriter<'a> {
    db: &'a Database,
    solve_id: i64,
    key: SolveKey,
    ends_total: TotalEnds,
    run: Arc<Mutex<RunLog>>,
    background: Option<Background>,
    /// A database in memory: the tier being written in parts, through its one connection.
    in_memory: Option<Streaming<'a>>,
    /// Whether a tier given in parts is begun and not yet ended.
    streaming: bool,
}

/// Whether a tier is the last of its total in solve order.
pub type TotalEnds = Arc<dyn Fn(TierId) -> bool + Send + Sync>;

/// Tiers waiting for the writer thread.
pub const QUEUE: usize = 8;

/// What the writer is given, in solve order.
enum Job {
    /// A whole tier, with what it adds to its run (and its solve's `solve_seconds`).
    Whole(StoredTier, RunTick),
    /// Whole tiers, in solve order, to be committed in one transaction (made by the writer
    /// thread from whole tiers found queued together).
    Group(Vec<(StoredTier, RunTick)>),
    /// The start of a tier whose values follow in parts ([`TierWriter::begin_parts`]).
    Begin(PartsHead),
    /// The next values of the tier begun.
    Part(Vec<u16>),
    /// The end of the tier begun: commit it, adding this to its run.
    End(RunTick),
    /// The tier begun will not be completed: store nothing of it.
    Abandon,
}

/// What a tier given in parts says before its values.
#[derive(Clone, Copy, Debug)]
struct PartsHead {
    tier: TierId,
    positions: u64,
    most: u16,
    seconds: f64,
}

struct Background {
    queue: SyncSender<Job>,
    thread: JoinHandle<Result<(), StoreError>>,
}

impl<'a> TierWriter<'a> {
    /// A writer of `solve`'s tiers, up to `universe` (which has the solve's caps), recording
    /// them as the run `run`.
    pub fn new(db: &'a Database, solve: &SolveRecord, universe: Universe, run: RunStart) -> Self {
        let ends: TotalEnds = Arc::new(move |tier| universe.tiers_of_total(tier.total).last() == Some(tier));
        Self::with_ends(db, solve, ends, run)
    }

    /// A writer of `solve`'s tiers for a position space other than a universe's: `ends_total`
    /// says whether a tier is the last of its total in solve order (storing it completes the
    /// total).
    pub fn with_ends(db: &'a Database, solve: &SolveRecord, ends_total: TotalEnds, run: RunStart) -> Self {
        TierWriter {
            db,
            solve_id: solve.id,
            key: solve.key(),
            ends_total,
            run: Arc::new(Mutex::new(RunLog::new(run))),
            background: None,
            in_memory: None,
            streaming: false,
        }
    }

    fn background(&mut self) -> Result<&mut Background, StoreError> {
        if self.background.is_none() {
            let path = self.db.path().to_path_buf();
            let conn = Connection::open(super::database::file_path(&path))?;
            conn.busy_timeout(WRITER_BUSY)?;
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            super::open::bound_the_log(&conn, self.db.log_pages)?;
            let (queue, jobs) = sync_channel::<Job>(QUEUE);
            let (solve_id, ends, key, run) =
                (self.solve_id, self.ends_total.clone(), self.key.clone(), self.run.clone());
            let mut log = LogWatch::new(&path, self.db.log_pages);
            let grouped = self.db.group_commits;
            // The writer's work is the solve's: it joins the group of the thread that starts
            // it (a server counts a solve's threads' CPU time, not the whole process's).
            let thread_group = nimdb_core::resources::ThreadGroup::current();
            let thread = std::thread::Builder::new()
                .name("nimdb-tier-writer".into())
                .spawn(move || {
                    if let Some(thread_group) = thread_group {
                        thread_group.join();
                    }
                    let solve = SolveOf { solve_id, key: &key, ends_total: ends.as_ref(), run: &run };
                    // A tier still in parts when the queue closes is rolled back with it.
                    let mut streaming = None;
                    // A job taken from the queue while gathering a group, not in it.
                    let mut next: Option<Job> = None;
                    loop {
                        let job = match next.take() {
                            Some(job) => job,
                            None => match jobs.recv() {
                                Ok(job) => job,
                                Err(_) => break,
                            },
                        };
                        let job = match job {
                            Job::Whole(first, tick) if grouped => {
                                let (group, after) = log.gather((first, tick), &jobs);
                                next = after;
                                Job::Group(group)
                            }
                            other => other,
                        };
                        let tier = match &job {
                            Job::Whole(tier, _) => Some(tier.tier),
                            Job::Group(group) => group.first().map(|(tier, _)| tier.tier),
                            Job::Begin(head) => Some(head.tier),
                            _ => streaming.as_ref().map(|s: &Streaming<'_>| s.head.tier),
                        };
                        // What the commit writes to the log, at most, and whether it commits.
                        let commits = match &job {
                            Job::Whole(tier, _) => {
                                log.counts(tier.remoteness.len() as u64, log_width(tier));
                                true
                            }
                            // Counted as it was gathered.
                            Job::Group(_) => true,
                            Job::Begin(head) => {
                                log.counts(head.positions, codec::width_for(head.most) as u64);
                                false
                            }
                            Job::End(_) => true,
                            _ => false,
                        };
                        let applied = solve.apply(&conn, &mut streaming, job);
                        if let (Ok(()), true, Some(tier)) = (&applied, commits, tier) {
                            log.check(&conn, tier)?;
                        }
                        if let Err(e) = applied {
                            // The failed tier's transaction is rolled back; the log is
                            // folded in and cut back where the disk lets it, so a full
                            // disk keeps the tiers committed and not a swollen log.
                            drop(streaming.take());
                            let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
                            return Err(match tier {
                                Some(tier) => e.storing(tier, &path),
                                None => e,
                            });
                        }
                    }
                    Ok(())
                })
                .map_err(|e| StoreError::Writer(format!("could not start the tier writer: {e}")))?;
            self.background = Some(Background { queue, thread });
        }
        Ok(self.background.as_mut().expect("writer started"))
    }

    /// Writes `tier` (in the background for a database file), adding its own seconds to
    /// the run and the solve's `solve_seconds` when it commits.
    pub fn write(&mut self, tier: StoredTier) -> Result<(), StoreError> {
        let tick = RunTick { seconds: tier.seconds, peak_memory_bytes: None };
        self.write_in_run(tier, tick)
    }

    /// Writes `tier`, adding `tick` (the run's time since the previous tier, say, and the
    /// process's peak memory so far) to the run's row and its seconds to the solve's
    /// `solve_seconds` in the same transaction, so a run that is killed later keeps an
    /// exact record of every tier it committed.
    pub fn write_in_run(&mut self, tier: StoredTier, tick: RunTick) -> Result<(), StoreError> {
        if self.streaming {
            return Err(StoreError::Writer("a whole tier was given while a tier in parts was open".into()));
        }
        self.send(Job::Whole(tier, tick))
    }

    /// Begins `tier`, of `positions` positions whose greatest remoteness is `most`, whose
    /// values (remoteness only) follow in rank order through [`TierWriter::write_part`];
    /// [`TierWriter::end_parts`] commits it. The writer never holds the whole tier: each
    /// part is encoded and written into the tier's row as it comes, in the tier's one
    /// transaction, so the tier is stored whole or not at all. `seconds` is the tier's
    /// own solving time.
    pub fn begin_parts(
        &mut self,
        tier: TierId,
        positions: u64,
        most: u16,
        seconds: f64,
    ) -> Result<(), StoreError> {
        if self.streaming {
            return Err(StoreError::Writer("a tier in parts was begun while another was open".into()));
        }
        self.send(Job::Begin(PartsHead { tier, positions, most, seconds }))?;
        self.streaming = true;
        Ok(())
    }

    /// The next values of the tier begun by [`TierWriter::begin_parts`], in rank order.
    pub fn write_part(&mut self, remoteness: &[u16]) -> Result<(), StoreError> {
        if !self.streaming {
            return Err(StoreError::Writer("a part was given with no tier in parts open".into()));
        }
        self.send(Job::Part(remoteness.to_vec()))
    }

    /// Commits the tier begun by [`TierWriter::begin_parts`] (in the background for a
    /// database file), adding `tick` to the run; it fails unless exactly the tier's
    /// positions were given.
    pub fn end_parts(&mut self, tick: RunTick) -> Result<(), StoreError> {
        if !self.streaming {
            return Err(StoreError::Writer("a tier in parts was ended but never begun".into()));
        }
        self.streaming = false;
        self.send(Job::End(tick))
    }

    /// Gives up the tier begun by [`TierWriter::begin_parts`]: nothing of it is stored.
    pub fn abandon_parts(&mut self) -> Result<(), StoreError> {
        if !std::mem::take(&mut self.streaming) {
            return Ok(());
        }
        self.send(Job::Abandon)
    }

    /// Hands `job` to the writer: at once for a database in memory, else to the writer
    /// thread's queue.
    fn send(&mut self, job: Job) -> Result<(), StoreError> {
        if self.db.is_in_memory() {
            let db: &'a Database = self.db;
            let solve = SolveOf {
                solve_id: self.solve_id,
                key: &self.key,
                ends_total: self.ends_total.as_ref(),
                run: &self.run,
            };
            let applied = solve.apply(&db.conn, &mut self.in_memory, job);
            if applied.is_err() {
                self.in_memory = None;
                self.streaming = false;
            }
            return applied;
        }
        if self.background()?.queue.send(job).is_err() {
            // The writer stopped: report why.
            self.streaming = false;
            self.finish()?;
            return Err(StoreError::Writer("the tier writer stopped".into()));
        }
        Ok(())
    }

    /// Waits until every tier given is written; the first failure, if any.
    pub fn finish(&mut self) -> Result<(), StoreError> {
        // A tier still in parts is incomplete: it is rolled back.
        self.streaming = false;
        self.in_memory = None;
        if let Some(Background { queue, thread }) = self.background.take() {
            drop(queue);
            match thread.join() {
                Ok(result) => result?,
                Err(_) => return Err(StoreError::Writer("the tier writer thread panicked".into())),
            }
        }
        Ok(())
    }

    /// The run's row in `solve_runs`, once a tier of it is committed (`None` before, and
    /// when it committed nothing). Call [`TierWriter::finish`] first to count every tier.
    pub fn run_id(&self) -> Option<i64> {
        self.run.lock().map_or_else(|poisoned| poisoned.into_inner().id(), |run| run.id())
    }
}

impl Drop for TierWriter<'_> {
    fn drop(&mut self) {
        // Write what is queued even when the solve failed: those tiers are correct. A tier
        // still in parts is incomplete: it is rolled back.
        let _ = self.abandon_parts();
        let _ = self.finish();
    }
}

/// The width a whole tier's records take, as the log counts them.
fn log_width(tier: &StoredTier) -> u64 {
    codec::width_for(tier.max_remoteness()) as u64 + u64::from(tier.nim_values.is_some())
}

/// The writer's watch on the write-ahead log: after each tier it commits, the log must be
/// within the bound its mark allows ([`footprint::log_peak_bytes`](nimdb_core::footprint::log_peak_bytes):
/// the mark less one page, then the largest transaction written so far). A log past it
/// could not restart: another connection holds a read that began before the log's last
/// restart, so the log only grows. The writer then folds the log in and cuts it back,
/// waiting up to [`LOG_READER_WAIT_SECONDS`](super::error::LOG_READER_WAIT_SECONDS) for
/// that reader (`PRAGMA wal_checkpoint(TRUNCATE)` waits through the busy handler); when the
/// reader still holds it, the solve stops with [`StoreError::LogHeld`].
struct LogWatch {
    wal: std::path::PathBuf,
    path: std::path::PathBuf,
    mark: u64,
    /// The largest tier's transaction so far, in pages.
    largest: u64,
}

impl LogWatch {
    fn new(path: &std::path::Path, mark: u64) -> Self {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        LogWatch { wal: wal.into(), path: path.to_path_buf(), mark, largest: 0 }
    }

    /// Counts a tier of `positions` records of at most `width` bytes about to be written.
    fn counts(&mut self, positions: u64, width: u64) {
        use nimdb_core::footprint::{tier_bytes, transaction_pages};
        self.largest = self.largest.max(transaction_pages(tier_bytes(positions, width)));
    }

    /// A group to commit in one transaction: `first`, and the whole tiers queued behind it
    /// (without waiting for more) while the group's transaction writes no more of the log
    /// than the largest single tier so far ([`transaction_pages`] of their
    /// [`tier_bytes`] together: the log's bound is unchanged), up to [`QUEUE`] tiers.
    /// Every tier taken is counted; the first job taken that does not join is returned.
    ///
    /// [`transaction_pages`]: nimdb_core::footprint::transaction_pages
    /// [`tier_bytes`]: nimdb_core::footprint::tier_bytes
    fn gather(
        &mut self,
        first: (StoredTier, RunTick),
        jobs: &std::sync::mpsc::Receiver<Job>,
    ) -> (Vec<(StoredTier, RunTick)>, Option<Job>) {
        use nimdb_core::footprint::{tier_bytes, transaction_pages};
        let bytes_of = |tier: &StoredTier| tier_bytes(tier.remoteness.len() as u64, log_width(tier));
        self.counts(first.0.remoteness.len() as u64, log_width(&first.0));
        let mut bytes = bytes_of(&first.0);
        let mut group = vec![first];
        while group.len() < QUEUE {
            match jobs.try_recv() {
                Ok(Job::Whole(tier, tick)) => {
                    self.counts(tier.remoteness.len() as u64, log_width(&tier));
                    let more = bytes_of(&tier);
                    if transaction_pages(bytes + more) > self.largest {
                        return (group, Some(Job::Whole(tier, tick)));
                    }
                    bytes += more;
                    group.push((tier, tick));
                }
                Ok(other) => return (group, Some(other)),
                Err(_) => break,
            }
        }
        (group, None)
    }

    /// The log's bound now.
    fn bound(&self) -> u64 {
        nimdb_core::footprint::log_peak_bytes(self.mark, self.largest, u64::MAX)
    }

    /// After `tier` committed: the log within its bound, or folded in once its reader is
    /// gone, or [`StoreError::LogHeld`].
    ///
    /// The fold is tried again until the wait runs out, not once: SQLite refuses a
    /// checkpoint at once, without calling the busy handler, while another connection runs
    /// one (a second solve of the same file folding its own log in, say), and another
    /// writer may append between the fold and the size read after it. The log is also
    /// within its bound when another connection has cut it back meanwhile.
    fn check(&self, conn: &Connection, tier: TierId) -> Result<(), StoreError> {
        let size = || std::fs::metadata(&self.wal).map_or(0, |m| m.len());
        let bound = self.bound();
        if size() <= bound {
            return Ok(());
        }
        let wait = std::time::Duration::from_secs(super::error::LOG_READER_WAIT_SECONDS);
        let deadline = std::time::Instant::now() + wait;
        let result = loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            conn.busy_timeout(left.min(FOLD_TRY))?;
            // (busy, log frames, frames folded in): busy is 1 when a reader (or writer)
            // still held the log when the wait ran out.
            let folded = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get::<_, i64>(0));
            if size() <= bound {
                break Ok(());
            }
            match folded {
                Err(e) if !is_busy(&e) => break Err(e.into()),
                _ if left.is_zero() => {
                    break Err(StoreError::LogHeld { tier, path: self.path.clone(), log: size(), bound });
                }
                _ => std::thread::sleep(FOLD_PAUSE.min(left)),
            }
        };
        conn.busy_timeout(WRITER_BUSY)?;
        result
    }
}

/// Whether `e` is SQLite's "busy" or "locked": another connection holds what was asked.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// The longest one fold of the log waits for its readers before it is tried again.
const FOLD_TRY: std::time::Duration = std::time::Duration::from_secs(1);

/// The pause between two tries to fold the log in.
const FOLD_PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

/// How long the writer's connection waits for a lock another connection holds.
const WRITER_BUSY: std::time::Duration = std::time::Duration::from_secs(30);

/// The solve a writer writes, as its writing functions need it.
struct SolveOf<'s> {
    solve_id: i64,
    key: &'s SolveKey,
    ends_total: &'s (dyn Fn(TierId) -> bool + Send + Sync),
    run: &'s Mutex<RunLog>,
}

/// A tier being written in parts, in its own transaction.
struct Streaming<'c> {
    /// The open transaction, and the tier's row in it; `None` when another process had
    /// stored the tier already (its parts are then only counted).
    row: Option<(rusqlite::Transaction<'c>, i64)>,
    head: PartsHead,
    encoder: PartEncoder,
    losses: u64,
}

impl SolveOf<'_> {
    /// Carries out one job on `conn`; `streaming` holds the tier in parts, if one is open.
    fn apply<'c>(
        &self,
        conn: &'c Connection,
        streaming: &mut Option<Streaming<'c>>,
        job: Job,
    ) -> Result<(), StoreError> {
        let open = |streaming: &mut Option<Streaming<'c>>| {
            streaming
                .take()
                .ok_or_else(|| StoreError::Writer("a part came with no tier in parts open".into()))
        };
        match job {
            Job::Whole(tier, tick) => {
                if streaming.is_some() {
                    return Err(StoreError::Writer(
                        "a whole tier came while a tier in parts was open".into(),
                    ));
                }
                self.write_group(conn, &[(tier, tick)])
            }
            Job::Group(group) => {
                if streaming.is_some() {
                    return Err(StoreError::Writer(
                        "a whole tier came while a tier in parts was open".into(),
                    ));
                }
                self.write_group(conn, &group)
            }
            Job::Begin(head) => {
                if streaming.is_some() {
                    return Err(StoreError::Writer("a tier in parts began while another was open".into()));
                }
                *streaming = Some(self.begin(conn, head)?);
                Ok(())
            }
            Job::Part(values) => {
                let mut open = open(streaming)?;
                self.part(conn, &mut open, &values)?;
                *streaming = Some(open);
                Ok(())
            }
            Job::End(tick) => self.end(conn, open(streaming)?, tick),
            Job::Abandon => {
                // Dropping the transaction rolls it back.
                streaming.take();
                Ok(())
            }
        }
    }

    /// Opens the transaction of a tier given in parts and inserts its row, its payload
    /// zeros of the full length, to be written block by block.
    fn begin<'c>(&self, conn: &'c Connection, head: PartsHead) -> Result<Streaming<'c>, StoreError> {
        let encoder = PartEncoder::new(self.key, head.tier, head.most);
        let layout = encoder.layout();
        let length = usize::try_from(head.positions)
            .ok()
            .and_then(|p| p.checked_mul(layout.width()))
            .and_then(|b| i64::try_from(b).ok())
            .ok_or_else(|| StoreError::Writer(format!("tier {} is too large to store", head.tier)))?;
        let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
        // A tier another process stored meanwhile is the same tier: keep the stored one.
        let inserted = tx.execute(
            "INSERT INTO tiers (solve_id, total, heaps, positions, losses, max_remoteness, remoteness_bytes,
                                nim_value_bytes, block_records, checksum, solve_seconds, block_checksums, payload,
                                checksum_scheme)
             VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6, 0, ?7, 0, ?8, X'', zeroblob(?9), 1)
             ON CONFLICT (solve_id, total, heaps) DO NOTHING",
            params![
                self.solve_id,
                head.tier.total,
                head.tier.heaps,
                head.positions as i64,
                head.most,
                layout.remoteness_bytes as i64,
                layout.block_records as i64,
                head.seconds,
                length,
            ],
        )?;
        let row = (inserted > 0).then(|| {
            let id = tx.last_insert_rowid();
            (tx, id)
        });
        Ok(Streaming { row, head, encoder, losses: 0 })
    }

    /// Encodes and writes the next values of a tier in parts.
    fn part(
        &self,
        conn: &Connection,
        streaming: &mut Streaming<'_>,
        values: &[u16],
    ) -> Result<(), StoreError> {
        let head = streaming.head;
        if streaming.encoder.records() + values.len() as u64 > head.positions {
            return Err(StoreError::Writer(format!(
                "tier {} was given more than its {} positions",
                head.tier, head.positions
            )));
        }
        let convention = self.key.convention;
        streaming.losses += values.iter().filter(|&&r| convention.loses(r)).count() as u64;
        let at = streaming.encoder.offset();
        let bytes = streaming.encoder.push(values).map_err(|v| {
            StoreError::Writer(format!(
                "tier {} holds remoteness {v}, above its greatest {}",
                head.tier, head.most
            ))
        })?;
        if let (Some((_, row)), false) = (&streaming.row, bytes.is_empty()) {
            write_payload(conn, *row, at, &bytes)?;
        }
        Ok(())
    }

    /// Writes the last block and the checksums of a tier in parts, counts it in its solve
    /// and its run, and commits.
    fn end(&self, conn: &Connection, streaming: Streaming<'_>, tick: RunTick) -> Result<(), StoreError> {
        let Streaming { row, head, encoder, losses } = streaming;
        let at = encoder.offset();
        let tail = encoder.finish();
        if tail.records != head.positions {
            return Err(StoreError::Writer(format!(
                "tier {} was given {} of its {} positions",
                head.tier, tail.records, head.positions
            )));
        }
        let Some((tx, row)) = row else { return Ok(()) };
        if !tail.bytes.is_empty() {
            write_payload(conn, row, at, &tail.bytes)?;
        }
        tx.execute(
            "UPDATE tiers SET losses = ?2, checksum = ?3, block_checksums = ?4 WHERE id = ?1",
            params![row, losses as i64, tail.checksum as i64, tail.block_checksums],
        )?;
        self.count_and_commit(tx, head.tier, head.positions, losses, tick)
    }

    /// Writes whole tiers in solve order (each one's checksums bound to the solve's key and
    /// the tier), the solve's counters and the run's row, all in one transaction: the
    /// group is stored whole or not at all.
    fn write_group(&self, conn: &Connection, group: &[(StoredTier, RunTick)]) -> Result<(), StoreError> {
        let mut run =
            self.run.lock().map_err(|_| StoreError::Writer("the run record was poisoned".into()))?;
        // The run's row as committed: kept again if the group is not.
        let before = *run;
        let written = (|| {
            // Unchecked: the connection is shared (a database in memory) or the thread's own.
            let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
            let mut counted = false;
            for (solved, tick) in group {
                if let Some(losses) = self.insert_tier(&tx, solved)? {
                    self.count(&tx, &mut run, solved.tier, solved.remoteness.len() as u64, losses, *tick)?;
                    counted = true;
                }
            }
            // Tiers another process stored meanwhile leave nothing to commit.
            if counted {
                tx.commit()?;
            }
            Ok(())
        })();
        if written.is_err() {
            *run = before;
        }
        written
    }

    /// Inserts the row of one whole tier; its losses, or `None` when another process
    /// stored the tier meanwhile (the same tier: the stored one is kept).
    fn insert_tier(
        &self,
        tx: &rusqlite::Transaction<'_>,
        solved: &StoredTier,
    ) -> Result<Option<u64>, StoreError> {
        let tier = solved.tier;
        let enc = codec::encode(self.key, tier, &solved.remoteness, solved.nim_values.as_deref());
        let losses = solved.losses(self.key.convention);
        // Cached, as the counters' statements are: a solve commits thousands of tiers, most
        // of them small, and preparing each statement again for each one took a tenth of
        // the writer's time.
        let inserted = tx
            .prepare_cached(
                "INSERT INTO tiers (solve_id, total, heaps, positions, losses, max_remoteness, remoteness_bytes,
                                    nim_value_bytes, block_records, checksum, solve_seconds, block_checksums, payload,
                                    checksum_scheme)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 1)
                 ON CONFLICT (solve_id, total, heaps) DO NOTHING",
            )?
            .execute(params![
                self.solve_id,
                tier.total,
                tier.heaps,
                solved.remoteness.len() as i64,
                losses as i64,
                solved.max_remoteness(),
                enc.layout.remoteness_bytes as i64,
                enc.layout.nim_value_bytes as i64,
                enc.layout.block_records as i64,
                enc.checksum as i64,
                solved.seconds,
                enc.block_checksums,
                enc.payload,
            ])?;
        Ok((inserted > 0).then_some(losses))
    }

    /// Adds a tier just inserted in `tx` to its solve's counters (completing its total when
    /// it is the total's last) and to the run's row, which `run` keeps (its id taken at
    /// once: the caller puts `run` back as it was if `tx` does not commit).
    fn count(
        &self,
        tx: &rusqlite::Transaction<'_>,
        run: &mut RunLog,
        tier: TierId,
        positions: u64,
        losses: u64,
        tick: RunTick,
    ) -> Result<(), StoreError> {
        // The last tier of a total, in solve order, completes that total.
        let completes_total = (self.ends_total)(tier);
        tx.prepare_cached(
            "UPDATE solves SET positions = positions + ?2, losses = losses + ?3,
                solved_total = CASE WHEN ?4 THEN ?5 ELSE solved_total END,
                status = CASE WHEN ?4 AND ?5 >= target_total THEN 'complete' ELSE status END,
                solve_seconds = solve_seconds + ?6,
                updated_at = datetime('now')
             WHERE id = ?1",
        )?
        .execute(params![
            self.solve_id,
            positions as i64,
            losses as i64,
            completes_total,
            tier.total,
            tick.seconds.max(0.0)
        ])?;
        let run_id = run.record(tx, self.solve_id, positions, tick)?;
        run.committed(run_id);
        Ok(())
    }

    /// Adds a tier just inserted to its solve's counters and to the run's row, and commits.
    fn count_and_commit(
        &self,
        tx: rusqlite::Transaction<'_>,
        tier: TierId,
        positions: u64,
        losses: u64,
        tick: RunTick,
    ) -> Result<(), StoreError> {
        let mut run =
            self.run.lock().map_err(|_| StoreError::Writer("the run record was poisoned".into()))?;
        let before = *run;
        let committed =
            self.count(&tx, &mut run, tier, positions, losses, tick).and_then(|()| Ok(tx.commit()?));
        if committed.is_err() {
            *run = before;
        }
        committed
    }
}

/// Writes `bytes` into the payload of the tier row `row` at byte `at`.
fn write_payload(conn: &Connection, row: i64, at: usize, bytes: &[u8]) -> Result<(), StoreError> {
    let mut blob = conn.blob_open(rusqlite::MAIN_DB, "tiers", "payload", row, false)?;
    blob.write_at(bytes, at)?;
    Ok(())
}

/// The counts a tier row records beside its payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TierCounts {
    /// Positions in the tier.
    pub positions: i64,
    /// Positions lost for the player to move.
    pub losses: i64,
    /// The largest remoteness in the tier.
    pub max_remoteness: i64,
}

impl Database {
    /// Loads a whole stored tier of a solve, verifying its layout and its checksums, which
    /// must be bound to the tier and to the key of the solve that holds it.
    pub fn load_tier(&self, solve_id: i64, tier: TierId) -> Result<StoredTier, StoreError> {
        type Row = (SolveKey, i64, (i64, i64, i64), i64, i64, Vec<u8>, Vec<u8>);
        // Cached: a verify or a resumed solve loads thousands of tiers, and preparing the
        // statement each time cost more than decoding a small tier.
        let (key, positions, (rb, vb, br), checksum, scheme, blocks, payload): Row = self
            .conn
            .prepare_cached(&format!(
                "SELECT s.game, s.convention, s.max_heap, s.max_heaps, s.nim_values, t.positions,
                        t.remoteness_bytes, t.nim_value_bytes, t.block_records, t.checksum, {},
                        t.block_checksums, t.payload
                 FROM tiers t JOIN solves s ON s.id = t.solve_id
                 WHERE t.solve_id = ?1 AND t.total = ?2 AND t.heaps = ?3",
                self.scheme_column()
            ))?
            .query_row(params![solve_id, tier.total, tier.heaps], |r| {
                Ok((
                    SolveKey::from_columns(
                        r.get(0)?,
                        &r.get::<_, String>(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                    ),
                    r.get(5)?,
                    (r.get(6)?, r.get(7)?, r.get(8)?),
                    r.get(9)?,
                    r.get(10)?,
                    r.get(11)?,
                    r.get(12)?,
                ))
            })?;
        let corrupt =
            |e: CodecError| StoreError::Corrupt(format!("tier {tier} of solve #{solve_id} is corrupt: {e}"));
        let layout = RecordLayout::from_columns(rb, vb, br).map_err(corrupt)?;
        let binding = self.binding(&key, tier, &layout, scheme).map_err(corrupt)?;
        let stored = StoredBytes {
            layout,
            positions: positions.max(0) as u64,
            payload: &payload,
            block_checksums: &blocks,
            checksum,
        };
        let (remoteness, nim_values) = codec::decode_tier(&stored, &binding).map_err(corrupt)?;
        Ok(StoredTier { tier, remoteness, nim_values, seconds: 0.0 })
    }

    /// The SQL for a tier row's `checksum_scheme` in `tiers t` (0 in a database older than
    /// schema version 5, which has no such column).
    pub(crate) fn scheme_column(&self) -> &'static str {
        if self.schema_version() >= 5 { "t.checksum_scheme" } else { "0" }
    }

    /// What a tier row's checksums are bound to: its identity, or nothing in a database
    /// older than schema version 5. A row of scheme 0 in a newer database failed its
    /// checksums at the upgrade, and is refused.
    pub(crate) fn binding(
        &self,
        key: &SolveKey,
        tier: TierId,
        layout: &RecordLayout,
        scheme: i64,
    ) -> Result<codec::Binding, CodecError> {
        match (self.schema_version() >= 5, scheme) {
            (false, _) => Ok(codec::Binding::Plain),
            (true, 0) => Err(CodecError::Unbound),
            (true, 1 | 2) => Ok(codec::Binding::bound(key, tier, layout)),
            (true, other) => Err(CodecError::UnknownScheme(other)),
        }
    }

    /// What each stored tier of a solve records of itself beside its payload: positions,
    /// losses and the largest remoteness (which `verify` recomputes from the records).
    pub fn tier_counts(&self, solve_id: i64) -> Result<BTreeMap<TierId, TierCounts>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT total, heaps, positions, losses, max_remoteness FROM tiers WHERE solve_id = ?1",
        )?;
        let rows = stmt
            .query_map([solve_id], |r| {
                Ok((
                    TierId { total: r.get(0)?, heaps: r.get(1)? },
                    TierCounts { positions: r.get(2)?, losses: r.get(3)?, max_remoteness: r.get(4)? },
                ))
            })?
            .collect::<Result<BTreeMap<_, _>, _>>()?;
        Ok(rows)
    }

    /// Positions stored for a solve in tiers with at most `total` tokens.
    pub fn positions_stored(&self, solve_id: i64, total: u32) -> Result<u64, StoreError> {
        let n: i64 = self.conn.query_row(
            "SELECT COALESCE(SUM(positions), 0) FROM tiers WHERE solve_id = ?1 AND total <= ?2",
            params![solve_id, total],
            |r| r.get(0),
        )?;
        Ok(n as u64)
    }

    /// The tiers stored for a solve.
    pub fn stored_tiers(&self, solve_id: i64) -> Result<BTreeSet<TierId>, StoreError> {
        let mut stmt = self.conn.prepare("SELECT total, heaps FROM tiers WHERE solve_id = ?1")?;
        let rows = stmt
            .query_map([solve_id], |r| Ok(TierId { total: r.get(0)?, heaps: r.get(1)? }))?
            .collect::<Result<BTreeSet<_>, _>>()?;
        Ok(rows)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use nimdb_core::game::GameSpec;

    /// A database (a file in `dir`, or in memory) with one solve of misère Kayles to 12.
    pub(crate) fn database(dir: Option<&std::path::Path>) -> (Database, SolveRecord, Universe) {
        let mut db = match dir {
            Some(dir) => Database::open(&dir.join("t.sqlite")).unwrap(),
            None => Database::open_in_memory().unwrap(),
        };
        let kayles: GameSpec = "kayles".parse().unwrap();
        let universe = Universe::new(kayles.rules(), "kayles", Some(12), None, None).unwrap();
        let key = SolveKey::new(&kayles, Convention::Misere, &universe, false);
        let solve = db.begin_solve(&key, 12).unwrap();
        (db, solve, universe)
    }

    /// Every column of every tier row, and the solve's counters.
    fn rows(db: &Database) -> (Vec<Vec<rusqlite::types::Value>>, (i64, i64, i64)) {
        let mut stmt = db.conn.prepare("SELECT * FROM tiers ORDER BY total, heaps").unwrap();
        let n = stmt.column_count();
        let tiers = stmt
            .query_map([], |r| {
                // Every column but the tier's own seconds.
                (0..n)
                    .filter(|&i| r.as_ref().column_name(i).unwrap() != "solve_seconds")
                    .map(|i| r.get(i))
                    .collect()
            })
            .unwrap()
            .collect::<Result<Vec<Vec<_>>, _>>()
            .unwrap();
        let solve = db
            .conn
            .query_row("SELECT positions, losses, solved_total FROM solves", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .unwrap();
        (tiers, solve)
    }

    /// Tiers of a few lengths, one of several blocks, one past a byte's remoteness.
    pub(crate) fn tiers() -> Vec<StoredTier> {
        [(3, 1, 0usize, 2u16), (5, 2, 9_000, 40), (6, 2, 2 * 4096, 300), (7, 3, 10_001, 77)]
            .into_iter()
            .map(|(total, heaps, n, most)| StoredTier {
                tier: TierId { total, heaps },
                remoteness: (0..n).map(|i| ((i * 31 + i / 5) % (most as usize + 1)) as u16).collect(),
                nim_values: None,
                seconds: 0.5,
            })
            .collect()
    }

    fn tick() -> RunTick {
        RunTick { seconds: 0.25, peak_memory_bytes: None }
    }

    #[test]
    fn a_tier_written_in_parts_is_stored_as_the_tier_written_whole() {
        for file in [true, false] {
            let dirs = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
            let (whole, whole_solve, universe) = database(file.then(|| dirs.0.path()));
            let (parted, parted_solve, _) = database(file.then(|| dirs.1.path()));
            let run = RunStart::now(12, 1, 1);
            let mut a = TierWriter::new(&whole, &whole_solve, universe, run);
            let mut b = TierWriter::new(&parted, &parted_solve, universe, run);
            for (i, tier) in tiers().into_iter().enumerate() {
                let most = tier.max_remoteness();
                b.begin_parts(tier.tier, tier.remoteness.len() as u64, most, tier.seconds).unwrap();
                for part in tier.remoteness.chunks([1, 700, 4096, 5000][i]) {
                    b.write_part(part).unwrap();
                }
                b.end_parts(tick()).unwrap();
                a.write_in_run(tier, tick()).unwrap();
            }
            a.finish().unwrap();
            b.finish().unwrap();
            assert_eq!(rows(&parted), rows(&whole), "file {file}");
            for tier in tiers() {
                assert_eq!(parted.load_tier(parted_solve.id, tier.tier).unwrap().remoteness, tier.remoteness);
            }
        }
    }

    /// The file a solve's tiers make stays within `footprint`'s bound of it, whole or in
    /// parts (whose row is written full of zeros and then updated), for tiers from one
    /// position to many pages, stored in an order that does not follow their heap counts.
    #[test]
    fn the_file_stays_within_the_footprint_bound() {
        use nimdb_core::footprint::{SCHEMA_BYTES, tier_bytes};
        let sizes = [1usize, 2, 7, 60, 300, 1000, 1900, 2100, 3000, 4070, 4100, 5000, 8190, 12_000, 70_000];
        for in_parts in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let (db, solve, universe) = database(Some(dir.path()));
            let mut w = TierWriter::new(&db, &solve, universe, RunStart::now(12, 1, 1));
            let mut bound = SCHEMA_BYTES;
            for i in 0..600usize {
                let n = sizes[(i * 7 + i / 3) % sizes.len()];
                let most: u16 = if i % 5 == 0 { 300 } else { 40 };
                let tier = TierId { total: (i / 4) as u32, heaps: [3, 1, 4, 2][i % 4] + (i / 4) as u32 };
                let remoteness: Vec<u16> =
                    (0..n).map(|j| ((j * 31 + i) % (most as usize + 1)) as u16).collect();
                bound += tier_bytes(n as u64, if most < 256 { 1 } else { 2 });
                if in_parts {
                    w.begin_parts(tier, n as u64, most, 0.5).unwrap();
                    for part in remoteness.chunks(1500) {
                        w.write_part(part).unwrap();
                    }
                    w.end_parts(tick()).unwrap();
                } else {
                    w.write_in_run(StoredTier { tier, remoteness, nim_values: None, seconds: 0.5 }, tick())
                        .unwrap();
                }
            }
            w.finish().unwrap();
            drop(w);
            let path = db.path().to_path_buf();
            drop(db);
            let file = std::fs::metadata(&path).unwrap().len();
            assert!(file <= bound, "in parts {in_parts}: file {file}, bound {bound}");
            assert!(bound < 2 * file, "in parts {in_parts}: file {file}, bound {bound}");
        }
    }

    /// Tiers of `n` positions each, one for each heap count of total 9.
    fn small_tiers(count: u32, n: usize) -> Vec<StoredTier> {
        (1..=count)
            .map(|heaps| StoredTier {
                tier: TierId { total: 9, heaps },
                remoteness: (0..n).map(|i| ((i * 7 + heaps as usize) % 20) as u16).collect(),
                nim_values: None,
                seconds: 0.5,
            })
            .collect()
    }

    /// Writes `tiers` through a writer of `db` while another connection holds the write
    /// lock, so that they queue behind the first; returns the log's size once written.
    fn write_held(db: &Database, solve: &SolveRecord, universe: Universe, tiers: Vec<StoredTier>) -> u64 {
        let holder = Connection::open(db.path()).unwrap();
        holder.execute_batch("BEGIN IMMEDIATE").unwrap();
        let mut w = TierWriter::new(db, solve, universe, RunStart::now(12, 1, 1));
        for tier in tiers {
            w.write_in_run(tier, tick()).unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        holder.execute_batch("COMMIT").unwrap();
        w.finish().unwrap();
        let mut wal = db.path().as_os_str().to_owned();
        wal.push("-wal");
        std::fs::metadata(wal).unwrap().len()
    }

    #[test]
    fn tiers_queued_together_commit_together_and_store_the_same_rows() {
        let dirs = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (mut grouped, grouped_solve, universe) = database(Some(dirs.0.path()));
        let (mut plain, plain_solve, _) = database(Some(dirs.1.path()));
        grouped.set_log_pages(1 << 20);
        plain.set_log_pages(1 << 20);
        plain.set_group_commits(false);
        let grouped_log = write_held(&grouped, &grouped_solve, universe, small_tiers(QUEUE as u32, 50));
        let plain_log = write_held(&plain, &plain_solve, universe, small_tiers(QUEUE as u32, 50));
        assert_eq!(rows(&grouped), rows(&plain));
        let runs = |db: &Database| {
            db.conn
                .query_row("SELECT count(*), sum(tiers), sum(positions) FROM solve_runs", [], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
                })
                .unwrap()
        };
        assert_eq!(runs(&grouped), (1, QUEUE as i64, 50 * QUEUE as i64));
        assert_eq!(runs(&grouped), runs(&plain));
        // Each commit rewrites the solve's and the run's rows and the trees' paths: the tiers
        // queued behind the first, committed as one, leave a much shorter log.
        assert!(2 * grouped_log < plain_log, "grouped {grouped_log} bytes of log, plain {plain_log}");
    }

    #[test]
    fn a_group_with_tiers_stored_meanwhile_counts_only_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let (db, solve, universe) = database(Some(dir.path()));
        let tiers = small_tiers(6, 40);
        // Another run stored the first three.
        let mut first = TierWriter::new(&db, &solve, universe, RunStart::now(12, 1, 1));
        for tier in tiers[..3].iter().cloned() {
            first.write_in_run(tier, tick()).unwrap();
        }
        first.finish().unwrap();
        write_held(&db, &solve, universe, tiers.clone());
        let (stored, counters) = rows(&db);
        assert_eq!(stored.len(), 6);
        assert_eq!(counters.0, 6 * 40, "each tier counted once in the solve");
        let mut runs = db.conn.prepare("SELECT tiers, positions FROM solve_runs ORDER BY id").unwrap();
        let runs: Vec<(i64, i64)> =
            runs.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().collect::<Result<_, _>>().unwrap();
        assert_eq!(runs, [(3, 120), (3, 120)]);
        for tier in tiers {
            assert_eq!(db.load_tier(solve.id, tier.tier).unwrap().remoteness, tier.remoteness);
        }
    }

    #[test]
    fn a_tier_in_parts_that_is_abandoned_or_miscounted_stores_nothing() {
        for file in [true, false] {
            let dir = tempfile::tempdir().unwrap();
            let (db, solve, universe) = database(file.then(|| dir.path()));
            let tier = tiers().swap_remove(1);
            let n = tier.remoteness.len() as u64;
            let most = tier.max_remoteness();
            let run = RunStart::now(12, 1, 1);
            let empty = rows(&db);
            // Abandoned halfway.
            let mut w = TierWriter::new(&db, &solve, universe, run);
            w.begin_parts(tier.tier, n, most, 1.0).unwrap();
            w.write_part(&tier.remoteness[..4000]).unwrap();
            w.abandon_parts().unwrap();
            w.finish().unwrap();
            assert_eq!(rows(&db), empty);
            // Dropped halfway (a solve that failed).
            let mut w = TierWriter::new(&db, &solve, universe, run);
            w.begin_parts(tier.tier, n, most, 1.0).unwrap();
            w.write_part(&tier.remoteness[..4000]).unwrap();
            drop(w);
            assert_eq!(rows(&db), empty);
            // Too few positions, too many, a value above the greatest given.
            for (values, most) in [
                (&tier.remoteness[..8000], most),
                (&[&tier.remoteness[..], &[1]].concat()[..], most),
                (&tier.remoteness[..], most - 1),
            ] {
                let mut w = TierWriter::new(&db, &solve, universe, run);
                w.begin_parts(tier.tier, n, most, 1.0).unwrap();
                let written =
                    values.chunks(3000).try_for_each(|p| w.write_part(p)).and_then(|()| w.end_parts(tick()));
                let finished = w.finish();
                assert!(written.is_err() || finished.is_err(), "{} values, greatest {most}", values.len());
                assert_eq!(rows(&db), empty);
            }
            // The writer's order is kept: a whole tier cannot come inside a tier in parts.
            let mut w = TierWriter::new(&db, &solve, universe, run);
            w.begin_parts(tier.tier, n, most, 1.0).unwrap();
            assert!(w.write_in_run(tiers().swap_remove(0), tick()).is_err());
            assert!(w.begin_parts(tier.tier, n, most, 1.0).is_err());
            w.abandon_parts().unwrap();
            assert!(w.write_part(&[1]).is_err());
            assert!(w.end_parts(tick()).is_err());
            w.finish().unwrap();
            assert_eq!(rows(&db), empty);
        }
    }
}
