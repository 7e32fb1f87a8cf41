//! Answers and checks for the families with their own position space (`game::families`): a position is found by its
//! (tier, rank) in the family's position space, its record read from a stored solve, its
//! moves valued the same way; where nothing is stored, the family's theorem answers (no
//! remoteness), or a small space is solved on the spot.

use std::collections::HashMap;

use crate::answer::{Answer, Lookup, MoveValue, Source};
use crate::game::{Convention, DRAW, Formula, Game, LabelledMove, Outcome, moves_fit};
use crate::index::{PositionSpace, SpaceBounds, TierId, UniverseError, space_for};
use crate::resources::MemoryBudget;
use crate::solve::family::estimate_family;
use crate::store::{Database, ExportFilter, Reader, RecordSource, SolveRecord, StoreError};
use crate::theory::families::{best_target, evaluate, move_search_fits, outcome_by_theorem};

/// Why an answer or check failed.
#[derive(Debug, thiserror::Error)]
pub enum SpaceError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The bounds cannot be ranked.
    #[error(transparent)]
    Space(#[from] UniverseError),
    /// No stored solve covers the position, no theorem decides it, and its space is too
    /// large to solve on the spot.
    #[error(
        "{game} position {position} ({convention}) is not stored, no theorem decides it, and the smallest space holding it has {positions} positions (more than the {limit} solved on the spot)"
    )]
    NotCovered {
        /// The game.
        game: String,
        /// The position, as written.
        position: String,
        /// The convention.
        convention: Convention,
        /// Positions of its smallest space.
        positions: u64,
        /// The on-the-spot limit.
        limit: u64,
        /// The bounds of its smallest space (what a solve that covers it is given).
        bounds: SpaceBounds,
    },
    /// No stored solve covers the position and no theorem decides it (a reader never solves).
    #[error(
        "{game} position {position} ({convention}) is not stored and no theorem decides it (the smallest space holding it has {positions} positions)"
    )]
    NotStored {
        /// The game.
        game: String,
        /// The position, as written.
        position: String,
        /// The convention.
        convention: Convention,
        /// Positions of its smallest space.
        positions: u64,
    },
    /// No stored solve of the game and convention.
    #[error("no stored solve of {0} ({1})")]
    NoSolve(String, Convention),
    /// The solve failed.
    #[error(transparent)]
    Solve(#[from] crate::driver::DriverError),
    /// A solve on the spot would pass the memory budget.
    #[error(transparent)]
    Resource(#[from] crate::resources::ResourceError),
    /// A stored solve lacks a tier of the space it has solved (a row was lost).
    #[error("stored solve #{solve} lacks tier {tier} of the space it has solved")]
    MissingTier {
        /// The solve.
        solve: i64,
        /// The tier.
        tier: TierId,
    },
    /// A loopy game's stored solve stops short of its space: a move may raise a stored
    /// position past the tiers stored, so none of it is read as an answer.
    #[error(
        "stored solve #{solve} of {game} is unfinished: it stops at tier total {solved} of {whole}, and a move of a loopy game may raise a position past it (run nimdb solve again to finish it)"
    )]
    Unfinished {
        /// The solve.
        solve: i64,
        /// The game.
        game: String,
        /// The tier total stored up to.
        solved: i64,
        /// The tier total of its whole space.
        whole: u64,
    },
    /// A stored solve's bounds give a space that cannot be ranked (they were altered: the
    /// solve could not have been run with them).
    #[error("stored solve #{solve} of {game} cannot be read, its bounds are damaged: {source}")]
    DamagedBounds {
        /// The solve.
        solve: i64,
        /// The game.
        game: String,
        /// Why its space cannot be ranked.
        source: UniverseError,
    },
    /// A stored solve of a family records no most heaps (its row was altered: every solve
    /// of a family has them).
    #[error(
        "stored solve #{solve} of {game} cannot be read, its bounds are damaged: it records no most heaps"
    )]
    NoHeapCap {
        /// The solve.
        solve: i64,
        /// The game.
        game: String,
    },
    /// A stored solve holds a position but not the position a move leads to (its bounds
    /// were altered).
    #[error("stored solve #{solve} holds {from} but not {to}, a move away: its bounds are damaged")]
    MoveOutside {
        /// The solve.
        solve: i64,
        /// The position, in the family's notation.
        from: String,
        /// Where the move leads.
        to: String,
    },
    /// A theorem's answer was stopped on request (its client left) while its moves were
    /// judged or searched.
    #[error("the answer was stopped on request while its moves were judged")]
    Stopped,
    /// The user's theorem gave no value (its formula raised, or gave what is not a value).
    #[error("{0}")]
    Stated(String),
}

/// A family's position as an answer's cells.
fn wide(position: &[u32]) -> Vec<u64> {
    position.iter().map(|&c| u64::from(c)).collect()
}

/// What a query must do.
#[derive(Debug)]
pub enum SpacePlan {
    /// Answered.
    Answered(Box<Answer>),
    /// Solve this space first (it is small enough, and holds this many positions), then ask
    /// again.
    Solve(SpaceBounds, u64),
}

/// The smallest space of `game` that holds `position`.
pub fn smallest_bounds(game: &Game, position: &[u32]) -> SpaceBounds {
    let family = game.family();
    let total = match family.layout() {
        crate::game::SpaceLayout::Staircase => {
            position.iter().enumerate().map(|(i, &c)| (i as u64 + 1) * c as u64).sum::<u64>()
        }
        _ => position.iter().map(|&h| h as u64).sum(),
    };
    let heaps = position.len() as u32;
    match family.heap_cap() {
        // A capped game's space must hold every raise: each heap up to the cap.
        Some(cap) => {
            SpaceBounds { max_total: heaps.max(1) * cap, max_heaps: heaps.max(1), max_heap: Some(cap) }
        }
        None => {
            SpaceBounds { max_total: total.min(u32::MAX as u64) as u32, max_heaps: heaps, max_heap: None }
        }
    }
}

/// A space's bounds in words.
fn space_words(bounds: SpaceBounds) -> String {
    format!("the space of tier total ≤ {}, heaps ≤ {}", bounds.max_total, bounds.max_heaps)
}

/// The space of `game` within `bounds`.
pub fn space_of(game: &Game, bounds: SpaceBounds) -> Result<Box<dyn PositionSpace>, SpaceError> {
    Ok(space_for(game.family().layout(), bounds)?)
}

/// The space of stored solve `solve` within `bounds` (its own): a space that cannot be
/// ranked names the solve, whose bounds were damaged.
fn stored_space(
    game: &Game,
    solve: &SolveRecord,
    bounds: SpaceBounds,
) -> Result<Box<dyn PositionSpace>, SpaceError> {
    space_for(game.family().layout(), bounds).map_err(|source| SpaceError::DamagedBounds {
        solve: solve.id,
        game: game.to_string(),
        source,
    })
}

/// Why a family solve's bounds were refused (each face names its own flag or argument).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoundsError {
    /// A capped game (a heap may grow) needs the heap count.
    #[error("{0} needs a bound on the number of heaps: its space is every position of at most K heaps")]
    NeedsHeaps(String),
    /// A capped game's total follows from its heap count.
    #[error(
        "{game} takes no bound on the total: a heap may grow, so its space is every position of at most K heaps, each at most {cap}"
    )]
    TotalNotAllowed {
        /// The game.
        game: String,
        /// Its heap cap.
        cap: u32,
    },
    /// An uncapped game needs the total.
    #[error(
        "{0} needs a bound on the tier total (for staircase the weighted sum Σ i·cᵢ of the steps; for welter the sum of the heaps)"
    )]
    NeedsTotal(String),
    /// A bound on the heap size does not apply.
    #[error("a bound on the heap size does not apply to {0}: bound it by the total and the number of heaps")]
    HeapCap(String),
    /// The total is beyond what a solve takes.
    #[error("a total of {0} is too large (at most {max})", max = crate::solve::MAX_SOLVE_TOTAL)]
    TooLarge(u64),
}

/// The space a solve of `game` covers, from the bounds asked for: an uncapped game takes
/// the tier total and optionally the heap count; a capped one (`raise:C`) the heap count
/// alone.
pub fn space_bounds(
    game: &Game,
    max_total: Option<u32>,
    max_heap: Option<u32>,
    max_heaps: Option<u32>,
) -> Result<SpaceBounds, BoundsError> {
    let name = game.to_string();
    // A row of labelled heaps (Hypergraph Nim) takes a bound on each heap: with n heaps, each
    // at most H, its total is at most n·H.
    let row = match game.family().layout() {
        crate::game::SpaceLayout::Row { heaps, .. } => Some(max_heaps.unwrap_or(heaps).min(heaps)),
        _ => None,
    };
    if max_heap.is_some() && row.is_none() {
        return Err(BoundsError::HeapCap(name));
    }
    match game.family().heap_cap() {
        Some(cap) => {
            let k = max_heaps.ok_or(BoundsError::NeedsHeaps(name.clone()))?;
            let total = k as u64 * cap as u64;
            if max_total.is_some_and(|t| (t as u64) < total) {
                return Err(BoundsError::TotalNotAllowed { game: name, cap });
            }
            if total > crate::solve::MAX_SOLVE_TOTAL as u64 {
                return Err(BoundsError::TooLarge(total));
            }
            Ok(SpaceBounds { max_total: total as u32, max_heaps: k, max_heap: Some(cap) })
        }
        None => {
            let t = match (max_total, max_heap, row) {
                (Some(t), _, _) => t as u64,
                (None, Some(h), Some(n)) => n as u64 * h as u64,
                _ => return Err(BoundsError::NeedsTotal(name)),
            };
            if t > crate::solve::MAX_SOLVE_TOTAL as u64 {
                return Err(BoundsError::TooLarge(t));
            }
            let t = t as u32;
            // No heaps leave only the empty position: a total past 0 no tier reaches, and a
            // solve to it could never complete.
            let t = if max_heaps == Some(0) { 0 } else { t };
            let max_heap = max_heap.filter(|&h| h < t);
            Ok(SpaceBounds { max_total: t, max_heaps: max_heaps.unwrap_or(t).min(t.max(1)), max_heap })
        }
    }
}

/// An upper bound on the moves of a position of the space (for the memory estimate of a
/// loopy family, the one that holds its edges). Under a heap cap C (raise:C's space) equal
/// heaps move alike, so a position has at most min(heaps, C) distinct heap sizes with at
/// most C + 1 moves each (`Raise::move_bound` of its largest position).
pub fn moves_bound(bounds: SpaceBounds) -> u64 {
    let cap = bounds.max_heap.unwrap_or(bounds.max_total);
    let distinct = match bounds.max_heap {
        Some(cap) => bounds.max_heaps.min(cap),
        None => bounds.max_heaps,
    };
    distinct as u64 * (cap as u64 + 1)
}

/// The bounds a stored solve covers (every tier up to its solved total); `Ok(None)` before
/// it stored a total. A family's solve always records its most heaps: a row without them
/// was altered, and is named as damaged rather than read as holding nothing.
fn solve_bounds(game: &Game, solve: &SolveRecord) -> Result<Option<SpaceBounds>, SpaceError> {
    let Ok(solved) = u32::try_from(solve.solved_total) else { return Ok(None) };
    let max_heaps =
        solve.max_heaps.ok_or_else(|| SpaceError::NoHeapCap { solve: solve.id, game: game.to_string() })?;
    let max_heap = game.family().heap_cap().or(solve.max_heap);
    Ok(Some(SpaceBounds { max_total: solved, max_heaps, max_heap }))
}

/// The smallest space holding every stored solve of `game` under `convention` that can be
/// read (each bound the largest of theirs), or `None` when none is: the space a check of
/// all of them walks.
pub fn stored_union_bounds(
    db: &Database,
    game: &Game,
    convention: Convention,
) -> Result<Option<SpaceBounds>, SpaceError> {
    let mut union: Option<SpaceBounds> = None;
    for solve in db.solves_stored_as(&game.storage_id(), convention)? {
        let Some(b) = answering_bounds(game, &solve)? else { continue };
        union = Some(match union {
            None => b,
            Some(u) => SpaceBounds {
                max_total: u.max_total.max(b.max_total),
                max_heaps: u.max_heaps.max(b.max_heaps),
                max_heap: u.max_heap.zip(b.max_heap).map(|(x, y)| x.max(y)),
            },
        });
    }
    Ok(union)
}

/// Checks that a stored solve's bounds give a space its records can be read in: a face
/// calls this before it writes anything of the solve, so that a damaged one is refused
/// with nothing written.
pub fn check_stored(game: &Game, solve: &SolveRecord) -> Result<(), SpaceError> {
    if let Some(bounds) = solve_bounds(game, solve)? {
        stored_space(game, solve, bounds)?;
    }
    Ok(())
}

/// The tier total of the whole space a loopy game's solve of `bounds` is of (every heap at
/// the cap); `None` for an acyclic family, whose moves never leave the tiers below a
/// position.
fn loopy_whole_total(game: &Game, bounds: SpaceBounds) -> Option<u64> {
    game.family().loopy().then(|| bounds.max_heaps as u64 * bounds.max_heap.unwrap_or(u32::MAX) as u64)
}

/// The bounds a stored solve answers for: [`solve_bounds`], but only the whole space of a
/// loopy game (a move may raise a position into a tier a cut-short solve lacks); `Ok(None)`
/// when it has no bounds, `Err` when it is a loopy game's unfinished solve.
fn answering_bounds(game: &Game, solve: &SolveRecord) -> Result<Option<SpaceBounds>, SpaceError> {
    let Some(bounds) = solve_bounds(game, solve)? else { return Ok(None) };
    match loopy_whole_total(game, bounds) {
        Some(whole) if (bounds.max_total as u64) < whole => Err(SpaceError::Unfinished {
            solve: solve.id,
            game: game.to_string(),
            solved: solve.solved_total,
            whole,
        }),
        _ => Ok(Some(bounds)),
    }
}

fn verdict_of(convention: Convention, r: u16) -> Outcome {
    if r == DRAW {
        Outcome::Draw
    } else if convention.is_win(r as u32) {
        Outcome::Win
    } else {
        Outcome::Loss
    }
}

/// Answers `position` from a stored solve, a theorem, or (when its space is small) says
/// to solve first. `db` is `None` when there is no database file yet. A family theorem's
/// move list and best-move search stop when `stop` is set ([`SpaceError::Stopped`]).
pub fn plan_in_space(
    db: Option<&Database>,
    game: &Game,
    convention: Convention,
    position: &[u32],
    auto_solve_limit: u64,
    stop: &crate::theory::Stop,
) -> Result<SpacePlan, SpaceError> {
    if let Some(db) = db {
        for solve in db.solves_stored_as(&game.storage_id(), convention)? {
            if let Some(answer) = answer_from_solve(db, game, convention, position, &solve)? {
                return Ok(SpacePlan::Answered(Box::new(answer)));
            }
        }
    }
    if let Some(answer) = answer_from_theory_until(game, convention, position, stop)? {
        return Ok(SpacePlan::Answered(Box::new(answer)));
    }
    if let Some(answer) = answer_from_stated(game, convention, position)? {
        return Ok(SpacePlan::Answered(Box::new(answer)));
    }
    let bounds = smallest_bounds(game, position);
    let space = space_of(game, bounds)?;
    let positions = space.positions();
    if positions > auto_solve_limit {
        return Err(SpaceError::NotCovered {
            game: game.to_string(),
            position: game.family().show(position),
            convention,
            positions,
            limit: auto_solve_limit,
            bounds,
        });
    }
    // The solve on the spot keeps to the memory budget `nimdb solve` keeps to (a loopy
    // game holds its whole graph).
    let estimate = estimate_family(space.as_ref(), game.family().loopy(), moves_bound(bounds));
    MemoryBudget::new(None)
        .check(&format!("solving {} on the spot", space_words(bounds)), estimate.memory_bytes)?;
    Ok(SpacePlan::Solve(bounds, positions))
}

/// The answer from stored solve `solve`, or `None` when it does not cover `position`.
pub fn answer_from_solve(
    db: &Database,
    game: &Game,
    convention: Convention,
    position: &[u32],
    solve: &SolveRecord,
) -> Result<Option<Answer>, SpaceError> {
    SpaceReader::new(db).answer_from(&mut Reader::new(db), game, convention, position, solve, true)
}

/// The best move, first in move order: from a win, to a loss one move shorter; from a loss,
/// to the longest win; from a draw, to a draw.
fn best(moves: &[MoveValue], outcome: Outcome, r: u16) -> Option<MoveValue> {
    let pick = match outcome {
        Outcome::Win => {
            moves.iter().find(|m| m.outcome == Outcome::Loss && m.remoteness == Some(r as u32 - 1))
        }
        Outcome::Loss => moves.iter().find(|m| m.remoteness == Some(r as u32 - 1)),
        Outcome::Draw => moves.iter().find(|m| m.outcome == Outcome::Draw),
    };
    pick.cloned()
}

/// The most moves a theorem's answer lists (each judged by the theorem); a position with
/// more gives its best move and no list, as the heap games' theory answers do.
pub const THEORY_LISTING_LIMIT: usize = 100_000;

/// The answer of the family's theorem, when it has one for `convention`. Each listed move
/// is judged by the theorem's value of the position it leads to, never by a move search.
pub fn answer_from_theory(game: &Game, convention: Convention, position: &[u32]) -> Option<Answer> {
    match answer_from_theory_until(game, convention, position, &crate::theory::Stop::never()) {
        Ok(answer) => answer,
        Err(stopped) => unreachable!("an answer nobody can stop stopped: {stopped}"),
    }
}

/// Moves judged between two looks at the stop: a judgement costs up to a few microseconds
/// (Welter's function of 64 heaps), so a stop is heard within milliseconds.
const JUDGED_BETWEEN_STOPS: u64 = 1024;

/// [`answer_from_theory`], stopping when `stop` is set ([`SpaceError::Stopped`]): the
/// moves judged for the list, and the children walked in the search for the best move
/// (up to [`MOVE_SEARCH_LIMIT`](crate::theory::families::MOVE_SEARCH_LIMIT) of them, which
/// are walked without being listed), look at it every 1,024.
pub fn answer_from_theory_until(
    game: &Game,
    convention: Convention,
    position: &[u32],
    stop: &crate::theory::Stop,
) -> Result<Option<Answer>, SpaceError> {
    let family = game.family();
    let Some(decision) = evaluate(family, position, convention) else { return Ok(None) };
    let cost = crate::theory::families::evaluation_cost(decision.formula, position);
    // Past the work allowed, neither the list nor the best move's words are built (`None`:
    // not listed; an empty list is a terminal position's, whatever the family's bound says).
    let bound = family.move_bound(position);
    // Listed only when the list or the best move's search will use it: past the listing
    // limit with no search that fits, the bound alone is said (a staircase of 4 × 1048576
    // built 4 M moves, 663 MB, for nothing).
    let listing = bound <= THEORY_LISTING_LIMIT as u64 && moves_fit(family, position, cost);
    let searching = !listing && move_search_fits(family, decision.formula, position);
    let judged = |to: &[u32], text: &str| {
        let outcome = outcome_by_theorem(family, to, convention).unwrap_or(Outcome::Draw);
        MoveValue {
            to: wide(to),
            heap: None,
            taken: None,
            description: format!("{text} → {}", family.show(to)),
            outcome,
            remoteness: None,
        }
    };
    let want = best_target(decision.outcome);
    let (moves, moves_omitted, best_move): (Vec<MoveValue>, u64, Option<MoveValue>) = if listing {
        listed_answer(family.moves(position), want, stop, &|m| judged(&m.to, &m.text))?
    } else if searching {
        searched_answer(family, convention, position, want, stop, &judged)?
    } else {
        (Vec::new(), bound, None)
    };
    Ok(Some(Answer {
        game: game.to_string(),
        convention,
        position: wide(position),
        outcome: decision.outcome,
        remoteness: None,
        nim_value: decision.nim_value,
        best_move,
        moves,
        moves_omitted,
        source: Source::Theory,
        theorem: Some(decision.formula),
        cited: None,
        solve_id: None,
    }))
}

/// The answer of the theorem the program that defined `game` states under `convention` and
/// marks proven ([`Game::proven_stated`]), when it states one: the position's outcome (and
/// nim-value, when the theorem gives one), every move (at most [`THEORY_LISTING_LIMIT`],
/// as the program's function gives them) judged by the theorem's value of the position it
/// leads to, and the first to a loss (from a win) or a draw (from a draw) as the best.
/// No remoteness. The answer's source is [`Source::Stated`] and `cited` the theorem's
/// citation. A value the theorem does not give (its formula raised) is an error.
pub fn answer_from_stated(
    game: &Game,
    convention: Convention,
    position: &[u32],
) -> Result<Option<Answer>, SpaceError> {
    let Some(theorem) = game.proven_stated(convention) else { return Ok(None) };
    let family = game.family();
    let here = theorem.value(position).map_err(SpaceError::Stated)?;
    let (mut moves, mut moves_omitted) = (Vec::new(), 0);
    if moves_fit(family, position, 0) {
        let listed = family.moves(position);
        if listed.len() <= THEORY_LISTING_LIMIT {
            for m in listed {
                let there = theorem.value(&m.to).map_err(SpaceError::Stated)?;
                moves.push(MoveValue {
                    description: format!("{} → {}", m.text, family.show(&m.to)),
                    to: wide(&m.to),
                    heap: None,
                    taken: None,
                    outcome: there.outcome,
                    remoteness: None,
                });
            }
        } else {
            moves_omitted = listed.len() as u64;
        }
    } else {
        moves_omitted = family.move_bound(position);
    }
    let best_move =
        best_target(here.outcome).and_then(|want| moves.iter().find(|m| m.outcome == want).cloned());
    Ok(Some(Answer {
        game: game.to_string(),
        convention,
        position: wide(position),
        outcome: here.outcome,
        remoteness: None,
        nim_value: here.nim_value,
        best_move,
        moves,
        moves_omitted,
        source: Source::Stated,
        theorem: None,
        cited: Some(theorem.citation().to_string()),
        solve_id: None,
    }))
}

/// A theorem's moves, once listed: every one judged when there are at most
/// [`THEORY_LISTING_LIMIT`] (the best the first to the target `want`, as `decide`'s), else
/// none kept and the best searched for alone, when the search fits.
fn listed_answer(
    listed: Vec<LabelledMove>,
    want: Option<Outcome>,
    stop: &crate::theory::Stop,
    judged: &dyn Fn(&LabelledMove) -> MoveValue,
) -> Result<(Vec<MoveValue>, u64, Option<MoveValue>), SpaceError> {
    let mut moves = Vec::with_capacity(listed.len());
    for (i, m) in listed.iter().enumerate() {
        if (i as u64).is_multiple_of(JUDGED_BETWEEN_STOPS) && stop.is_stopped() {
            return Err(SpaceError::Stopped);
        }
        moves.push(judged(m));
    }
    let best = want.and_then(|w| moves.iter().find(|m| m.outcome == w).cloned());
    Ok((moves, 0, best))
}

/// The best move of a position with too many moves to list, and their count: the
/// children are walked (not listed: no move is built or described but the one found)
/// until the first in move order to `want`, looking at the stop every
/// [`JUDGED_BETWEEN_STOPS`]; the move found is described by the family
/// ([`Family::describe_move`](crate::game::Family::describe_move)), or found in its list.
fn searched_answer(
    family: &dyn crate::game::Family,
    convention: Convention,
    position: &[u32],
    want: Option<Outcome>,
    stop: &crate::theory::Stop,
    judged: &dyn Fn(&[u32], &str) -> MoveValue,
) -> Result<(Vec<MoveValue>, u64, Option<MoveValue>), SpaceError> {
    let (mut count, mut found, mut stopped) = (0u64, None::<Vec<u32>>, false);
    family.for_each_child(position, &mut Vec::new(), &mut |to| {
        count += 1;
        if stopped || found.is_some() || want.is_none() {
            return;
        }
        if count.is_multiple_of(JUDGED_BETWEEN_STOPS) && stop.is_stopped() {
            stopped = true;
        } else if outcome_by_theorem(family, to, convention) == want {
            found = Some(to.to_vec());
        }
    });
    if stopped {
        return Err(SpaceError::Stopped);
    }
    if count <= THEORY_LISTING_LIMIT as u64 {
        // Fewer moves than the bound said: few enough to list.
        return listed_answer(family.moves(position), want, stop, &|m| judged(&m.to, &m.text));
    }
    let best = found.map(|to| {
        let text = family
            .describe_move(position, &to)
            .or_else(|| family.moves(position).into_iter().find(|m| m.to == to).map(|m| m.text));
        judged(&to, text.as_deref().unwrap_or("a move"))
    });
    Ok((Vec::new(), count, best))
}

/// Answers many positions through one open database, never solving and never writing: the
/// stored solves of each game are listed once (until [`SpaceReader::clear`], which a
/// caller calls when another connection committed), and every record is read through a
/// [`RecordSource`] by its (tier, rank), the read path the heap games' lookups share
/// (verified blocks, kept within the source's cache). What `query --batch` and `serve`
/// answer families with.
pub struct SpaceReader<'a> {
    db: &'a Database,
    solves: HashMap<(String, Convention), Vec<SolveRecord>>,
    /// The position space of each solve answered from (its rank table built once).
    spaces: HashMap<i64, std::rc::Rc<dyn PositionSpace>>,
    /// Stops a theorem's answer while it judges or searches its moves.
    stop: crate::theory::Stop,
}

impl<'a> SpaceReader<'a> {
    /// A reader of `db`.
    pub fn new(db: &'a Database) -> Self {
        SpaceReader { db, solves: HashMap::new(), spaces: HashMap::new(), stop: crate::theory::Stop::never() }
    }

    /// The stop a theorem's answer looks at while it judges or searches its moves
    /// ([`answer_from_theory_until`]; [`SpaceError::Stopped`]); [`Stop::never`](crate::theory::Stop::never) undoes it.
    pub fn set_stop(&mut self, stop: crate::theory::Stop) {
        self.stop = stop;
    }

    /// Forgets the solves it listed (the next answers list them again).
    pub fn clear(&mut self) {
        self.solves.clear();
        self.spaces.clear();
    }

    /// The answer from stored solve `solve`, or `None` when it does not cover `position`;
    /// with `moves` false the move list is left empty (the best move is still found).
    pub fn answer_from(
        &mut self,
        source: &mut dyn RecordSource,
        game: &Game,
        convention: Convention,
        position: &[u32],
        solve: &SolveRecord,
        moves: bool,
    ) -> Result<Option<Answer>, SpaceError> {
        let Some(space) = self.space(game, solve)? else { return Ok(None) };
        let Some((tier, rank)) = space.locate(position) else { return Ok(None) };
        // Every tier up to the solved total is stored: one missing is a lost row.
        let r = remoteness_at(source, solve.id, space.as_ref(), tier, rank)?;
        let mut listed = Vec::new();
        for m in game.family().moves(position) {
            let (t, k) = locate_move(game, space.as_ref(), solve.id, position, &m.to)?;
            let rc = remoteness_at(source, solve.id, space.as_ref(), t, k)?;
            listed.push(MoveValue {
                description: format!("{} → {}", m.text, game.family().show(&m.to)),
                to: wide(&m.to),
                heap: None,
                taken: None,
                outcome: verdict_of(convention, rc),
                remoteness: (rc != DRAW).then_some(rc as u32),
            });
        }
        let outcome = verdict_of(convention, r);
        let best_move = best(&listed, outcome, r);
        if !moves {
            listed.clear();
        }
        Ok(Some(Answer {
            game: game.to_string(),
            convention,
            position: wide(position),
            outcome,
            remoteness: (r != DRAW).then_some(r as u32),
            nim_value: None,
            best_move,
            moves: listed,
            moves_omitted: 0,
            source: Source::Database,
            theorem: None,
            cited: None,
            solve_id: Some(solve.id),
        }))
    }

    /// The answer for `position` from a stored solve, else the family's theorem; with
    /// `moves` false the move list is left empty (the best move is still found).
    ///
    /// With `theory` false, a position no stored solve holds is `Ok(None)`: the theorem's
    /// answer is left to a caller that may compute it (a server's theory pool).
    pub fn answer(
        &mut self,
        source: &mut dyn RecordSource,
        game: &Game,
        convention: Convention,
        position: &[u32],
        moves: bool,
        theory: bool,
    ) -> Result<Option<Answer>, SpaceError> {
        for solve in &self.listed(game, convention)? {
            if let Some(answer) = self.answer_from(source, game, convention, position, solve, moves)? {
                return Ok(Some(answer));
            }
        }
        if !theory {
            return Ok(None);
        }
        let theorem = match answer_from_theory_until(game, convention, position, &self.stop)? {
            Some(a) => Some(a),
            None => answer_from_stated(game, convention, position)?,
        };
        match theorem {
            Some(mut a) => {
                if !moves {
                    a.moves.clear();
                    a.moves_omitted = 0;
                }
                Ok(Some(a))
            }
            None => Err(not_stored(game, convention, position)),
        }
    }

    /// The outcome and values of `position`, without valuing its moves: the record
    /// [`answer`](Self::answer) reads (the same solves, in the same order), else the same
    /// theorem, so outcome, remoteness, nim-value, source and solve are `answer`'s; only the
    /// best move is not looked for, so a stored position costs one record, not one per
    /// child. What a batch of outcomes (Python's `query_many`) reads.
    /// With `theory` false, a position no stored solve holds is `Ok(None)`.
    pub fn lookup(
        &mut self,
        source: &mut dyn RecordSource,
        game: &Game,
        convention: Convention,
        position: &[u32],
        theory: bool,
    ) -> Result<Option<Lookup>, SpaceError> {
        for solve in &self.listed(game, convention)? {
            let Some(space) = self.space(game, solve)? else { continue };
            let Some((tier, rank)) = space.locate(position) else { continue };
            let r = remoteness_at(source, solve.id, space.as_ref(), tier, rank)?;
            return Ok(Some(Lookup {
                position: wide(position),
                outcome: verdict_of(convention, r),
                remoteness: (r != DRAW).then_some(r as u32),
                nim_value: None,
                source: Source::Database,
                solve_id: Some(solve.id),
            }));
        }
        if !theory {
            return Ok(None);
        }
        match evaluate(game.family(), position, convention) {
            Some(d) => Ok(Some(Lookup {
                position: wide(position),
                outcome: d.outcome,
                remoteness: None,
                nim_value: d.nim_value,
                source: Source::Theory,
                solve_id: None,
            })),
            None => match game.proven_stated(convention) {
                Some(theorem) => {
                    let d = theorem.value(position).map_err(SpaceError::Stated)?;
                    Ok(Some(Lookup {
                        position: wide(position),
                        outcome: d.outcome,
                        remoteness: None,
                        nim_value: d.nim_value,
                        source: Source::Stated,
                        solve_id: None,
                    }))
                }
                None => Err(not_stored(game, convention, position)),
            },
        }
    }

    /// The stored solves of `game` under `convention`, listed once.
    fn listed(&mut self, game: &Game, convention: Convention) -> Result<Vec<SolveRecord>, SpaceError> {
        let key = (game.to_string(), convention);
        if !self.solves.contains_key(&key) {
            let found = self.db.solves_stored_as(&game.storage_id(), convention)?;
            self.solves.insert(key.clone(), found);
        }
        Ok(self.solves[&key].clone())
    }

    /// The position space of stored solve `solve` (its rank table built once), or `None`
    /// when the solve has no bounds to rank by, or is a loopy game's unfinished solve (not
    /// read: what it lacks may be a move away from what it holds).
    fn space(
        &mut self,
        game: &Game,
        solve: &SolveRecord,
    ) -> Result<Option<std::rc::Rc<dyn PositionSpace>>, SpaceError> {
        if let Some(space) = self.spaces.get(&solve.id) {
            return Ok(Some(space.clone()));
        }
        let bounds = match answering_bounds(game, solve) {
            Ok(Some(bounds)) => bounds,
            Ok(None) | Err(SpaceError::Unfinished { .. }) => return Ok(None),
            Err(damaged) => return Err(damaged),
        };
        let space: std::rc::Rc<dyn PositionSpace> = stored_space(game, solve, bounds)?.into();
        self.spaces.insert(solve.id, space.clone());
        Ok(Some(space))
    }
}

/// Why a reader has no answer for `position`: not stored, and no theorem decides it (an
/// error of its own if even its smallest space cannot be ranked).
fn not_stored(game: &Game, convention: Convention, position: &[u32]) -> SpaceError {
    let bounds = smallest_bounds(game, position);
    match space_of(game, bounds) {
        Ok(space) => SpaceError::NotStored {
            game: game.to_string(),
            position: game.family().show(position),
            convention,
            positions: space.positions(),
        },
        Err(e) => e,
    }
}

/// Calls `row` with every stored position of family solve `solve` that passes `filter`
/// (in the family's notation) and its stored remoteness ([`DRAW`] for a draw), tier by tier
/// and in rank order within a tier, one checksummed block at a time: what `export` streams.
/// `filter.losses_only` keeps the losses (not the draws); `filter.max_total` bounds the
/// tier total. Returns the rows given; stops at the first error `row` returns.
pub fn for_each_stored_in_space<E: From<SpaceError> + From<StoreError>>(
    db: &Database,
    game: &Game,
    solve: &SolveRecord,
    filter: ExportFilter,
    mut row: impl FnMut(&[u32], u16) -> Result<(), E>,
) -> Result<u64, E> {
    let Some(bounds) = solve_bounds(game, solve)? else { return Ok(0) };
    let space = stored_space(game, solve, bounds)?;
    let mut pos = Vec::new();
    let mut given = 0u64;
    for tier in space.tiers() {
        if filter.max_total.is_some_and(|t| tier.total > t) {
            continue;
        }
        let size = space.size(tier);
        let stored = db.for_each_record(solve.id, tier, size, |rank, record| -> Result<(), E> {
            if filter.losses_only && verdict_of(solve.convention, record.remoteness) != Outcome::Loss {
                return Ok(());
            }
            space.unrank(tier, rank, &mut pos);
            row(&pos, record.remoteness)?;
            given += 1;
            Ok(())
        });
        match stored {
            Ok(true) => {}
            Ok(false) => return Err(SpaceError::MissingTier { solve: solve.id, tier }.into()),
            Err(e) => return Err(e),
        }
    }
    Ok(given)
}

/// What `verify` found in the stored solves of a family.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SpaceReport {
    /// The game.
    pub game: String,
    /// The solves checked.
    pub solves: Vec<i64>,
    /// Positions checked.
    pub checked: u64,
    /// Positions whose record follows from their children's records.
    pub consistent: u64,
    /// Positions whose record does not.
    pub inconsistent: u64,
    /// Positions a theorem decides, and how many agree.
    pub theorem_checked: u64,
    /// Agreements with the theorem.
    pub theorem_agree: u64,
    /// The theorem, if any.
    pub theorem: Option<Formula>,
    /// Draws stored.
    pub draws: u64,
    /// The first positions that failed, as cells.
    pub first_failures: Vec<Vec<u64>>,
    /// What the solves' own records say that their tiers contradict (counts, totals,
    /// missing tiers).
    pub problems: Vec<String>,
}

impl SpaceReport {
    /// Whether anything failed.
    pub fn failed(&self) -> bool {
        self.inconsistent > 0 || self.theorem_agree < self.theorem_checked || !self.problems.is_empty()
    }
}

/// Checks every stored position of `game` under `convention`: its record must follow from
/// its children's (a win one more than its shortest losing child; a loss, all children
/// wins, one more than the longest; a draw, no losing child and a drawing one), and agree
/// with the family's theorem where there is one.
///
/// Each solve's tiers are read whole, once (checksums checked block by block), into
/// one array: a position and its children then cost a hash lookup each, not a
/// database read each, so the check grows with positions × moves (it held a BLOB handle
/// open for every tier read, and SQLite walks the open handles each time it opens one: a
/// space of many small tiers, such as `raise:C`'s, took time quadratic in its tiers).
pub fn verify_space(db: &Database, game: &Game, convention: Convention) -> Result<SpaceReport, SpaceError> {
    let solves = db.solves_stored_as(&game.storage_id(), convention)?;
    if solves.is_empty() {
        return Err(SpaceError::NoSolve(game.to_string(), convention));
    }
    let family = game.family();
    let mut report =
        SpaceReport { game: game.to_string(), theorem: family.formula(convention), ..SpaceReport::default() };
    let mut pos = Vec::new();
    let mut kids = Vec::new();
    let (mut children, mut ends, mut buf) = (Vec::new(), Vec::<usize>::new(), Vec::new());
    for solve in &solves {
        report.solves.push(solve.id);
        let mut records = TierRecords::new(db, solve.id);
        check_records(db, game, convention, solve, &mut report, &mut records)?;
        let Some(bounds) = answering_bounds(game, solve)? else { continue };
        let space = stored_space(game, solve, bounds)?;
        for tier in space.tiers() {
            for rank in 0..space.size(tier) {
                space.unrank(tier, rank, &mut pos);
                let r = records.remoteness(space.as_ref(), tier, rank)?;
                // The children alone (no move descriptions): a game defined by a program
                // gives them from the moves it gathered, without being asked again.
                kids.clear();
                children.clear();
                ends.clear();
                family.for_each_child(&pos, &mut buf, &mut |c| {
                    children.extend_from_slice(c);
                    ends.push(children.len());
                });
                let mut start = 0;
                for &end in &ends {
                    let (t, k) = locate_move(game, space.as_ref(), solve.id, &pos, &children[start..end])?;
                    kids.push(records.remoteness(space.as_ref(), t, k)?);
                    start = end;
                }
                report.checked += 1;
                report.draws += u64::from(r == DRAW);
                let ok = follows(convention, r, &kids);
                let theory_ok = match evaluate(game.family(), &pos, convention) {
                    Some(d) => {
                        report.theorem_checked += 1;
                        let agree = d.outcome == verdict_of(convention, r);
                        report.theorem_agree += u64::from(agree);
                        agree
                    }
                    None => true,
                };
                if ok {
                    report.consistent += 1;
                } else {
                    report.inconsistent += 1;
                }
                if (!ok || !theory_ok) && report.first_failures.len() < 10 {
                    report.first_failures.push(wide(&pos));
                }
            }
        }
    }
    Ok(report)
}

/// One stored solve's records, each tier read whole (its blocks checked against their
/// checksums) the first time it is asked for, and kept: 2 bytes a position in one array,
/// what the solve itself held. What [`verify_space`] reads children from.
struct TierRecords<'a> {
    db: &'a Database,
    solve: i64,
    /// Where each tier read starts in `values`; `None` for a tier the solve lacks.
    starts: HashMap<TierId, Option<usize>>,
    values: Vec<u16>,
}

impl<'a> TierRecords<'a> {
    fn new(db: &'a Database, solve: i64) -> Self {
        TierRecords { db, solve, starts: HashMap::new(), values: Vec::new() }
    }

    /// Keeps `tier`'s records, read by the caller; `None` when the tier is not stored.
    fn keep(&mut self, tier: TierId, records: Option<&[u16]>) {
        let start = records.map(|r| {
            self.values.extend_from_slice(r);
            self.values.len() - r.len()
        });
        self.starts.insert(tier, start);
    }

    /// The stored remoteness at (`tier`, `rank`) (`tier` of `space`, which says its size);
    /// a tier the solve lacks is an error here, as in [`remoteness_at`].
    fn remoteness(&mut self, space: &dyn PositionSpace, tier: TierId, rank: u64) -> Result<u16, SpaceError> {
        let start = match self.starts.get(&tier) {
            Some(&start) => start,
            None => {
                let mut tier_values = Vec::new();
                let stored = self.db.for_each_record(self.solve, tier, space.size(tier), |_, record| {
                    tier_values.push(record.remoteness);
                    Ok::<(), SpaceError>(())
                })?;
                self.keep(tier, stored.then_some(&tier_values[..]));
                self.starts[&tier]
            }
        };
        // A tier read holds as many records as the space's tier (the store refuses a row
        // that does not), so the rank lies inside it.
        start
            .map(|s| self.values[s + rank as usize])
            .ok_or(SpaceError::MissingTier { solve: self.solve, tier })
    }
}

/// Checks what a stored solve records of itself against its tiers: its solved total within
/// its space (and the whole space when it is complete), every tier up to it stored, each
/// tier's positions, losses and largest remoteness as its records hold them, and the
/// solve's positions and losses as its tiers' sums. Problems go to `report.problems`; the
/// tiers read are kept in `records`.
fn check_records(
    db: &Database,
    game: &Game,
    convention: Convention,
    solve: &SolveRecord,
    report: &mut SpaceReport,
    records: &mut TierRecords<'_>,
) -> Result<(), SpaceError> {
    let id = solve.id;
    let target = solve.target_total as i64;
    if solve.solved_total < -1 || solve.solved_total > target {
        report.problems.push(format!(
            "solve #{id} records every tier up to total {} stored, outside its space (-1 to {target})",
            solve.solved_total
        ));
        return Ok(());
    }
    if solve.status == crate::store::SolveStatus::Complete && solve.solved_total != target {
        report.problems.push(format!(
            "solve #{id} is recorded complete, but only up to tier total {} of {target}",
            solve.solved_total
        ));
    }
    let Some(bounds) = solve_bounds(game, solve)? else {
        if solve.positions != 0 || solve.losses != 0 {
            report.problems.push(format!(
                "solve #{id} records {} positions and {} losses but no tier stored",
                solve.positions, solve.losses
            ));
        }
        return Ok(());
    };
    let space = stored_space(game, solve, bounds)?;
    let counts = db.tier_counts(id)?;
    let (mut positions, mut losses) = (0u64, 0u64);
    for tier in space.tiers() {
        let size = space.size(tier);
        let (mut tier_losses, mut most) = (0u64, 0u16);
        let mut tier_values = Vec::with_capacity(size as usize);
        let stored = db.for_each_record(id, tier, size, |_, record| -> Result<(), SpaceError> {
            tier_losses += u64::from(convention.loses(record.remoteness));
            most = most.max(record.remoteness);
            tier_values.push(record.remoteness);
            Ok(())
        })?;
        // Kept for the check of each position against its children (same bounds, same
        // tiers, when the solve is read as an answer).
        records.keep(tier, stored.then_some(&tier_values[..]));
        if !stored {
            report.problems.push(format!("tier {tier} of solve #{id} is missing"));
            continue;
        }
        positions += size;
        losses += tier_losses;
        let found = (size as i64, tier_losses as i64, i64::from(most));
        if let Some(recorded) = counts.get(&tier) {
            let recorded = (recorded.positions, recorded.losses, recorded.max_remoteness);
            if recorded != found {
                report.problems.push(format!(
                    "tier {tier} of solve #{id} records {} positions, {} losses and remoteness up to {}; its records hold {}, {} and {}",
                    recorded.0, recorded.1, recorded.2, found.0, found.1, found.2
                ));
            }
        }
    }
    if (positions, losses) != (solve.positions, solve.losses) {
        report.problems.push(format!(
            "solve #{id} records {} positions and {} losses; its tiers hold {positions} and {losses}",
            solve.positions, solve.losses
        ));
    }
    Ok(())
}

/// Where the move from `from` to `to` leads in the space of stored solve `solve`: within
/// it for every solve read as an answer; outside it only when the solve's bounds were
/// altered.
fn locate_move(
    game: &Game,
    space: &dyn PositionSpace,
    solve: i64,
    from: &[u32],
    to: &[u32],
) -> Result<(TierId, u64), SpaceError> {
    space.locate(to).ok_or_else(|| SpaceError::MoveOutside {
        solve,
        from: game.family().show(from),
        to: game.family().show(to),
    })
}

/// The stored remoteness at (`tier`, `rank`) of solve `solve` over `space`; a tier the
/// solve lacks is an error here (its caller knows the solve covers the position).
fn remoteness_at(
    source: &mut dyn RecordSource,
    solve: i64,
    space: &dyn PositionSpace,
    tier: TierId,
    rank: u64,
) -> Result<u16, SpaceError> {
    match source.record_at(solve, tier, space.size(tier), rank)? {
        Some(record) => Ok(record.remoteness),
        None => Err(SpaceError::MissingTier { solve, tier }),
    }
}

/// Whether a record `r` follows from its children's records `kids`.
fn follows(convention: Convention, r: u16, kids: &[u16]) -> bool {
    let v = |x: u16| verdict_of(convention, x);
    let losses = kids.iter().filter(|&&k| v(k) == Outcome::Loss);
    let shortest_loss = losses.clone().min();
    match v(r) {
        Outcome::Draw => shortest_loss.is_none() && kids.contains(&DRAW),
        _ if kids.is_empty() => r == 0,
        Outcome::Win => shortest_loss.is_some_and(|&l| l + 1 == r),
        Outcome::Loss => {
            kids.iter().all(|&k| v(k) == Outcome::Win) && kids.iter().max().is_some_and(|&m| m + 1 == r)
        }
    }
}
