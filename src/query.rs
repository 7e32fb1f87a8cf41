//! Queries: a position's outcome, remoteness, best move and every move's value.
//!
//! A query is a lookup in a stored solve that covers the position. When none does and the
//! smallest universe that would is small, it is solved on the spot through the solve driver
//! and stored; otherwise the error names the universe that would cover it.

use std::fmt;
use std::sync::Arc;

use crate::answer::{Answer, MoveValue, Source, best_move};
use crate::game::{BigMove, Family, Game, Outcome};

use crate::driver::{DriverError, JobError, Reach, SolveJob};
use crate::game::{
    BigPosition, Convention, Formula, GameRules, GameSpec, HeapFamily, HeapResult, MAX_INPUT_HEAP, Move,
    Position, all_moves, heap_results, result_bound,
};
use crate::index::{TierId, Universe};
use crate::solve::MAX_SOLVE_TOTAL;
use crate::space::{SpaceError, SpacePlan};
use crate::store::{Database, Prober, SolveRecord, SolveStatus, StoreError};
use crate::theory::quotient::Quotient;
use crate::theory::{self, Decision, Theorem, TheoryError};

/// The largest universe a query solves on the spot, in positions.
pub const AUTO_SOLVE_LIMIT: u64 = 5_000_000;

/// The value of heap move `mv` from `position`: where it leads, which heap it moved in and
/// how many tokens it took, in words, with the outcome and remoteness of where it leads.
pub(crate) fn heap_move(
    position: &Position,
    mv: &Move,
    outcome: Outcome,
    remoteness: Option<u32>,
) -> MoveValue {
    MoveValue {
        to: mv.apply(position).cells(),
        heap: Some(u64::from(mv.heap())),
        taken: Some(u128::from(mv.taken())),
        description: mv.describe(position),
        outcome,
        remoteness,
    }
}

/// Answers from a stored solve, or `None` if `solve` does not cover `position`.
pub fn answer_from_solve(
    db: &Database,
    game: &GameSpec,
    convention: Convention,
    solve: &SolveRecord,
    position: &Position,
    source: Source,
) -> Result<Option<Answer>, QueryError> {
    if !solve.target_universe().contains(position) {
        return Ok(None);
    }
    let mut prober = Prober::new(db, solve.clone(), position.total() as u32)?;
    let Some(record) = prober.record(position)? else {
        return Ok(None);
    };
    let mut moves = Vec::new();
    for mv in all_moves(game.rules(), position) {
        let to = mv.apply(position);
        let child = prober.record(&to)?.ok_or_else(|| QueryError::MissingChild {
            solve_id: solve.id,
            child: to.clone(),
            position: position.clone(),
        })?;
        let r = child.remoteness as u32;
        moves.push(heap_move(position, &mv, Outcome::from_remoteness(convention, r), Some(r)));
    }
    let outcome = Outcome::from_remoteness(convention, record.remoteness as u32);
    let best = best_move(&moves).cloned();
    Ok(Some(Answer {
        game: game.canonical(),
        convention,
        position: position.cells(),
        outcome,
        remoteness: Some(record.remoteness as u32),
        nim_value: record.nim_value.map(u64::from),
        best_move: best,
        moves,
        moves_omitted: 0,
        source,
        theorem: None,
        cited: None,
        solve_id: Some(solve.id),
    }))
}

/// The most moves a theory answer lists; beyond it only the best move is given.
pub const THEORY_MOVE_LIMIT: u128 = 100_000;

/// The most heap values a theory answer's move list may hold (moves × heaps per position).
const THEORY_LISTING_CELLS: u128 = 20_000_000;

/// The largest heap a theory answer computes nim-values up to for games with no period to
/// shortcut them (Grundy's game, repeated splitting digits): about two seconds.
pub const THEORY_SLOW_HEAP_LIMIT: u32 = 50_000;

/// The most moves a theory answer examines.
pub const THEORY_MOVE_SEARCH_LIMIT: u128 = 200_000_000;

/// Answers from theory, where a theorem the family declares applies (see
/// [`Theory`](crate::game::Theory)): Bouton's rule for Nim, Moore's theorem for Nim_k,
/// Wythoff's pairs for two-heap Wythoff, and Sprague–Grundy under normal play for other sums
/// of heaps (heap nim-values computed from each heap's own moves). Remoteness is not known.
/// Where a theorem decides the outcome (Bouton, Moore, Wythoff), the outcome and the best
/// move come from it without a move search ([`theory::decide`](mod@crate::theory::decide)): from a win its winning
/// move, from a loss the first move; the moves are listed only when there are few enough.
/// For other sums of heaps the best move from a win is the first move in move order to a
/// loss; from a loss, the first move; positions with more moves than can be listed get the
/// best move only. `None` when no theorem applies.
pub fn answer_from_theory(
    game: &GameSpec,
    convention: Convention,
    position: &Position,
) -> Result<Option<Answer>, QueryError> {
    answer_from_theory_until(game, convention, position, &theory::Stop::never())
}

/// [`answer_from_theory`], stopping the heap values it computes when `stop` is set
/// ([`TheoryError::Stopped`] inside [`QueryError::Theory`];
/// the values finished are kept for the next answer).
pub fn answer_from_theory_until(
    game: &GameSpec,
    convention: Convention,
    position: &Position,
    stop: &theory::Stop,
) -> Result<Option<Answer>, QueryError> {
    if let Some(answer) = theorem_answer(game, convention, position, stop)? {
        return Ok(Some(answer));
    }
    let theory = game.rules().theory();
    match game.heap_rules() {
        Some(rules) if theory.sum_of_heaps => heap_theory_answer(game, rules, convention, position, stop),
        _ => Ok(None),
    }
}

/// A theory answer from a theorem that decides the outcome (Nim, Nim_k, two-heap Wythoff):
/// the outcome and the best move from [`theory::decide`](mod@crate::theory::decide), every move's outcome from the
/// same rule when the moves are few enough to list (judging them looks at `stop` every
/// 4,096). `None` for other games.
fn theorem_answer(
    game: &GameSpec,
    convention: Convention,
    position: &Position,
    stop: &theory::Stop,
) -> Result<Option<Answer>, QueryError> {
    let Some(decision) = theory::decide(game, convention, &BigPosition::from(position), None)
        .map_err(|e| QueryError::Quotient(e.to_string()))?
    else {
        return Ok(None);
    };
    let k = match game.rules().theory().formula {
        Some(Formula::Moore { k }) => Some(k),
        _ => None,
    };
    let loses = |p: &Position| match decision.theorem {
        Theorem::Moore => theory::moore_loss(p.heaps(), k.unwrap_or(1), convention),
        Theorem::Wythoff => theory::wythoff_loss(p.heaps(), convention).unwrap_or(false),
        _ => theory::nim_loss(p.heaps(), convention),
    };
    let bound = decision.moves;
    let listing = bound <= THEORY_MOVE_LIMIT && bound * position.len() as u128 <= THEORY_LISTING_CELLS;
    let mut moves = Vec::new();
    if listing {
        for (i, mv) in all_moves(game.rules(), position).into_iter().enumerate() {
            if i.is_multiple_of(4096) && stop.is_stopped() {
                return Err(QueryError::Theory(theory::Stopped { values: Vec::new() }.into()));
            }
            let to = mv.apply(position);
            let outcome = if loses(&to) { Outcome::Loss } else { Outcome::Win };
            moves.push(heap_move(position, &mv, outcome, None));
        }
    }
    Ok(Some(decided_answer(game, convention, position, &decision, Source::Theory, moves)))
}

/// The answer a theorem's decision gives: its outcome and best move (the opponent's
/// outcome after it follows: from a win the move wins, from a loss every move loses),
/// remoteness unknown, with `moves` listed (or none, and the count omitted).
fn decided_answer(
    game: &GameSpec,
    convention: Convention,
    position: &Position,
    decision: &Decision,
    source: Source,
    moves: Vec<MoveValue>,
) -> Answer {
    let (outcome, child) =
        if decision.loss { (Outcome::Loss, Outcome::Win) } else { (Outcome::Win, Outcome::Loss) };
    let best_move = decision.best_move.as_ref().map(|m| {
        heap_move(position, &m.narrow().expect("a move from a bounded position is bounded"), child, None)
    });
    Answer {
        game: game.canonical(),
        convention,
        position: position.cells(),
        outcome,
        remoteness: None,
        nim_value: decision.nim_value,
        best_move,
        moves_omitted: if moves.is_empty() { decision.moves.min(u64::MAX as u128) as u64 } else { 0 },
        moves,
        source,
        theorem: if source == Source::Theory { game.formula(convention) } else { None },
        cited: None,
        solve_id: None,
    }
}

/// Theory answers for sums of heaps other than Nim: Sprague–Grundy under normal play
/// (`None` under misère play, which has no such theorem).
fn heap_theory_answer(
    game: &GameSpec,
    rules: &HeapFamily,
    convention: Convention,
    position: &Position,
    stop: &theory::Stop,
) -> Result<Option<Answer>, QueryError> {
    if convention == Convention::Misere {
        return Ok(None);
    }
    let mut distinct = position.heaps().to_vec();
    distinct.dedup();
    let bound: u128 = distinct.iter().map(|&h| result_bound(rules, h)).sum();
    if bound > THEORY_MOVE_SEARCH_LIMIT {
        return Err(QueryError::TooManyMoves { position: position.clone(), bound });
    }
    let listing = bound <= THEORY_MOVE_LIMIT && bound * position.len() as u128 <= THEORY_LISTING_CELLS;
    // The heaps' nim-values and the position's nim-value.
    theory::report::check_up_to(game, position.largest() as u64)?;
    // Games without a proven period take O(n²) to reach heap n: keep answers quick.
    let shape = theory::shape::HeapShape::of(rules);
    let slow = matches!(rules, HeapFamily::Grundy(_)) || shape.quadratic() || shape.three_way;
    if slow && position.largest() > THEORY_SLOW_HEAP_LIMIT {
        return Err(QueryError::NoShortcut { game: game.canonical(), heap: position.largest() });
    }
    let g = values_within_budget(game, rules, position.largest(), stop)?;
    let v = theory::position_nim_value(&g, position.heaps());
    // Whether the child where heap h became `result` is a loss, from the parent's value.
    let loses_after =
        |h: u32, result: HeapResult| v ^ g[h as usize] ^ theory::position_nim_value(&g, result.parts()) == 0;
    let outcome = if v == 0 { Outcome::Loss } else { Outcome::Win };
    let value_of = |mv: Move, loses: bool| {
        heap_move(position, &mv, if loses { Outcome::Loss } else { Outcome::Win }, None)
    };
    let mut moves = Vec::new();
    let mut best = None;
    // Up to THEORY_MOVE_SEARCH_LIMIT moves: the stop is looked at every 4,096.
    let mut examined = 0u32;
    'heaps: for &h in &distinct {
        for result in heap_results(rules, h) {
            examined = examined.wrapping_add(1);
            if examined.is_multiple_of(4096) && stop.is_stopped() {
                return Err(QueryError::Theory(theory::Stopped { values: g.to_vec() }.into()));
            }
            let loses = loses_after(h, result);
            let mv = Move::single(h, result);
            if best.is_none() && (loses || outcome == Outcome::Loss) {
                best = Some(value_of(mv.clone(), loses));
                if !listing {
                    break 'heaps;
                }
            }
            if listing {
                moves.push(value_of(mv, loses));
            }
        }
    }
    Ok(Some(Answer {
        game: game.canonical(),
        convention,
        position: position.cells(),
        outcome,
        remoteness: None,
        nim_value: Some(u64::from(v)),
        best_move: best,
        moves,
        moves_omitted: if listing { 0 } else { bound.min(u64::MAX as u128) as u64 },
        source: Source::Theory,
        theorem: None,
        cited: None,
        solve_id: None,
    }))
}

/// Heaps computed first, to see how the nim-values of a game grow in cost when the sparse
/// space computes them (their cost depends on the values met).
const THEORY_PROBE_HEAP: u32 = 20_000;

/// The CPU time a theory answer may take when its stop names none
/// ([`theory::Stop::cpu_limit`]): the default of `serve --cpu-limit` and `query --cpu-limit`.
pub const DEFAULT_CPU_LIMIT: std::time::Duration = std::time::Duration::from_secs(5);

/// A face's CPU limit on the work of one answer (`query --cpu-limit`, Python's `cpu_limit`):
/// a thread that reads this process's CPU time every 10 ms and sets the stop once the work
/// has used `limit` of it; the watch ends when dropped. The stop it is given carries the
/// limit ([`theory::Stop::with_cpu_limit`]), so that work predicted past it is refused
/// before it starts. One watch serves answer after answer ([`rearm`](Self::rearm): a
/// batch's lines, each with its own stop and limit).
pub struct CpuWatch {
    shared: Arc<Watched>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// What a [`CpuWatch`]'s thread reads.
struct Watched {
    clock: Box<dyn Fn() -> Option<std::time::Duration> + Send + Sync>,
    /// The stop watched now, its limit, and the clock's reading when it was armed.
    now: std::sync::Mutex<Option<(theory::Stop, std::time::Duration, std::time::Duration)>>,
    over: std::sync::atomic::AtomicBool,
    done: std::sync::atomic::AtomicBool,
}

impl Watched {
    /// Watches `stop` from now on (nothing when it names no limit or the clock is unread).
    fn arm(&self, stop: &theory::Stop) {
        let armed = match (stop.cpu_limit(), (self.clock)()) {
            (Some(limit), Some(start)) => Some((stop.clone(), limit, start)),
            _ => None,
        };
        self.over.store(false, std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut now) = self.now.lock() {
            *now = armed;
        }
    }
}

impl std::fmt::Debug for CpuWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpuWatch").field("fired", &self.fired()).finish_non_exhaustive()
    }
}

impl CpuWatch {
    /// Watches the CPU time this process uses from now on, and sets `stop` past `stop`'s
    /// limit (no watch when it has none, or where this process's CPU time cannot be read).
    pub fn start(stop: &theory::Stop) -> CpuWatch {
        CpuWatch::start_with(stop, crate::resources::process_cpu_time)
    }

    /// [`start`](Self::start) on another clock (a server watches the threads that do the
    /// work, [`ThreadGroup`](crate::resources::ThreadGroup): its other requests' time is
    /// not this one's).
    pub fn start_with(
        stop: &theory::Stop,
        clock: impl Fn() -> Option<std::time::Duration> + Send + Sync + 'static,
    ) -> CpuWatch {
        use std::sync::atomic::{AtomicBool, Ordering};
        let shared = Arc::new(Watched {
            clock: Box::new(clock),
            now: std::sync::Mutex::new(None),
            over: AtomicBool::new(false),
            done: AtomicBool::new(false),
        });
        shared.arm(stop);
        let thread = if stop.cpu_limit().is_some() && (shared.clock)().is_some() {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("nimdb-cpu-watch".into())
                .spawn(move || {
                    while !shared.done.load(Ordering::Relaxed) {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                        let Ok(mut now) = shared.now.lock() else { return };
                        let Some((stop, limit, start)) = now.as_ref() else { continue };
                        let used = (shared.clock)().map(|now| now.saturating_sub(*start));
                        if used.is_some_and(|used| used > *limit) {
                            shared.over.store(true, Ordering::Relaxed);
                            stop.stop();
                            *now = None;
                        }
                    }
                })
                .ok()
        } else {
            None
        };
        CpuWatch { shared, thread }
    }

    /// Watches `stop` (with its own limit) from now on instead of the stop watched before,
    /// counting the CPU time from now; [`fired`](Self::fired) is cleared. A watch started
    /// with a stop that named no limit has no thread and watches nothing.
    pub fn rearm(&self, stop: &theory::Stop) {
        self.shared.arm(stop);
    }

    /// Whether the watch set the stop: the work used its CPU limit.
    pub fn fired(&self) -> bool {
        self.shared.over.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Drop for CpuWatch {
    fn drop(&mut self) {
        self.shared.done.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// An answer's own threads, so that its CPU limit counts its work alone and not the rest of
/// the process (other requests of a server, other threads of a Python program, another
/// database's solve): the thread that answers, and a rayon pool for the solve on the spot,
/// started on first use, whose workers (and the threads they start to help them, the tier
/// writer) are one [`ThreadGroup`](crate::resources::ThreadGroup). [`watch`](Self::watch)
/// watches the answering thread's clock and the group's; [`install`](Self::install) runs
/// the solve on the pool; [`release`](Self::release) ends the pool's threads (a Python
/// `Database.close`), and the next solve starts it again. Answers take it one at a time
/// (its holder's lock): the group's time is then theirs.
#[derive(Debug)]
pub struct AnswerThreads {
    group: crate::resources::ThreadGroup,
    threads: usize,
    pool: std::sync::Mutex<Option<AnswerPool>>,
}

/// A started pool of [`AnswerThreads`], with its workers' handles to join when it ends.
#[derive(Debug)]
struct AnswerPool {
    pool: Arc<rayon::ThreadPool>,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl Drop for AnswerThreads {
    fn drop(&mut self) {
        self.release();
    }
}

impl Default for AnswerThreads {
    fn default() -> Self {
        AnswerThreads::new()
    }
}

impl AnswerThreads {
    /// Threads for answers, the pool as many as rayon's global pool is given
    /// ([`pool_threads`](crate::solve::pool_threads)); none started yet.
    pub fn new() -> AnswerThreads {
        AnswerThreads {
            group: crate::resources::ThreadGroup::new(),
            threads: crate::solve::pool_threads(),
            pool: std::sync::Mutex::new(None),
        }
    }

    /// The threads of the pool (started or not): what a solve run on it is planned with
    /// ([`cover_fits`], [`crate::driver::SolveJob::new`]).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The pool, started on first use (and again after [`release`](Self::release)).
    fn pool(&self) -> Result<Arc<rayon::ThreadPool>, rayon::ThreadPoolBuildError> {
        let mut started = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(started) = started.as_ref() {
            return Ok(started.pool.clone());
        }
        let group = self.group.clone();
        let mut workers = Vec::with_capacity(self.threads);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads)
            .thread_name(|i| format!("nimdb-answer-{i}"))
            .start_handler(move |_| group.join())
            // Spawned here, their handles kept, so that `release` can wait for them to end.
            .spawn_handler(|thread| {
                let mut builder = std::thread::Builder::new();
                if let Some(name) = thread.name() {
                    builder = builder.name(name.to_owned());
                }
                if let Some(size) = thread.stack_size() {
                    builder = builder.stack_size(size);
                }
                workers.push(builder.spawn(|| thread.run())?);
                Ok(())
            })
            .build()?;
        let pool = Arc::new(pool);
        *started = Some(AnswerPool { pool: pool.clone(), workers });
        Ok(pool)
    }

    /// Ends the pool's threads, if it was started, and waits until they have exited (their
    /// CPU time stays counted, their stacks are unmapped). A solve run later starts the
    /// pool again; dropping the `AnswerThreads` releases it too. Call it with no answer running (a Python `Database.close` holds the
    /// connection's lock): a pool still in use is let go without waiting, its threads
    /// ending when the solve on it returns.
    pub fn release(&self) {
        let started = self.pool.lock().unwrap_or_else(|p| p.into_inner()).take();
        let Some(AnswerPool { pool, workers }) = started else { return };
        // The last handle: dropping it tells the workers to exit once idle.
        if let Ok(pool) = Arc::try_unwrap(pool) {
            drop(pool);
            for worker in workers {
                let _ = worker.join();
            }
        }
    }

    /// A watch of an answer's CPU time against `stop`'s limit (see [`CpuWatch`]): the
    /// calling thread's (the one that answers, which must outlive the watch) and the pool's
    /// threads' from now on. Where there are no thread clocks, this process's CPU time.
    pub fn watch(&self, stop: &theory::Stop) -> CpuWatch {
        let Some(caller) = crate::resources::ThreadClock::current() else {
            return CpuWatch::start(stop);
        };
        let group = self.group.clone();
        CpuWatch::start_with(stop, move || Some(caller.used()? + group.used()?))
    }

    /// Runs `work` (a solve on the spot, [`answer_after_solving_until`]) on the pool, the
    /// calling thread waiting for it without using CPU; where the pool's threads cannot
    /// start, on the calling thread.
    pub fn install<T: Send>(&self, work: impl FnOnce() -> T + Send) -> T {
        match self.pool() {
            Ok(pool) => pool.install(work),
            Err(_) => work(),
        }
    }
}

/// The nim-values g(0..=n) for a theory answer (or longer), or a refusal that says what they
/// would cost, made before the costly part runs ([`check_values_cost`]). Sequences computed
/// are kept for the next answer ([`theory::recent`]).
fn values_within_budget(
    game: &GameSpec,
    rules: &HeapFamily,
    n: u32,
    stop: &theory::Stop,
) -> Result<Arc<Vec<u32>>, QueryError> {
    let key = game.canonical();
    let kept = theory::recent::prefix(&key, n);
    if let Some(values) = kept.as_ref().filter(|v| v.len() > n as usize) {
        return Ok(values.clone());
    }
    let known: &[u32] = kept.as_deref().map_or(&[], Vec::as_slice);
    // A stop keeps the values finished, for the next answer to compute on from.
    let stopped = |s: theory::Stopped| {
        theory::recent::keep(&key, Arc::new(s.values.clone()));
        QueryError::Theory(s.into())
    };
    check_values_cost(game, rules, n, known, stop)?;
    let values = theory::sequence::nim_values_until(rules, n, known, stop).map_err(stopped)?.0;
    let values = Arc::new(values);
    theory::recent::keep(&key, values.clone());
    Ok(values)
}

/// Refuses, before the costly part runs, the nim-values g(0..=n) of `game` (`rules` its
/// heap rules) predicted to take more CPU time than `stop`'s limit ([`DEFAULT_CPU_LIMIT`]
/// when it names none) or more memory than this process may use; `known` are the values
/// already computed (g(0..known.len())), which cost nothing. The cost is predicted by the
/// method that will compute them ([`theory::cost`]): the plain mex of games that split heaps
/// three ways and the plain method (no sparse space makes the rare heaps rare: found on the
/// first [`PROBE`](theory::sparse::PROBE) heaps, milliseconds) in closed form, heaps ×
/// options per heap; the sparse space from its work up to `THEORY_PROBE_HEAP` (its pair
/// scans and its rare pairs marked, [`theory::cost::SparseProbe`]), extrapolated as n².
/// Values past a certified period cost nothing. What `nimdb query`, `query --batch`,
/// `nimdb heaps` and the server predict with.
pub fn check_values_cost(
    game: &GameSpec,
    rules: &HeapFamily,
    n: u32,
    known: &[u32],
    stop: &theory::Stop,
) -> Result<(), QueryError> {
    use theory::cost::SequenceCost;
    if known.len() > n as usize {
        return Ok(());
    }
    let key = game.canonical();
    let limit = stop.cpu_limit().unwrap_or(DEFAULT_CPU_LIMIT).as_secs_f64();
    let within = |cost: SequenceCost, method: &str| -> Result<(), QueryError> {
        crate::resources::MemoryBudget::new(None)
            .check(&format!("the nim-values of {key} up to heap {n}"), cost.bytes)?;
        if cost.cpu_seconds() > limit {
            return Err(QueryError::TooCostly {
                game: key.clone(),
                heap: n,
                method: method.to_string(),
                reads: cost.reads,
                seconds: cost.cpu_seconds(),
                limit,
            });
        }
        Ok(())
    };
    let stopped = |s: theory::Stopped| QueryError::Theory(s.into());
    let shape = theory::shape::HeapShape::of(rules);
    let from = known.len() as u32;
    if shape.three_way {
        // The plain mex over every split: predicted whole before anything runs.
        within(SequenceCost::plain_mex(rules, from, n), "plain mex over every split in two and three")?;
    } else if n > theory::sparse::PROBE {
        // The first heaps choose the method (and may certify a period: the rest is free).
        let (probe, info) =
            theory::sequence::nim_values_until(rules, theory::sparse::PROBE, known, stop).map_err(stopped)?;
        if info.stats.certified_at.is_none() {
            let probe = if known.len() > probe.len() { known } else { &probe };
            match theory::sparse::planned_method(&shape, n, probe) {
                theory::sparse::SplitMethod::Plain => within(
                    SequenceCost::plain_method(&shape, probe.len() as u32, n),
                    "plain method over every split (no sparse space makes its rare heaps rare)",
                )?,
                theory::sparse::SplitMethod::Sparse(_) if n > THEORY_PROBE_HEAP => {
                    // Measured from scratch: values kept would hide the work per heap.
                    let (values, info) =
                        theory::sequence::nim_values_until(rules, THEORY_PROBE_HEAP, &[], stop)
                            .map_err(stopped)?;
                    if info.stats.certified_at.is_none() {
                        let space = match info.method {
                            theory::sparse::SplitMethod::Sparse(space) => Some(space),
                            _ => None,
                        };
                        let cost =
                            theory::cost::SparseProbe::of(&shape, space, &values, &info.stats).predict(n);
                        within(
                            cost,
                            &format!("sparse space, with no proven period by heap {THEORY_PROBE_HEAP}"),
                        )?;
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// The smallest universe that covers `position`: every position with at most its total,
/// and, for games that never split a heap, no larger heaps and no more heaps than it has.
pub fn smallest_universe<R: GameRules + ?Sized>(rules: &R, position: &Position) -> Universe {
    let total = position.total() as u32;
    if !rules.heap_cap_closed() {
        Universe { max_total: total, max_heap: None, max_heaps: None }
    } else {
        let cap = |c: u32| Some(c).filter(|&c| c < total);
        Universe {
            max_total: total,
            max_heap: cap(position.largest()),
            max_heaps: cap(position.len() as u32),
        }
    }
}

/// Why a query could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The position has more tokens than any solve can hold.
    #[error("{position} has {total} tokens, more than nimdb can solve (at most {MAX_SOLVE_TOTAL})")]
    TooLarge {
        /// The position.
        position: Position,
        /// Its total.
        total: u64,
    },
    /// No stored solve covers the position and it is too big to solve on the spot.
    #[error("{0}")]
    NotCovered(Box<Uncovered>),
    /// Theory would have to examine too many moves.
    #[error("{position} has too many moves to search (about {bound}; at most {THEORY_MOVE_SEARCH_LIMIT})")]
    TooManyMoves {
        /// The position.
        position: Position,
        /// About how many moves it has.
        bound: u128,
    },
    /// The game's heap values have no shortcut that reaches this heap quickly.
    #[error(
        "{game} has no shortcut to the nim-value of a {heap}-heap; theory answers go up to heaps of {THEORY_SLOW_HEAP_LIMIT}"
    )]
    NoShortcut {
        /// Canonical game.
        game: String,
        /// The largest heap of the position.
        heap: u32,
    },
    /// The game's nim-values up to the position's largest heap are predicted to take more
    /// CPU time than the answer may.
    #[error(
        "the nim-values of {game} up to heap {heap} take about {reads:.1e} option reads by the {method}, about {seconds:.0} CPU s, more than the {limit} s an answer may take"
    )]
    TooCostly {
        /// Canonical game.
        game: String,
        /// The largest heap of the position.
        heap: u32,
        /// The method that would compute them, in words.
        method: String,
        /// The options (or pairs) it would read.
        reads: f64,
        /// The CPU seconds predicted.
        seconds: f64,
        /// The CPU seconds the answer may take.
        limit: f64,
    },
    /// The memory this process may use is too little for the work.
    #[error(transparent)]
    Resource(#[from] crate::resources::ResourceError),
    /// A heap beyond what databases, solves and nim-value tables reach, and no theorem
    /// decides the position.
    #[error(
        "{position} has a heap of {heap}, larger than {MAX_INPUT_HEAP}, the largest heap nimdb looks up, solves or computes nim-values for; larger heaps are answered only by a theorem (Bouton's rule for Nim, Moore's theorem, Wythoff's pairs, a misère quotient with a proven period), and {why}"
    )]
    BeyondTheory {
        /// The position.
        position: BigPosition,
        /// Its largest heap.
        heap: u64,
        /// Why no theorem decides it.
        why: String,
        /// Canonical game.
        game: String,
        /// Whether a misère quotient with a proven period would decide it (misère octal games).
        quotient: bool,
    },
    /// A stored solve covers a position but not one of its children.
    #[error("solve #{solve_id} is missing the child {child} of {position}; the database is inconsistent")]
    MissingChild {
        /// The solve.
        solve_id: i64,
        /// The child missing.
        child: Position,
        /// The position.
        position: Position,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Solving on the spot failed.
    #[error(transparent)]
    Solve(#[from] DriverError),
    /// The theory cannot answer.
    #[error(transparent)]
    Theory(#[from] TheoryError),
    /// A stored misère quotient could not be read or used.
    #[error("{0}")]
    Quotient(String),
    /// The position is not one of the game's.
    #[error("{0}")]
    BadPosition(String),
    /// A family with its own position space could not answer.
    #[error(transparent)]
    Space(#[from] SpaceError),
}

/// A position no stored solve covers, too big to solve on the spot.
#[derive(Debug, Clone)]
pub struct Uncovered {
    /// The position.
    pub position: Position,
    /// Canonical game.
    pub game: String,
    /// The convention.
    pub convention: Convention,
    /// An interrupted solve that would cover it if resumed: its id and last tier.
    pub interrupted: Option<(i64, Option<TierId>)>,
    /// Why theory gives no answer, where the family declares no theorem for it, or "".
    pub theory: String,
    /// Positions left to solve in the cheapest covering universe (`None`: too many to
    /// count).
    pub positions: Option<u64>,
    /// The on-the-spot limit.
    pub limit: u64,
    /// The cheapest universe that covers it.
    pub universe: Universe,
}

impl fmt::Display for Uncovered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is not covered by any stored solve of {}{}{}{}; covering it means solving {} more positions (more than the {} solved on the spot)",
            self.position,
            self.game,
            misere_words(self.convention),
            interrupted_words(&self.interrupted),
            self.theory,
            self.positions.map_or("too many".to_string(), |c| c.to_string()),
            self.limit
        )
    }
}

pub(crate) fn misere_words(convention: Convention) -> &'static str {
    if convention == Convention::Misere { " under misère play" } else { "" }
}

fn interrupted_words(interrupted: &Option<(i64, Option<TierId>)>) -> String {
    interrupted.map_or(String::new(), |(id, last)| {
        format!(
            " (solve #{id} was interrupted{})",
            last.map_or(String::new(), |t| format!(" after tier {t}"))
        )
    })
}

/// Why no theorem answers for `position`, for families that are not sums of heaps.
fn no_theory_note(game: &GameSpec, position: &Position) -> String {
    let theory = game.rules().theory();
    match theory.formula {
        Some(Formula::Wythoff) if position.len() > 2 => format!(
            ", and no theorem gives its outcome (Wythoff's pairs decide positions of at most two heaps; {} heaps is an open problem)",
            position.len()
        ),
        None if !theory.sum_of_heaps => format!(", and no theorem gives outcomes in {game}"),
        _ => String::new(),
    }
}

/// The refusal of a position with a heap beyond [`MAX_INPUT_HEAP`] that no theorem decides.
/// `read_only`: the caller only reads stored quotients (batch, serve), so the message says
/// how to store one rather than that none could be computed.
pub fn beyond_theory(
    game: &GameSpec,
    convention: Convention,
    position: &BigPosition,
    read_only: bool,
) -> QueryError {
    let name = game.canonical();
    let why = match (game.rules().theory().formula, convention) {
        (Some(Formula::Wythoff), _) => format!(
            "Wythoff's pairs decide positions of at most two heaps ({} heaps is an open problem)",
            position.len()
        ),
        (_, Convention::Misere) if game.octal().is_some() && read_only => format!(
            "no stored misère quotient of {name} covers it (its misère quotient, computed to a proven period and stored, would answer it)"
        ),
        (_, Convention::Misere) if game.octal().is_some() => format!(
            "no misère quotient of {name} with a proven period could be read or computed within a query's limits (a computation without those limits may find one)"
        ),
        (_, Convention::Normal) if game.is_sum_of_heaps() => {
            format!("under normal play {name} needs the nim-value of a {}-heap", position.largest())
        }
        (_, convention) => format!("no theorem decides {name}{}", misere_words(convention)),
    };
    let quotient = convention == Convention::Misere && game.octal().is_some();
    QueryError::BeyondTheory {
        position: position.clone(),
        heap: position.largest(),
        why,
        game: name,
        quotient,
    }
}

/// A way to cover a position: a universe and the positions still to solve in it.
struct Covering {
    universe: Universe,
    cost: Option<u64>,
    partial: Option<SolveRecord>,
}

/// The universes that would cover `position`: the smallest one, and each stored solve of the
/// game whose caps allow it, extended to the position's total (reusing its stored tiers).
fn covers(
    db: Option<&Database>,
    game: &GameSpec,
    convention: Convention,
    position: &Position,
) -> Result<Vec<Covering>, StoreError> {
    let total = position.total() as u32;
    let count = |u: &Universe| u.table().ok().map(|t| u.positions(&t));
    let smallest = smallest_universe(game.rules(), position);
    let mut out = vec![Covering { universe: smallest, cost: count(&smallest), partial: None }];
    let Some(db) = db else {
        return Ok(out);
    };
    for solve in db.solves_of(game, convention)? {
        let universe = Universe { max_total: total, ..solve.target_universe() };
        if solve.nim_values || !universe.contains(position) {
            continue;
        }
        let stored = db.positions_stored(solve.id, total)?;
        let cost = count(&universe).map(|n| n.saturating_sub(stored));
        let partial = (solve.status == SolveStatus::Partial).then(|| solve.clone());
        out.push(Covering { universe, cost, partial });
    }
    Ok(out)
}

/// Why an answer's moves were not listed, in words: "N (too many to list)" for a heap game;
/// for a family, whether listing them would pass the work allowed (then N is the family's
/// bound on their number) or they are more than the listing limit.
pub fn unlisted_words(game: &Game, answer: &Answer) -> String {
    let n = answer.moves_omitted;
    if game.heaps().is_some() {
        return format!("moves: {n} (too many to list)");
    }
    let family = game.family();
    let position: Vec<u32> = answer.position.iter().map(|&c| c as u32).collect();
    let cost = family
        .formula(Convention::Normal)
        .map_or(position.len() as u64 + 1, |f| theory::families::evaluation_cost(f, &position));
    if !crate::game::moves_fit(family, &position, cost) {
        format!(
            "moves (up to {n}): not listed, too much work to list (each a position of {} counts)",
            position.len()
        )
    } else {
        format!("moves ({n}): not listed, more than {}", crate::space::THEORY_LISTING_LIMIT)
    }
}

/// What a query needs, found without writing anything: the answer, or the space to solve
/// on the spot first.
#[derive(Clone, Debug)]
pub enum Plan {
    /// Answered from the database, a misère quotient or a theorem.
    Answered(Box<Answer>),
    /// No stored solve covers the position, and this space (within the on-the-spot limit)
    /// would: solve it ([`answer_after_solving`]), then answer from it.
    Solve(Cover),
}

/// The space a query solves on the spot, chosen by [`plan`]: a face passes it on to
/// [`answer_after_solving`] and may read what it costs, never what kind of space it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cover {
    reach: Reach,
    positions: u64,
}

impl Cover {
    /// The positions the solve on the spot adds (those of the space not stored yet).
    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// The solve of this cover, as `nimdb solve` would run it, on a pool of `threads`.
    fn job(&self, game: &Game, convention: Convention, threads: usize) -> Result<SolveJob, JobError> {
        SolveJob::over(game, convention, self.reach, false, threads)
    }
}

/// Plans a query of `position` (cells in the game's notation, any size) in any game: the
/// answer from a stored solve, a misère quotient (from where `quotients` allows) or a
/// theorem, else the smallest space to solve on the spot when it holds at most
/// `auto_solve_limit` positions and fits the memory budget; else refused, naming what would
/// cover it. Reads only: nothing is written, so a refused query leaves the file system as
/// it was. `db` is `None` when there is no database file yet.
pub fn plan(
    db: Option<&Database>,
    game: &Game,
    convention: Convention,
    position: &[u64],
    auto_solve_limit: u64,
    quotients: Quotients,
) -> Result<Plan, QueryError> {
    plan_until(db, game, convention, position, auto_solve_limit, quotients, &theory::Stop::never())
}

/// [`plan`], stopping the heap nim-values a theory answer computes when `stop` is set
/// ([`TheoryError::Stopped`](theory::TheoryError) inside [`QueryError::Theory`]; the values
/// finished are kept for the next answer), as [`answer_from_theory_until`] does.
pub fn plan_until(
    db: Option<&Database>,
    game: &Game,
    convention: Convention,
    position: &[u64],
    auto_solve_limit: u64,
    quotients: Quotients,
    stop: &theory::Stop,
) -> Result<Plan, QueryError> {
    let Some(spec) = game.heaps() else {
        // A game defined in Python named alone (`defined:NAME`): as its stored solve has it.
        let resolved = crate::stored::resolve_position(db, game, position).map_err(|e| match e {
            crate::stored::StoredError::Store(e) => QueryError::Store(e),
            other => QueryError::BadPosition(other.to_string()),
        })?;
        let (game, position) = resolved.as_ref().map_or((game, position), |(g, p)| (g, &p[..]));
        let position = family_cells(game, position)?;
        return Ok(
            match crate::space::plan_in_space(db, game, convention, &position, auto_solve_limit, stop)? {
                SpacePlan::Answered(answer) => Plan::Answered(answer),
                SpacePlan::Solve(bounds, positions) => {
                    Plan::Solve(Cover { reach: Reach::Space(bounds), positions })
                }
            },
        );
    };
    let wide = BigPosition::new(position.to_vec());
    let Some(bounded) = wide.narrow() else {
        // Heaps beyond any database: a theorem answers, or nothing does.
        let quotient = quotient_for(db, spec, convention, &wide, quotients)?;
        return match decided(spec, convention, &wide, quotient.as_ref())? {
            Some(answer) => Ok(Plan::Answered(Box::new(answer))),
            None => Err(beyond_theory(spec, convention, &wide, quotients == Quotients::Stored)),
        };
    };
    Ok(match plan_heaps(db, spec, convention, &bounded, auto_solve_limit, quotients, stop)? {
        HeapPlan::Answered(answer) => Plan::Answered(answer),
        HeapPlan::Solve(universe, positions) => {
            Plan::Solve(Cover { reach: Reach::Universe(universe), positions })
        }
    })
}

/// A family's position given as cells, in its canonical form, or why it is not one.
fn family_cells(game: &Game, position: &[u64]) -> Result<Vec<u32>, QueryError> {
    game.family_counts(position).map_err(|e| QueryError::BadPosition(e.to_string()))
}

/// Solves `cover` (chosen by [`plan`]) into `db`, resuming what is stored, and answers
/// `position` from it, with source [`Source::Solved`]: the same solve as `nimdb solve` runs
/// ([`SolveJob`]), then the same plan, which now finds it stored.
pub fn answer_after_solving(
    db: &mut Database,
    game: &Game,
    convention: Convention,
    position: &[u64],
    cover: Cover,
) -> Result<Answer, QueryError> {
    answer_after_solving_until(db, game, convention, position, cover, &theory::Stop::never())
}

/// [`answer_after_solving`], stopping the solve when `stop` is set (a server's client left):
/// the solver looks at it before each tier (a loopy family's, every 65,536 positions of its
/// whole-graph analysis), keeps the tiers it finished (the next solve resumes from them) and
/// returns the solve's interruption.
pub fn answer_after_solving_until(
    db: &mut Database,
    game: &Game,
    convention: Convention,
    position: &[u64],
    cover: Cover,
    stop: &theory::Stop,
) -> Result<Answer, QueryError> {
    /// A solve's progress that only hears the stop.
    struct Stopping<'a>(&'a theory::Stop);
    impl crate::solve::Progress for Stopping<'_> {
        fn interrupted(&self) -> bool {
            self.0.is_stopped()
        }
    }
    // Solved on the pool this runs in (an answer's own threads, or rayon's global pool).
    let threads = crate::solve::pool_threads();
    let job = cover.job(game, convention, threads).map_err(|e| QueryError::BadPosition(e.to_string()))?;
    job.run(db, &Stopping(stop), &job.in_memory())?;
    match plan(Some(db), game, convention, position, 0, Quotients::Stored)? {
        Plan::Answered(answer) if answer.source == Source::Database => {
            Ok(Answer { source: Source::Solved, ..*answer })
        }
        _ => Err(QueryError::Store(StoreError::Corrupt(format!(
            "the solve of {game} just stored does not hold {}",
            game.show(position)
        )))),
    }
}

/// What the theorem that applies says about `position` (see [`theory::decide`](mod@crate::theory::decide)), as an
/// answer with no moves listed; `None` when no theorem applies (`quotient` is the game's
/// misère quotient, if any).
pub fn decided(
    game: &GameSpec,
    convention: Convention,
    position: &BigPosition,
    quotient: Option<&Quotient>,
) -> Result<Option<Answer>, QueryError> {
    let decision = theory::decide(game, convention, position, quotient)
        .map_err(|e| QueryError::Quotient(e.to_string()))?;
    let Some(d) = decision else { return Ok(None) };
    let (outcome, child) = if d.loss { (Outcome::Loss, Outcome::Win) } else { (Outcome::Win, Outcome::Loss) };
    let value = |m: &BigMove| MoveValue {
        to: m.apply(position).heaps().to_vec(),
        heap: Some(m.heap()),
        taken: Some(m.taken()),
        description: m.describe(position),
        outcome: child,
        remoteness: None,
    };
    let source = if d.theorem == Theorem::Quotient { Source::Quotient } else { Source::Theory };
    Ok(Some(Answer {
        game: game.canonical(),
        convention,
        position: position.heaps().to_vec(),
        outcome,
        remoteness: None,
        nim_value: d.nim_value,
        best_move: d.best_move.as_ref().map(value),
        moves: Vec::new(),
        moves_omitted: d.moves.min(u64::MAX as u128) as u64,
        source,
        theorem: if source == Source::Theory { game.formula(convention) } else { None },
        cited: None,
        solve_id: None,
    }))
}

/// Whether solving `cover` on the spot fits, as `nimdb solve` plans a solve: its memory
/// whole (an on-the-spot solve does not spill) within what this process may use (`ulimit -v`,
/// the cgroup's limit), and its file on the disk beside `db_path`; solved on a pool of
/// `threads` threads (the one [`answer_after_solving`] will be called in: rayon's global
/// pool, [`pool_threads`](crate::solve::pool_threads), or an [`AnswerThreads`]'s).
pub fn cover_fits(
    game: &Game,
    convention: Convention,
    cover: &Cover,
    db_path: &std::path::Path,
    threads: usize,
) -> Result<(), crate::resources::ResourceError> {
    let budget = crate::resources::MemoryBudget::new(None);
    // A space that cannot be ranked is refused by the solve itself, with its reason.
    let Ok(job) = cover.job(game, convention, threads) else { return Ok(()) };
    // The disk for the tiers not stored yet (a solve on the spot may extend a stored one).
    let estimate = &job.estimate_at(db_path);
    let what = format!("solving {game} ({}) on the spot", job.covers());
    match estimate.plan(&budget, &what, db_path)? {
        None => Ok(()),
        Some(_) => budget.check(&what, estimate.memory_bytes),
    }
}

/// The theorem's answer for `position` of any game, reading nothing stored: what answers a
/// query whose solve on the spot does not fit. `None` when no theorem decides it.
pub fn answer_from_theorem(
    game: &Game,
    convention: Convention,
    position: &[u64],
) -> Result<Option<Answer>, QueryError> {
    answer_from_theorem_until(game, convention, position, &theory::Stop::never())
}

/// [`answer_from_theorem`], stopping when `stop` is set: the heap values it computes
/// ([`TheoryError::Stopped`](theory::TheoryError)) and a family theorem's move list and
/// search ([`SpaceError::Stopped`]).
pub fn answer_from_theorem_until(
    game: &Game,
    convention: Convention,
    position: &[u64],
    stop: &theory::Stop,
) -> Result<Option<Answer>, QueryError> {
    match game.heaps() {
        Some(spec) => match BigPosition::new(position.to_vec()).narrow() {
            Some(bounded) => answer_from_theory_until(spec, convention, &bounded, stop),
            None => decided(spec, convention, &BigPosition::new(position.to_vec()), None),
        },
        None => Ok(crate::space::answer_from_theory_until(
            game,
            convention,
            &family_cells(game, position)?,
            stop,
        )?),
    }
}

/// Answers a query of `position` in any game from the database, a misère quotient or a
/// theorem, solving a small covering space on the spot (and storing it) when nothing else
/// answers: [`plan`], then [`answer_after_solving`] where the plan says to solve.
///
/// ```
/// use nimdb::game::Game;
/// use nimdb::{Convention, Database, Outcome, Source};
///
/// # fn main() -> Result<(), nimdb::Error> {
/// let mut db = Database::open_in_memory()?;
/// let limit = nimdb::query::AUTO_SOLVE_LIMIT;
/// // A heap game: solved on the spot (and stored), so the remoteness is known.
/// let nim: Game = "nim".parse()?;
/// let answer = nimdb::query(&mut db, &nim, Convention::Normal, &[3, 2, 1], limit)?;
/// assert_eq!((answer.outcome, answer.remoteness, answer.source), (Outcome::Loss, Some(6), Source::Solved));
/// // A family with its own position space, through the same call: Welter's theorem.
/// let welter: Game = "welter".parse()?;
/// let answer = nimdb::query(&mut db, &welter, Convention::Normal, &[7, 4, 1], limit)?;
/// assert_eq!((answer.outcome, answer.source), (Outcome::Win, Source::Theory));
/// # Ok(())
/// # }
/// ```
pub fn query(
    db: &mut Database,
    game: &Game,
    convention: Convention,
    position: &[u64],
    auto_solve_limit: u64,
) -> Result<Answer, QueryError> {
    match plan(Some(db), game, convention, position, auto_solve_limit, Quotients::StoredOrComputed)? {
        Plan::Answered(answer) => Ok(*answer),
        Plan::Solve(cover) => answer_after_solving(db, game, convention, position, cover),
    }
}

/// What a query of a heap position needs.
enum HeapPlan {
    Answered(Box<Answer>),
    /// The universe and the positions it adds.
    Solve(Universe, u64),
}

/// Where a query may take a misère quotient from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quotients {
    /// The stored one only (`serve` never computes a quotient).
    Stored,
    /// The stored one, else one computed now within small limits (not stored).
    StoredOrComputed,
}

/// [`plan`] of a heap position that fits a database.
fn plan_heaps(
    db: Option<&Database>,
    game: &GameSpec,
    convention: Convention,
    position: &Position,
    auto_solve_limit: u64,
    quotients: Quotients,
    stop: &theory::Stop,
) -> Result<HeapPlan, QueryError> {
    let from_quotient = || match quotient_for(db, game, convention, &BigPosition::from(position), quotients)?
    {
        Some(q) => quotient_answer(&q, game, convention, position),
        None => Ok(None),
    };
    if let Some(db) = db {
        for solve in db.solves_of(game, convention)? {
            if let Some(answer) = answer_from_solve(db, game, convention, &solve, position, Source::Database)?
            {
                return Ok(HeapPlan::Answered(Box::new(answer)));
            }
        }
    }
    if position.total() > MAX_SOLVE_TOTAL as u64 {
        if let Some(answer) = from_quotient()? {
            return Ok(HeapPlan::Answered(Box::new(answer)));
        }
        if let Some(answer) = answer_from_theory_until(game, convention, position, stop)? {
            return Ok(HeapPlan::Answered(Box::new(answer)));
        }
        return Err(QueryError::TooLarge { position: position.clone(), total: position.total() });
    }
    let options = covers(db, game, convention, position)?;
    let cheapest =
        options.into_iter().min_by_key(|c| c.cost.unwrap_or(u64::MAX)).expect("the smallest universe");
    if cheapest.cost.is_none_or(|c| c > auto_solve_limit) {
        if let Some(answer) = from_quotient()? {
            return Ok(HeapPlan::Answered(Box::new(answer)));
        }
        if let Some(answer) = answer_from_theory_until(game, convention, position, stop)? {
            return Ok(HeapPlan::Answered(Box::new(answer)));
        }
        return Err(QueryError::NotCovered(Box::new(Uncovered {
            position: position.clone(),
            game: game.canonical(),
            convention,
            interrupted: cheapest.partial.as_ref().map(|s| (s.id, s.last_tier)),
            theory: no_theory_note(game, position),
            positions: cheapest.cost,
            limit: auto_solve_limit,
            universe: cheapest.universe,
        })));
    }
    Ok(HeapPlan::Solve(cheapest.universe, cheapest.cost.unwrap_or(0)))
}

/// The misère quotient that answers `position` in `game`: the stored one when it covers
/// every heap, else, where `quotients` allows, one computed now within small limits (not
/// stored: queries only read; `nimdb quotient` stores quotients for reuse). `None` when the
/// game is not octal, is Nim (Bouton's rule answers it), the convention is normal, or no
/// quotient covers the heaps.
pub fn quotient_for(
    db: Option<&Database>,
    game: &GameSpec,
    convention: Convention,
    position: &BigPosition,
    quotients: Quotients,
) -> Result<Option<Quotient>, QueryError> {
    use crate::theory::quotient::{Limits, MAX_QUOTIENT_HEAP, covering_quotient};
    let Some(code) = game.octal() else { return Ok(None) };
    if convention != Convention::Misere || game.is_nim() {
        return Ok(None);
    }
    let covers = |q: &Quotient| position.heaps().iter().all(|&h| q.equivalent_heap(h).is_some());
    let stored = match db {
        Some(db) => db.load_quotient(game, None).map_err(|e| QueryError::Quotient(e.to_string()))?,
        None => None,
    };
    if let Some(q) = stored.filter(|q| covers(q)) {
        return Ok(Some(q));
    }
    if quotients == Quotients::Stored {
        return Ok(None);
    }
    // Heaps past what a quotient can be computed to are covered only by a proven period.
    let top = u32::try_from(position.largest()).ok().filter(|&t| t <= MAX_QUOTIENT_HEAP).unwrap_or(1);
    let limits = Limits { max_elements: 256, ..Limits::default() };
    Ok(covering_quotient(code, top, QUOTIENT_ON_THE_SPOT_CAP, limits).ok().filter(|q| covers(q)))
}

/// Answers a misère position of an octal game through the misère quotient `q`, or `None`
/// when `q` does not cover every heap. The outcome is the mark of the position's element;
/// the best move is the first move (in move order) to a P-element, or from a loss the first
/// move, found without listing moves ([`theory::quotient_play`]); remoteness is unknown.
/// The moves are listed (each child's outcome from `q`) when there are at most
/// [`QUOTIENT_LISTING_LIMIT`].
pub fn quotient_answer(
    q: &Quotient,
    game: &GameSpec,
    convention: Convention,
    position: &Position,
) -> Result<Option<Answer>, QueryError> {
    let qerr = |e: crate::theory::quotient::QuotientError| QueryError::Quotient(e.to_string());
    let Some(decision) =
        theory::decide(game, convention, &BigPosition::from(position), Some(q)).map_err(qerr)?
    else {
        return Ok(None);
    };
    let moves = if decision.moves <= QUOTIENT_LISTING_LIMIT {
        let code = game.octal().expect("a quotient's game is octal");
        all_moves(code, position)
            .into_iter()
            .map(|mv| {
                let to = mv.apply(position);
                let outcome = if q.is_p(to.heaps()).map_err(qerr)? { Outcome::Loss } else { Outcome::Win };
                Ok(heap_move(position, &mv, outcome, None))
            })
            .collect::<Result<Vec<_>, QueryError>>()?
    } else {
        Vec::new()
    };
    Ok(Some(decided_answer(game, convention, position, &decision, Source::Quotient, moves)))
}

/// The most moves a quotient answer lists.
pub const QUOTIENT_LISTING_LIMIT: u128 = 5_000;

/// How far a quotient computed for a query may go looking for a period.
const QUOTIENT_ON_THE_SPOT_CAP: u32 = 400;
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theory_answers_keep_their_nim_values_for_the_next() {
        // Three-way splits: the values of heaps up to 300 are the costly part of the answer.
        let game: GameSpec = "hex:0.F7".parse().unwrap();
        let position = Position::new(vec![300, 7]);
        let key = game.canonical();
        let first = answer_from_theory(&game, Convention::Normal, &position).unwrap().unwrap();
        let kept = theory::recent::get(&key, 300).expect("the values were kept");
        let again = answer_from_theory(&game, Convention::Normal, &position).unwrap().unwrap();
        assert_eq!(first.nim_value, again.nim_value);
        assert_eq!(first.best_move.map(|m| m.to), again.best_move.map(|m| m.to));
        assert_eq!(first.nim_value, Some(u64::from(kept[300] ^ kept[7])));
    }
}
