//! Queries: a position's outcome, remoteness, best move and every move's value.
//!
//! A query is a lookup in a stored solve that covers the position. When none does and the
//! smallest universe that would is small, it is solved on the spot and stored; otherwise
//! the answer says which `nimdb solve` command would cover it.

use std::fmt;

use crate::game::{Convention, GameSpec, HeapResult, HeapRules, Move, Position, all_moves, heap_results};
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
    /// Theory (Bouton, Sprague–Grundy); remoteness unknown.
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
            heap: mv.heap,
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

/// Answers from theory, where a theorem applies: Sprague–Grundy under normal play (heap
/// nim-values computed from each heap's own moves), the misère-Nim rule for misère Nim.
/// Remoteness is not known. The best move from a win is the first move in move order to a
/// loss (the XOR rule's move); from a loss, the first move. Each move's outcome comes from
/// the position's nim-sum in constant time; positions with more moves than can be listed
/// get the best move only. `None` when no theorem applies (misère play of games other than
/// Nim).
pub fn answer_from_theory(
    game: &GameSpec,
    convention: Convention,
    position: &Position,
) -> anyhow::Result<Option<Answer>> {
    let rules = game.rules();
    if convention == Convention::Misere && !game.is_nim() {
        return Ok(None);
    }
    let mut distinct = position.heaps().to_vec();
    distinct.dedup();
    let bound: u128 = distinct.iter().map(|&h| crate::game::result_bound(rules, h)).sum();
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
            let slow = matches!(rules, crate::game::Rules::Grundy(_))
                || theory::shape::HeapShape::of(rules).quadratic();
            if slow && position.largest() > THEORY_SLOW_HEAP_LIMIT {
                anyhow::bail!(
                    "{game} has no shortcut to the nim-value of a {}-heap; theory answers go up to heaps of {THEORY_SLOW_HEAP_LIMIT} (nimdb heaps --game {game} --up-to N computes further)",
                    position.largest()
                );
            }
            theory::nim_values(rules, position.largest())
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
            let left = match result {
                HeapResult::Vanish => 0,
                HeapResult::One(a) => g[a as usize],
                HeapResult::Two(a, b) => g[a as usize] ^ g[b as usize],
            };
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
        heap: mv.heap,
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
            let mv = Move { heap: h, result };
            if best.is_none() && (loses || outcome == Outcome::Loss) {
                best = Some(value_of(mv, loses));
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

/// The smallest universe that covers `position`: every position with at most its total,
/// and, for games that never split a heap, no larger heaps and no more heaps than it has.
pub fn smallest_universe<R: HeapRules + ?Sized>(rules: &R, position: &Position) -> Universe {
    let total = position.total() as u32;
    if rules.splits() {
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
        "{position} is not covered by any stored solve of {game}{misere}{partial}; covering it means solving {positions} more positions (more than the {limit} solved on the spot); run: nimdb solve --game {game}{misere} {flags}"
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
        /// Positions left to solve in the cheapest covering universe.
        positions: String,
        /// The on-the-spot limit.
        limit: u64,
        /// The solve flags that would cover it.
        flags: String,
    },
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
        if let Some(answer) = answer_from_quotient(db, game, convention, position)? {
            return Ok(answer);
        }
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
        if let Some(answer) = answer_from_quotient(db, game, convention, position)? {
            return Ok(answer);
        }
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

/// Answers a misère position of an octal game from its misère quotient: the stored one, or
/// one computed now within small limits (and stored). `None` when the game is not octal,
/// the convention is normal, or no quotient covers every heap of the position. The outcome
/// is the mark of the position's element; the best move is the first move (in move order)
/// to a P-element, or from a loss the first move; remoteness is unknown.
pub fn answer_from_quotient(
    db: &Database,
    game: &GameSpec,
    convention: Convention,
    position: &Position,
) -> anyhow::Result<Option<Answer>> {
    use crate::theory::quotient::{Limits, covering_quotient};
    let Some(code) = game.octal() else { return Ok(None) };
    if convention != Convention::Misere {
        return Ok(None);
    }
    let name = game.canonical();
    let covers = |q: &crate::theory::quotient::Quotient| position.heaps().iter().all(|&h| q.covers(h));
    let q = match crate::store::quotients::load_quotient(db.conn(), &name, None)? {
        Some(q) if covers(&q) => q,
        _ => {
            let limits = Limits { max_elements: 256, ..Limits::default() };
            match covering_quotient(code, position.largest(), QUOTIENT_ON_THE_SPOT_CAP, limits) {
                Ok(q) if covers(&q) => {
                    crate::store::quotients::save_quotient(db.conn(), &name, &q)?;
                    q
                }
                _ => return Ok(None),
            }
        }
    };
    let loss = q.is_p(position.heaps())?;
    let outcome = if loss { Outcome::Loss } else { Outcome::Win };
    let value_of = |mv: Move| -> anyhow::Result<MoveValue> {
        let to = mv.apply(position);
        let child_loss = q.is_p(to.heaps())?;
        Ok(MoveValue {
            description: mv.describe(position),
            heap: mv.heap,
            taken: mv.taken(),
            outcome: if child_loss { Outcome::Loss } else { Outcome::Win },
            remoteness: None,
            to,
            mv,
        })
    };
    let best = match q.winning_move(position)? {
        Some(mv) => Some(value_of(mv)?),
        None => match all_moves(&q.code, position).first() {
            Some(&mv) => Some(value_of(mv)?),
            None => None,
        },
    };
    let all = all_moves(&q.code, position);
    let listing = all.len() as u128 <= THEORY_MOVE_LIMIT && all.len() <= 5_000;
    let moves = if listing {
        all.iter().map(|&m| value_of(m)).collect::<anyhow::Result<Vec<_>>>()?
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
