//! `nimdb.open` and `nimdb.Database`: queries, batches, solves and exports through one
//! open database.

use std::cell::Cell;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray2};
use pyo3::prelude::*;

use nimdb::answer::{Listing, Source};
use nimdb::batch::{LookupError, Session};
use nimdb::driver::{DriverError, JobError, SolveBounds, SolveJob};
use nimdb::game::{Convention, Outcome};
use nimdb::index::{TierId, UniverseError};
use nimdb::query::{
    AUTO_SOLVE_LIMIT, AnswerThreads, Plan, QueryError, answer_after_solving_until, plan_until,
};
use nimdb::resources::MemoryBudget;
use nimdb::solve::{Progress, SolveError};
use nimdb::space::BoundsError;
use nimdb::store::{ExportFilter, SolveRecord, SolveStatus, StoreError};
use nimdb::stored::StoredError;
use nimdb::theory::Stop;

use crate::answers::{Answer, Lookups, source_code};
use crate::defined::{defined_of, game_arg, other_rules, prepare_solve};
use crate::errors::{
    Kind, NimdbError, cells_arg, convention, cpu_limit_arg, deprecated, kind_of, message, nimdb_error,
};
use crate::signals;
use crate::theory::{Quotient, QuotientFailure, QuotientJob};
use nimdb::store::quotients::Toward;

/// A failure inside a call that released the GIL: a message for `NimdbError`, or an
/// exception raised meanwhile (Ctrl-C, a progress callback's).
enum Failure {
    Message(Kind, String),
    Raised(PyErr),
}

impl<E: std::error::Error + 'static> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure::Message(kind_of(&e), message(&e))
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Message(kind, m) => kind.err(m),
            Failure::Raised(e) => e,
        }
    }
}

/// A solve refused before it ran ([`JobError`]), worded with `Database.solve`'s keywords.
fn job_words(e: JobError) -> Failure {
    match e {
        JobError::Universe(UniverseError::HeapCapWithSplits(game)) => fail_as(
            Kind::BadArgument,
            format!(
                "max_heaps cannot be used with {game}: its moves can split a heap in two, so the universe would not be closed under moves"
            ),
        ),
        JobError::Universe(UniverseError::Unbounded) => fail_as(
            Kind::BadArgument,
            "give max_total, or both max_heap and max_heaps, to bound the universe",
        ),
        JobError::Universe(UniverseError::TooWide(e)) => {
            fail_as(Kind::BadArgument, format!("{e}; lower max_heap or max_heaps"))
        }
        JobError::Universe(e @ UniverseError::TierTooWide(_)) => {
            fail_as(Kind::BadArgument, format!("{e}; lower max_total or max_heaps"))
        }
        JobError::Bounds(e) => {
            let keyword = match e {
                BoundsError::NeedsHeaps(_) => " (max_heaps=K)",
                BoundsError::TotalNotAllowed { .. } => " (leave out max_total)",
                BoundsError::NeedsTotal(_) => " (max_total=N)",
                BoundsError::HeapCap(_) => " (max_total and max_heaps, not max_heap)",
                BoundsError::TooLarge(_) => " (lower max_total or max_heaps)",
            };
            fail_as(Kind::BadArgument, format!("{e}{keyword}"))
        }
        e @ JobError::NoMoves(_) => fail_as(Kind::BadGame, e.to_string()),
        JobError::NoNimValues(game) => fail_as(
            Kind::BadArgument,
            format!("nim_values is not available for {game}: its solve stores outcome and remoteness"),
        ),
        JobError::NoWindow(game) => fail_as(
            Kind::BadArgument,
            format!(
                "window_limit is not taken for {game}: its solver keeps every tier it reads in memory and never spills (memory_limit bounds the solve, and nimdb.estimate shows its cost)"
            ),
        ),
        JobError::NotPartitioned(game) => {
            fail_as(Kind::BadArgument, format!("{game} is solved by one process"))
        }
        JobError::Resource(e) if e.is_memory() => {
            fail_as(Kind::TooCostly, format!("{e}; nothing was written (memory_limit sets the budget)"))
        }
        JobError::Resource(e) => fail_as(Kind::TooCostly, format!("{e}; nothing was written")),
    }
}

/// A solve's result as the Python call ends it: an exception raised meanwhile (Ctrl-C, the
/// progress callback's, even after the last tier: the solve is then complete but the call
/// raises) comes first.
fn solved(
    result: Result<(SolveRecord, nimdb::solve::SolveReport), DriverError>,
) -> Result<(SolveRecord, nimdb::solve::SolveReport), Failure> {
    match result {
        Ok(done) => match signals::take() {
            Some(e) => Err(Failure::Raised(e)),
            None => Ok(done),
        },
        Err(DriverError::Solve(SolveError::Interrupted { .. })) => match signals::take() {
            Some(e) => Err(Failure::Raised(e)),
            None => Err(fail("the solve was interrupted")),
        },
        Err(e) => Err(e.into()),
    }
}

fn fail(text: impl Into<String>) -> Failure {
    Failure::Message(Kind::Base, text.into())
}

/// A failure of the given kind.
fn fail_as(kind: Kind, text: impl Into<String>) -> Failure {
    Failure::Message(kind, text.into())
}

/// A batch session whose theory answers stop when `stop` is set.
fn stopping_session<'a>(db: &'a nimdb::store::Database, stop: &Stop) -> Session<'a> {
    let mut session = Session::new(db);
    session.set_stop(stop.clone());
    session
}

/// Ids of threads, to tell a callback re-entering its own database (which would wait for
/// itself) from another thread that should wait its turn.
fn thread_number() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local! { static ID: u64 = NEXT.fetch_add(1, Ordering::Relaxed); }
    ID.with(|id| *id)
}

/// An open nimdb database (see `nimdb.open`). One connection, used by one call at a time;
/// calls from several threads wait their turn, without holding the GIL.
#[pyclass(module = "nimdb", frozen)]
pub struct Database {
    db: Mutex<Option<nimdb::store::Database>>,
    /// The thread whose call holds `db` (0: none).
    holder: AtomicU64,
    /// Set by `close` (`db` is then `None`), for what reads the handle without its lock.
    closed: AtomicBool,
    path: PathBuf,
    read_only: bool,
    /// The threads a query's work runs on, watched against its `cpu_limit` apart from the
    /// rest of the process (the calling thread, and a pool of its own for a solve on the
    /// spot): other Python threads, numpy, another database's solve do not count.
    answers: AnswerThreads,
}

/// Opens the nimdb database at `path`.
///
/// With `read_only=True` (the default) the file must exist and nothing is ever written to
/// it: queries answer from stored solves, stored misère quotients and theory. With
/// `read_only=False` it is created if needed (with the current schema), `solve` may write,
/// and `query` solves a small covering universe on the spot, as `nimdb query` does.
#[pyfunction]
#[pyo3(signature = (path, read_only = true))]
pub fn open(py: Python<'_>, path: PathBuf, read_only: bool) -> PyResult<Database> {
    let opened = py.detach(|| {
        if read_only {
            nimdb::store::Database::open_read_only(&path)
        } else {
            nimdb::store::Database::open(&path)
        }
    });
    let db = opened.map_err(|e| match e {
        StoreError::Missing(p) => Kind::Database.err(format!(
            "no nimdb database at {} (nimdb.open(path, read_only=False) creates one)",
            p.display()
        )),
        other => nimdb_error(other),
    })?;
    Ok(Database {
        db: Mutex::new(Some(db)),
        holder: AtomicU64::new(0),
        closed: AtomicBool::new(false),
        path,
        read_only,
        answers: AnswerThreads::new(),
    })
}

impl Database {
    /// The file and whether this handle was opened read-only (what `nimdb.play` opens its
    /// own connection with); DatabaseError when the handle is closed.
    pub(crate) fn location(&self) -> PyResult<(PathBuf, bool)> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(Kind::Database.err(self.closed_message()));
        }
        Ok((self.path.clone(), self.read_only))
    }

    /// What a call on a closed handle raises.
    fn closed_message(&self) -> String {
        format!(
            "the database {} is closed (Database.close, or the end of its with block)",
            self.path.display()
        )
    }

    /// Runs `f` on the open database with the GIL released.
    fn with_db<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut nimdb::store::Database) -> Result<T, Failure> + Send,
    ) -> PyResult<T> {
        self.with_db_until(py, |db, _| f(db))
    }

    /// [`with_db`](Self::with_db), `f` also given the stop a Ctrl-C sets (for the library's
    /// loops that only look at a flag). A Ctrl-C heard meanwhile is raised, whatever `f`
    /// returned.
    fn with_db_until<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut nimdb::store::Database, &Stop) -> Result<T, Failure> + Send,
    ) -> PyResult<T> {
        self.not_held_here()?;
        let me = thread_number();
        signals::clear();
        let listening = signals::Listening::new(py);
        let stop = listening.stop();
        let result = py.detach(|| {
            let mut guard = self.db.lock().unwrap_or_else(|p| p.into_inner());
            self.holder.store(me, Ordering::SeqCst);
            let result = match guard.as_mut() {
                Some(db) => f(db, stop),
                None => Err(fail_as(Kind::Database, self.closed_message())),
            };
            self.holder.store(0, Ordering::SeqCst);
            result
        });
        if let Some(e) = signals::take() {
            return Err(e);
        }
        drop(listening);
        result.map_err(PyErr::from)
    }

    /// Refuses a call from a callback of a call that holds this database (a `solve`
    /// progress callback): it would wait for itself.
    fn not_held_here(&self) -> PyResult<()> {
        if self.holder.load(Ordering::SeqCst) == thread_number() {
            return Err(Kind::Database.err(
                "the database is in use by the call this callback runs in; use another nimdb.open() of the same file",
            ));
        }
        Ok(())
    }
}

impl SolveSummary {
    /// The figures of a run and of its solve as stored after it.
    fn of(record: &SolveRecord, report: &nimdb::solve::SolveReport) -> Self {
        SolveSummary {
            solve_id: record.id,
            status: status_word(record.status),
            positions: report.positions,
            solved_now: report.solved_now,
            losses_now: report.losses_now,
            tiers_now: report.tiers_now,
            seconds: report.seconds,
            stored_positions: record.positions,
            stored_losses: record.losses,
            spilled_bytes: report.spilled_bytes,
            peak_window_bytes: report.peak_window_bytes,
        }
    }
}

/// Figures from one `Database.solve` run.
#[pyclass(module = "nimdb", frozen, get_all)]
pub struct SolveSummary {
    /// The stored solve's id.
    pub solve_id: i64,
    /// "complete" or "partial".
    pub status: &'static str,
    /// Positions in the universe.
    pub positions: u64,
    /// Positions solved in this run (the rest were stored already).
    pub solved_now: u64,
    /// Losses among them.
    pub losses_now: u64,
    /// Tiers solved in this run.
    pub tiers_now: u64,
    /// Wall-clock seconds of this run.
    pub seconds: f64,
    /// Positions stored in the solve.
    pub stored_positions: u64,
    /// Losses stored in the solve.
    pub stored_losses: u64,
    /// Bytes of lower tiers spilled to mapped files (0 when the solve fit in memory).
    pub spilled_bytes: u64,
    /// The most bytes of lower tiers held in memory at once.
    pub peak_window_bytes: u64,
}

#[pymethods]
impl SolveSummary {
    fn __repr__(&self) -> String {
        format!(
            "SolveSummary(solve_id={}, status={:?}, positions={}, solved_now={}, seconds={:.3})",
            self.solve_id, self.status, self.positions, self.solved_now, self.seconds
        )
    }
}

/// One stored solve (`Database.solves()`).
#[pyclass(module = "nimdb", frozen, get_all)]
pub struct SolveInfo {
    /// Its id.
    pub id: i64,
    /// The canonical game.
    pub game: String,
    /// Whether it is the misère convention's.
    pub misere: bool,
    /// Every position with at most this many tokens (when complete).
    pub max_total: u32,
    /// The heap size cap, if any.
    pub max_heap: Option<u32>,
    /// The heap count cap, if any.
    pub max_heaps: Option<u32>,
    /// Whether its records hold nim-values.
    pub nim_values: bool,
    /// "complete" or "partial".
    pub status: &'static str,
    /// Positions stored.
    pub positions: u64,
    /// Losses stored.
    pub losses: u64,
}

#[pymethods]
impl SolveInfo {
    fn __repr__(&self) -> String {
        format!(
            "SolveInfo(id={}, game={:?}, misere={}, max_total={}, status={:?}, positions={})",
            self.id,
            self.game,
            if self.misere { "True" } else { "False" },
            self.max_total,
            self.status,
            self.positions
        )
    }
}

fn status_word(s: SolveStatus) -> &'static str {
    match s {
        SolveStatus::Complete => "complete",
        SolveStatus::Partial => "partial",
    }
}

impl From<&SolveRecord> for SolveInfo {
    fn from(s: &SolveRecord) -> Self {
        SolveInfo {
            id: s.id,
            game: s.game.clone(),
            misere: s.convention == Convention::Misere,
            max_total: s.target_total,
            max_heap: s.max_heap,
            max_heaps: s.max_heaps,
            nim_values: s.nim_values,
            status: status_word(s.status),
            positions: s.positions,
            losses: s.losses,
        }
    }
}

/// Every stored position of a solve (`Database.export`), as numpy arrays with one entry
/// (one row of `heaps`) per position, tier by tier (total, then heap count; a staircase's
/// tier is its weighted sum Σ i·cᵢ, then its steps) and in rank order within a tier, as
/// `nimdb export` streams them.
#[pyclass(module = "nimdb", frozen, get_all)]
pub struct Export {
    /// The solve exported.
    pub solve_id: i64,
    /// The canonical game.
    pub game: String,
    /// Whether it is the misère convention's.
    pub misere: bool,
    /// uint32, shape (n, width): each position's heaps, largest first, padded with zeros
    /// (width is the most heaps of any position exported); for a family with its own
    /// position space, its entries in the family's notation (a staircase's step 1 first).
    pub heaps: Py<PyAny>,
    /// uint32: each row's count of entries (heaps, or steps), the padding after it; what
    /// tells a Welter position's 0 heap from padding.
    pub lengths: Py<PyArray1<u32>>,
    /// bool: whether the player to move wins (False for a draw).
    pub win: Py<PyArray1<bool>>,
    /// bool: whether the position is a draw (a loopy game's: `raise:C`); all False for the
    /// other games.
    pub draw: Py<PyArray1<bool>>,
    /// uint16: remoteness; 65535 for a draw (`nimdb::game::DRAW`).
    pub remoteness: Py<PyArray1<u16>>,
    /// uint16: nim-values (misère nim-values under misère), or None when the solve has none.
    pub nim_value: Option<Py<PyArray1<u16>>>,
}

#[pymethods]
impl Export {
    fn __len__(&self, py: Python<'_>) -> usize {
        numpy::PyUntypedArrayMethods::len(self.win.bind(py))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Export(solve_id={}, game={:?}, {} positions)", self.solve_id, self.game, self.__len__(py))
    }

    /// A pandas DataFrame, one row per position: position (a tuple in the game's notation),
    /// outcome ("win", "loss", "draw"), remoteness (missing for a draw) and, when the solve
    /// has them, nim_value. Needs pandas.
    fn to_frame<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("nimdb._frames")?.call_method1("export_frame", (slf,))
    }
}

/// The rows `Database.export` collects before they become arrays.
#[derive(Default)]
struct Rows {
    heaps: Vec<u32>,
    lengths: Vec<u32>,
    win: Vec<bool>,
    draw: Vec<bool>,
    remoteness: Vec<u16>,
    nim_value: Vec<u16>,
}

/// The solver's progress hooks for a Python solve: the callback gets (done, total, tier)
/// after every tier, and Ctrl-C (or an exception from the callback) stops before the next.
struct PyProgress<'a> {
    callback: Option<&'a Py<PyAny>>,
    total: Cell<u64>,
    done: Cell<u64>,
}

impl PyProgress<'_> {
    fn report(&self, tier: Option<TierId>) {
        let Some(callback) = self.callback else { return };
        Python::attach(|py| {
            let tier = tier.map(|t| t.to_string());
            if let Err(e) = callback.call1(py, (self.done.get(), self.total.get(), tier)) {
                signals::keep(e);
            }
        });
    }
}

impl Progress for PyProgress<'_> {
    fn start(&self, positions: u64, done: u64) {
        self.total.set(positions);
        self.done.set(done);
        self.report(None);
    }
    fn tier_done(&self, tier: TierId, positions: u64) {
        self.done.set(self.done.get() + positions);
        self.report(Some(tier));
    }
    fn interrupted(&self) -> bool {
        signals::poll()
    }
}

/// The solve of `game` within the bounds given, checked as `nimdb solve` checks its
/// arguments (the same [`SolveJob`]).
fn job_of(
    game: &nimdb::game::Game,
    conv: Convention,
    max_total: Option<u32>,
    max_heap: Option<u32>,
    max_heaps: Option<u32>,
    nim_values: bool,
) -> Result<SolveJob, Failure> {
    // Database.solve runs on rayon's global pool (the GIL released, on the calling thread).
    let threads = nimdb::solve::pool_threads();
    SolveJob::new(game, conv, SolveBounds { max_total, max_heap, max_heaps }, nim_values, threads)
        .map_err(job_words)
}

/// What a solve would take (`nimdb.estimate`), as `nimdb solve --dry-run` prints it.
#[pyclass(module = "nimdb", frozen, get_all)]
pub struct Estimate {
    /// The universe, in words (e.g. "total ≤ 30, heaps ≤ 8").
    pub universe: String,
    /// Nonempty tiers.
    pub tiers: u64,
    /// Positions.
    pub positions: u64,
    /// Peak bytes of memory if nothing spills.
    pub memory_bytes: u64,
    /// The part of `memory_bytes` that is lower tiers held for later ones: what a solve
    /// over its memory budget spills to disk instead.
    pub window_bytes: u64,
    /// Bytes of database file the solve's tiers take, at most (from an empty file).
    pub disk_bytes: u64,
    /// Bytes of write-ahead log the solve holds at its peak, at most, beside the database.
    pub log_bytes: u64,
    /// With the budget (`memory_limit`): None when the solve fits in memory, else the bytes
    /// of lower tiers it would hold, spilling the rest.
    pub spill_past: Option<u64>,
}

#[pymethods]
impl Estimate {
    fn __repr__(&self) -> String {
        format!(
            "Estimate(universe={:?}, positions={}, memory_bytes={}, disk_bytes={}, log_bytes={}, spill_past={})",
            self.universe,
            self.positions,
            self.memory_bytes,
            self.disk_bytes,
            self.log_bytes,
            crate::answers::py_opt(self.spill_past)
        )
    }
}

/// What solving `game` over a universe would take, without solving or opening anything:
/// tiers, positions, memory and disk, and whether the solve would spill lower tiers to disk
/// under `memory_limit` (default 80% of the memory available). Raises NimdbError when the
/// universe is bad or the solve would be refused. The arguments are `Database.solve`'s.
#[pyfunction]
#[pyo3(signature = (game, max_total = None, *, max_heap = None, max_heaps = None, misere = false,
                    nim_values = false, memory_limit = None))]
pub fn estimate(
    game: &Bound<'_, PyAny>,
    max_total: Option<u32>,
    max_heap: Option<u32>,
    max_heaps: Option<u32>,
    misere: bool,
    nim_values: bool,
    memory_limit: Option<&Bound<'_, PyAny>>,
) -> PyResult<Estimate> {
    let game = game_arg(game)?;
    let budget = MemoryBudget::given(memory_arg(memory_limit)?).map_err(memory_limit_error)?;
    let job = job_of(&game, convention(misere), max_total, max_heap, max_heaps, nim_values)?;
    let e = job.estimate();
    let spill_past = e.fit(&budget, &format!("solving {game} ({})", job.covers())).map_err(nimdb_error)?;
    Ok(Estimate {
        universe: job.covers(),
        tiers: e.tiers,
        positions: e.positions,
        memory_bytes: e.memory_bytes,
        window_bytes: e.window_bytes,
        disk_bytes: e.disk_bytes,
        log_bytes: e.log_bytes,
        spill_past,
    })
}

/// A memory size: bytes as an int, or a string such as "4G".
pub(crate) fn memory_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    let Some(obj) = obj else { return Ok(None) };
    if let Ok(bytes) = obj.extract::<u64>() {
        return Ok(Some(bytes));
    }
    let text: String = obj
        .extract()
        .map_err(|_| Kind::BadType.err("memory_limit is a number of bytes or a size such as \"4G\""))?;
    nimdb::resources::parse_size(&text).map(Some).map_err(nimdb_error)
}

/// The rows of a 2-D numpy array of integers, one position a row: the whole row, or its
/// first `lengths[i]` entries. `None` when `array` is not such an array of type `T`; a
/// negative entry is refused with `negative`, after the row's index.
fn rows_of<T: numpy::Element + Copy + TryInto<u64>>(
    array: &Bound<'_, PyAny>,
    lengths: Option<&[u64]>,
    negative: &str,
) -> Option<PyResult<Vec<Vec<u64>>>> {
    let array: PyReadonlyArray2<'_, T> = array.extract().ok()?;
    let view = array.as_array();
    let (n, width) = view.dim();
    if let Some(lengths) = lengths {
        if lengths.len() != n {
            return Some(Err(Kind::BadArgument
                .err(format!("lengths has {} entries for {n} rows of positions", lengths.len()))));
        }
        if let Some(i) = lengths.iter().position(|&l| l > width as u64) {
            return Some(Err(Kind::BadArgument.err(format!(
                "lengths[{i}] is {}, more than the {width} columns of the array",
                lengths[i]
            ))));
        }
    }
    let mut out = Vec::with_capacity(n);
    for (i, row) in view.rows().into_iter().enumerate() {
        let len = lengths.map_or(width, |l| l[i] as usize);
        let mut counts = Vec::with_capacity(len);
        for &h in row.iter().take(len) {
            match h.try_into() {
                Ok(h) => counts.push(h),
                Err(_) => {
                    return Some(Err(Kind::BadPosition.err(format!("position {i}: {negative}"))));
                }
            }
        }
        out.push(counts);
    }
    Some(Ok(out))
}

/// The rows of `positions` when it is a 2-D integer numpy array (see [`rows_of`]).
fn array_rows(
    positions: &Bound<'_, PyAny>,
    lengths: Option<&[u64]>,
    negative: &str,
) -> Option<PyResult<Vec<Vec<u64>>>> {
    rows_of::<i64>(positions, lengths, negative)
        .or_else(|| rows_of::<u64>(positions, lengths, negative))
        .or_else(|| rows_of::<i32>(positions, lengths, negative))
        .or_else(|| rows_of::<u32>(positions, lengths, negative))
        .or_else(|| rows_of::<i16>(positions, lengths, negative))
        .or_else(|| rows_of::<u16>(positions, lengths, negative))
        .or_else(|| rows_of::<i8>(positions, lengths, negative))
        .or_else(|| rows_of::<u8>(positions, lengths, negative))
}

/// `query_many`'s `lengths`: each row's count of entries (a 1-D integer array or a
/// sequence of ints).
fn lengths_arg(lengths: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<u64>>> {
    let Some(obj) = lengths else { return Ok(None) };
    if let Ok(array) = obj.extract::<numpy::PyReadonlyArray1<'_, u32>>() {
        return Ok(Some(array.as_array().iter().map(|&l| u64::from(l)).collect()));
    }
    obj.extract::<Vec<u64>>().map(Some).map_err(|_| {
        Kind::BadType.err("lengths is a sequence (or 1-D numpy array) of non-negative ints, one a row")
    })
}

/// Whether `obj` is a 2-D numpy array (of any type).
fn is_2d_array(obj: &Bound<'_, PyAny>) -> bool {
    use numpy::PyUntypedArrayMethods;
    obj.cast::<numpy::PyUntypedArray>().is_ok_and(|a| a.ndim() == 2)
}

/// The positions `query_many` is given, each as an answer's cells or the game's refusal of
/// it (answered per position, as `query --batch` answers a bad line): a 2-D integer numpy
/// array (a position a row, cut at `lengths`), or any iterable of positions. A heap game's
/// rows may be zero-padded (zeros are dropped), and so may a staircase's (empty top steps)
/// and `raise:C`'s (empty heaps); a position of a game whose heaps are a set of distinct
/// values (Welter's) may hold a heap of 0, so its rows need `lengths`.
fn positions_arg(
    game: &nimdb::game::Game,
    positions: &Bound<'_, PyAny>,
    lengths: Option<&[u64]>,
) -> PyResult<Vec<Result<Vec<u64>, String>>> {
    if positions.is_instance_of::<pyo3::types::PyString>() {
        return Err(Kind::BadType.err(format!(
            "positions is a list of positions, not one string: query_many(game, [{0:?}]) or query(game, {0:?})",
            positions.extract::<String>().unwrap_or_default().chars().take(40).collect::<String>()
        )));
    }
    if let Ok(array) = positions.cast::<numpy::PyUntypedArray>() {
        use numpy::PyUntypedArrayMethods;
        if array.ndim() != 2 {
            return Err(Kind::BadPosition.err(format!(
                "a numpy array of positions has one position a row (2-D), not {} dimensions (shape {:?})",
                array.ndim(),
                array.shape()
            )));
        }
    }
    if lengths.is_none()
        && game.family().layout() == nimdb::game::SpaceLayout::DistinctSet
        && is_2d_array(positions)
    {
        return Err(Kind::BadArgument.err(format!(
            "a {game} position may hold a heap of 0, so a zero-padded 2-D array does not say where a row ends: \
             give lengths= (each row's count of heaps, as Export.lengths has them) or a list of positions"
        )));
    }
    if let Some(rows) = array_rows(positions, lengths, &crate::errors::not_a_count(game, "-1")) {
        return Ok(rows?
            .into_iter()
            .map(|row| game.position_from_counts(row).map_err(|e| e.to_string()))
            .collect());
    }
    refuse_lengths_without_array(lengths)?;
    let items = positions.try_iter().map_err(|_| {
        Kind::BadType.err("positions is a list (any iterable) of positions, or a 2-D numpy array of counts")
    })?;
    let mut out = Vec::with_capacity(positions.len().unwrap_or(0));
    for (i, item) in items.enumerate() {
        let item = item?;
        out.push(cells_arg(game, &item).map_err(|e| {
            let py = item.py();
            PyErr::from_type(e.get_type(py), format!("position {i}: {}", e.value(py)))
        })?);
    }
    Ok(out)
}

fn refuse_lengths_without_array(lengths: Option<&[u64]>) -> PyResult<()> {
    match lengths {
        Some(_) => Err(Kind::BadArgument.err(
            "lengths goes with a 2-D numpy integer array of positions; a list's positions carry their own lengths",
        )),
        None => Ok(()),
    }
}

/// The columns of a `Lookups` as a batch fills them.
#[derive(Default)]
struct Columns {
    outcome: Vec<i8>,
    remoteness: Vec<i32>,
    nim_value: Vec<i64>,
    source: Vec<u8>,
    errors: Vec<(usize, String)>,
}

impl Columns {
    fn with_capacity(n: usize) -> Self {
        Columns {
            outcome: Vec::with_capacity(n),
            remoteness: Vec::with_capacity(n),
            nim_value: Vec::with_capacity(n),
            source: Vec::with_capacity(n),
            errors: Vec::new(),
        }
    }

    /// One answer: its outcome code (see [`Lookups`]), values and source.
    fn answered(&mut self, outcome: i8, remoteness: Option<u32>, nim_value: Option<u64>, source: Source) {
        self.outcome.push(outcome);
        self.remoteness.push(remoteness.map_or(-1, |r| r as i32));
        self.nim_value.push(nim_value.map_or(-1, |v| v.min(i64::MAX as u64) as i64));
        self.source.push(source_code(source));
    }

    /// Position `i` got no answer, for `message`.
    fn unanswered(&mut self, i: usize, message: String) {
        self.outcome.push(-1);
        self.remoteness.push(-1);
        self.nim_value.push(-1);
        self.source.push(u8::MAX);
        self.errors.push((i, message));
    }

    fn into_lookups(self, py: Python<'_>) -> Lookups {
        Lookups {
            outcome: self.outcome.into_pyarray(py).unbind(),
            remoteness: self.remoteness.into_pyarray(py).unbind(),
            nim_value: self.nim_value.into_pyarray(py).unbind(),
            source: self.source.into_pyarray(py).unbind(),
            errors: self.errors,
        }
    }
}

#[pymethods]
impl Database {
    /// The database file.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// Whether the database was opened read-only.
    #[getter]
    fn read_only(&self) -> bool {
        self.read_only
    }

    /// Closes the connection and ends the threads of the pool that solves on the spot
    /// (started by the first such query; idle until then), at once rather than when the
    /// object is garbage-collected; later calls raise DatabaseError, and closing again does
    /// nothing. `with nimdb.open(...) as db:` closes it at the block's end. Called from a
    /// callback of a call on this database (a `solve` progress callback), it raises
    /// DatabaseError instead of waiting for that call, which waits for the callback; from
    /// another thread, it waits for the call to end.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        self.not_held_here()?;
        py.detach(|| {
            let mut db = self.db.lock().unwrap_or_else(|p| p.into_inner());
            *db = None;
            self.closed.store(true, Ordering::SeqCst);
            // Under the connection's lock: no answer runs on the pool.
            self.answers.release();
        });
        Ok(())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        exc_type: Option<&Bound<'_, PyAny>>,
        exc_value: Option<&Bound<'_, PyAny>>,
        traceback: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let _ = (exc_type, exc_value, traceback);
        self.close(py)
    }

    fn __repr__(&self) -> String {
        format!(
            "nimdb.Database({:?}, read_only={})",
            self.path.display().to_string(),
            if self.read_only { "True" } else { "False" }
        )
    }

    /// The stored solves, as `nimdb info` lists them.
    fn solves(&self, py: Python<'_>) -> PyResult<Vec<SolveInfo>> {
        let solves = self.with_db(py, |db| Ok(db.solves()?))?;
        Ok(solves.iter().map(SolveInfo::from).collect())
    }

    /// The answer to one position of any game, as `nimdb query --json` gives it: outcome,
    /// remoteness, nim-value, best move, every move with its value, the theorem (when a
    /// theorem answers) and where the answer came from.
    ///
    /// `position` is a sequence of counts (a heap game's heaps in any order, zeros
    /// dropped; a staircase's coins on steps 1, 2, …; Welter's or raise:C's heaps) or a
    /// string such as "7 5 3". The answer comes from the first stored solve that holds the
    /// position, else a stored (or small computed) misère quotient, else a theorem (for a
    /// game from `nimdb.define`, a `Theorem` given to it and marked proven: source
    /// "user-theorem", `theorem` its citation). When
    /// none answers and a small space (at most AUTO_SOLVE_LIMIT positions, within the memory
    /// budget) would, a database opened with read_only=False solves it on the spot and
    /// stores it; a read-only one raises. Heaps beyond MAX_INPUT_HEAP are answered by a
    /// theorem or not at all. Outcome "draw" for a loopy game's draws.
    ///
    /// `cpu_limit` is the CPU seconds the answer may take (default 5, as `nimdb query`):
    /// heap values predicted to take longer raise TooCostly at once, naming their cost, and
    /// the work (heap values, a solve on the spot) is stopped once it has used them
    /// (TooCostly; a solve keeps the tiers it finished, and the same query goes on from them).
    /// Only the answer's own threads count (the calling thread, and the database's own
    /// threads for a solve on the spot): other threads of the program (another query,
    /// numpy, another database's solve) do not use up its limit.
    #[pyo3(signature = (game, position, misere = false, *, cpu_limit = None))]
    fn query(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        position: &Bound<'_, PyAny>,
        misere: bool,
        cpu_limit: Option<f64>,
    ) -> PyResult<Answer> {
        let limit = cpu_limit_arg(cpu_limit)?;
        let defined = defined_of(game);
        let game = game_arg(game)?;
        let cells = cells_arg(&game, position)?.map_err(|e| Kind::BadPosition.err(e))?;
        let conv = convention(misere);
        // A defined game is solved by Database.solve alone, which reads its moves first.
        let solves_on_the_spot = !self.read_only && defined.is_none();
        let answer = self.with_db_until(py, |db, stop| {
            let stop = &stop.clone().with_cpu_limit(limit);
            // The answer's CPU time: this thread's and the solve's own pool's, not the
            // process's (other threads' work does not count against the limit).
            let watch = self.answers.watch(stop);
            let seconds = limit.as_secs_f64();
            // A refusal by cost, or work the watch stopped, names cpu_limit.
            let costly = |e: QueryError| match e {
                QueryError::TooCostly { seconds: needed, .. } => fail_as(
                    Kind::TooCostly,
                    format!("{e}; raise cpu_limit (to about {}) to compute them", (needed * 1.5).ceil()),
                ),
                _ if watch.fired() => fail_as(
                    Kind::TooCostly,
                    format!(
                        "the answer was stopped at the CPU limit of {seconds} s ({e}); raise cpu_limit to let it finish"
                    ),
                ),
                e => e.into(),
            };
            other_rules(db, defined.as_ref()).map_err(|e| fail_as(Kind::BadGame, e))?;
            let quotients = nimdb::query::Quotients::StoredOrComputed;
            match plan_until(Some(db), &game, conv, &cells, AUTO_SOLVE_LIMIT, quotients, stop).map_err(costly)? {
                Plan::Answered(a) => Ok(*a),
                // A read-only handle answers as query_many and serve do: a stored solve, a
                // stored misère quotient, else a theorem; only what none answers is refused.
                Plan::Solve(cover) if !solves_on_the_spot => match stopping_session(db, stop).answer(&game, conv, &cells, Listing::All) {
                    Ok(a) => Ok(a),
                    Err(LookupError::NotCovered { .. } | LookupError::Space(_)) => Err(fail_as(Kind::NotAnswered, format!(
                        "{} is not covered by any stored solve of {game}{} and no theorem gives its value; \
                         answering it means solving {} positions on the spot, {}",
                        game.show(&cells),
                        if misere { " (misère)" } else { "" },
                        cover.positions(),
                        if defined.is_some() {
                            "which a game defined in Python does through Database.solve (it reads the moves first)"
                        } else {
                            "and the database was opened read-only (nimdb.open(path, read_only=False) lets a query solve it, or call Database.solve)"
                        }
                    ))),
                    Err(e) => Err(e.into()),
                },
                Plan::Solve(cover) => {
                    let solved = self.answers.install(|| answer_after_solving_until(db, &game, conv, &cells, cover, stop));
                    Ok(solved.map_err(costly)?)
                }
            }
        })?;
        // An exception in a defined game's moves, raised while its answer was made.
        if let Some(e) = crate::signals::take() {
            return Err(e);
        }
        Answer::new(py, &answer)
    }

    /// Deprecated: `Database.query` answers every game. Kept for programs written against
    /// nimdb 0.3, with the same arguments and answer.
    #[pyo3(signature = (game, position, misere = false, *, cpu_limit = None))]
    fn query_spaced(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        position: &Bound<'_, PyAny>,
        misere: bool,
        cpu_limit: Option<f64>,
    ) -> PyResult<Answer> {
        deprecated(py, "Database.query_spaced is deprecated: Database.query answers every game")?;
        self.query(py, game, position, misere, cpu_limit)
    }

    /// The answers to many positions at `nimdb query --batch` speed, as numpy arrays
    /// (outcome, remoteness, nim-value, source); no moves are listed.
    ///
    /// `positions` is a list (any iterable) of positions, each a sequence of counts or a
    /// string, or a 2-D numpy integer array with one position a row. A heap game's rows may
    /// be zero-padded (zeros are dropped), and so may a staircase's (empty top steps) and
    /// `raise:C`'s (empty heaps); a Welter position may hold a heap of 0, so a 2-D array of
    /// Welter positions is refused unless `lengths` gives each row's count of heaps (as
    /// `Export.lengths` has them: `query_many(g, t.heaps, lengths=t.lengths)`). `lengths`
    /// cuts the rows of any game's array and goes only with one.
    ///
    /// Answers come from stored solves, then (misère octal games) a stored misère
    /// quotient, then theory; nothing is solved or written: for `staircase`, `welter` and
    /// `raise:C` a stored solve, else the family's theorem, as `query --batch` answers them.
    /// Outcome codes: 1 win, 0 loss, 2 draw (a position of a loopy game such as `raise:C`
    /// from which neither player can force a win; remoteness -1), -1 no answer. With
    /// `strict=True` the first position that gets no answer raises NimdbError (naming its
    /// index); with `strict=False` it gets outcome -1 and its message goes to `errors`, and
    /// the batch goes on, as `query --batch` does. A position a family refuses (two
    /// equal Welter heaps, a heap over `raise:C`'s cap) is such a position; a value that is
    /// no position at all (not ints, a negative count) raises either way. The GIL is
    /// released while the batch runs.
    ///
    /// `cpu_limit` is the CPU seconds each position's answer may take (default 5, as
    /// `query` and `nimdb query --batch`): heap values predicted to take longer are refused
    /// at once (TooCostly, naming their cost), and theory computed on the spot is stopped
    /// once it has used them (TooCostly). Only the answer's own thread counts: other threads
    /// of the program (numpy, another query) do not use up its limit. Under `strict=False`
    /// such a position gets outcome -1 and its message in `errors`, and the batch goes on.
    #[pyo3(signature = (game, positions, misere = false, strict = true, *, lengths = None, cpu_limit = None))]
    #[allow(clippy::too_many_arguments)]
    fn query_many(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        positions: &Bound<'_, PyAny>,
        misere: bool,
        strict: bool,
        lengths: Option<&Bound<'_, PyAny>>,
        cpu_limit: Option<f64>,
    ) -> PyResult<Lookups> {
        let limit = cpu_limit_arg(cpu_limit)?;
        let seconds = limit.as_secs_f64();
        let conv = convention(misere);
        let lengths = lengths_arg(lengths)?;
        let defined = defined_of(game);
        let game = game_arg(game)?;
        let positions = positions_arg(&game, positions, lengths.as_deref())?;
        let columns = self.with_db_until(py, |db, ctrl_c| {
            other_rules(db, defined.as_ref()).map_err(|e| fail_as(Kind::BadGame, e))?;
            let mut cols = Columns::with_capacity(positions.len());
            // The stop of the position answered now: set by Ctrl-C, or by the watch of its
            // CPU time (then renewed for the next position).
            let mut stop = ctrl_c.clone().with_cpu_limit(limit);
            let mut session = stopping_session(db, &stop);
            // Stored answers (and theorems that decide at once) are read unwatched, at the
            // batch's speed; a position that needs theory computed on the spot is answered
            // again with the watch armed for it: the answering thread's CPU time, from then.
            session.set_defer_theory(true);
            let mut watch: Option<nimdb::query::CpuWatch> = None;
            let lookup = |session: &mut Session<'_>,
                          stop: &mut nimdb::theory::Stop,
                          watch: &mut Option<nimdb::query::CpuWatch>,
                          cells: &[u64]| {
                match session.lookup(&game, conv, cells) {
                    Err(LookupError::Deferred) => {}
                    other => return other.map_err(|e| (kind_of(&e), message(&e))),
                }
                let watch = watch.get_or_insert_with(|| self.answers.watch(stop));
                watch.rearm(stop);
                session.set_defer_theory(false);
                let found = session.lookup(&game, conv, cells);
                session.set_defer_theory(true);
                let fired = watch.fired();
                if fired {
                    // The flag is set: the next position needs one that is not.
                    *stop = signals::renewed().with_cpu_limit(limit);
                    session.set_stop(stop.clone());
                }
                found.map_err(|e| match e {
                    _ if fired => (
                        Kind::TooCostly,
                        format!(
                            "the answer was stopped at the CPU limit of {seconds} s; raise cpu_limit to let it finish"
                        ),
                    ),
                    // Refused by the predicted CPU time (not by the memory this process may use).
                    LookupError::TooCostly(m) if m.contains(" s an answer may take") => {
                        (Kind::TooCostly, format!("{m}; raise cpu_limit to compute them"))
                    }
                    e => (kind_of(&e), message(&e)),
                })
            };
            for (i, position) in positions.iter().enumerate() {
                // Ctrl-C between positions (with_db_until raises it); within one, the stop.
                if stop.is_stopped() || signals::poll_now_and_then() {
                    break;
                }
                let found = match position {
                    Ok(cells) => lookup(&mut session, &mut stop, &mut watch, cells),
                    Err(refused) => Err((Kind::BadPosition, refused.clone())),
                };
                match found {
                    Ok(l) => {
                        let outcome = match l.outcome {
                            Outcome::Win => 1,
                            Outcome::Loss => 0,
                            Outcome::Draw => 2,
                        };
                        cols.answered(outcome, l.remoteness, l.nim_value, l.source);
                    }
                    Err((kind, e)) if strict => return Err(fail_as(kind, format!("position {i}: {e}"))),
                    Err((_, e)) => cols.unanswered(i, e),
                }
            }
            Ok(cols)
        })?;
        Ok(columns.into_lookups(py))
    }

    /// Solves every position of `game` with at most `max_total` tokens (optionally capped
    /// by `max_heap` and `max_heaps`) into the database, tier by tier, as `nimdb solve`
    /// does; resumes (or grows) a stored solve of the same game and bounds.
    ///
    /// `progress(done, total, tier)` is called at the start (tier None) and after every
    /// tier (tier as "T=12,h=3"-style text), with positions done and in the universe.
    /// Ctrl-C (or an exception raised by `progress`) stops the solve before its next tier:
    /// the tiers finished are stored, and the same call resumes from them; the
    /// KeyboardInterrupt (or the callback's exception) is then raised. The GIL is released
    /// while the solver works.
    ///
    /// Memory is planned as `nimdb solve` plans it: the budget is `memory_limit` (bytes or
    /// a size such as "4G"; default 80% of the memory available now). A solve whose lower
    /// tiers do not fit it spills them to mapped files beside the database (the same tiers,
    /// more disk reads; `window_limit` caps the bytes of lower tiers held, to spill sooner);
    /// one that cannot fit even then is refused before anything is written. So is a solve
    /// whose database, write-ahead log and spill would not fit the disk free beside the
    /// database, or would grow the file past the file-size limit (`ulimit -f`,
    /// RLIMIT_FSIZE). See `estimate`.
    #[pyo3(signature = (game, max_total = None, *, max_heap = None, max_heaps = None, misere = false,
                        nim_values = false, memory_limit = None, window_limit = None, progress = None))]
    #[allow(clippy::too_many_arguments)]
    fn solve(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        max_total: Option<u32>,
        max_heap: Option<u32>,
        max_heaps: Option<u32>,
        misere: bool,
        nim_values: bool,
        memory_limit: Option<&Bound<'_, PyAny>>,
        window_limit: Option<&Bound<'_, PyAny>>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<SolveSummary> {
        if self.read_only {
            return Err(NimdbError::new_err(format!(
                "{} was opened read-only; nimdb.open(path, read_only=False) to solve into it",
                self.path.display()
            )));
        }
        let defined = defined_of(game);
        let game_obj = game;
        let game = game_arg(game)?;
        let conv = convention(misere);
        let budget = MemoryBudget::given(memory_arg(memory_limit)?).map_err(memory_limit_error)?;
        let window_limit = memory_arg(window_limit)?;
        let callback = progress.as_ref();
        let path = self.path.clone();
        let job = job_of(&game, conv, max_total, max_heap, max_heaps, nim_values).map_err(PyErr::from)?;
        // A game defined in Python: every move of the space is read (and checked) now, with
        // the GIL held; the solver then runs on them without it.
        if let Some(space) = job.space() {
            prepare_solve(py, game_obj, space.bounds())?;
        }
        let (record, report) = self.with_db(py, |db| {
            other_rules(db, defined.as_ref()).map_err(|e| fail_as(Kind::BadGame, e))?;
            // As `nimdb solve`: lower tiers that do not fit the budget spill to mapped files
            // beside the database; a solve whose rest does not fit, or that would not fit the
            // disk free or the file-size limit (`ulimit -f`), is refused before writing.
            let what = format!("solving {game} ({})", job.covers());
            let plan = job.plan(&budget, window_limit, &what, &path).map_err(job_words)?;
            let hooks = PyProgress { callback, total: Cell::new(0), done: Cell::new(0) };
            solved(job.run(db, &hooks, &plan))
        })?;
        Ok(SolveSummary::of(&record, &report))
    }

    /// The misère quotient of an octal `game`, as `nimdb quotient` gives it: the one stored
    /// in the database when it covers what is asked (heaps 1..=max_heap, or, without
    /// max_heap, a proven period), else computed now (see `nimdb.quotient` for the
    /// arguments) and, in a database opened with read_only=False, stored, so that queries
    /// and `query_many` then answer the game's misère positions of any size from it.
    /// Ctrl-C (or the end of the time budget `seconds`, 10 s by default for an open-ended
    /// call, or a limit that stops a heap) stops the computation, stores the verified
    /// quotient of the heaps done (when writable), and raises KeyboardInterrupt (or
    /// NimdbError saying how far it got).
    #[pyo3(signature = (game, *, max_heap = None, max_elements = 4096, memory_limit = None, seconds = None))]
    #[allow(clippy::too_many_arguments)]
    fn quotient(
        &self,
        py: Python<'_>,
        game: &str,
        max_heap: Option<i64>,
        max_elements: i64,
        memory_limit: Option<i64>,
        seconds: Option<f64>,
    ) -> PyResult<Quotient> {
        let job = QuotientJob::new(game, max_heap, max_elements, memory_limit, seconds)?;
        let read_only = self.read_only;
        let q = self.with_db(py, |db| {
            // The game's one stored quotient answers every range it covers; one of fewer
            // heaps is gone on from, as `nimdb quotient` does.
            let opts = job.options();
            let from = match db.quotient_toward(job.spec(), job.max_heap(), opts.max_states)? {
                Toward::Covered(q) => return Ok(q),
                Toward::GoOnFrom(q) if job.max_heap().is_none() && q.max_heap >= opts.cap => return Ok(q),
                Toward::GoOnFrom(q) if q.size() <= opts.limits.max_elements => Some(q),
                Toward::GoOnFrom(_) | Toward::Nothing => None,
            };
            match job.run(!read_only, from.as_ref()) {
                Ok(q) => {
                    if !read_only {
                        db.save_quotient(job.spec(), &q)?;
                    }
                    Ok(q)
                }
                Err(QuotientFailure::Interrupted(e, partial)) => {
                    if let (Some(q), false) = (partial, read_only) {
                        db.save_quotient(job.spec(), &q)?;
                    }
                    Err(Failure::Raised(e))
                }
                Err(QuotientFailure::Stopped(m, partial)) => {
                    if let (Some(q), false) = (partial, read_only) {
                        db.save_quotient(job.spec(), &q)?;
                    }
                    Err(fail_as(Kind::TooCostly, m))
                }
                Err(QuotientFailure::Message(m)) => Err(fail_as(Kind::TooCostly, m)),
            }
        })?;
        Ok(job.wrap(q))
    }

    /// Every stored position of a solve as numpy arrays (see `Export`), as `nimdb export`
    /// streams them: the game's largest stored solve, or solve `solve` (an id from
    /// `solves()`; a solve of another family is refused, as `nimdb export --solve` refuses
    /// it); only losses with `losses_only` (a draw is not a loss); only positions of at most
    /// `max_total` tokens (staircase: of weighted sum Σ i·cᵢ at most `max_total`). Every
    /// block is checked against its checksum. The rows are gathered in flat buffers that
    /// numpy then owns: nothing is copied per row.
    ///
    /// `staircase`, `welter` and `raise:C` export the same way, each row a position in the
    /// family's notation (a staircase's step 1 first; a Welter position may hold a 0 heap,
    /// so `lengths` says where each row ends); a draw of a loopy game has `draw` True,
    /// `win` False and remoteness 65535.
    #[pyo3(signature = (game, misere = false, *, solve = None, losses_only = false, max_total = None))]
    fn export(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        misere: bool,
        solve: Option<i64>,
        losses_only: bool,
        max_total: Option<u32>,
    ) -> PyResult<Export> {
        let defined = defined_of(game);
        let game = game_arg(game)?;
        let conv = convention(misere);
        let path = self.path.display().to_string();
        let (record, rows) = self.with_db(py, |db| {
            other_rules(db, defined.as_ref()).map_err(|e| fail_as(Kind::BadGame, e))?;
            let (record, game) = match solve {
                Some(id) => nimdb::stored::solve_by_id(db, id, Some(&game)).map_err(|e| match e {
                    StoredError::NoSuchSolve(_) => fail(format!("{e} in {path} (see Database.solves())")),
                    StoredError::OtherGame { ref of, .. } => fail(format!("{e}: export it with game={of:?}")),
                    other => other.into(),
                })?,
                None => match nimdb::stored::largest_solve(db, &game, conv)? {
                    Some(record) => (record, game.clone()),
                    None => {
                        let misere = if misere { " (misère)" } else { "" };
                        return Err(fail(format!(
                            "no stored solve of {game}{misere} in {path} (see Database.solves())"
                        )));
                    }
                },
            };
            nimdb::stored::check_readable(&game, &record)?;
            let mut rows = Rows::default();
            let n = record.positions as usize;
            rows.win.reserve(n);
            rows.remoteness.reserve(n);
            let filter = ExportFilter { losses_only, max_total };
            nimdb::stored::for_each_stored(db, &game, &record, filter, |p| -> Result<(), Failure> {
                rows.heaps.extend_from_slice(p.position);
                rows.lengths.push(p.position.len() as u32);
                rows.win.push(p.outcome == Outcome::Win);
                rows.draw.push(p.outcome == Outcome::Draw);
                rows.remoteness.push(p.remoteness.unwrap_or(nimdb::game::DRAW));
                if let Some(g) = p.nim_value {
                    rows.nim_value.push(g);
                }
                Ok(())
            })?;
            Ok((record, rows))
        })?;
        let n = rows.win.len();
        let width = rows.lengths.iter().copied().max().unwrap_or(0) as usize;
        // One pass to pad the ragged rows into (n, width), without the GIL.
        let lengths = &rows.lengths;
        let flat = rows.heaps;
        let padded = py.detach(|| {
            if lengths.iter().all(|&l| l as usize == width) {
                return flat;
            }
            let mut padded = vec![0u32; n * width];
            let mut at = 0;
            for (row, &len) in padded.chunks_exact_mut(width.max(1)).zip(lengths) {
                let len = len as usize;
                row[..len].copy_from_slice(&flat[at..at + len]);
                at += len;
            }
            padded
        });
        let heaps = padded.into_pyarray(py).reshape([n, width])?.into_any().unbind();
        let nim_value = (record.nim_values && rows.nim_value.len() == n)
            .then(|| rows.nim_value.into_pyarray(py).unbind());
        Ok(Export {
            solve_id: record.id,
            game: record.game.clone(),
            misere: record.convention == Convention::Misere,
            heaps,
            lengths: rows.lengths.into_pyarray(py).unbind(),
            win: rows.win.into_pyarray(py).unbind(),
            draw: rows.draw.into_pyarray(py).unbind(),
            remoteness: rows.remoteness.into_pyarray(py).unbind(),
            nim_value,
        })
    }

    /// Checks every stored solve of `game` under one convention, as `nimdb verify` does, and
    /// returns what it found (`report.ok` is False when something is wrong; nothing is
    /// raised for a finding). Each stored position is checked against the game's theorem
    /// where one decides it, and recomputed from its children's stored values: `sample`
    /// positions at random (seeded by `seed`) for a sum of heaps, every position for a
    /// family with its own position space; `full=True` also solves a sum of heaps again in
    /// memory and compares every tier.
    ///
    /// A game from `nimdb.define` is checked against its function as it is now: its moves
    /// are read again (every position of its stored solves, each move checked as for a
    /// solve; Ctrl-C stops that), and every stored position recomputed from them. A function
    /// that changed since the solve shows up as positions that disagree with their children.
    ///
    /// The user's theorems and conjectures (`nimdb.Theorem`) stated under this convention,
    /// those given to `nimdb.define` and those given here as `theorem` (one or a list; for
    /// any game), are each checked against every stored position: an outcome against the
    /// stored outcome, a nim-value against the stored nim-value (a heap game solved with
    /// `nim_values=True`) or, for any other acyclic game, the nim-value computed by mex from
    /// its moves. `report.theorems` gives each one's counts and first counterexamples; a
    /// counterexample to one marked proven makes `report.ok` False. An exception in a
    /// formula raises NimdbError naming the theorem and the position.
    #[pyo3(signature = (game, misere = false, *, sample = 10_000, seed = 1, full = false, theorem = None))]
    #[allow(clippy::too_many_arguments)]
    fn verify(
        &self,
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        misere: bool,
        sample: u64,
        seed: u64,
        full: bool,
        theorem: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<crate::checks::VerifyReport> {
        let given = crate::stated::theorems_arg(theorem)?;
        let defined = defined_of(game);
        let game_obj = game;
        let game = game_arg(game)?;
        let conv = convention(misere);
        if defined.is_some() {
            // The moves of every stored position, read from the function first (the GIL
            // held), so that the check runs on them without it.
            let bounds = self.with_db(py, |db| {
                other_rules(db, defined.as_ref()).map_err(|e| fail_as(Kind::BadGame, e))?;
                Ok(nimdb::space::stored_union_bounds(db, &game, conv)?)
            })?;
            if let Some(bounds) = bounds {
                prepare_solve(py, game_obj, bounds)?;
            }
        }
        let options = nimdb::verify::VerifyOptions { sample, seed, full };
        let mut theorems: Vec<_> = defined.as_ref().map(|d| d.theorems().to_vec()).unwrap_or_default();
        theorems.extend(given.iter().map(|t| t.get().stated()));
        let report = self.with_db_until(py, |db, stop| {
            let mut report = nimdb::verify::verify_with(db, &game, conv, &options)?;
            report.stated = nimdb::verify::check_stated(db, &game, conv, &theorems, stop)?;
            Ok(report)
        })?;
        crate::checks::VerifyReport::of(py, &report)
    }
}

/// A `memory_limit` above what this process may use (`ulimit -v`, the cgroup's limit).
pub(crate) fn memory_limit_error(e: nimdb::resources::ResourceError) -> PyErr {
    Kind::BadArgument.err(format!("memory_limit: {e}"))
}
