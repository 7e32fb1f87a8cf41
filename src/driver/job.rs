//! One solve of any game, checked before it runs: [`SolveJob`].
//!
//! Every face that solves (`nimdb solve`, its MPI ranks, a query that solves on the spot,
//! `serve --solve-up-to`, the Python package's `Database.solve` and `nimdb.estimate`) asks
//! for a solve the same way: a game, a convention and the bounds a person gives
//! ([`SolveBounds`]). The job checks the bounds against the game's rules, keys the solve
//! ([`SolveJob::key`], the one key of the `solves` table), estimates what it costs on the
//! threads of the pool it will run on (the face's: rayon's global pool for `nimdb solve` and
//! Python's `Database.solve`, [`pool_threads`](crate::solve::pool_threads); a server's or a
//! Python query's answer threads, [`AnswerThreads`](crate::query::AnswerThreads)), plans
//! it against the memory budget and the disk ([`SolveJob::plan`]), and runs it
//! ([`SolveJob::run`]) on that pool. Which solver runs is the job's business: a heap game's specialised
//! tier solvers over its universe (which may spill lower tiers to disk and may be shared by
//! an MPI job's ranks), or the generic family solver over the family's position space. No
//! face branches on the kind of game.

use std::collections::BTreeSet;
use std::path::Path;

use crate::game::{Convention, Game, GameSpec};
use crate::index::{PositionSpace, SpaceBounds, TierId, Universe, UniverseError};
use crate::resources::{MemoryBudget, ResourceError};
use crate::solve::{Estimate, MAX_SOLVE_TOTAL, Progress, SolveOptions, SolveReport, Spill};
use crate::space::BoundsError;
use crate::store::{Database, SolveKey, SolveRecord};

use super::DriverError;

/// The bounds a solve is asked for, as a person gives them (each optional; which ones a
/// game takes depends on its rules).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolveBounds {
    /// Every position with at most this many tokens (a staircase: weighted sum Σ i·cᵢ).
    pub max_total: Option<u32>,
    /// Only positions whose heaps are all at most this size.
    pub max_heap: Option<u32>,
    /// Only positions with at most this many heaps.
    pub max_heaps: Option<u32>,
}

/// Why a solve was refused before it ran (each face names its own flags or keywords).
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// A heap game's bounds do not make a universe.
    #[error(transparent)]
    Universe(#[from] UniverseError),
    /// A family's bounds do not fit its rules, or the total is past what a solve takes.
    #[error(transparent)]
    Bounds(#[from] BoundsError),
    /// Nim-values are stored for heap games only.
    #[error("nim-values are not stored for {0}: its solve stores outcome and remoteness")]
    NoNimValues(String),
    /// The game's moves are not known here (a game defined in Python, read from a database).
    #[error(
        "{0} is defined in Python: its moves are the defining function's, so it is solved from Python (Database.solve)"
    )]
    NoMoves(String),
    /// A window limit asked of a solver that keeps every tier it reads in memory.
    #[error(
        "a window limit does not apply to {0}: its solver keeps every tier it reads in memory and never spills (a memory limit bounds the solve, and a dry run shows its cost)"
    )]
    NoWindow(String),
    /// An MPI job (or its estimate) asked of a game that one process solves.
    #[error("an MPI job solves heap games only: {0} is solved by one process")]
    NotPartitioned(String),
    /// The solve does not fit the memory budget, the disk or the file-size limit.
    #[error(transparent)]
    Resource(#[from] ResourceError),
}

/// What a solve covers: a heap game's universe, or a family's position space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reach {
    /// A universe of a heap game.
    Universe(Universe),
    /// The bounds of a family's position space.
    Space(SpaceBounds),
}

/// The solver a job runs, with what it needs.
enum Solver {
    /// The heap game's tier solvers over its universe.
    Heaps(GameSpec, Universe),
    /// The family solver over the space.
    Family(Box<dyn PositionSpace>),
}

/// One solve of any game, checked: its key, what it covers and what it costs. Made by
/// [`SolveJob::new`]; planned against the machine by [`SolveJob::plan`]; run by
/// [`SolveJob::run`], which resumes from (and extends) the stored solve with the same key.
///
/// ```
/// use nimdb::driver::{SolveBounds, SolveJob};
/// use nimdb::game::Game;
/// use nimdb::{Convention, Database};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let mut db = Database::open_in_memory()?;
/// for (name, bounds) in [
///     ("kayles", SolveBounds { max_total: Some(10), ..Default::default() }),
///     ("staircase", SolveBounds { max_total: Some(10), max_heaps: Some(4), ..Default::default() }),
/// ] {
///     let game: Game = name.parse()?;
///     let job = SolveJob::new(&game, Convention::Misere, bounds, false, nimdb::solve::pool_threads())?;
///     let (solve, report) = job.run(&mut db, &nimdb::Silent, &job.in_memory())?;
///     assert_eq!((solve.positions, solve.solved_total), (report.positions, 10));
/// }
/// # Ok(())
/// # }
/// ```
pub struct SolveJob {
    game: Game,
    convention: Convention,
    nim_values: bool,
    /// The threads of the pool the solve runs on, which its estimate counted.
    threads: usize,
    solver: Solver,
    estimate: Estimate,
    /// Every tier the solve stores, with its positions and record width: what a resumed
    /// solve's disk is counted over ([`SolveJob::estimate_at`]).
    tiers: Vec<(TierId, u64, u64)>,
}

/// How a planned solve runs: whether its lower tiers spill to disk, and where.
#[derive(Clone, Debug)]
pub struct SolvePlan {
    /// Where the lower tiers spill (heap games past their memory budget or window limit).
    pub spill: Option<Spill>,
    /// Whether the spill is set by the window limit (rather than the memory budget).
    pub by_window_limit: bool,
    /// The mark, in pages, at which the writer folds the write-ahead log into the database
    /// ([`Estimate::log_pages`]).
    pub log_pages: u64,
}

impl SolveJob {
    /// The solve of `game` under `convention` within `bounds`, with nim-values stored when
    /// `nim_values` (heap games only), checked against the game's rules, to run on a rayon
    /// pool of `threads` threads (the estimate counts each marking thread's copies):
    /// [`pool_threads`](crate::solve::pool_threads) for rayon's global pool.
    pub fn new(
        game: &Game,
        convention: Convention,
        bounds: SolveBounds,
        nim_values: bool,
        threads: usize,
    ) -> Result<Self, JobError> {
        if !game.family().moves_known() {
            return Err(JobError::NoMoves(game.to_string()));
        }
        let reach = match game.heaps() {
            Some(spec) => {
                let SolveBounds { max_total, max_heap, max_heaps } = bounds;
                let universe =
                    Universe::new(spec.rules(), &spec.canonical(), max_total, max_heap, max_heaps)?;
                if universe.max_total > MAX_SOLVE_TOTAL {
                    return Err(BoundsError::TooLarge(universe.max_total.into()).into());
                }
                Reach::Universe(universe)
            }
            None => {
                if nim_values {
                    return Err(JobError::NoNimValues(game.to_string()));
                }
                let SolveBounds { max_total, max_heap, max_heaps } = bounds;
                Reach::Space(crate::space::space_bounds(game, max_total, max_heap, max_heaps)?)
            }
        };
        Self::over(game, convention, reach, nim_values, threads)
    }

    /// The job over `reach`, as a query's plan chose it, on a pool of `threads` threads.
    pub(crate) fn over(
        game: &Game,
        convention: Convention,
        reach: Reach,
        nim_values: bool,
        threads: usize,
    ) -> Result<Self, JobError> {
        if !game.family().moves_known() {
            return Err(JobError::NoMoves(game.to_string()));
        }
        let (solver, estimate, tiers) = match (reach, game.heaps()) {
            (Reach::Universe(universe), Some(spec)) => {
                let table = universe.table()?;
                let options = SolveOptions { convention, universe, nim_values, strategy: Default::default() };
                let estimate = crate::solve::estimate(spec, &options, &table, threads);
                let tiers = universe
                    .tiers()
                    .into_iter()
                    .map(|t| (t, table.size(t), crate::solve::record_width(t.total, nim_values)))
                    .collect();
                (Solver::Heaps(spec.clone(), universe), estimate, tiers)
            }
            (Reach::Space(bounds), _) => {
                let space = crate::index::space_for(game.family().layout(), bounds)?;
                let estimate = crate::solve::family::estimate_family(
                    space.as_ref(),
                    game.family().loopy(),
                    crate::space::moves_bound(bounds),
                );
                let tiers = space
                    .tiers()
                    .into_iter()
                    .map(|t| (t, space.size(t), crate::solve::family::RECORD_BYTES))
                    .collect();
                (Solver::Family(space), estimate, tiers)
            }
            (Reach::Universe(_), None) => unreachable!("a universe is chosen for a heap game only"),
        };
        Ok(SolveJob { game: game.clone(), convention, nim_values, threads, solver, estimate, tiers })
    }

    /// The game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The convention.
    pub fn convention(&self) -> Convention {
        self.convention
    }

    /// Whether the solve stores nim-values.
    pub fn nim_values(&self) -> bool {
        self.nim_values
    }

    /// The threads of the pool the solve runs on, as its estimate counted them.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The key the solve is stored under: one key for every game (its storage id, the
    /// convention, the caps of what it covers, and whether it stores nim-values). A later
    /// solve with the same key extends this one.
    pub fn key(&self) -> SolveKey {
        match &self.solver {
            Solver::Heaps(spec, universe) => SolveKey::new(spec, self.convention, universe, self.nim_values),
            Solver::Family(space) => super::space_key(&self.game, self.convention, &space.bounds()),
        }
    }

    /// The largest total solved.
    pub fn max_total(&self) -> u32 {
        match &self.solver {
            Solver::Heaps(_, universe) => universe.max_total,
            Solver::Family(space) => space.bounds().max_total,
        }
    }

    /// What the solve covers, in words: `total ≤ 30, heaps ≤ 8` (a staircase's total is
    /// its weighted sum).
    pub fn covers(&self) -> String {
        match &self.solver {
            Solver::Heaps(_, universe) => universe.to_string(),
            Solver::Family(space) => {
                let b = space.bounds();
                match b.max_heap.filter(|_| self.game.family().heap_cap().is_none()) {
                    Some(h) => format!("total ≤ {}, heap ≤ {h}, heaps ≤ {}", b.max_total, b.max_heaps),
                    None => format!("total ≤ {}, heaps ≤ {}", b.max_total, b.max_heaps),
                }
            }
        }
    }

    /// The family's position space, when the job solves one over it (`None` for a heap
    /// game's universe): what a program that defines a game's moves reads them over first.
    pub fn space(&self) -> Option<&dyn PositionSpace> {
        match &self.solver {
            Solver::Heaps(..) => None,
            Solver::Family(space) => Some(space.as_ref()),
        }
    }

    /// What the solve will take: tiers, positions, memory and disk.
    pub fn estimate(&self) -> &Estimate {
        &self.estimate
    }

    /// The tiers of this solve already stored in the database file `db` (under the job's
    /// [key](SolveJob::key)), read without writing anything; none when there is no file, no
    /// such solve, or the file cannot be read (the whole solve is then counted).
    pub fn stored_at(&self, db: &Path) -> BTreeSet<TierId> {
        let stored = || -> Result<BTreeSet<TierId>, crate::store::StoreError> {
            let Some(db) = Database::open_for_reading(db)? else { return Ok(BTreeSet::new()) };
            match db.find_solve(&self.key())? {
                Some(solve) => db.stored_tiers(solve.id),
                None => Ok(BTreeSet::new()),
            }
        };
        stored().unwrap_or_default()
    }

    /// What the solve will take into the database file `db`: [`estimate`](Self::estimate),
    /// with the disk counted over the tiers not stored there yet ([`stored_at`](Self::stored_at),
    /// [`Estimate::with_tiers_left`]): a solve that resumes or extends a stored one is
    /// planned for what remains.
    pub fn estimate_at(&self, db: &Path) -> Estimate {
        let stored = self.stored_at(db);
        if stored.is_empty() {
            return self.estimate;
        }
        let left = self.tiers.iter().filter(|(t, _, _)| !stored.contains(t)).map(|&(_, n, w)| (n, w));
        self.estimate.with_tiers_left(left)
    }

    /// The CPU time the solve is expected to take, at the rate measured for its kind of
    /// game ([`cpu_time`](super::cpu_time)); `None` for a game defined by a program.
    pub fn cpu_time(&self) -> Option<super::CpuTime> {
        super::cpu_time(&self.game, self.estimate.positions)
    }

    /// What the estimate's memory holds, in words.
    pub fn memory_words(&self) -> String {
        match &self.solver {
            Solver::Heaps(spec, universe) => format!(
                "tiers within {} tokens of the one being solved",
                crate::solve::reach(spec.rules(), universe)
            ),
            Solver::Family(_) if self.game.family().loopy() => {
                "every tier, and the whole game graph: a loopy game is solved whole".to_string()
            }
            Solver::Family(_) => "every tier".to_string(),
        }
    }

    /// The heap game and its universe, when the job solves one: what an MPI job's ranks
    /// share (the partitioned solver is a capability of the heap games' tier solvers).
    pub fn partitioned(&self) -> Result<(&GameSpec, Universe), JobError> {
        match &self.solver {
            Solver::Heaps(spec, universe) => Ok((spec, *universe)),
            Solver::Family(_) => Err(JobError::NotPartitioned(self.game.to_string())),
        }
    }
}

/// Whether an MPI job can solve `game` (its ranks share a heap game's tier solvers): what
/// every rank checks before MPI starts, without building the job.
pub fn partitionable(game: &Game) -> Result<(), JobError> {
    match game.heaps() {
        Some(_) => Ok(()),
        None => Err(JobError::NotPartitioned(game.to_string())),
    }
}

impl SolveJob {
    /// Plans the solve against `budget` and the disk beside `db` (and the file-size limit),
    /// as every face does before it writes: a heap game's lower tiers that do not fit the
    /// budget, or pass `window_limit`, spill to mapped files beside the database; a solve
    /// whose rest does not fit is refused, and so is a window limit for a solver that never
    /// spills. `what` names the solve in a refusal. Reads only.
    pub fn plan(
        &self,
        budget: &MemoryBudget,
        window_limit: Option<u64>,
        what: &str,
        db: &Path,
    ) -> Result<SolvePlan, JobError> {
        if window_limit.is_some() && matches!(self.solver, Solver::Family(_)) {
            return Err(JobError::NoWindow(self.game.to_string()));
        }
        // The disk for the tiers not stored yet: a resumed solve needs only theirs.
        let estimate = self.estimate_at(db);
        let by_budget = estimate.plan(budget, what, db)?;
        let window = match (by_budget, window_limit) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
        .filter(|&bytes| bytes < self.estimate.window_bytes);
        let spilled = window.map_or(0, |w| self.estimate.window_bytes.saturating_sub(w));
        Ok(SolvePlan {
            by_window_limit: window.is_some() && window == window_limit,
            spill: window.map(|bytes| Spill::beside(db, bytes)),
            log_pages: estimate.log_pages(db, spilled),
        })
    }

    /// The plan of a solve held whole in memory (nothing spills): what a solve on the spot
    /// runs with once it was checked to fit.
    pub fn in_memory(&self) -> SolvePlan {
        SolvePlan { spill: None, by_window_limit: false, log_pages: crate::footprint::TIGHT_LOG_PAGES }
    }

    /// Runs the solve into `db` as `plan` says, resuming from (and extending) the stored
    /// solve with the same [key](SolveJob::key), on the rayon pool it is called in: the one
    /// of [`threads`](Self::threads) threads it was estimated for. Returns the solve as
    /// stored afterwards and the run's figures.
    pub fn run(
        &self,
        db: &mut Database,
        progress: &dyn Progress,
        plan: &SolvePlan,
    ) -> Result<(SolveRecord, SolveReport), DriverError> {
        debug_assert_eq!(
            self.threads,
            rayon::current_num_threads(),
            "a solve runs on the pool its estimate counted"
        );
        db.set_log_pages(plan.log_pages);
        match &self.solver {
            Solver::Heaps(spec, universe) => super::solve_into_spilling(
                db,
                spec,
                self.convention,
                *universe,
                self.nim_values,
                progress,
                plan.spill.as_ref(),
            ),
            // A plan for a family never spills (`plan` refuses a window limit, and its
            // estimate has no window to spill).
            Solver::Family(space) => {
                super::solve_space_into(db, &self.game, self.convention, space.as_ref(), progress)
            }
        }
    }
}
