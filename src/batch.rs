//! Many queries against one open database: batch lines, the HTTP API.
//!
//! A [`Session`] answers from stored solves (through a cached [`Reader`]) and, where no
//! solve holds a position, from theory. It never solves on the spot and never writes: it
//! is what `nimdb query --batch` and `nimdb serve` answer with.

use crate::game::{Convention, GameSpec, Position, all_moves};
use crate::query::{Answer, MoveValue, Outcome, Source, answer_from_theory, best_move, smallest_universe};
use crate::store::{Database, Reader, StoreError};

/// Why a position got no answer.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    /// The input is not a position.
    #[error("{0}")]
    BadPosition(String),
    /// No stored solve holds the position and no theorem gives its value.
    #[error(
        "{position} is not in any stored solve of {game}{misere} and no theorem gives its value; run: nimdb solve --game {game}{misere} {flags}"
    )]
    NotCovered {
        /// The position.
        position: Position,
        /// Canonical game.
        game: String,
        /// " --misere" or "".
        misere: &'static str,
        /// Solve flags that would cover it.
        flags: String,
    },
    /// Theory could not answer within its limits (too many moves, too large a heap).
    #[error("{0}")]
    TooLarge(String),
    /// The database failed or is inconsistent.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The short answer of a batch line: outcome and values, without the moves.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Lookup {
    /// The position, canonical.
    pub position: Position,
    /// The outcome for the player to move.
    pub outcome: Outcome,
    /// Moves to the end under optimal play, when known.
    pub remoteness: Option<u32>,
    /// The nim-value (misère nim-value under misère), when stored or known.
    pub nim_value: Option<u32>,
    /// Where the answer came from.
    pub source: Source,
    /// The stored solve used, if any.
    pub solve_id: Option<i64>,
}

/// A universe as `nimdb solve` flags.
fn flags(u: &crate::index::Universe) -> String {
    let mut out = format!("--max-total {}", u.max_total);
    if let Some(h) = u.max_heap {
        out += &format!(" --max-heap {h}");
    }
    if let Some(k) = u.max_heaps {
        out += &format!(" --max-heaps {k}");
    }
    out
}

/// Parses one batch line: `7 5 3`, `7,5,3` or `[7,5,3]`. `None` for a blank line or a
/// `#` comment.
pub fn parse_line(line: &str) -> Result<Option<Position>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    line.parse().map(Some)
}

/// Cached lookups through one open database (see the module documentation).
pub struct Session<'a> {
    db: &'a Database,
    reader: Reader<'a>,
}

impl<'a> Session<'a> {
    /// A session over `db`.
    pub fn new(db: &'a Database) -> Self {
        Session { db, reader: Reader::new(db) }
    }

    /// The database.
    pub fn db(&self) -> &'a Database {
        self.db
    }

    /// Picks up what other connections committed since the last call (new solves, tiers).
    pub fn refresh(&mut self) -> Result<(), StoreError> {
        self.reader.refresh().map(|_| ())
    }

    /// Ends the read transaction the session's open BLOB handles hold (call when idle).
    pub fn release(&mut self) {
        self.reader.release();
    }

    fn not_covered(game: &GameSpec, convention: Convention, position: &Position) -> LookupError {
        LookupError::NotCovered {
            position: position.clone(),
            game: game.canonical(),
            misere: if convention == Convention::Misere { " --misere" } else { "" },
            flags: flags(&smallest_universe(game.rules(), position)),
        }
    }

    /// The outcome and values of `position`: from the first stored solve that holds it,
    /// else from theory.
    pub fn lookup(
        &mut self,
        game: &GameSpec,
        convention: Convention,
        position: &Position,
    ) -> Result<Lookup, LookupError> {
        let solves = self.reader.solves_of(game, convention)?;
        for solve in solves.iter() {
            if let Some(record) = self.reader.record(solve, position)? {
                let remoteness = record.remoteness as u32;
                return Ok(Lookup {
                    position: position.clone(),
                    outcome: Outcome::from_remoteness(convention, remoteness),
                    remoteness: Some(remoteness),
                    nim_value: record.nim_value.map(u32::from),
                    source: Source::Database,
                    solve_id: Some(solve.id),
                });
            }
        }
        let answer = self.theory(game, convention, position)?;
        Ok(Lookup {
            position: answer.position,
            outcome: answer.outcome,
            remoteness: None,
            nim_value: answer.nim_value,
            source: Source::Theory,
            solve_id: None,
        })
    }

    fn theory(
        &self,
        game: &GameSpec,
        convention: Convention,
        position: &Position,
    ) -> Result<Answer, LookupError> {
        answer_from_theory(game, convention, position)
            .map_err(|e| LookupError::TooLarge(format!("{e:#}")))?
            .ok_or_else(|| Self::not_covered(game, convention, position))
    }

    /// The whole answer, as `nimdb query --json` gives it: every move with its value and the
    /// best move. From the first stored solve that holds the position, else from theory.
    pub fn answer(
        &mut self,
        game: &GameSpec,
        convention: Convention,
        position: &Position,
    ) -> Result<Answer, LookupError> {
        let solves = self.reader.solves_of(game, convention)?;
        for solve in solves.iter() {
            let Some(record) = self.reader.record(solve, position)? else {
                continue;
            };
            let mut moves = Vec::new();
            for mv in all_moves(game.rules(), position) {
                let to = mv.apply(position);
                let child = self.reader.record(solve, &to)?.ok_or_else(|| {
                    StoreError::Corrupt(format!(
                        "solve #{} is missing the child {to} of {position}; the database is inconsistent",
                        solve.id
                    ))
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
            let best = best_move(&moves).cloned();
            return Ok(Answer {
                game: game.canonical(),
                convention,
                position: position.clone(),
                outcome: Outcome::from_remoteness(convention, record.remoteness as u32),
                remoteness: Some(record.remoteness as u32),
                nim_value: record.nim_value.map(u32::from),
                best_move: best,
                moves,
                moves_omitted: 0,
                source: Source::Database,
                solve_id: Some(solve.id),
            });
        }
        self.theory(game, convention, position)
    }
}
