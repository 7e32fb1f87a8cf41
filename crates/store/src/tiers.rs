//! Writing and reading whole tiers: the plain tier API a solve driver writes through.

use std::collections::{BTreeMap, BTreeSet};

use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use rusqlite::{Connection, TransactionBehavior, params};

use crate::game::Convention;
use crate::index::{TierId, Universe};

use super::codec::{self, CodecError, RecordLayout, StoredBytes};
use super::open::{Database, StoreError};
use super::runs::{RunLog, RunStart, RunTick};
use super::solves::{SolveKey, SolveRecord};

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
        self.remoteness.iter().filter(|&&r| r != crate::game::DRAW && !convention.is_win(r as u32)).count()
            as u64
    }

    /// The greatest remoteness in the tier.
    pub fn max_remoteness(&self) -> u16 {
        self.remoteness.iter().copied().max().unwrap_or(0)
    }
}

/// Writes the tiers of one solve, in the order they are given, as one run.
///
/// For a database file the tiers are written by a background thread with its own
/// connection, each in its own transaction together with the solve's counters and the
/// run's row in `solve_runs` (inserted with the first tier committed), so the database
/// always holds a consistent prefix of the solve and an exact record of the run, and the
/// caller never waits for the disk. At most [`QUEUE`] tiers wait to be written; a tier
/// still queued when the process dies is simply solved again on resume. A database in
/// memory has only the one connection, so its tiers are written at once through it.
pub struct TierWriter<'a> {
    db: &'a Database,
    solve_id: i64,
    key: SolveKey,
    ends_total: TotalEnds,
    run: Arc<Mutex<RunLog>>,
    background: Option<Background>,
}

/// Whether a tier is the last of its total in solve order.
pub type TotalEnds = Arc<dyn Fn(TierId) -> bool + Send + Sync>;

/// Tiers waiting for the writer thread.
pub const QUEUE: usize = 8;

/// A tier to write, with what it adds to its run (and its solve's `solve_seconds`).
type Queued = (StoredTier, RunTick);

struct Background {
    queue: SyncSender<Queued>,
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
        }
    }

    fn background(&mut self) -> Result<&mut Background, StoreError> {
        if self.background.is_none() {
            let conn = Connection::open(super::open::file_path(self.db.path()))?;
            conn.busy_timeout(std::time::Duration::from_secs(30))?;
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            let (queue, tiers) = sync_channel::<Queued>(QUEUE);
            let (solve_id, ends, key, run) =
                (self.solve_id, self.ends_total.clone(), self.key.clone(), self.run.clone());
            let thread = std::thread::Builder::new()
                .name("nimdb-tier-writer".into())
                .spawn(move || {
                    for (stored, tick) in tiers {
                        write_tier(&conn, solve_id, &key, ends.as_ref(), &stored, tick, &run)?;
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
        if self.db.is_in_memory() {
            return write_tier(
                &self.db.conn,
                self.solve_id,
                &self.key,
                self.ends_total.as_ref(),
                &tier,
                tick,
                &self.run,
            );
        }
        if self.background()?.queue.send((tier, tick)).is_err() {
            // The writer stopped: report why.
            self.finish()?;
            return Err(StoreError::Writer("the tier writer stopped".into()));
        }
        Ok(())
    }

    /// Waits until every tier given is written; the first failure, if any.
    pub fn finish(&mut self) -> Result<(), StoreError> {
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
        // Write what is queued even when the solve failed: those tiers are correct.
        let _ = self.finish();
    }
}

/// Writes one tier (its checksums bound to `key` and the tier), the solve's counters and
/// the run's row in one transaction.
fn write_tier(
    conn: &Connection,
    solve_id: i64,
    key: &SolveKey,
    ends_total: &(dyn Fn(TierId) -> bool + Send + Sync),
    solved: &StoredTier,
    tick: RunTick,
    run: &Mutex<RunLog>,
) -> Result<(), StoreError> {
    let tier = solved.tier;
    let enc = codec::encode(key, tier, &solved.remoteness, solved.nim_values.as_deref());
    let losses = solved.losses(key.convention);
    // The last tier of a total, in solve order, completes that total.
    let completes_total = ends_total(tier);
    // Unchecked: the connection is shared (a database in memory) or the thread's own.
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
    // A tier another process stored meanwhile is the same tier: keep the stored one.
    let inserted = tx.execute(
        "INSERT INTO tiers (solve_id, total, heaps, positions, losses, max_remoteness, remoteness_bytes,
                            nim_value_bytes, block_records, checksum, solve_seconds, block_checksums, payload,
                            checksum_scheme)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 1)
         ON CONFLICT (solve_id, total, heaps) DO NOTHING",
        params![
            solve_id,
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
        ],
    )?;
    if inserted == 0 {
        return Ok(());
    }
    tx.execute(
        "UPDATE solves SET positions = positions + ?2, losses = losses + ?3,
            solved_total = CASE WHEN ?4 THEN ?5 ELSE solved_total END,
            status = CASE WHEN ?4 AND ?5 >= target_total THEN 'complete' ELSE status END,
            solve_seconds = solve_seconds + ?6,
            updated_at = datetime('now')
         WHERE id = ?1",
        params![
            solve_id,
            solved.remoteness.len() as i64,
            losses as i64,
            completes_total,
            tier.total,
            tick.seconds.max(0.0)
        ],
    )?;
    let mut run = run.lock().map_err(|_| StoreError::Writer("the run record was poisoned".into()))?;
    let run_id = run.record(&tx, solve_id, solved.remoteness.len() as u64, tick)?;
    tx.commit()?;
    run.committed(run_id);
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
        let (key, positions, (rb, vb, br), checksum, scheme, blocks, payload): Row = self.conn.query_row(
            &format!(
                "SELECT s.game, s.convention, s.max_heap, s.max_heaps, s.nim_values, t.positions,
                        t.remoteness_bytes, t.nim_value_bytes, t.block_records, t.checksum, {},
                        t.block_checksums, t.payload
                 FROM tiers t JOIN solves s ON s.id = t.solve_id
                 WHERE t.solve_id = ?1 AND t.total = ?2 AND t.heaps = ?3",
                self.scheme_column()
            ),
            params![solve_id, tier.total, tier.heaps],
            |r| {
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
            },
        )?;
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
