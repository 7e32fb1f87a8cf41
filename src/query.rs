//! Queries: a position's outcome, remoteness, best move and every move's value.
//!
//! A query is a lookup in a stored solve that covers the position. When none does and the
//! smallest universe that would is small, it is solved on the spot and stored; otherwise
//! the answer says which `nimdb solve` command would cover it.

use std::fmt;

use crate::game::{
    Convention, Formula, GameRules, GameSpec, HeapFamily, HeapResult, Move, Position, all_moves,
    heap_results, result_bound,
};
use crate::index::Universe;
use crate::solve::{MAX_SOLVE_TOTAL, Silent};
use crate::store::{Database, Prober, SolveRecord, SolveStatus};
use crate::theory;

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
) -> anyhow::Result<Option<Answer>> {
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
        let child = prober.record(&to)?.ok_or_else(|| {
            anyhow::anyhow!(
                "solve #{} is missing the child {to} of {position}; the database is inconsistent",
                solve.id
            )
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
) -> anyhow::Result<Option<Answer>> {
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
) -> anyhow::Result<Option<Answer>> {
    let outcome = if loses(position) { Outcome::Loss } else { Outcome::Win };
    let bound = game.rules().move_bound(position);
    if bound > THEORY_MOVE_SEARCH_LIMIT {
        anyhow::bail!(
            "{position} has too many moves to search (about {bound}; at most {THEORY_MOVE_SEARCH_LIMIT})"
        );
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
) -> anyhow::Result<Option<Answer>> {
    if convention == Convention::Misere && !game.is_nim() {
        return Ok(None);
    }
    let mut distinct = position.heaps().to_vec();
    distinct.dedup();
    let bound: u128 = distinct.iter().map(|&h| result_bound(rules, h)).sum();
    if bound > THEORY_MOVE_SEARCH_LIMIT {
        anyhow::bail!(
            "{position} has too many moves to search (about {bound}; at most {THEORY_MOVE_SEARCH_LIMIT})"
        );
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
                anyhow::bail!(
                    "{game} has no shortcut to the nim-value of a {}-heap; theory answers go up to heaps of {THEORY_SLOW_HEAP_LIMIT} (nimdb heaps --game {game} --up-to N computes further)",
                    position.largest()
                );
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
    let misere_loss = |x: u32, big: usize| if big > 0 { x == 0 } else { x == 1 };
    // Whether the child where heap h became `result` is a loss, from the parent's summary.
    let loses_after = |h: u32, result: HeapResult| match nim_value {
        Some(v) => {
            let left = result.parts().iter().fold(0, |acc, &a| acc ^ g[a as usize]);
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
fn values_within_budget(game: &GameSpec, rules: &HeapFamily, n: u32) -> anyhow::Result<Vec<u32>> {
    if n <= THEORY_PROBE_HEAP {
        return Ok(theory::nim_values(rules, n));
    }
    let (probe, info) = theory::sequence::nim_values_with_info(rules, THEORY_PROBE_HEAP, &[]);
    if info.stats.certified_at.is_none() {
        let scale = n as f64 / THEORY_PROBE_HEAP as f64;
        let predicted = info.stats.scan_steps as f64 * scale * scale;
        if predicted > THEORY_SCAN_BUDGET {
            anyhow::bail!(
                "{game} has no proven period by heap {THEORY_PROBE_HEAP}, and the nim-value of a {n}-heap would take about {:.0e} pair scans (the budget for an answer is {THEORY_SCAN_BUDGET:.0e}); nimdb heaps --game {game} --up-to {n} computes them",
                predicted
            );
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
    #[error(
        "{position} is not covered by any stored solve of {game}{misere}{partial}{theory}; covering it means solving {positions} more positions (more than the {limit} solved on the spot); run: nimdb solve --game {game}{misere} {flags}"
    )]
    NotCovered {
        /// The position.
        position: Position,
        /// Canonical game.
        game: String,
        /// " --misere" or "".
        misere: &'static str,
        /// A note on an interrupted solve that could be resumed, or "".
        partial: String,
        /// Why theory gives no answer, where the family declares no theorem for it, or "".
        theory: String,
        /// Positions left to solve in the cheapest covering universe.
        positions: String,
        /// The on-the-spot limit.
        limit: u64,
        /// The solve flags that would cover it.
        flags: String,
    },
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
    db: &Database,
    game: &GameSpec,
    convention: Convention,
    position: &Position,
) -> anyhow::Result<Vec<Cover>> {
    let total = position.total() as u32;
    let count = |u: &Universe| u.table().ok().map(|t| u.positions(&t));
    let smallest = smallest_universe(game.rules(), position);
    let mut out = vec![Cover { universe: smallest, cost: count(&smallest), partial: None }];
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

/// Answers a query from the database, solving a small covering universe on the spot when
/// nothing stored covers the position (or resuming an interrupted solve that would).
pub fn query(
    db: &mut Database,
    game: &GameSpec,
    convention: Convention,
    position: &Position,
    auto_solve_limit: u64,
) -> anyhow::Result<Answer> {
    for solve in db.solves_of(game, convention)? {
        if let Some(answer) = answer_from_solve(db, game, convention, &solve, position, Source::Database)? {
            return Ok(answer);
        }
    }
    if position.total() > MAX_SOLVE_TOTAL as u64 {
        if let Some(answer) = answer_from_theory(game, convention, position)? {
            return Ok(answer);
        }
        return Err(QueryError::TooLarge { position: position.clone(), total: position.total() }.into());
    }
    let options = covers(db, game, convention, position)?;
    let cheapest =
        options.into_iter().min_by_key(|c| c.cost.unwrap_or(u64::MAX)).expect("the smallest universe");
    let misere = if convention == Convention::Misere { " --misere" } else { "" };
    if cheapest.cost.is_none_or(|c| c > auto_solve_limit) {
        if let Some(answer) = answer_from_theory(game, convention, position)? {
            return Ok(answer);
        }
        return Err(QueryError::NotCovered {
            position: position.clone(),
            game: game.canonical(),
            misere,
            partial: cheapest.partial.as_ref().map_or(String::new(), |s| {
                format!(
                    " (solve #{} was interrupted{}; rerunning its solve command resumes it)",
                    s.id,
                    s.last_tier.map_or(String::new(), |t| format!(" after tier {t}"))
                )
            }),
            theory: no_theory_note(game, position),
            positions: cheapest.cost.map_or("too many".to_string(), |c| c.to_string()),
            limit: auto_solve_limit,
            flags: cheapest.universe.flags(),
        }
        .into());
    }
    let (solve, _) = db.solve(game, convention, cheapest.universe, false, &Silent)?;
    answer_from_solve(db, game, convention, &solve, position, Source::Solved)?
        .ok_or_else(|| anyhow::anyhow!("the solve just run does not cover {position}"))
}
