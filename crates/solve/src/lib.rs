//! The solver: outcome and remoteness of every position of a universe, tier by tier.
//!
//! Two strategies share one driver contract ([`TierStore`] in, [`SolvedTier`] out):
//! - [`Strategy::Retrograde`] (the default) works back from the losses. A position is a win
//!   as soon as one child is a loss, and losses are rare, so each loss marks its parents
//!   (un-moves) with a win remoteness; the unmarked positions of a finished tier are the
//!   losses, and only they read their children, to find how long they can delay.
//! - [`Strategy::Sweep`] visits every child of every position: the only way to get
//!   nim-values, which need every edge. The speed-up figures are measured against an
//!   independent plain sweep that shares no code with either (`benches/plain`).
//!
//! [`reference`](mod@reference) holds an independent forward search (memoized minimax) that the tests
//! compare both against.
#![warn(missing_docs)]

use nimdb_core::{game, index, resources};

mod copies;
pub mod family;
mod losses;
mod partitioned;
pub mod reference;
mod retrograde;
mod shape;
mod sweep;
mod team;
mod totals;
mod window;
mod wire;

pub use partitioned::{
    ASKED, GATHER_PART, LEADER_EXTRA_BYTES, MORE, OFFER_BATCH, OPEN, Partners, RANK_PROCESS_BYTES,
    RankEstimate, block, estimate_ranks, owner, take_all,
};
#[doc(hidden)]
pub use retrograde::keep_on_the_solving_thread;
#[doc(hidden)]
pub use shape::{Routine, loss_neighbour_ranks, marking_ranks, neighbour_ranks};
pub use team::{Alone, Team};
pub use window::Spill;
pub use wire::{MAX_BLOCK, decode_words, encode_words, sort_pairs, sort_words};

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::time::Instant;

use crate::game::{Convention, GameRules, GameSpec, RulesVisitor, TierRules};
use crate::index::{PartitionTable, TierId, Universe};
use crate::resources::{MemoryBudget, ResourceError, file_size_limit, free_disk};

/// The largest total a solve accepts: remoteness is below twice the total and must fit,
/// with room for the solver's markers, in 16 bits.
pub const MAX_SOLVE_TOTAL: u32 = 30_000;

/// The remoteness value of a position not yet known.
pub const UNKNOWN: u16 = u16::MAX;

/// A solved tier: one remoteness (and optionally nim-value) per position, in rank order.
#[derive(Clone, Debug, PartialEq)]
pub struct SolvedTier {
    /// Which tier.
    pub tier: TierId,
    /// Remoteness by rank. The outcome follows from its parity (see [`Convention::is_win`]).
    pub remoteness: Vec<u16>,
    /// Nim-values by rank (misère nim-values under misère play), when computed.
    pub nim_values: Option<Vec<u16>>,
    /// Seconds spent solving this tier.
    pub seconds: f64,
}

impl SolvedTier {
    /// The number of losses for the player to move.
    pub fn losses(&self, convention: Convention) -> u64 {
        self.remoteness.iter().filter(|&&r| convention.loses(r)).count() as u64
    }

    /// The greatest remoteness in the tier.
    pub fn max_remoteness(&self) -> u16 {
        self.remoteness.iter().copied().max().unwrap_or(0)
    }
}

/// Why a [`TierStore`] failed: the sink's own error, boxed.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct SinkError(pub Box<dyn std::error::Error + Send + Sync + 'static>);

impl SinkError {
    /// Wraps a sink's error.
    pub fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>) -> Self {
        SinkError(error.into())
    }
}

/// Why a solve failed.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The universe's total is beyond what remoteness can hold.
    #[error("a total of {0} is too large to solve (at most {MAX_SOLVE_TOTAL})")]
    TooLarge(u32),
    /// The universe cannot be indexed.
    #[error(transparent)]
    Universe(#[from] crate::index::UniverseError),
    /// The tier store failed.
    #[error(transparent)]
    Sink(#[from] SinkError),
    /// A stored tier holds the wrong number of positions.
    #[error("stored tier {tier} is corrupt: it holds {held} positions, expected {expected}")]
    CorruptTier {
        /// The tier.
        tier: TierId,
        /// Positions it holds.
        held: u64,
        /// Positions it should hold.
        expected: u64,
    },
    /// A nim-value solve cannot resume from tiers stored without nim-values.
    #[error("stored tier {0} has no nim-values to resume from")]
    NoNimValues(TierId),
    /// Only the retrograde strategy splits its work over a team.
    #[error("only the retrograde solver runs on a team of {0} processes; the sweep and nim-values run alone")]
    TeamUnsupported(usize),
    /// Stopped on request (see [`Progress::interrupted`]) after committing every tier it
    /// finished; solving again resumes from there.
    #[error("interrupted after solving {tiers} tiers ({positions} positions) in this run; they are stored")]
    Interrupted {
        /// Tiers solved and stored in this run.
        tiers: u64,
        /// Their positions.
        positions: u64,
    },
    /// A tier could not be spilled to disk.
    #[error("cannot spill a tier to disk: {0}")]
    Spill(std::io::Error),
    /// A loopy game is solved whole, and this one is too large for that.
    #[error("a loopy game is solved whole, and {positions} positions exceed its limit of {limit}")]
    LoopyTooLarge {
        /// Positions in the space.
        positions: u64,
        /// The most a loopy solve takes.
        limit: u64,
    },
    /// A remoteness does not fit the records (a loopy game with a play longer than 65,533 moves).
    #[error("a remoteness of {0} does not fit a record")]
    RemotenessOverflow(u32),
    /// The team failed to combine a tier.
    #[error("the team failed: {0}")]
    Team(String),
}

/// Where solved tiers go, and where a resumed solve finds the ones already done.
pub trait TierStore {
    /// The tiers already solved and stored.
    fn solved_tiers(&mut self) -> Result<BTreeSet<TierId>, SinkError>;
    /// A stored tier's values (remoteness and nim-values if any).
    fn load(&mut self, tier: TierId) -> Result<SolvedTier, SinkError>;
    /// Stores a newly solved tier, given to the store to keep (a store that writes it in
    /// the background takes it without a copy). Tiers arrive in solve order; a store may
    /// write them in the background, but must keep that order and commit each tier whole.
    fn save(&mut self, solved: SolvedTier) -> Result<(), SinkError>;
    /// Waits until every saved tier is stored, and reports any failure.
    fn finish(&mut self) -> Result<(), SinkError> {
        Ok(())
    }
    /// Reads a stored tier's remoteness into `into`: its head, then its values in parts, in
    /// rank order. A store that can read a tier in parts never holds it whole; this default
    /// loads the tier and hands it over in parts.
    fn load_in_parts(&mut self, tier: TierId, into: &mut dyn PartSink) -> Result<(), SinkError> {
        let solved = self.load(tier)?;
        into.head(solved.remoteness.len() as u64, solved.max_remoteness())?;
        solved.remoteness.chunks(GATHER_PART).try_for_each(|part| into.part(part))
    }
    /// Stores a newly solved tier (remoteness only, no nim-values) whose values come in
    /// parts: `parts` hands each part, in rank order, to the function it is given. A store
    /// that can write a tier in parts never holds it whole; this default collects the parts
    /// and [saves](TierStore::save) the tier. Call `parts` once: a team's members send
    /// their blocks through it.
    fn save_in_parts(&mut self, head: &TierHead, parts: &mut PartSource<'_>) -> Result<(), SinkError> {
        let mut remoteness = Vec::new();
        parts(&mut |part| {
            remoteness.extend_from_slice(part);
            Ok(())
        })?;
        self.save(SolvedTier { tier: head.tier, remoteness, nim_values: None, seconds: head.seconds })
    }
}

/// Where a stored tier read in parts goes ([`TierStore::load_in_parts`]): its head, then
/// its values in rank order.
pub trait PartSink {
    /// The tier's positions and greatest remoteness, before any value.
    fn head(&mut self, positions: u64, max_remoteness: u16) -> Result<(), SinkError>;
    /// The next values, in rank order.
    fn part(&mut self, values: &[u16]) -> Result<(), SinkError>;
    /// Ends the tier, read whole or not: a team's sink completes what its members wait for.
    /// Calling it again does nothing.
    fn close(&mut self) -> Result<(), SinkError> {
        Ok(())
    }
}

/// A [`PartSink`] that keeps the whole tier: for a team of one, and for tests.
#[derive(Clone, Debug, Default)]
pub struct WholeTier {
    /// The head given: positions and greatest remoteness.
    pub head: Option<(u64, u16)>,
    /// The values given.
    pub values: Vec<u16>,
}

impl PartSink for WholeTier {
    fn head(&mut self, positions: u64, max_remoteness: u16) -> Result<(), SinkError> {
        self.head = Some((positions, max_remoteness));
        Ok(())
    }
    fn part(&mut self, values: &[u16]) -> Result<(), SinkError> {
        self.values.extend_from_slice(values);
        Ok(())
    }
}

/// What a tier given in parts ([`TierStore::save_in_parts`]) says before its values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TierHead {
    /// Which tier.
    pub tier: TierId,
    /// Its positions.
    pub positions: u64,
    /// Its greatest remoteness (no part holds a greater one).
    pub max_remoteness: u16,
    /// Seconds spent solving it.
    pub seconds: f64,
}

/// Hands a tier's values, part by part in rank order, to the function it is given (see
/// [`TierStore::save_in_parts`]).
pub type PartSource<'s> =
    dyn FnMut(&mut dyn FnMut(&[u16]) -> Result<(), SinkError>) -> Result<(), SinkError> + 's;

/// Tiers kept in memory: for tests, benchmarks and throwaway solves.
#[derive(Clone, Debug, Default)]
pub struct MemoryStore {
    /// The solved tiers.
    pub tiers: HashMap<TierId, SolvedTier>,
}

impl TierStore for MemoryStore {
    fn solved_tiers(&mut self) -> Result<BTreeSet<TierId>, SinkError> {
        Ok(self.tiers.keys().copied().collect())
    }
    fn load(&mut self, tier: TierId) -> Result<SolvedTier, SinkError> {
        self.tiers.get(&tier).cloned().ok_or_else(|| SinkError::new(format!("tier {tier} is not stored")))
    }
    fn save(&mut self, solved: SolvedTier) -> Result<(), SinkError> {
        self.tiers.insert(solved.tier, solved);
        Ok(())
    }
}

/// Keeps nothing, counting what it is given: for benchmarks and for checks that look at
/// each tier once as it is solved.
#[derive(Clone, Copy, Debug)]
pub struct DiscardStore {
    /// The convention, to count losses.
    pub convention: Convention,
    /// Positions saved.
    pub positions: u64,
    /// Losses among them.
    pub losses: u64,
}

impl DiscardStore {
    /// An empty counter.
    pub fn new(convention: Convention) -> Self {
        DiscardStore { convention, positions: 0, losses: 0 }
    }
}

impl TierStore for DiscardStore {
    fn solved_tiers(&mut self) -> Result<BTreeSet<TierId>, SinkError> {
        Ok(BTreeSet::new())
    }
    fn load(&mut self, tier: TierId) -> Result<SolvedTier, SinkError> {
        Err(SinkError::new(format!("tier {tier} was not kept")))
    }
    fn save(&mut self, solved: SolvedTier) -> Result<(), SinkError> {
        self.positions += solved.remoteness.len() as u64;
        self.losses += solved.losses(self.convention);
        Ok(())
    }
}

/// How to solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Work back from the losses (fast; outcome and remoteness only).
    #[default]
    Retrograde,
    /// Visit every child of every position (required for nim-values).
    Sweep,
}

/// What to solve and how.
#[derive(Clone, Copy, Debug)]
pub struct SolveOptions {
    /// The play convention.
    pub convention: Convention,
    /// The universe of positions.
    pub universe: Universe,
    /// Also compute nim-values (forces [`Strategy::Sweep`]).
    pub nim_values: bool,
    /// The strategy (ignored when `nim_values` is set).
    pub strategy: Strategy,
}

/// Hears about progress: the CLI draws a progress bar from it.
pub trait Progress {
    /// The solve starts: `positions` in all, `done` of them already stored.
    fn start(&self, _positions: u64, _done: u64) {}
    /// A tier was solved and stored.
    fn tier_done(&self, _tier: TierId, _positions: u64) {}
    /// Whether to stop: checked before each tier; the solve then commits the tiers it
    /// finished and returns [`SolveError::Interrupted`].
    fn interrupted(&self) -> bool {
        false
    }
}

/// No progress reporting.
pub struct Silent;
impl Progress for Silent {}

/// Figures from one solve run.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct SolveReport {
    /// Positions in the universe.
    pub positions: u64,
    /// Positions solved in this run (the rest were already stored).
    pub solved_now: u64,
    /// Losses for the player to move among the positions solved in this run.
    pub losses_now: u64,
    /// Tiers solved in this run.
    pub tiers_now: u64,
    /// Edges (child or parent links) the solver followed in this run.
    pub edges: u64,
    /// Wall-clock seconds of this run.
    pub seconds: f64,
    /// Peak bytes of tier arrays held in memory.
    pub peak_window_bytes: u64,
    /// Bytes of tier arrays spilled to disk.
    pub spilled_bytes: u64,
}

/// Solves `game` over `options.universe` into `store`, resuming from the tiers it holds.
pub fn solve(
    game: &GameSpec,
    options: &SolveOptions,
    store: &mut dyn TierStore,
    progress: &dyn Progress,
) -> Result<SolveReport, SolveError> {
    solve_with(game, options, store, progress, &Alone, None)
}

/// Solves as one member of `team`: every member runs this with the same arguments, each
/// does its share of every tier's work, and the team combines the shares (see [`Team`]).
/// Each member's `store` sees the same calls in the same order; typically one member's
/// store writes the database and the others' stores receive what it reads.
pub fn solve_on_team(
    game: &GameSpec,
    options: &SolveOptions,
    store: &mut dyn TierStore,
    progress: &dyn Progress,
    team: &dyn Team,
) -> Result<SolveReport, SolveError> {
    solve_with(game, options, store, progress, team, None)
}

/// Solves as one member of `team` (see [`solve_on_team`]), holding at most `spill.budget`
/// bytes of lower tiers in memory and spilling the rest to mapped files in `spill.dir`
/// (see [`Spill`]). The tiers are the same with or without spilling.
pub fn solve_with(
    game: &GameSpec,
    options: &SolveOptions,
    store: &mut dyn TierStore,
    progress: &dyn Progress,
    team: &dyn Team,
    spill: Option<&Spill>,
) -> Result<SolveReport, SolveError> {
    if options.universe.max_total > MAX_SOLVE_TOTAL {
        return Err(SolveError::TooLarge(options.universe.max_total));
    }
    let sweep = options.nim_values || options.strategy == Strategy::Sweep;
    if sweep && team.size() > 1 {
        return Err(SolveError::TeamUnsupported(team.size()));
    }
    let table = options.universe.table()?;
    game.rules().with(Job { options, table: &table, store, progress, team, spill, partners: None })
}

/// Solves as one member of `partners`, holding only this member's block of every tier (see
/// [`Partners`]): every member runs this with the same arguments, and each member's
/// `store` sees the same calls in the same order; member 0's store gets each whole tier
/// to save, the others' get an empty one. The stored tiers are those of [`solve`].
pub fn solve_partitioned(
    game: &GameSpec,
    options: &SolveOptions,
    store: &mut dyn TierStore,
    progress: &dyn Progress,
    partners: &dyn Partners,
) -> Result<SolveReport, SolveError> {
    solve_partitioned_spilling(game, options, store, progress, partners, None)
}

/// [`solve_partitioned`], this member holding at most `spill.budget` bytes of its blocks
/// of lower tiers in memory and spilling the rest to mapped files in `spill.dir` (its own
/// directory: see [`Spill`]). The tiers are the same with or without spilling.
pub fn solve_partitioned_spilling(
    game: &GameSpec,
    options: &SolveOptions,
    store: &mut dyn TierStore,
    progress: &dyn Progress,
    partners: &dyn Partners,
    spill: Option<&Spill>,
) -> Result<SolveReport, SolveError> {
    if options.universe.max_total > MAX_SOLVE_TOTAL {
        return Err(SolveError::TooLarge(options.universe.max_total));
    }
    let sweep = options.nim_values || options.strategy == Strategy::Sweep;
    if sweep && partners.size() > 1 {
        return Err(SolveError::TeamUnsupported(partners.size()));
    }
    let table = options.universe.table()?;
    let partners = (!sweep).then_some(partners);
    game.rules().with(Job { options, table: &table, store, progress, team: &Alone, spill, partners })
}

struct Job<'a> {
    options: &'a SolveOptions,
    table: &'a PartitionTable,
    store: &'a mut dyn TierStore,
    progress: &'a dyn Progress,
    team: &'a dyn Team,
    spill: Option<&'a Spill>,
    partners: Option<&'a dyn Partners>,
}

impl RulesVisitor for Job<'_> {
    type Output = Result<SolveReport, SolveError>;
    fn visit<G: TierRules>(self, rules: &G) -> Result<SolveReport, SolveError> {
        let started = Instant::now();
        let mut report = if let Some(partners) = self.partners {
            partitioned::run(
                rules,
                self.options,
                self.table,
                self.store,
                self.progress,
                partners,
                self.spill,
            )?
        } else if self.options.nim_values || self.options.strategy == Strategy::Sweep {
            sweep::run(rules, self.options, self.table, self.store, self.progress, self.spill)?
        } else {
            retrograde::run(
                rules,
                self.options,
                self.table,
                self.store,
                self.progress,
                self.team,
                self.spill,
            )?
        };
        self.store.finish()?;
        report.seconds = started.elapsed().as_secs_f64();
        Ok(report)
    }
}

/// Where a solve run starts: the universe's tiers in solve order, the ones already stored,
/// and the index of the first one missing.
pub(crate) struct Plan {
    pub tiers: Vec<TierId>,
    pub stored: BTreeSet<TierId>,
    pub first: usize,
}

impl Plan {
    /// Reads what `store` holds and tells `progress`. Stored tiers are normally a prefix of
    /// the solve order (each is committed before the next starts); any stored after a gap
    /// are loaded by the drivers rather than solved again. Returns the plan and the report
    /// to fill, or `None` (with the finished report) when everything is stored.
    pub fn new(
        options: &SolveOptions,
        table: &PartitionTable,
        store: &mut dyn TierStore,
        progress: &dyn Progress,
    ) -> Result<(Self, SolveReport), SolveError> {
        let tiers = options.universe.tiers();
        let size = |&t: &TierId| table.size(t);
        let stored = store.solved_tiers()?;
        let first = tiers.iter().position(|t| !stored.contains(t)).unwrap_or(tiers.len());
        let report = SolveReport { positions: tiers.iter().map(size).sum(), ..Default::default() };
        progress.start(report.positions, tiers[..first].iter().map(size).sum());
        Ok((Plan { tiers, stored, first }, report))
    }
}

/// Loads a stored tier and checks it holds the positions its tier has.
pub(crate) fn load_checked(
    store: &mut dyn TierStore,
    tier: TierId,
    positions: u64,
) -> Result<SolvedTier, SolveError> {
    let solved = store.load(tier)?;
    if solved.remoteness.len() as u64 != positions {
        return Err(SolveError::CorruptTier {
            tier,
            held: solved.remoteness.len() as u64,
            expected: positions,
        });
    }
    Ok(solved)
}

/// How far apart in total a position and its children can be in this universe: the most
/// tokens one move can take.
pub fn reach<G: GameRules + ?Sized>(rules: &G, universe: &Universe) -> u32 {
    let most = rules.max_take().unwrap_or(u32::MAX);
    // A move changes at most `fewer` heaps when it takes (each heap at most `part_cap`).
    let by_heaps = universe.part_cap().saturating_mul(rules.heap_change().fewer.max(1));
    most.min(by_heaps).min(universe.max_total)
}

/// Solves `game` entirely in memory and returns the tiers (for tests and small jobs).
pub fn solve_in_memory(game: &GameSpec, options: &SolveOptions) -> Result<MemoryStore, SolveError> {
    let mut store = MemoryStore::default();
    solve(game, options, &mut store, &Silent)?;
    Ok(store)
}

/// What a solve will take, before it runs (`nimdb solve --dry-run`).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Estimate {
    /// Nonempty tiers.
    pub tiers: u64,
    /// Positions.
    pub positions: u64,
    /// Peak bytes of memory: the rank table plus the tiers held at once (and, on several
    /// threads, their copies of the arrays being marked).
    pub memory_bytes: u64,
    /// The part of `memory_bytes` that is lower tiers held for later ones (the window):
    /// what a solve under a memory limit spills to disk instead.
    pub window_bytes: u64,
    /// The most bytes of spilled lower tiers one tier's solve reads (its child tiers' values
    /// and the ranks of the losses that mark it, within reach): what a solve that spills
    /// may have mapped into its resident set at once, beside the window it holds (the window
    /// lets go of a spilled tier's pages once the tier that read them is solved).
    pub spill_reads_bytes: u64,
    /// The part of `memory_bytes` that holds the rest of the total being solved, beside
    /// its largest tier: the retrograde solver marks a heap game's whole total at once.
    /// A spilling solve sets those arrays aside in the window's share instead (fewer
    /// totals a batch, or tier by tier, where they do not fit it).
    pub whole_total_bytes: u64,
    /// Bytes of database file the solve's tiers take, at most, from an empty file: each
    /// tier's row as SQLite lays it out in pages, and the schema
    /// ([`footprint`](nimdb_core::footprint)).
    pub disk_bytes: u64,
    /// Bytes of write-ahead log the solve's writer holds at its peak, at most, when it folds
    /// the log in at the tight mark: the mark and the largest tier's transaction
    /// ([`footprint::log_peak_bytes`](nimdb_core::footprint::log_peak_bytes) with
    /// `TIGHT_LOG_PAGES`). What a refusal counts.
    pub log_bytes: u64,
    /// The same with SQLite's default mark (`ROOMY_LOG_PAGES`), which a solve runs with when
    /// the disk has room for it ([`Estimate::log_pages`]).
    pub roomy_log_bytes: u64,
    /// Positions of the largest tier: a spilled tier's file holds at most 4 bytes of each.
    pub largest_tier: u64,
    /// Bytes per stored record (the worst case of the remoteness width).
    pub record_bytes: u64,
}

impl Estimate {
    /// How a solve with this estimate fits `budget`: `None` when it fits whole in memory;
    /// `Some(bytes)` when it fits holding at most `bytes` of lower tiers and spilling the
    /// rest to mapped files (a [`Spill`] with that budget); refused when even the rest of
    /// the solve is over the budget (`what` names the solve in the refusal). Both faces
    /// (`nimdb solve`, the Python package) plan with this.
    ///
    /// The budget bounds the whole resident set: beside the bytes held, a spilling solve
    /// has the pages of the spilled tiers it reads for one tier mapped at once (at most
    /// [`spill_reads_bytes`](Self::spill_reads_bytes)), so those are set aside from the
    /// window.
    pub fn fit(&self, budget: &MemoryBudget, what: &str) -> Result<Option<u64>, ResourceError> {
        if self.memory_bytes <= budget.bytes {
            return Ok(None);
        }
        // A spilling solve holds the marking arrays of whole totals within the window's
        // share (`Window::reserve`), and marks tier by tier where not even one total's fit.
        let fixed = self.memory_bytes - self.window_bytes - self.whole_total_bytes
            + self.spill_reads_bytes.min(self.window_bytes);
        budget.check(&format!("{what}, even with its lower tiers spilled to disk,"), fixed)?;
        Ok(Some(budget.bytes - fixed))
    }

    /// How a solve into the database file `db` fits: [`fit`](Self::fit) with `budget`, and
    /// then the disk. The database grows by at most [`disk_bytes`](Self::disk_bytes) while
    /// its write-ahead log holds at most [`log_bytes`](Self::log_bytes) (the writer folds it
    /// in at a bounded size), and any spill goes beside the database ([`Spill::beside`]):
    /// their sum must fit nine tenths of the disk free there ([`free_disk`]). Each file must
    /// fit the file-size limit ([`file_size_limit`], `ulimit -f`): the database after the
    /// solve, the log at its peak, and a spilled tier's file. Reads the file's size and its
    /// file system, writes nothing: every face that solves (`nimdb solve`, the Python
    /// package's `Database.solve`) calls this before it writes.
    pub fn plan(&self, budget: &MemoryBudget, what: &str, db: &Path) -> Result<Option<u64>, ResourceError> {
        let window = self.fit(budget, what)?;
        let spill = window.map_or(0, |w| self.window_bytes.saturating_sub(w));
        let disk = self.disk_bytes.saturating_add(self.log_bytes).saturating_add(spill);
        let dir = Spill::dir_beside(db);
        if let Some(free) = free_disk(&dir)
            && disk > free / 10 * 9
        {
            if spill > 0 {
                let memory = ResourceError::Memory {
                    what: what.to_string(),
                    needed: self.memory_bytes,
                    limit: budget.bytes,
                    source_of_limit: budget.source.clone(),
                };
                return Err(ResourceError::SpillDisk { memory: Box::new(memory), needed: disk, free, dir });
            }
            return Err(ResourceError::Disk { what: what.to_string(), needed: disk, free, dir });
        }
        if let Some(limit) = file_size_limit() {
            let database = std::fs::metadata(db).map_or(0, |m| m.len()).saturating_add(self.disk_bytes);
            let spill_file = if spill > 0 { 4 * self.largest_tier } else { 0 };
            for (file, grown) in [
                ("the database", database),
                ("its write-ahead log", self.log_bytes),
                ("a spill file", spill_file),
            ] {
                if grown > limit {
                    return Err(ResourceError::FileSize { what: what.to_string(), file, grown, limit });
                }
            }
        }
        Ok(window)
    }

    /// The same solve resumed with only the tiers `left` to store, each as (positions,
    /// record width): the database's growth and the write-ahead log's peak counted over
    /// those alone (the memory is unchanged: a resumed solve loads the tiers it reads). What a
    /// solve that extends a stored one is planned with, so that near a full disk it is not
    /// refused for the tiers already stored.
    pub fn with_tiers_left(&self, left: impl Iterator<Item = (u64, u64)>) -> Estimate {
        let (disk_bytes, log_bytes, roomy_log_bytes) = footprint(left);
        Estimate { disk_bytes, log_bytes, roomy_log_bytes, ..*self }
    }

    /// The mark at which the solve's writer folds its write-ahead log in: SQLite's default
    /// ([`ROOMY_LOG_PAGES`](nimdb_core::footprint::ROOMY_LOG_PAGES)) when the database, that
    /// log at its peak ([`roomy_log_bytes`](Self::roomy_log_bytes)) and `spill` bytes fit
    /// nine tenths of the disk free beside `db` and the log fits the file-size limit, else
    /// [`TIGHT_LOG_PAGES`](nimdb_core::footprint::TIGHT_LOG_PAGES), whose log
    /// [`plan`](Self::plan) checked. A log folded in often costs a checkpoint's fsyncs each
    /// time: a solve of many small tiers runs slower with the tight mark.
    pub fn log_pages(&self, db: &Path, spill: u64) -> u64 {
        use nimdb_core::footprint::{ROOMY_LOG_PAGES, TIGHT_LOG_PAGES};
        let needed = self.disk_bytes.saturating_add(self.roomy_log_bytes).saturating_add(spill);
        let disk = free_disk(&Spill::dir_beside(db)).is_none_or(|free| needed <= free / 10 * 9);
        let file = file_size_limit().is_none_or(|limit| self.roomy_log_bytes <= limit);
        if disk && file { ROOMY_LOG_PAGES } else { TIGHT_LOG_PAGES }
    }
}

/// The bytes a loss of the tier being solved takes while it is settled (see [`estimate`]):
/// its rank and its settled remoteness.
const SETTLED_LOSS_BYTES: u64 = 8 + 2;

/// The memory a solve process takes before any tier: code, SQLite's connections, threads.
const PROCESS_BYTES: u64 = 9 << 20;

/// SQLite's page cache on the writer's connection, which fills to its default 2,000 KiB as
/// a database of `disk_bytes` grows.
fn page_cache_bytes(disk_bytes: u64) -> u64 {
    disk_bytes.min(2000 << 10)
}

/// The threads of the rayon pool a solve started here would run on, read without starting
/// rayon's global pool (a plan must not spawn threads: under a small address space,
/// `ulimit -v`, that alone fails): inside a pool, that pool's; else what the global pool
/// is given (`RAYON_NUM_THREADS`, else the machine's parallelism). What a face that solves
/// on the global pool hands [`estimate`].
pub fn pool_threads() -> usize {
    if rayon::current_thread_index().is_some() {
        return rayon::current_num_threads();
    }
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Estimates the size of a solve without running it, on a rayon pool of `threads` threads:
/// the pool the solve will run on (the face that owns it says how many; [`pool_threads`]
/// for rayon's global pool or the pool the caller is in), whose marking threads each keep
/// their own copies.
pub fn estimate(game: &GameSpec, options: &SolveOptions, table: &PartitionTable, threads: usize) -> Estimate {
    let universe = &options.universe;
    let reach = reach(game.rules(), universe);
    let tiers = universe.tiers();
    let size = |&t: &TierId| table.size(t);
    let mut per_total = vec![0u64; universe.max_total as usize + 1];
    for t in &tiers {
        per_total[t.total as usize] += size(t);
    }
    // Held at once: the tiers within `reach` tokens below the one being solved and those of
    // its own total. Remoteness takes one byte a position where it fits (two otherwise) and
    // nim-values two more; the retrograde solver also keeps each loss's rank (4 bytes; a
    // generous 15% of positions are losses).
    let sweep = options.nim_values || options.strategy == Strategy::Sweep;
    let value_bytes = if window::Window::narrow(universe) { 10 } else { 20 };
    let per_position_tenths =
        value_bytes + if options.nim_values { 20 } else { 0 } + if sweep { 0 } else { 6 };
    // Where the window keeps each loss decoded with its rank terms (heaps capped at a few),
    // a loss takes its rank (4 bytes), its heaps (a byte each), their rank terms (4 bytes
    // each) and its remoteness (2): counted tier by tier where the Sprague–Grundy theorem
    // counts the losses, else the generous share above.
    let one_heap = game.rules().single_heap().is_some();
    let marked = retrograde::marked_totals(one_heap, reach, universe) as usize;
    let counted = (!sweep)
        .then(|| {
            let rules = game.rules().single_heap()?;
            let (heaps, cap) = (universe.max_heaps?, universe.part_cap());
            losses::losses_by_tier(rules, universe.max_total, heaps, cap)
        })
        .flatten();
    let lanes = retrograde::marks_in_lanes(one_heap, reach, universe);
    let per_total_bytes: Vec<u64> = match counted.as_ref().filter(|_| lanes) {
        Some(losses) => per_total
            .iter()
            .zip(losses)
            .map(|(&positions, by_heaps)| {
                let held: u64 = by_heaps.iter().enumerate().map(|(k, &n)| n * (6 + 5 * k as u64)).sum();
                positions * value_bytes / 10 + held
            })
            .collect(),
        None => per_total.iter().map(|&n| n * per_position_tenths / 10).collect(),
    };
    let spill_reads_bytes =
        spill_reads_bytes(game, universe, table, reach, (!sweep).then_some(counted.as_ref()), value_bytes);
    let mut window_bytes = 0u64;
    let mut held_bytes = 0u64;
    for t in 0..per_total.len() {
        held_bytes += per_total_bytes[t];
        if t > reach as usize {
            held_bytes -= per_total_bytes[t - reach as usize - 1];
        }
        window_bytes = window_bytes.max(held_bytes);
    }
    // The tier being solved: its 2-byte values, the copy queued for the writer and the
    // encoded payload. Unless it spills, the retrograde solver marks every tier of a heap
    // game's total at once (of several totals where it keeps the losses' rank terms), so it
    // holds the 2-byte values of the whole totals being marked.
    let largest_tier = tiers.iter().map(size).max().unwrap_or(0);
    let largest_marked = if lanes || marked == 1 {
        per_total.windows(marked.min(per_total.len())).map(|w| w.iter().sum()).max().unwrap_or(0)
    } else {
        // Batches within a bound on their arrays (see [`retrograde::batch_last`]), from the
        // first total up.
        let (mut largest, mut start) = (0, 0);
        while start < per_total.len() {
            let end = retrograde::batch_last(start as u32, marked as u32, false, &per_total) as usize;
            largest = largest.max(per_total[start..=end].iter().sum());
            start = end + 1;
        }
        largest
    };
    // The retrograde solver holds more beside it while the tier settles and is kept: the
    // unmarked positions' ranks and their settled values (10 bytes each, a generous 15% of
    // the tier: 1.5 a position, or the tier's losses where they are counted), the column
    // made from the values before they go (one byte a position, two where remoteness does
    // not fit one), and the tier before, still with the writer while this one settles (its
    // two-byte copy and one-byte payload): 6 bytes a position in all, rounded up, or 5 and
    // the counted losses. Measured: misère Kayles to total 90 and 100 peaked at 1.03× an
    // estimate that counted 3 of them, 10% and 15% above one with none.
    let settling_bytes = if sweep { 0 } else { 6 };
    let tier_bytes = match &counted {
        Some(losses) => tiers
            .iter()
            .map(|t| size(t) * (6 + 5) + losses[t.total as usize][t.heaps as usize] * SETTLED_LOSS_BYTES)
            .max()
            .unwrap_or(0),
        None => largest_tier * (if options.nim_values { 12 } else { 6 } + settling_bytes),
    };
    let mut whole_total_bytes =
        if !sweep && one_heap { 2 * largest_marked.saturating_sub(largest_tier) } else { 0 };
    // Where a loss marks the totals above it as it is settled, the threads share those
    // arrays (one byte a position, marked with atomics) and keep no copies of them.
    let early = !sweep && one_heap && retrograde::marks_above_as_settled(marked as u32, reach, universe);
    if early {
        // A loss marks the totals above it as it is settled: while total `t` is solved the
        // solver holds the columns of the `reach` totals below and of `t` (one byte a
        // position; `t`'s marking array, a byte a position, becomes its column tier by
        // tier), the ranks of `t`'s losses (6 tenths of a byte a position, as above), and
        // the one-byte marking arrays of the `reach` totals above.
        let reach = reach as usize;
        let (mut best_window, mut best_above) = (0, 0);
        for t in 0..per_total.len() {
            let below: u64 = per_total[t.saturating_sub(reach)..=t].iter().sum();
            let above: u64 = per_total[t + 1..per_total.len().min(t + 1 + reach)].iter().sum();
            let window = below + per_total[t] * 6 / 10;
            if window + above > best_window + best_above {
                (best_window, best_above) = (window, above);
            }
        }
        (window_bytes, whole_total_bytes) = (best_window, best_above);
    }
    // On several threads the retrograde solver marks in each thread's own copy of the
    // arrays being marked: a byte a position where remoteness fits one (every thread's),
    // else two (the first thread's is the arrays themselves), up to a bound.
    let threads = threads.max(1) as u64;
    let copies_bytes = if sweep || threads < 2 || early {
        0
    } else {
        // (Batches of totals bounded by their arrays are counted as one total here: a
        // solve that spills marks tier by tier, and the copies are bounded anyway.)
        let one_total = per_total.iter().copied().max().unwrap_or(0);
        let marked = if lanes || marked == 1 { largest_marked } else { one_total };
        let marked_positions = if one_heap { marked.max(largest_tier) } else { largest_tier };
        let per_thread =
            if window::Window::narrow(universe) { marked_positions } else { 2 * marked_positions };
        let copied = if window::Window::narrow(universe) { threads } else { threads - 1 };
        (per_thread * copied).min(copies::COPIES_MAX_BYTES)
    };
    let entries = PartitionTable::entries(universe.max_total, universe.heaps_cap(), universe.part_cap());
    let mut table_bytes = 4 * entries;
    if !sweep {
        // The counts copied for the retrograde solver's shapes ([`shape::Terms`]).
        table_bytes += shape::Terms::bytes(entries);
    }
    if !sweep && lanes {
        // The counts again, by total, for marking several totals together.
        table_bytes += 4 * PartitionTable::entries(
            universe.max_total + totals::LANES as u32,
            universe.heaps_cap(),
            universe.part_cap(),
        );
    }
    // Remoteness is below 2 × total (a move removes a token or adds a heap).
    let remoteness_bytes = if 2 * universe.max_total < 255 { 1 } else { 2 };
    let record_bytes = remoteness_bytes + if options.nim_values { 1 } else { 0 };
    let positions: u64 = per_total.iter().sum();
    // On disk each tier's records are as wide as its own remoteness needs (below 2 × its
    // total), each tier one row as SQLite lays it out.
    let (disk_bytes, log_bytes, roomy_log_bytes) =
        footprint(tiers.iter().map(|t| (size(t), record_width(t.total, options.nim_values))));
    Estimate {
        tiers: tiers.len() as u64,
        positions,
        memory_bytes: PROCESS_BYTES
            + page_cache_bytes(disk_bytes)
            + table_bytes
            + window_bytes
            + tier_bytes
            + whole_total_bytes
            + copies_bytes,
        window_bytes,
        spill_reads_bytes,
        whole_total_bytes,
        disk_bytes,
        log_bytes,
        roomy_log_bytes,
        largest_tier,
        record_bytes,
    }
}

/// The most bytes of lower tiers, as a spilled tier's files hold them, that one tier's solve
/// reads ([`Estimate::spill_reads_bytes`]): over every tier, the tiers within `reach` tokens
/// below it (its own total's included) with the heap counts its children and the sources
/// of its marks may have (`fewer` below to `more` above its own, as
/// [`remoteness_bounds`](window::remoteness_bounds) reads them), each at `value_tenths`
/// tenths of a byte a position (its remoteness) and, for the retrograde solver (`losses`
/// given), 4 bytes a loss (its rank): the losses counted where they are by total and heap
/// count, else a generous 15% of the positions.
fn spill_reads_bytes(
    game: &GameSpec,
    universe: &Universe,
    table: &PartitionTable,
    reach: u32,
    losses: Option<Option<&Vec<Vec<u64>>>>,
    value_tenths: u64,
) -> u64 {
    let change = game.rules().heap_change();
    let stride = universe.heaps_cap() as usize + 1;
    let max_total = universe.max_total as usize;
    // `prefix[h][t]`: the bytes of the tiers of `h` heaps and totals below `t`.
    let mut prefix = vec![vec![0u64; max_total + 2]; stride];
    for tier in universe.tiers() {
        let positions = table.size(tier);
        let losses = losses.map_or(0, |counted| {
            counted
                .and_then(|c| c.get(tier.total as usize)?.get(tier.heaps as usize).copied())
                .unwrap_or(positions * 15 / 100)
        });
        prefix[tier.heaps as usize][tier.total as usize + 1] = positions * value_tenths / 10 + 4 * losses;
    }
    for by_total in &mut prefix {
        for t in 1..by_total.len() {
            by_total[t] += by_total[t - 1];
        }
    }
    universe
        .tiers()
        .into_iter()
        .map(|tier| {
            let (low, high) = (tier.total.saturating_sub(reach) as usize, tier.total as usize + 1);
            let heaps = tier.heaps.saturating_sub(change.fewer) as usize
                ..=(tier.heaps as usize + change.more as usize).min(stride - 1);
            let read: u64 = heaps.map(|h| prefix[h][high] - prefix[h][low]).sum();
            let own = prefix[tier.heaps as usize][high] - prefix[tier.heaps as usize][high - 1];
            read - own
        })
        .max()
        .unwrap_or(0)
}

/// The bytes of each stored record of a heap game's tier of `total`: its remoteness, as wide
/// as it needs (below 2 × total: a move removes a token or adds a heap), and a nim-value
/// byte when they are stored.
pub fn record_width(total: u32, nim_values: bool) -> u64 {
    (if 2 * total < 255 { 1 } else { 2 }) + u64::from(nim_values)
}

/// The database's growth and the write-ahead log's peak, at most, for tiers of (positions,
/// record width): the schema and each tier's row ([`nimdb_core::footprint::tier_bytes`],
/// worked out once for each distinct pair), and the log's peak with the largest tier's
/// transaction (or all of them, when they write less than the log's mark), folded in at the
/// tight mark and at the roomy one.
pub(crate) fn footprint(tiers: impl Iterator<Item = (u64, u64)>) -> (u64, u64, u64) {
    use nimdb_core::footprint::{
        ROOMY_LOG_PAGES, SCHEMA_BYTES, TIGHT_LOG_PAGES, log_peak_bytes, tier_bytes, transaction_pages,
    };
    let mut count: std::collections::BTreeMap<(u64, u64), u64> = Default::default();
    for tier in tiers {
        *count.entry(tier).or_default() += 1;
    }
    // A new file's schema is written through the log too.
    let (mut file, mut largest, mut written) = (SCHEMA_BYTES, 0, transaction_pages(SCHEMA_BYTES));
    for (&(positions, width), &n) in &count {
        let bytes = tier_bytes(positions, width);
        file = file.saturating_add(bytes.saturating_mul(n));
        largest = largest.max(transaction_pages(bytes));
        written = written.saturating_add(transaction_pages(bytes).saturating_mul(n));
    }
    (
        file,
        log_peak_bytes(TIGHT_LOG_PAGES, largest, written),
        log_peak_bytes(ROOMY_LOG_PAGES, largest, written),
    )
}
