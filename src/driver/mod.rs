//! The solve driver: solving a game into a database.
//!
//! The solver ([`crate::solve`]) writes solved tiers to a sink ([`TierStore`]) and knows
//! nothing of SQLite; the store ([`crate::store`]) reads and writes whole tiers and knows
//! nothing of solving. This module joins them: [`DatabaseSink`] adapts the store's plain
//! tier API to the solver's sink, and [`solve_into`] runs a whole solve into a database,
//! resuming from and extending the stored solve with the same key. Queries that solve on
//! the spot, `nimdb play` and `nimdb solve` all come through here.

mod heaps;
mod job;
mod rate;

use std::collections::BTreeSet;

pub use heaps::{HeapRun, STRETCH, heap_report, run_heaps, run_heaps_until, stored_values};
pub(crate) use job::Reach;
pub use job::{JobError, SolveBounds, SolveJob, SolvePlan, partitionable};
pub use rate::{CpuTime, cpu_time, duration_words};

use crate::game::{Convention, Game, GameSpec};
use crate::index::{PositionSpace, SpaceBounds, TierId, Universe};
use crate::solve::{
    Alone, PartSink, PartSource, Progress, SinkError, SolveError, SolveOptions, SolveReport, SolvedTier,
    Spill, Strategy, TierHead, TierStore,
};
use crate::store::{
    Database, RunOutcome, RunStart, RunTick, SolveKey, SolveRecord, StoreError, StoredTier, TierWriter,
    TotalEnds,
};

/// Why a solve into a database failed.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The solve failed.
    #[error(transparent)]
    Solve(SolveError),
    /// The cached heap values could not be computed.
    #[error(transparent)]
    Theory(#[from] crate::theory::TheoryError),
}

impl From<SolveError> for DriverError {
    fn from(e: SolveError) -> Self {
        // A store failure reported through the solver's sink is the store's.
        match e {
            SolveError::Sink(SinkError(inner)) => match inner.downcast::<StoreError>() {
                Ok(store) => DriverError::Store(*store),
                Err(other) => DriverError::Solve(SolveError::Sink(SinkError(other))),
            },
            other => DriverError::Solve(other),
        }
    }
}

/// The tiers of one stored solve, as the solver's sink: resumes from the tiers stored and
/// writes new ones through a [`TierWriter`] (in the background for a database file).
///
/// Each tier saved carries the run's wall-clock time since the sink was made or the
/// previous tier was saved, and the process's peak resident memory so far
/// ([`crate::resources::peak_resident_bytes`], read once per tier); both go into the run's
/// row in `solve_runs`, and the time into the solve's `solve_seconds`, when the tier
/// commits: a run killed later keeps an exact record of everything it committed.
pub struct DatabaseSink<'a> {
    db: &'a Database,
    solve_id: i64,
    max_total: u32,
    writer: TierWriter<'a>,
    last_save: std::time::Instant,
    counted: f64,
}

impl<'a> DatabaseSink<'a> {
    /// The sink of `solve`, solving up to `universe` (which has the solve's caps), as a run
    /// of this process alone.
    pub fn new(db: &'a Database, solve: &SolveRecord, universe: Universe) -> Self {
        Self::shared_by(db, solve, universe, 1)
    }

    /// [`DatabaseSink::new`] for a run whose work `processes` processes share (an MPI job's
    /// ranks), this one writing the database.
    pub fn shared_by(db: &'a Database, solve: &SolveRecord, universe: Universe, processes: usize) -> Self {
        let threads = rayon::current_num_threads();
        let run = RunStart::now(universe.max_total, clamp_u32(threads), clamp_u32(processes));
        DatabaseSink {
            db,
            solve_id: solve.id,
            max_total: universe.max_total,
            writer: TierWriter::new(db, solve, universe, run),
            last_save: std::time::Instant::now(),
            counted: 0.0,
        }
    }

    /// The sink of `solve` over a family's position space (see
    /// [`crate::index::PositionSpace`]), as a run of this process alone.
    pub fn for_space(db: &'a Database, solve: &SolveRecord, space: &dyn PositionSpace) -> Self {
        let max_total = space.bounds().max_total;
        let last: std::collections::HashMap<u32, TierId> =
            (0..=max_total).filter_map(|t| space.tiers_of_total(t).last().map(|&tier| (t, tier))).collect();
        let ends: TotalEnds = std::sync::Arc::new(move |tier: TierId| last.get(&tier.total) == Some(&tier));
        let run = RunStart::now(max_total, 1, 1);
        DatabaseSink {
            db,
            solve_id: solve.id,
            max_total,
            writer: TierWriter::with_ends(db, solve, ends, run),
            last_save: std::time::Instant::now(),
            counted: 0.0,
        }
    }

    /// Waits until every saved tier is committed, then ends the run's record (when it
    /// committed a tier) with `outcome`, the time since the last tier and the peak memory.
    /// Returns the writer's failure first, else the record's.
    fn end_run(mut self, outcome: RunOutcome) -> Result<(), StoreError> {
        let finished = self.writer.finish();
        let tail = self.last_save.elapsed().as_secs_f64();
        let outcome = if finished.is_err() { RunOutcome::Failed } else { outcome };
        let ended = match self.writer.run_id() {
            Some(run) => self.db.end_run(run, outcome, tail, crate::resources::peak_resident_bytes()),
            None => Ok(()),
        };
        finished.and(ended)
    }
}

impl DatabaseSink<'_> {
    /// What a tier saved now adds to the run: the time since the last one, and the
    /// process's peak memory so far.
    fn tick(&mut self) -> RunTick {
        let now = std::time::Instant::now();
        let run_seconds = now.duration_since(self.last_save).as_secs_f64();
        self.last_save = now;
        self.counted += run_seconds;
        RunTick { seconds: run_seconds, peak_memory_bytes: crate::resources::peak_resident_bytes() }
    }
}

/// `n`, or `u32::MAX` if it is larger.
fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl TierStore for DatabaseSink<'_> {
    fn solved_tiers(&mut self) -> Result<BTreeSet<TierId>, SinkError> {
        let stored = self.db.stored_tiers(self.solve_id).map_err(SinkError::new)?;
        Ok(stored.into_iter().filter(|t| t.total <= self.max_total).collect())
    }

    fn load(&mut self, tier: TierId) -> Result<SolvedTier, SinkError> {
        let StoredTier { tier, remoteness, nim_values, seconds } =
            self.db.load_tier(self.solve_id, tier).map_err(SinkError::new)?;
        Ok(SolvedTier { tier, remoteness, nim_values, seconds })
    }

    fn save(&mut self, solved: SolvedTier) -> Result<(), SinkError> {
        let SolvedTier { tier, remoteness, nim_values, seconds } = solved;
        let tick = self.tick();
        self.writer
            .write_in_run(StoredTier { tier, remoteness, nim_values, seconds }, tick)
            .map_err(SinkError::new)
    }

    fn load_in_parts(&mut self, tier: TierId, into: &mut dyn PartSink) -> Result<(), SinkError> {
        let mut parts = self.db.tier_in_parts(self.solve_id, tier).map_err(SinkError::new)?;
        into.head(parts.positions(), parts.max_remoteness())?;
        while let Some(values) = parts.next_block().map_err(SinkError::new)? {
            into.part(&values)?;
        }
        Ok(())
    }

    fn save_in_parts(&mut self, head: &TierHead, parts: &mut PartSource<'_>) -> Result<(), SinkError> {
        self.writer
            .begin_parts(head.tier, head.positions, head.max_remoteness, head.seconds)
            .map_err(SinkError::new)?;
        let writer = &mut self.writer;
        if let Err(e) = parts(&mut |part| writer.write_part(part).map_err(SinkError::new)) {
            writer.abandon_parts().ok();
            return Err(e);
        }
        let tick = self.tick();
        self.writer.end_parts(tick).map_err(SinkError::new)
    }

    fn finish(&mut self) -> Result<(), SinkError> {
        self.writer.finish().map_err(SinkError::new)
    }
}

/// Solves `game` over `universe` into `db`, resuming from (and extending) the stored solve
/// with the same key. Returns the solve as stored afterwards and the run's figures.
///
/// ```
/// use nimdb::{Convention, Database, GameSpec, Universe};
///
/// # fn main() -> Result<(), nimdb::Error> {
/// let dir = tempfile::tempdir().unwrap();
/// let mut db = Database::open(&dir.path().join("kayles.sqlite"))?;
/// let kayles: GameSpec = "kayles".parse()?;
/// let to = |total| Universe::new(kayles.rules(), "kayles", Some(total), None, None);
/// let (first, _) = nimdb::solve_into(&mut db, &kayles, Convention::Normal, to(8)?, false, &nimdb::Silent)?;
/// // A larger total extends the same solve: the tiers up to 8 are reused.
/// let (solve, _) = nimdb::solve_into(&mut db, &kayles, Convention::Normal, to(10)?, false, &nimdb::Silent)?;
/// assert_eq!((solve.id, solve.solved_total), (first.id, 10));
/// # Ok(())
/// # }
/// ```
pub fn solve_into(
    db: &mut Database,
    game: &GameSpec,
    convention: Convention,
    universe: Universe,
    nim_values: bool,
    progress: &dyn Progress,
) -> Result<(SolveRecord, SolveReport), DriverError> {
    solve_into_with(db, game, convention, universe, nim_values, 1, |options, sink| {
        crate::solve::solve(game, options, sink, progress)
    })
}

/// [`solve_into`], holding at most `spill.budget` bytes of lower tiers in memory and
/// spilling the rest to mapped files (see [`Spill`]): the same tiers in bounded memory.
pub fn solve_into_spilling(
    db: &mut Database,
    game: &GameSpec,
    convention: Convention,
    universe: Universe,
    nim_values: bool,
    progress: &dyn Progress,
    spill: Option<&Spill>,
) -> Result<(SolveRecord, SolveReport), DriverError> {
    solve_into_with(db, game, convention, universe, nim_values, 1, |options, sink| {
        crate::solve::solve_with(game, options, sink, progress, &Alone, spill)
    })
}

/// [`solve_into`] with the solver call left to `run`, which gets the options and the
/// database's sink: a caller can wrap the sink (an MPI job's rank 0 broadcasts what it
/// reads) or solve as one member of a team ([`crate::solve::solve_on_team`]) of
/// `processes` processes, which the run's record notes.
///
/// The run is recorded in `solve_runs` as its tiers commit; when it ends, its record says
/// how (complete, interrupted, failed) and gets the time after its last tier.
pub fn solve_into_with(
    db: &mut Database,
    game: &GameSpec,
    convention: Convention,
    universe: Universe,
    nim_values: bool,
    processes: usize,
    run: impl FnOnce(&SolveOptions, &mut dyn TierStore) -> Result<SolveReport, SolveError>,
) -> Result<(SolveRecord, SolveReport), DriverError> {
    let key = SolveKey::new(game, convention, &universe, nim_values);
    let solve_row = db.begin_solve(&key, universe.max_total)?;
    let options = SolveOptions { convention, universe, nim_values, strategy: Strategy::default() };
    let mut sink = DatabaseSink::shared_by(db, &solve_row, universe, processes);
    let result = run(&options, &mut sink);
    finish_run(db, &key, sink, result)
}

/// Ends the run's record with how the solve ended, then returns the solve as stored and the
/// run's figures: the solve's own failure first, the record's only when the solve succeeded.
fn finish_run(
    db: &Database,
    key: &SolveKey,
    sink: DatabaseSink<'_>,
    result: Result<SolveReport, SolveError>,
) -> Result<(SolveRecord, SolveReport), DriverError> {
    let outcome = match &result {
        Ok(_) => RunOutcome::Complete,
        Err(SolveError::Interrupted { .. }) => RunOutcome::Interrupted,
        Err(_) => RunOutcome::Failed,
    };
    let ended = sink.end_run(outcome);
    let report = result?;
    ended?;
    let solve_row = db.find_solve(key)?.ok_or(StoreError::Corrupt(format!(
        "the solve of {} just written is missing from the database",
        key.game
    )))?;
    Ok((solve_row, report))
}

/// The solve key of a family: its name, the convention, and the bounds (the heap count
/// cap as `max_heaps`; the heap cap, where the rules have one, is the game's own).
pub fn space_key(game: &Game, convention: Convention, bounds: &SpaceBounds) -> SolveKey {
    SolveKey {
        game: game.storage_id(),
        convention,
        // A heap bound the rules set (raise:C's cap) follows from the game; one asked for (a
        // hypergraph's row, each heap at most H) keys the solve.
        max_heap: bounds.max_heap.filter(|_| game.family().heap_cap().is_none()),
        max_heaps: Some(bounds.max_heaps),
        nim_values: false,
    }
}

/// Solves a family over `space` into `db`, resuming from (and extending) the stored
/// solve with the same key. Returns the solve as stored afterwards and the run's figures.
pub fn solve_space_into(
    db: &mut Database,
    game: &Game,
    convention: Convention,
    space: &dyn PositionSpace,
    progress: &dyn Progress,
) -> Result<(SolveRecord, SolveReport), DriverError> {
    let key = space_key(game, convention, &space.bounds());
    let solve_row = db.begin_solve(&key, space.bounds().max_total)?;
    let mut sink = DatabaseSink::for_space(db, &solve_row, space);
    let result = crate::solve::family::solve_family(game.family(), space, convention, &mut sink, progress);
    finish_run(db, &key, sink, result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::Silent;

    #[test]
    fn solves_into_a_database_in_memory() {
        let mut db = Database::open_in_memory().unwrap();
        let nim = GameSpec::nim();
        let universe = Universe::new(nim.rules(), "nim", Some(12), None, None).unwrap();
        let (solve, report) =
            solve_into(&mut db, &nim, Convention::Normal, universe, false, &Silent).unwrap();
        assert_eq!(solve.status, crate::store::SolveStatus::Complete);
        assert_eq!(solve.positions, report.positions);
        assert_eq!(db.stored_tiers(solve.id).unwrap().len(), universe.tiers().len());
        // Resuming finds everything stored, and lookups read it back.
        let (again, report) =
            solve_into(&mut db, &nim, Convention::Normal, universe, false, &Silent).unwrap();
        assert_eq!((again.id, report.tiers_now), (solve.id, 0));
        let mut prober = crate::store::Prober::new(&db, again, 12).unwrap();
        let loss = crate::game::Position::from_sorted(vec![3, 2, 1]);
        let win = crate::game::Position::from_sorted(vec![3, 2, 2]);
        assert!(!Convention::Normal.is_win(prober.record(&loss).unwrap().unwrap().remoteness as u32));
        assert!(Convention::Normal.is_win(prober.record(&win).unwrap().unwrap().remoteness as u32));
    }

    #[test]
    fn a_query_solves_on_the_spot_into_memory() {
        use crate::answer::Source;
        use crate::query::query;
        let mut db = Database::open_in_memory().unwrap();
        let kayles: GameSpec = "kayles".parse().unwrap();
        let p = crate::game::Position::from_sorted(vec![5, 3]);
        let first =
            query(&mut db, &kayles.clone().into(), Convention::Misere, &p.cells(), 1_000_000).unwrap();
        assert_eq!(first.source, Source::Solved);
        let again =
            query(&mut db, &kayles.clone().into(), Convention::Misere, &p.cells(), 1_000_000).unwrap();
        assert_eq!(again.source, Source::Database);
        assert_eq!((again.outcome, again.remoteness), (first.outcome, first.remoteness));
    }
}
