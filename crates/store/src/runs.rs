//! The `solve_runs` table (schema version 6): one row per run that committed a tier of a
//! solve, with what it committed, how long it took and the peak memory of its process.
//!
//! The row is inserted in the transaction of the run's first committed tier and updated in
//! the transaction of every later one (see [`TierWriter`](crate::tiers::TierWriter)), so a run killed with
//! SIGKILL keeps an exact record up to its last committed tier; [`Database::end_run`] says
//! how it ended. The figures come from the caller: the store reads no clock or memory
//! counter of its own beyond the wall-clock start it is given.

use rusqlite::{Row, Transaction, params};

use super::database::Database;
use super::error::StoreError;
use super::solves::SolveRecord;

/// The first schema version with `solve_runs`.
pub const RUNS_SINCE_VERSION: i64 = 6;

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunOutcome {
    /// It had not ended at its last commit: it is still running, or it was killed.
    Running,
    /// It stored every tier up to its target.
    Complete,
    /// It stopped on request (Ctrl-C) after committing the tiers it finished.
    Interrupted,
    /// It stopped on an error; the tiers it committed are kept.
    Failed,
}

impl RunOutcome {
    /// The word stored in `solve_runs.outcome`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunOutcome::Running => "running",
            RunOutcome::Complete => "complete",
            RunOutcome::Interrupted => "interrupted",
            RunOutcome::Failed => "failed",
        }
    }

    fn parse(text: &str) -> Self {
        match text {
            "complete" => RunOutcome::Complete,
            "interrupted" => RunOutcome::Interrupted,
            "failed" => RunOutcome::Failed,
            _ => RunOutcome::Running,
        }
    }
}

/// What is known of a run when it starts; written with its first committed tier.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunStart {
    /// When it started, in seconds since the Unix epoch.
    pub started_unix: i64,
    /// The total it aims for.
    pub target_total: u32,
    /// Solver threads in the process that writes the database.
    pub threads: u32,
    /// Processes sharing the work (the ranks of an MPI job; 1 alone).
    pub processes: u32,
}

impl RunStart {
    /// A run starting now.
    pub fn now(target_total: u32, threads: u32, processes: u32) -> Self {
        let started_unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        RunStart { started_unix, target_total, threads, processes }
    }
}

/// What one committed tier adds to its run's row.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunTick {
    /// The run's wall-clock seconds since its previous tier (or its start).
    pub seconds: f64,
    /// The process's peak resident memory so far, in bytes, if known.
    pub peak_memory_bytes: Option<u64>,
}

/// A run being recorded: its start, and its row once the first tier made one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunLog {
    start: RunStart,
    id: Option<i64>,
}

impl RunLog {
    /// A run with no row yet.
    pub fn new(start: RunStart) -> Self {
        RunLog { start, id: None }
    }

    /// The run's row, once a tier is committed.
    pub fn id(&self) -> Option<i64> {
        self.id
    }

    /// Adds a committed tier of `positions` positions to the run's row (inserting it for the
    /// first tier) inside the tier's transaction `tx`. Returns the row id, to be kept with
    /// [`RunLog::committed`] once `tx` commits.
    pub fn record(
        &self,
        tx: &Transaction<'_>,
        solve_id: i64,
        positions: u64,
        tick: RunTick,
    ) -> rusqlite::Result<i64> {
        let peak = tick.peak_memory_bytes.map(|b| b.min(i64::MAX as u64) as i64);
        match self.id {
            None => {
                tx.prepare_cached(
                    "INSERT INTO solve_runs (solve_id, started_at, updated_at, target_total, tiers, positions, seconds,
                                             peak_memory_bytes, threads, processes, nimdb_version, outcome)
                     VALUES (?1, datetime(?2, 'unixepoch'), datetime('now'), ?3, 1, ?4, ?5, ?6, ?7, ?8, ?9, 'running')",
                )?
                .execute(params![
                        solve_id,
                        self.start.started_unix,
                        self.start.target_total,
                        positions as i64,
                        tick.seconds.max(0.0),
                        peak,
                        self.start.threads,
                        self.start.processes,
                        env!("CARGO_PKG_VERSION"),
                ])?;
                Ok(tx.last_insert_rowid())
            }
            Some(id) => {
                // Cached, as the tier's own statements are (see `tiers`).
                tx.prepare_cached(&format!(
                    "UPDATE solve_runs SET tiers = tiers + 1, positions = positions + ?2, seconds = seconds + ?3,
                        {RAISE_PEAK_TO_4}, updated_at = datetime('now')
                     WHERE id = ?1"
                ))?
                .execute(params![id, positions as i64, tick.seconds.max(0.0), peak])?;
                Ok(id)
            }
        }
    }

    /// Keeps the row id [`RunLog::record`] returned, for the next tier of the same
    /// transaction and those after it; a writer whose transaction then does not commit puts
    /// back the log it had before (a copy).
    pub fn committed(&mut self, id: i64) {
        self.id = Some(id);
    }
}

/// Raises `peak_memory_bytes` to parameter 4 (NULL on either side: unknown, ignored).
const RAISE_PEAK_TO_4: &str = "peak_memory_bytes = CASE WHEN ?4 IS NULL THEN peak_memory_bytes
                                                        WHEN peak_memory_bytes IS NULL THEN ?4
                                                        ELSE max(peak_memory_bytes, ?4) END";

/// A stored run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SolveRun {
    /// Row id (runs are numbered in the order they committed their first tier).
    pub id: i64,
    /// The solve it solved tiers of.
    pub solve_id: i64,
    /// When it started (UTC, `YYYY-MM-DD HH:MM:SS`).
    pub started_at: String,
    /// Its last commit, or its end once it ended (UTC).
    pub updated_at: String,
    /// The total it aimed for.
    pub target_total: u32,
    /// Tiers it committed.
    pub tiers: u64,
    /// Their positions.
    pub positions: u64,
    /// Its wall-clock seconds up to its last commit (or its end).
    pub seconds: f64,
    /// `positions / seconds` (`None` when no time was counted).
    pub positions_per_second: Option<f64>,
    /// The peak resident memory of its process, in bytes, if known.
    pub peak_memory_bytes: Option<u64>,
    /// Solver threads of the process that wrote the database.
    pub threads: u32,
    /// Processes that shared the work.
    pub processes: u32,
    /// The nimdb version that ran it.
    pub nimdb_version: String,
    /// How it ended.
    pub outcome: RunOutcome,
}

/// A solve with the runs that solved it: what `nimdb info` lists for each solve.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SolveHistory {
    /// The solve.
    #[serde(flatten)]
    pub solve: SolveRecord,
    /// How many runs are recorded (`None`: the database predates the record, schema 5 or
    /// older, and is read as it is).
    pub run_count: Option<usize>,
    /// Positions per second over the recorded runs: their positions over their seconds.
    pub positions_per_second: Option<f64>,
    /// The greatest peak resident memory among the recorded runs, in bytes.
    pub peak_memory_bytes: Option<u64>,
    /// The recorded runs, oldest first (`None` as for `run_count`).
    pub runs: Option<Vec<SolveRun>>,
}

impl SolveHistory {
    /// `solve` with `runs` (its own, or `None` when runs are not recorded), and their totals.
    pub fn new(solve: SolveRecord, runs: Option<Vec<SolveRun>>) -> Self {
        let (rate, peak) = match &runs {
            Some(runs) => {
                let positions: u64 = runs.iter().map(|r| r.positions).sum();
                let seconds: f64 = runs.iter().map(|r| r.seconds).sum();
                (rate(positions, seconds), runs.iter().filter_map(|r| r.peak_memory_bytes).max())
            }
            None => (None, None),
        };
        SolveHistory {
            solve,
            run_count: runs.as_ref().map(Vec::len),
            positions_per_second: rate,
            peak_memory_bytes: peak,
            runs,
        }
    }
}

/// Positions per second, when time was counted.
fn rate(positions: u64, seconds: f64) -> Option<f64> {
    (seconds > 0.0).then(|| positions as f64 / seconds)
}

fn from_row(row: &Row<'_>) -> rusqlite::Result<SolveRun> {
    let positions = row.get::<_, i64>(6)?.max(0) as u64;
    let seconds: f64 = row.get(7)?;
    Ok(SolveRun {
        id: row.get(0)?,
        solve_id: row.get(1)?,
        started_at: row.get(2)?,
        updated_at: row.get(3)?,
        target_total: row.get(4)?,
        tiers: row.get::<_, i64>(5)?.max(0) as u64,
        positions,
        seconds,
        positions_per_second: rate(positions, seconds),
        peak_memory_bytes: row.get::<_, Option<i64>>(8)?.map(|b| b.max(0) as u64),
        threads: row.get(9)?,
        processes: row.get(10)?,
        nimdb_version: row.get(11)?,
        outcome: RunOutcome::parse(&row.get::<_, String>(12)?),
    })
}

impl Database {
    /// Whether this database records solve runs (schema version 6 or newer; an older one
    /// read as it is does not).
    pub fn records_runs(&self) -> bool {
        self.schema_version() >= RUNS_SINCE_VERSION
    }

    /// Every recorded run, by solve and then in order (`None` when the database does not
    /// record runs).
    pub fn solve_runs(&self) -> Result<Option<Vec<SolveRun>>, StoreError> {
        if !self.records_runs() {
            return Ok(None);
        }
        let mut stmt = self.conn.prepare(
            "SELECT id, solve_id, started_at, updated_at, target_total, tiers, positions, seconds,
                    peak_memory_bytes, threads, processes, nimdb_version, outcome
             FROM solve_runs ORDER BY solve_id, id",
        )?;
        let runs = stmt.query_map([], from_row)?.collect::<Result<Vec<_>, _>>()?;
        Ok(Some(runs))
    }

    /// Every stored solve by id, each with its recorded runs.
    pub fn solve_histories(&self) -> Result<Vec<SolveHistory>, StoreError> {
        let mut solves = self.solves()?;
        solves.sort_by_key(|s| s.id);
        let mut by_solve = self.solve_runs()?.map(|runs| {
            let mut map = std::collections::HashMap::<i64, Vec<SolveRun>>::new();
            for run in runs {
                map.entry(run.solve_id).or_default().push(run);
            }
            map
        });
        Ok(solves
            .into_iter()
            .map(|solve| {
                let own = by_solve.as_mut().map(|map| map.remove(&solve.id).unwrap_or_default());
                SolveHistory::new(solve, own)
            })
            .collect())
    }

    /// Ends run `run_id`: records `outcome`, adds `seconds` (the run's time after its last
    /// committed tier) to the run and to its solve's `solve_seconds`, and raises its peak to
    /// `peak_memory_bytes`, in one transaction.
    pub fn end_run(
        &self,
        run_id: i64,
        outcome: RunOutcome,
        seconds: f64,
        peak_memory_bytes: Option<u64>,
    ) -> Result<(), StoreError> {
        let seconds = seconds.max(0.0);
        let peak = peak_memory_bytes.map(|b| b.min(i64::MAX as u64) as i64);
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)?;
        tx.execute(
            "UPDATE solves SET solve_seconds = solve_seconds + ?2, updated_at = datetime('now')
             WHERE id = (SELECT solve_id FROM solve_runs WHERE id = ?1)",
            params![run_id, seconds],
        )?;
        tx.execute(
            &format!(
                "UPDATE solve_runs SET seconds = seconds + ?2, outcome = ?3, {RAISE_PEAK_TO_4},
                    updated_at = datetime('now')
                 WHERE id = ?1"
            ),
            params![run_id, seconds, outcome.as_str(), peak],
        )?;
        tx.commit()?;
        Ok(())
    }
}
