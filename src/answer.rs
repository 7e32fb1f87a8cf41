//! The one answer every game gets: [`Answer`] (a position's outcome, remoteness, nim-value,
//! best move and every move's value) and [`Lookup`] (the same without the moves), whether
//! the game is a sum of heaps or a family with its own position space, and whether the
//! answer came from a stored solve, a solve run on the spot, a theorem or a misère quotient.
//!
//! A position in an answer is the game's own cells, as numbers of any size: the heaps of a
//! heap game (largest first, up to `u64::MAX`, where only theorems answer), a staircase's
//! coins per step, a raise:C game's heaps. Each face prints it through
//! [`Game::show`](crate::game::Game::show) and sends it as a JSON array, so no face needs
//! to know which kind of game it answers for.

use serde::Serialize;

use crate::game::{Convention, Formula, Outcome};

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Where an answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A stored solve.
    Database,
    /// A universe solved on the spot for this query (and stored).
    Solved,
    /// A theorem (Bouton, Sprague–Grundy, Moore, Wythoff, the families' own); remoteness
    /// unknown.
    Theory,
    /// A misère quotient (Plambeck–Siegel); remoteness unknown.
    Quotient,
    /// A theorem the program that defined the game states and marks proven
    /// ([`Stated`](crate::game::Stated)), not one of nimdb's: the answer's `cited` names it.
    /// Remoteness unknown.
    #[serde(rename = "user-theorem")]
    Stated,
}

impl Source {
    /// The source in words, as the text faces print it.
    pub fn words(self) -> &'static str {
        match self {
            Source::Database => "database",
            Source::Solved => "solved now and stored",
            Source::Theory => "theory",
            Source::Quotient => "misère quotient",
            Source::Stated => "the user's theorem",
        }
    }
}

/// One move and the value of the position it leads to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveValue {
    /// The position after it, in the game's canonical form.
    pub to: Vec<u64>,
    /// For a heap game, the size of the (largest) heap moved in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heap: Option<u64>,
    /// For a heap game, the tokens taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub taken: Option<u128>,
    /// The move in words.
    pub description: String,
    /// The outcome for the player to move after it (the opponent).
    pub outcome: Outcome,
    /// Its remoteness, when known (never for a draw).
    pub remoteness: Option<u32>,
}

/// The answer to a query, for any game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Answer {
    /// The game, canonical.
    pub game: String,
    /// The convention.
    pub convention: Convention,
    /// The position asked about, in the game's canonical form.
    pub position: Vec<u64>,
    /// The outcome for the player to move.
    pub outcome: Outcome,
    /// Moves to the end under optimal play, when known (never for a draw).
    pub remoteness: Option<u32>,
    /// The nim-value (the misère nim-value under misère play), when stored or known.
    pub nim_value: Option<u64>,
    /// The best move: the fastest win, the slowest loss, or a move that keeps the draw
    /// (`None` at a terminal position, or where a theorem's answer could not afford it).
    pub best_move: Option<MoveValue>,
    /// Every move, in the game's move order (empty at a terminal position, where there are
    /// too many to list, and where only the best move was asked for).
    pub moves: Vec<MoveValue>,
    /// How many moves were left out of `moves` because there were too many to list (about,
    /// where only a bound is known); 0, and left out of JSON, otherwise.
    #[serde(skip_serializing_if = "is_zero")]
    pub moves_omitted: u64,
    /// Where the answer came from.
    pub source: Source,
    /// The theorem, when the answer is a theorem's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theorem: Option<Formula>,
    /// The citation of the user's theorem, when the answer is one's ([`Source::Stated`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cited: Option<String>,
    /// The stored solve used, if any.
    pub solve_id: Option<i64>,
}

/// How much of a position's moves an answer lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Listing {
    /// Every move with its value, as `nimdb query --json` gives them.
    #[default]
    All,
    /// The best move only: `moves` is left empty (and `moves_omitted` 0), and from a stored
    /// solve only the children needed to find the best move are read (see
    /// [`Session::answer`](crate::batch::Session::answer)).
    BestOnly,
}

/// An answer without its move list: the fields of [`Answer`] but `moves` and
/// `moves_omitted`, in the same order and with the same JSON keys. What
/// `GET /api/v1/query?…&moves=false` sends.
#[derive(Clone, Debug, Serialize)]
pub struct Brief<'a> {
    /// The game, canonical.
    pub game: &'a str,
    /// The convention.
    pub convention: Convention,
    /// The position asked about.
    pub position: &'a [u64],
    /// The outcome for the player to move.
    pub outcome: Outcome,
    /// Moves to the end under optimal play, when known.
    pub remoteness: Option<u32>,
    /// The nim-value, when stored or known.
    pub nim_value: Option<u64>,
    /// The best move.
    pub best_move: Option<&'a MoveValue>,
    /// Where the answer came from.
    pub source: Source,
    /// The theorem, when the answer is a theorem's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theorem: Option<Formula>,
    /// The citation of the user's theorem, when the answer is one's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cited: Option<&'a str>,
    /// The stored solve used, if any.
    pub solve_id: Option<i64>,
}

impl Answer {
    /// The answer without its move list (see [`Brief`]).
    pub fn brief(&self) -> Brief<'_> {
        Brief {
            game: &self.game,
            convention: self.convention,
            position: &self.position,
            outcome: self.outcome,
            remoteness: self.remoteness,
            nim_value: self.nim_value,
            best_move: self.best_move.as_ref(),
            source: self.source,
            theorem: self.theorem,
            cited: self.cited.as_deref(),
            solve_id: self.solve_id,
        }
    }

    /// The answer without its moves: what a [`Lookup`] holds.
    pub fn lookup(&self) -> Lookup {
        Lookup {
            position: self.position.clone(),
            outcome: self.outcome,
            remoteness: self.remoteness,
            nim_value: self.nim_value,
            source: self.source,
            solve_id: self.solve_id,
        }
    }

    /// Leaves the move list out (the best move stays): what [`Listing::BestOnly`] asks for.
    pub fn without_moves(mut self) -> Self {
        self.moves.clear();
        self.moves_omitted = 0;
        self
    }
}

/// The short answer of a position: outcome and values, without the moves (what a batch
/// line and `query_many` give).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Lookup {
    /// The position, in the game's canonical form.
    pub position: Vec<u64>,
    /// The outcome for the player to move.
    pub outcome: Outcome,
    /// Moves to the end under optimal play, when known.
    pub remoteness: Option<u32>,
    /// The nim-value (the misère nim-value under misère play), when stored or known.
    pub nim_value: Option<u64>,
    /// Where the answer came from.
    pub source: Source,
    /// The stored solve used, if any.
    pub solve_id: Option<i64>,
}

/// Picks the best move among `moves`: from a win, a move to a loss of least remoteness;
/// from a loss, a move to the child of greatest remoteness; from a draw, a move to a draw.
/// Ties go to the first move in move order. Unknown remoteness counts as equal.
pub fn best_move(moves: &[MoveValue]) -> Option<&MoveValue> {
    let winning = moves.iter().filter(|m| m.outcome == Outcome::Loss);
    if let Some(best) = winning.clone().next() {
        let least = winning.clone().filter_map(|m| m.remoteness).min();
        return Some(winning.clone().find(|m| m.remoteness == least).unwrap_or(best));
    }
    if let Some(draw) = moves.iter().find(|m| m.outcome == Outcome::Draw) {
        return Some(draw);
    }
    let most = moves.iter().filter_map(|m| m.remoteness).max();
    moves.iter().find(|m| m.remoteness == most).or(moves.first())
}
