//! Answers for positions beyond the database's heaps: heaps larger than
//! [`MAX_INPUT_HEAP`](crate::game::MAX_INPUT_HEAP), up to `u64::MAX`, which only theorems
//! answer (Bouton's rule, Moore's theorem, Wythoff's pairs, a misère quotient with a
//! proven period; see [`theory::decide`](mod@crate::theory::decide)).
//!
//! A [`WideAnswer`] prints as [`Answer`] does (the same JSON keys, in the same order), with
//! heap sizes that may exceed u32. Its moves are never listed (there are too many); the
//! best move and the outcome come from the theorem, and remoteness is unknown.

use serde::Serialize;

use crate::game::{BigMove, BigPosition, Convention, GameSpec, Outcome, Position};
use crate::query::{Answer, Brief, MoveValue, QueryError, Quotients, Source, beyond_theory, quotient_for};
use crate::store::Database;
use crate::theory::quotient::Quotient;
use crate::theory::{self, Theorem};

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One move and the outcome of the position it leads to (as [`MoveValue`], any heap size).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WideMoveValue {
    /// The position after it.
    pub to: BigPosition,
    /// The size of the (largest) heap moved in.
    pub heap: u64,
    /// Tokens taken.
    pub taken: u128,
    /// The move in words.
    pub description: String,
    /// The outcome for the player to move after it (the opponent).
    pub outcome: Outcome,
    /// Its remoteness, when known.
    pub remoteness: Option<u32>,
}

/// An answer for a position of any heap sizes (as [`Answer`]; the same JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WideAnswer {
    /// Canonical game.
    pub game: String,
    /// Convention.
    pub convention: Convention,
    /// The position asked about.
    pub position: BigPosition,
    /// The outcome for the player to move.
    pub outcome: Outcome,
    /// Moves to the end under optimal play, when known.
    pub remoteness: Option<u32>,
    /// The nim-value, when known.
    pub nim_value: Option<u64>,
    /// The best move (`None` when there is no move).
    pub best_move: Option<WideMoveValue>,
    /// Every move, when listed.
    pub moves: Vec<WideMoveValue>,
    /// How many moves were left out of `moves` (about, for Nim_k and Wythoff's game).
    #[serde(skip_serializing_if = "is_zero")]
    pub moves_omitted: u64,
    /// Where the answer came from.
    pub source: Source,
    /// The stored solve used, if any.
    pub solve_id: Option<i64>,
}

impl From<&MoveValue> for WideMoveValue {
    fn from(m: &MoveValue) -> Self {
        WideMoveValue {
            to: BigPosition::from(&m.to),
            heap: m.heap as u64,
            taken: m.taken as u128,
            description: m.description.clone(),
            outcome: m.outcome,
            remoteness: m.remoteness,
        }
    }
}

impl From<&Answer> for WideAnswer {
    fn from(a: &Answer) -> Self {
        WideAnswer {
            game: a.game.clone(),
            convention: a.convention,
            position: BigPosition::from(&a.position),
            outcome: a.outcome,
            remoteness: a.remoteness,
            nim_value: a.nim_value.map(u64::from),
            best_move: a.best_move.as_ref().map(WideMoveValue::from),
            moves: a.moves.iter().map(WideMoveValue::from).collect(),
            moves_omitted: a.moves_omitted,
            source: a.source,
            solve_id: a.solve_id,
        }
    }
}

/// An answer to a position as read: a bounded position's [`Answer`], or a [`WideAnswer`] for
/// one with larger heaps. Serializes as the answer it holds.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Reply {
    /// Heaps up to [`MAX_INPUT_HEAP`](crate::game::MAX_INPUT_HEAP).
    Bounded(Box<Answer>),
    /// Larger heaps, answered by a theorem.
    Beyond(Box<WideAnswer>),
}

impl Reply {
    /// The answer as a [`WideAnswer`] (for printing either kind the same way).
    pub fn wide(&self) -> WideAnswer {
        match self {
            Reply::Bounded(a) => WideAnswer::from(a.as_ref()),
            Reply::Beyond(a) => a.as_ref().clone(),
        }
    }
}

impl WideAnswer {
    /// The answer without its move list (see [`Brief`]).
    pub fn brief(&self) -> Brief<'_, BigPosition, WideMoveValue> {
        Brief {
            game: &self.game,
            convention: self.convention,
            position: &self.position,
            outcome: self.outcome,
            remoteness: self.remoteness,
            nim_value: self.nim_value,
            best_move: self.best_move.as_ref(),
            source: self.source,
            solve_id: self.solve_id,
        }
    }
}

/// A [`Reply`] without its move list: serializes as the [`Brief`] of the answer it holds.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum BriefReply<'a> {
    /// Of a [`Reply::Bounded`].
    Bounded(Brief<'a, Position, MoveValue>),
    /// Of a [`Reply::Beyond`].
    Beyond(Brief<'a, BigPosition, WideMoveValue>),
}

impl Reply {
    /// The reply without its move list.
    pub fn brief(&self) -> BriefReply<'_> {
        match self {
            Reply::Bounded(a) => BriefReply::Bounded(a.brief()),
            Reply::Beyond(a) => BriefReply::Beyond(a.brief()),
        }
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
) -> Result<Option<WideAnswer>, QueryError> {
    let decision = theory::decide(game, convention, position, quotient)
        .map_err(|e| QueryError::Quotient(e.to_string()))?;
    let Some(d) = decision else { return Ok(None) };
    let (outcome, child) = if d.loss { (Outcome::Loss, Outcome::Win) } else { (Outcome::Win, Outcome::Loss) };
    let value = |m: &BigMove| WideMoveValue {
        to: m.apply(position),
        heap: m.heap(),
        taken: m.taken(),
        description: m.describe(position),
        outcome: child,
        remoteness: None,
    };
    Ok(Some(WideAnswer {
        game: game.canonical(),
        convention,
        position: position.clone(),
        outcome,
        remoteness: None,
        nim_value: d.nim_value,
        best_move: d.best_move.as_ref().map(value),
        moves: Vec::new(),
        moves_omitted: d.moves.min(u64::MAX as u128) as u64,
        source: if d.theorem == Theorem::Quotient { Source::Quotient } else { Source::Theory },
        solve_id: None,
    }))
}

/// Answers a position with a heap beyond the database's from the theorem that applies: for
/// the misère play of an octal game, through its stored misère quotient, or one computed
/// now within a query's limits (as a query of a smaller position does). Refused, naming
/// why, when no theorem decides it.
pub fn answer_beyond(
    db: Option<&Database>,
    game: &GameSpec,
    convention: Convention,
    position: &BigPosition,
) -> Result<WideAnswer, QueryError> {
    let quotient = quotient_for(db, game, convention, position, Quotients::StoredOrComputed)?;
    decided(game, convention, position, quotient.as_ref())?
        .ok_or_else(|| beyond_theory(game, convention, position, false))
}
