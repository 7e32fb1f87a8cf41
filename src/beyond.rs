//! Answers for positions beyond the database's heaps: heaps larger than
//! [`MAX_INPUT_HEAP`](crate::game::MAX_INPUT_HEAP), up to `u64::MAX`, which only theorems
//! answer (Bouton's rule, Moore's theorem, Wythoff's pairs, a misère quotient with a
//! proven period; see [`theory::decide`](mod@crate::theory::decide)).
//!
//! The answer is the one [`Answer`] every position gets, its cells past `u32`. Its moves are
//! never listed (there are too many); the best move and the outcome come from the theorem,
//! and remoteness is unknown.

use crate::answer::{Answer, MoveValue, Source};
use crate::game::{BigMove, BigPosition, Convention, Family, GameSpec, Outcome};
use crate::query::{QueryError, Quotients, beyond_theory, quotient_for};
use crate::store::Database;
use crate::theory::quotient::Quotient;
use crate::theory::{self, Theorem};

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
) -> Result<Answer, QueryError> {
    let quotient = quotient_for(db, game, convention, position, Quotients::StoredOrComputed)?;
    decided(game, convention, position, quotient.as_ref())?
        .ok_or_else(|| beyond_theory(game, convention, position, false))
}
