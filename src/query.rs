//! Queries: a position's outcome, remoteness, best move and every move's value.
//!
//! A query is a lookup in a stored solve that covers the position. When none does and the
//! smallest universe that would is small, it is solved on the spot through the solve driver
//! and stored; otherwise the error names the universe that would cover it.

use std::fmt;

use crate::driver::{DriverError, solve_into};
use crate::game::{
    Convention, Formula, GameRules, GameSpec, HeapFamily, HeapResult, Move, Position, all_moves,
    heap_results, result_bound,
};
use crate::index::{TierId, Universe};
use crate::solve::{MAX_SOLVE_TOTAL, Silent};
use crate::store::{Database, Prober, SolveRecord, SolveStatus, StoreError};
use crate::theory::{self, TheoryError};

/// The largest universe a query solves on the spot, in positions.
pub const AUTO_SOLVE_LIMIT: u64 = 5_000_000;

/// Win or loss for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A forced win (an N-position).
    Win,
    /// A forced loss (a P-position).
    Loss,
}

impl Outcome {
    /// The outcome of a position with this remoteness under `convention`.
    pub fn from_remoteness(convention: Convention, remoteness: u32) -> Self {
        if convention.is_win(remoteness) { Outcome::Win } else { Outcome::Loss }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Win => "win",
            Outcome::Loss => "loss",
        })
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Where an answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A stored solve.
    Database,
    /// A universe solved on the spot for this query (and stored).
    Solved,
    /// Theory (Bouton, Sprague–Grundy, Moore, Wythoff); remoteness unknown.
    Theory,
    /// A misère quotient (Plambeck–Siegel); remoteness unknown.
    Quotient,
}

/// One move and the value of the position it leads to.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MoveValue {
    /// The move.
    #[serde(skip)]
    pub mv: Move,
    /// The position after it.
    pub to: Position,
    /// The size of the heap moved in.
    pub heap: u32,
    /// Tokens taken.
    pub taken: u32,
    /// The move in words.
    pub description: String,
    /// The outcome for the player to move after it (the opponent).
    pub outcome: Outcome,
    /// Its remoteness, when known.
    pub remoteness: Option<u32>,
}

/// The answer to a query.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Answer {
    /// Canonical game.
    pub game: String,
    /// Convention.
    pub convention: Convention,
    /// The position asked about.
    pub position: Position,
    /// The outcome for the player to move.
    pub outcome: Outcome,
    /// Moves to the end under optimal play, when known.
    pub remoteness: Option<u32>,
    /// The nim-value (misère nim-value under misère), when stored or known.
    pub nim_value: Option<u32>,
    /// The best move (`None` at a terminal position).
    pub best_move: Option<MoveValue>,
    /// Every move, in move order (empty when there are too many to list).
    pub moves: Vec<MoveValue>,
    /// How many moves were left out of `moves` (about, when there were too many to list).
    #[serde(skip_serializing_if = "is_zero")]
    pub moves_omitted: u64,
    /// Where the answer came from.
    pub source: Source,
    /// The stored solve used, if any.
    pub solve_id: Option<i64>,
}

/// Picks the best move among `moves`: from a win, a move to a loss of least remoteness;
/// from a loss, a move to the child of greatest remoteness. Ties go to the first move in
/// move order (larger heap first, then fewer tokens taken). Unknown remoteness counts as
/// equal.
pub fn best_move(moves: &[MoveValue]) -> Option<&MoveValue> {
    let winning = moves.iter().filter(|m| m.outcome == Outcome::Loss);
    if let Some(best) = winning.clone().next() {
        let least = winning.clone().filter_map(|m| m.remoteness).min();
        return Some(winning.clone().find(|m| m.remoteness == least).unwrap_or(best));
    }
    let most = moves.iter().filter_map(|m| m.remoteness).max();
    moves.iter().find(|m| m.remoteness == most).or(moves.first())
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
        moves.push(MoveValue {
            description: mv.describe(position),
            heap: mv.heap(),
            taken: mv.taken(),
            outcome: Outcome::from_remoteness(convention, child.remoteness as u32),
            remoteness: Some(child.remoteness as u32),
            mv,
            to,
        });
    }
    let outcome = Outcome::from_remoteness(convention, record.remoteness as u32);
    let best = best_move(&moves).cloned();
    Ok(Some(Answer {
        game: game.canonical(),
        convention,
        position: position.clone(),
        outcome,
        remoteness: Some(record.remoteness as u32),
        nim_value: record.nim_value.map(u32::from),
        best_move: best,
        moves,
        moves_omitted: 0,
        source,
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
/// [`Theory`](crate::game::Theory)): Sprague–Grundy under normal play for sums of heaps
/// (heap nim-values computed from each heap's own moves), the misère-Nim rule for misère
/// Nim, Moore's theorem for Nim_k, Wythoff's pairs for two-heap Wythoff. Remoteness is not
/// known. The best move from a win is the first move in move order to a loss; from a loss,
/// the first move. Positions with more moves than can be listed get the best move only.
/// `None` when no theorem applies.
pub fn answer_from_theory(
    game: &GameSpec,
    convention: Convention,
    position: &Position,
) -> Result<Option<Answer>, QueryError> {
    let theory = game.rules().theory();
    match theory.formula {
        Some(Formula::Moore { k }) => {
            let loses = |p: &Position| theory::moore_loss(p.heaps(), k, convention);
            return formula_answer(game, convention, position, &loses);
        }
        Some(Formula::Wythoff) => {
            if position.len() > 2 {
                return Ok(None);
            }
            let loses =
                |p: &Position| theory::wythoff_loss(p.heaps(), convention).expect("two heaps at most");
            return formula_answer(game, convention, position, &loses);
        }
        _ => {}
    }
    match game.heap_rules() {
        Some(rules) if theory.sum_of_heaps => heap_theory_answer(game, rules, convention, position),
        _ => Ok(None),
    }
}

/// A theory answer from an outcome rule for whole positions: each move's outcome is the
/// rule applied to the position it leads to.
fn formula_answer(
    game: &GameSpec,
    convention: Convention,
    position: &Position,
    loses: &dyn Fn(&Position) -> bool,
) -> Result<Option<Answer>, QueryError> {
    let outcome = if loses(position) { Outcome::Loss } else { Outcome::Win };
    let bound = game.rules().move_bound(position);
    if bound > THEORY_MOVE_SEARCH_LIMIT {
        return Err(QueryError::TooManyMoves { position: position.clone(), bound });
    }
    let listing = bound <= THEORY_MOVE_LIMIT && bound * position.len() as u128 <= THEORY_LISTING_CELLS;
    let mut moves = Vec::new();
    let mut best = None;
    for mv in all_moves(game.rules(), position) {
        let to = mv.apply(position);
        let child_loses = loses(&to);
        let value = MoveValue {
            description: mv.describe(position),
            heap: mv.heap(),
            taken: mv.taken(),
            outcome: if child_loses { Outcome::Loss } else { Outcome::Win },
            remoteness: None,
            to,
            mv,
        };
        if best.is_none() && (child_loses || outcome == Outcome::Loss) {
            best = Some(value.clone());
            if !listing {
                break;
            }
        }
        if listing {
            moves.push(value);
        }
    }
    Ok(Some(Answer {
        game: game.canonical(),
        convention,
        position: position.clone(),
        outcome,
        remoteness: None,
        nim_value: None,
        best_move: best,
        moves,
        moves_omitted: if listing { 0 } else { bound.min(u64::MAX as u128) as u64 },
        source: Source::Theory,
        solve_id: None,
    }))
}

/// Theory answers for sums of heaps: Sprague–Grundy under normal play, the misère-Nim rule
/// for misère Nim (`None` for the misère play of other heap games).
fn heap_theory_answer(
    game: &GameSpec,
    rules: &HeapFamily,
    convention: Convention,
    position: &Position,
) -> Result<Option<Answer>, QueryError> {
    if convention == Convention::Misere && !game.is_nim() {
        return Ok(None);
    }
    let mut distinct = position.heaps().to_vec();
    distinct.dedup();
    let bound: u128 = distinct.iter().map(|&h| result_bound(rules, h)).sum();
    if bound > THEORY_MOVE_SEARCH_LIMIT {
        return Err(QueryError::TooManyMoves { position: position.clone(), bound });
    }
    let listing = bound <= THEORY_MOVE_LIMIT && bound * position.len() as u128 <= THEORY_LISTING_CELLS;
    // Normal play: the heaps' nim-values and the position's nim-value.
    let g = match convention {
        Convention::Normal => {
            theory::report::check_up_to(game, position.largest() as u64)?;
            // Games without a proven period take O(n²) to reach heap n: keep answers quick.
            let shape = theory::shape::HeapShape::of(rules);
            let slow = matches!(rules, HeapFamily::Grundy(_)) || shape.quadratic() || shape.three_way;
            if slow && position.largest() > THEORY_SLOW_HEAP_LIMIT {
                return Err(QueryError::NoShortcut { game: game.canonical(), heap: position.largest() });
            }
            values_within_budget(game, rules, position.largest())?
        }
        Convention::Misere => Vec::new(),
    };
    let nim_value =
        (convention == Convention::Normal).then(|| theory::position_nim_value(&g, position.heaps()));
    // Misère Nim: a loss iff (some heap ≥ 2 and nim-sum 0) or (none and nim-sum 1).
    let x = theory::nim_sum(position.heaps());
    let big = position.heaps().iter().filter(|&&h| h >= 2).count();
    let misere_loss = |x: u32, big: usize| theory::misere_nim_rule(x, big > 0);
    // Whether the child where heap h became `result` is a loss, from the parent's summary.
    let loses_after = |h: u32, result: HeapResult| match nim_value {
        Some(v) => {
            let left = theory::position_nim_value(&g, result.parts());
            v ^ g[h as usize] ^ left == 0
        }
        None => {
            let a = result.tokens();
            misere_loss(x ^ h ^ a, big - usize::from(h >= 2) + usize::from(a >= 2))
        }
    };
    let loses = match nim_value {
        Some(v) => v == 0,
        None => misere_loss(x, big),
    };
    let outcome = if loses { Outcome::Loss } else { Outcome::Win };
    let value_of = |mv: Move, loses: bool| MoveValue {
        description: mv.describe(position),
        heap: mv.heap(),
        taken: mv.taken(),
        outcome: if loses { Outcome::Loss } else { Outcome::Win },
        remoteness: None,
        to: mv.apply(position),
        mv,
    };
    let mut moves = Vec::new();
    let mut best = None;
    'heaps: for &h in &distinct {
        for result in heap_results(rules, h) {
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
        position: position.clone(),
        outcome,
        remoteness: None,
        nim_value,
        best_move: best,
        moves,
        moves_omitted: if listing { 0 } else { bound.min(u64::MAX as u128) as u64 },
        source: Source::Theory,
        solve_id: None,
    }))
}

/// Heaps computed first, to see how the nim-values of a game grow in cost.
const THEORY_PROBE_HEAP: u32 = 20_000;

/// The most pair-scan steps a theory answer may predict for its nim-values (about five
/// seconds on this project's machine).
const THEORY_SCAN_BUDGET: f64 = 2.0e9;

/// The nim-values g(0..=n) for a theory answer, or a refusal that says what they would
/// cost. The first [`THEORY_PROBE_HEAP`] heaps are computed to measure the work per heap:
/// a certified period makes the rest free; otherwise the pair scans grow about as n², and
/// an answer predicted to need more than [`THEORY_SCAN_BUDGET`] of them is refused.
fn values_within_budget(game: &GameSpec, rules: &HeapFamily, n: u32) -> Result<Vec<u32>, QueryError> {
    if n <= THEORY_PROBE_HEAP {
        return Ok(theory::nim_values(rules, n));
    }
    let (probe, info) = theory::sequence::nim_values_with_info(rules, THEORY_PROBE_HEAP, &[]);
    if info.stats.certified_at.is_none() {
        let scale = n as f64 / THEORY_PROBE_HEAP as f64;
        let predicted = info.stats.scan_steps as f64 * scale * scale;
        if predicted > THEORY_SCAN_BUDGET {
            return Err(QueryError::TooCostly { game: game.canonical(), heap: n, predicted });
        }
    }
    Ok(theory::sequence::nim_values_with_info(rules, n, &probe).0)
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
    /// The game's nim-values up to the position's largest heap would take too long.
    #[error(
        "{game} has no proven period by heap {THEORY_PROBE_HEAP}, and the nim-value of a {heap}-heap would take about {predicted:.0e} pair scans (the budget for an answer is {THEORY_SCAN_BUDGET:.0e})"
    )]
    TooCostly {
        /// Canonical game.
        game: String,
        /// The largest heap of the position.
        heap: u32,
        /// The pair scans predicted.
        predicted: f64,
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

fn misere_words(convention: Convention) -> &'static str {
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

/// A way to cover a position: a universe and the positions still to solve in it.
struct Cover {
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
) -> Result<Vec<Cover>, StoreError> {
    let total = position.total() as u32;
    let count = |u: &Universe| u.table().ok().map(|t| u.positions(&t));
    let smallest = smallest_universe(game.rules(), position);
    let mut out = vec![Cover { universe: smallest, cost: count(&smallest), partial: None }];
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
        out.push(Cover { universe, cost, partial });
    }
    Ok(out)
}

/// What a query needs, found without writing anything: the answer, or the universe to
/// solve on the spot first.
#[derive(Clone, Debug)]
pub enum Plan {
    /// Answered from the database or from theory.
    Answered(Box<Answer>),
    /// No stored solve covers the position, and this universe (within the on-the-spot
    /// limit) would: solve it, then answer from it.
    Solve(Universe),
}

/// Answers a query from the database (`None`: there is none yet) or from theory, or says
/// which small universe to solve on the spot. Reads only: nothing is written, so a refused
/// query leaves the file system as it was.
pub fn plan_query(
    db: Option<&Database>,
    game: &GameSpec,
    convention: Convention,
    position: &Position,
    auto_solve_limit: u64,
) -> Result<Plan, QueryError> {
    if let Some(db) = db {
        for solve in db.solves_of(game, convention)? {
            if let Some(answer) = answer_from_solve(db, game, convention, &solve, position, Source::Database)?
            {
                return Ok(Plan::Answered(Box::new(answer)));
            }
        }
    }
    if position.total() > MAX_SOLVE_TOTAL as u64 {
        if let Some(answer) = answer_from_quotient(db, game, convention, position)? {
            return Ok(Plan::Answered(Box::new(answer)));
        }
        if let Some(answer) = answer_from_theory(game, convention, position)? {
            return Ok(Plan::Answered(Box::new(answer)));
        }
        return Err(QueryError::TooLarge { position: position.clone(), total: position.total() });
    }
    let options = covers(db, game, convention, position)?;
    let cheapest =
        options.into_iter().min_by_key(|c| c.cost.unwrap_or(u64::MAX)).expect("the smallest universe");
    if cheapest.cost.is_none_or(|c| c > auto_solve_limit) {
        if let Some(answer) = answer_from_quotient(db, game, convention, position)? {
            return Ok(Plan::Answered(Box::new(answer)));
        }
        if let Some(answer) = answer_from_theory(game, convention, position)? {
            return Ok(Plan::Answered(Box::new(answer)));
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
    Ok(Plan::Solve(cheapest.universe))
}

/// Solves `universe` (chosen by [`plan_query`]) into `db` and answers from it.
pub fn answer_after_solving(
    db: &mut Database,
    game: &GameSpec,
    convention: Convention,
    position: &Position,
    universe: Universe,
) -> Result<Answer, QueryError> {
    let (solve, _) = solve_into(db, game, convention, universe, false, &Silent)?;
    answer_from_solve(db, game, convention, &solve, position, Source::Solved)?.ok_or_else(|| {
        QueryError::Store(StoreError::Corrupt(format!("the solve just stored does not cover {position}")))
    })
}

/// Answers a misère position of an octal game from its misère quotient: the stored one, or
/// one computed now within small limits (not stored: queries only read). `None` when the game is not octal,
/// the convention is normal, or no quotient covers every heap of the position. The outcome
/// is the mark of the position's element; the best move is the first move (in move order)
/// to a P-element, or from a loss the first move; remoteness is unknown.
pub fn answer_from_quotient(
    db: Option<&Database>,
    game: &GameSpec,
    convention: Convention,
    position: &Position,
) -> Result<Option<Answer>, QueryError> {
    use crate::theory::quotient::{Limits, covering_quotient};
    let qerr = |e: crate::theory::quotient::QuotientError| QueryError::Quotient(e.to_string());
    let Some(code) = game.octal() else { return Ok(None) };
    // Misère Nim has Bouton's rule, which answers any size at once.
    if convention != Convention::Misere || game.is_nim() {
        return Ok(None);
    }
    let name = game.canonical();
    let covers = |q: &crate::theory::quotient::Quotient| position.heaps().iter().all(|&h| q.covers(h));
    let stored = match db {
        Some(db) => db.load_quotient(&name, None).map_err(|e| QueryError::Quotient(e.to_string()))?,
        None => None,
    };
    let q = match stored {
        Some(q) if covers(&q) => q,
        _ => {
            let limits = Limits { max_elements: 256, ..Limits::default() };
            match covering_quotient(code, position.largest(), QUOTIENT_ON_THE_SPOT_CAP, limits) {
                // Queries only read: `nimdb quotient` stores quotients for reuse.
                Ok(q) if covers(&q) => q,
                _ => return Ok(None),
            }
        }
    };
    let loss = q.is_p(position.heaps()).map_err(qerr)?;
    let outcome = if loss { Outcome::Loss } else { Outcome::Win };
    let value_of = |mv: Move| -> Result<MoveValue, QueryError> {
        let to = mv.apply(position);
        let child_loss = q.is_p(to.heaps()).map_err(qerr)?;
        Ok(MoveValue {
            description: mv.describe(position),
            heap: mv.heap(),
            taken: mv.taken(),
            outcome: if child_loss { Outcome::Loss } else { Outcome::Win },
            remoteness: None,
            to,
            mv,
        })
    };
    let best = match q.winning_move(position).map_err(qerr)? {
        Some(mv) => Some(value_of(mv)?),
        None => match all_moves(&q.code, position).into_iter().next() {
            Some(mv) => Some(value_of(mv)?),
            None => None,
        },
    };
    let all = all_moves(&q.code, position);
    let listing = all.len() as u128 <= THEORY_MOVE_LIMIT && all.len() <= 5_000;
    let moves = if listing {
        all.iter().map(|m| value_of(m.clone())).collect::<Result<Vec<_>, _>>()?
    } else {
        Vec::new()
    };
    Ok(Some(Answer {
        game: name,
        convention,
        position: position.clone(),
        outcome,
        remoteness: None,
        nim_value: None,
        best_move: best,
        moves,
        moves_omitted: if listing { 0 } else { all.len() as u64 },
        source: Source::Quotient,
        solve_id: None,
    }))
}

/// How far a quotient computed for a query may go looking for a period.
const QUOTIENT_ON_THE_SPOT_CAP: u32 = 400;
/// Answers a query from the database, solving a small covering universe on the spot when
/// nothing stored covers the position (or resuming an interrupted solve that would).
pub fn query(
    db: &mut Database,
    game: &GameSpec,
    convention: Convention,
    position: &Position,
    auto_solve_limit: u64,
) -> Result<Answer, QueryError> {
    match plan_query(Some(db), game, convention, position, auto_solve_limit)? {
        Plan::Answered(answer) => Ok(*answer),
        Plan::Solve(universe) => answer_after_solving(db, game, convention, position, universe),
    }
}
