//! Many queries against one open database: batch lines, the HTTP API.
//!
//! A [`Session`] answers from stored solves (through a cached [`Reader`]); where no solve
//! holds a position, from a stored misère quotient (for the misère play of octal games),
//! then from theory. It never solves on the spot, never computes a quotient and never
//! writes: it is what `nimdb query --batch` and `nimdb serve` answer with. Positions with
//! heaps beyond [`MAX_INPUT_HEAP`](crate::game::MAX_INPUT_HEAP) (up to `u64::MAX`) are
//! answered by theorems alone (see [`query::decided`](crate::query::decided)).

use std::rc::Rc;

use crate::answer::{Answer, Listing, Lookup, Source, best_move};
use crate::game::{
    BigPosition, Convention, Formula, Game, GameRules, GameSpec, HeapListError, Move, Outcome, Position,
    all_moves,
};
use crate::index::Universe;
use crate::query::{
    QueryError, answer_from_theory_until, beyond_theory, heap_move, quotient_answer, smallest_universe,
};
use crate::space::SpaceError;
use crate::store::{Database, Reader, StoreError};
use crate::theory::quotient::Quotient;
use crate::theory::{self, quotient_play::quotient_loss};

/// Why a position got no answer.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    /// The input is not a position.
    #[error("{0}")]
    BadPosition(String),
    /// No stored solve holds the position and no theorem gives its value. The message says
    /// what would answer it in words; the binary adds the commands that store it.
    #[error(
        "{position} is not in any stored solve of {game}{} and no theorem gives its value; a solve of {universe} would hold it{}",
        crate::query::misere_words(*convention),
        if *quotient_would { ", and a stored misère quotient of the game would answer positions of any size" } else { "" }
    )]
    NotCovered {
        /// The position.
        position: Position,
        /// Canonical game.
        game: String,
        /// The convention.
        convention: Convention,
        /// The smallest universe whose solve holds the position.
        universe: Universe,
        /// Whether a stored misère quotient would answer it too (misère octal games).
        quotient_would: bool,
    },
    /// A heap beyond what databases reach, and no theorem decides the position.
    #[error("{0}")]
    Beyond(String),
    /// The answer needs theory computed on the spot (heap values, a move search), and this
    /// session leaves that to another ([`Session::set_defer_theory`]).
    #[error("the answer needs theory computed on the spot, which this session defers")]
    Deferred,
    /// The theory computed on the spot was stopped on request ([`Session::set_stop`]): its
    /// caller no longer wants the answer.
    #[error("the answer was stopped on request before its heap values were computed")]
    Stopped,
    /// Theory could not answer within its limits (too many moves, too large a heap).
    #[error("{0}")]
    TooLarge(String),
    /// The heap values the answer needs are predicted to take more CPU time than the
    /// session's stop allows ([`theory::Stop::cpu_limit`]): refused before they started.
    #[error("{0}")]
    TooCostly(String),
    /// A stored misère quotient could not be read or used.
    #[error("{0}")]
    Quotient(String),
    /// The database failed or is inconsistent.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A family with its own position space could not answer (not stored and no theorem,
    /// or a damaged solve).
    #[error(transparent)]
    Space(SpaceError),
}

impl From<SpaceError> for LookupError {
    fn from(e: SpaceError) -> Self {
        match e {
            SpaceError::Store(e) => LookupError::Store(e),
            SpaceError::Stopped => LookupError::Stopped,
            e => LookupError::Space(e),
        }
    }
}

/// Parses one batch line: `7 5 3`, `7,5,3` or `[7,5,3]`, heaps up to `u64::MAX`. `None`
/// for a blank line or a `#` comment.
pub fn parse_line(line: &str) -> Result<Option<BigPosition>, HeapListError> {
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
    /// The stored misère quotient of each game asked about (by canonical name; `None`: none
    /// stored), loaded once and dropped when another connection commits.
    quotients: Vec<(String, Option<Rc<Quotient>>)>,
    /// Whether theory computed on the spot is left to another session.
    defer_theory: bool,
    /// Stops theory computed on the spot when set (a server's client left).
    stop: theory::Stop,
    /// The stored solves of the families with their own position space asked about (their records are read
    /// through `reader`, as the heap games' are).
    families: crate::space::SpaceReader<'a>,
}

impl<'a> Session<'a> {
    /// A session over `db`.
    pub fn new(db: &'a Database) -> Self {
        Session {
            db,
            reader: Reader::new(db),
            quotients: Vec::new(),
            defer_theory: false,
            stop: theory::Stop::never(),
            families: crate::space::SpaceReader::new(db),
        }
    }

    /// With `on`, a position no stored solve or stored quotient answers is not computed
    /// from theory here, by [`answer`](Self::answer) or [`lookup`](Self::lookup):
    /// [`LookupError::Deferred`] says so, and the caller may ask a session kept for such
    /// work (so that a stored lookup never waits behind heap values that take seconds), or
    /// ask again with a CPU watch armed. `lookup` still answers from a theorem that decides
    /// at once (Bouton, Moore, Wythoff).
    pub fn set_defer_theory(&mut self, on: bool) {
        self.defer_theory = on;
    }

    /// Theory computed on the spot from now on stops when `stop` is set, with
    /// [`LookupError::Stopped`] (the nim-values finished are kept for the next answer:
    /// [`theory::recent`]), and so does a family's theorem answer while it judges or
    /// searches its moves. A server sets one per request; [`theory::Stop::never`] undoes it.
    pub fn set_stop(&mut self, stop: theory::Stop) {
        self.families.set_stop(stop.clone());
        self.stop = stop;
    }

    /// The database.
    pub fn db(&self) -> &'a Database {
        self.db
    }

    /// Picks up what other connections committed since the last call (new solves, tiers,
    /// quotients).
    pub fn refresh(&mut self) -> Result<(), StoreError> {
        if self.reader.refresh()? {
            self.quotients.clear();
            self.families.clear();
        }
        Ok(())
    }

    /// The whole answer for `position` of any game, as `nimdb query --json` gives it, with
    /// every move listed or only the best one ([`Listing`]): from the first stored solve that
    /// holds the position, else (for the misère play of an octal game) from the stored
    /// misère quotient, else from the theorem that applies. Never solved here. Heaps past
    /// [`MAX_INPUT_HEAP`](crate::game::MAX_INPUT_HEAP) are answered by a theorem alone, with
    /// no moves listed.
    ///
    /// With [`Listing::BestOnly`] the answer is [`Listing::All`]'s with `moves` left empty
    /// (and `moves_omitted` 0), and a stored solve is read only as far as the best move
    /// needs: for a heap game, children are read in move order until one has remoteness one
    /// less than the position's (the child a full listing's [`best_move`] picks); from a win,
    /// children a theorem (Bouton, Moore, Wythoff) shows to be wins are not read at all.
    pub fn answer(
        &mut self,
        game: &Game,
        convention: Convention,
        position: &[u64],
        listing: Listing,
    ) -> Result<Answer, LookupError> {
        let Some(spec) = game.heaps() else {
            let resolved = self.resolved(game, convention, position)?;
            let (game, position) = resolved.as_ref().map_or((game, position), |(g, p)| (g, &p[..]));
            let position = family_position(game, position)?;
            let moves = listing == Listing::All;
            let theory = !self.defer_theory;
            return self
                .families
                .answer(&mut self.reader, game, convention, &position, moves, theory)?
                .ok_or(LookupError::Deferred);
        };
        if let Some(bounded) = bounded(position) {
            return self.answer_heaps(spec, convention, &bounded, listing);
        }
        let wide = BigPosition::new(position.to_vec());
        let q = self.stored_quotient(spec, convention)?;
        match crate::query::decided(spec, convention, &wide, q.as_deref()) {
            Ok(Some(answer)) => Ok(answer),
            Ok(None) => Err(LookupError::Beyond(beyond_theory(spec, convention, &wide, true).to_string())),
            Err(e) => Err(LookupError::Quotient(format!("{e:#}"))),
        }
    }

    /// The outcome and values of `position` of any game, as [`answer`](Self::answer) gives
    /// them (the same solves, in the same order, else the same theorem), without valuing its
    /// moves: a stored position costs one record, not one per child. What a batch of
    /// outcomes (`query --batch`, Python's `query_many`) reads.
    ///
    /// ```
    /// use nimdb::game::Game;
    /// use nimdb::{Convention, Database, GameSpec, Outcome, Session, Source, Universe};
    ///
    /// # fn main() -> Result<(), nimdb::Error> {
    /// let mut db = Database::open_in_memory()?;
    /// let dawson: GameSpec = "dawson".parse()?;
    /// let universe = Universe::new(dawson.rules(), "dawson", Some(10), None, None)?;
    /// nimdb::solve_into(&mut db, &dawson, Convention::Misere, universe, false, &nimdb::Silent)?;
    /// let game = Game::from(dawson);
    /// let mut session = Session::new(&db);
    /// // Misère: a lone 1-heap has no move (the player to move wins), a 2-heap one move to it.
    /// for (heap, outcome) in [(1, Outcome::Win), (2, Outcome::Loss)] {
    ///     let found = session.lookup(&game, Convention::Misere, &[heap])?;
    ///     assert_eq!((found.outcome, found.source), (outcome, Source::Database));
    /// }
    /// // Beyond every stored solve, with no theorem: an error that says what would answer it.
    /// let far = session.lookup(&game, Convention::Misere, &[40, 30, 20]).unwrap_err();
    /// assert!(far.to_string().contains("a solve of total ≤ 90 would hold it"));
    /// # Ok(())
    /// # }
    /// ```
    pub fn lookup(
        &mut self,
        game: &Game,
        convention: Convention,
        position: &[u64],
    ) -> Result<Lookup, LookupError> {
        let Some(spec) = game.heaps() else {
            let resolved = self.resolved(game, convention, position)?;
            let (game, position) = resolved.as_ref().map_or((game, position), |(g, p)| (g, &p[..]));
            let position = family_position(game, position)?;
            let theory = !self.defer_theory;
            return self
                .families
                .lookup(&mut self.reader, game, convention, &position, theory)?
                .ok_or(LookupError::Deferred);
        };
        if let Some(bounded) = bounded(position) {
            return self.lookup_heaps(spec, convention, &bounded);
        }
        let wide = BigPosition::new(position.to_vec());
        self.theorem_lookup(spec, convention, &wide)?
            .ok_or_else(|| LookupError::Beyond(beyond_theory(spec, convention, &wide, true).to_string()))
    }

    /// Ends the read transaction the session's open BLOB handles hold (call when idle).
    pub fn release(&mut self) {
        self.reader.release();
    }

    /// The stored misère quotient that answers `game` under `convention`: only for the
    /// misère play of octal games other than Nim (Bouton's rule answers Nim). Loaded once
    /// per game and kept until [`refresh`](Self::refresh) sees a commit.
    fn stored_quotient(
        &mut self,
        game: &GameSpec,
        convention: Convention,
    ) -> Result<Option<Rc<Quotient>>, LookupError> {
        if convention != Convention::Misere || game.octal().is_none() || game.is_nim() {
            return Ok(None);
        }
        let name = game.canonical();
        if let Some((_, q)) = self.quotients.iter().find(|(g, _)| *g == name) {
            return Ok(q.clone());
        }
        let q =
            self.db.load_quotient(game, None).map_err(|e| LookupError::Quotient(e.to_string()))?.map(Rc::new);
        self.quotients.push((name, q.clone()));
        Ok(q)
    }

    fn not_covered(&mut self, game: &GameSpec, convention: Convention, position: &Position) -> LookupError {
        let quotient_would = convention == Convention::Misere && game.octal().is_some() && !game.is_nim();
        LookupError::NotCovered {
            position: position.clone(),
            game: game.canonical(),
            convention,
            universe: smallest_universe(game.rules(), position),
            quotient_would,
        }
    }

    /// The outcome and values of a heap position: from the first stored solve that holds
    /// it, else from the stored misère quotient, else from theory.
    ///
    fn lookup_heaps(
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
                    position: position.cells(),
                    outcome: Outcome::from_remoteness(convention, remoteness),
                    remoteness: Some(remoteness),
                    nim_value: record.nim_value.map(u64::from),
                    source: Source::Database,
                    solve_id: Some(solve.id),
                });
            }
        }
        let wide = BigPosition::from(position);
        if let Some(lookup) = self.theorem_lookup(game, convention, &wide)? {
            return Ok(lookup);
        }
        if self.defer_theory {
            return Err(LookupError::Deferred);
        }
        let answer = self.theory(game, convention, position)?;
        Ok(Lookup {
            position: wide.heaps().to_vec(),
            outcome: answer.outcome,
            remoteness: None,
            nim_value: answer.nim_value,
            source: Source::Theory,
            solve_id: None,
        })
    }

    /// The outcome from the stored misère quotient or a theorem that decides it (Bouton,
    /// Moore, Wythoff), without looking for a move; `None` when neither applies.
    fn theorem_lookup(
        &mut self,
        game: &GameSpec,
        convention: Convention,
        position: &BigPosition,
    ) -> Result<Option<Lookup>, LookupError> {
        let lookup = |loss: bool, nim_value, source| Lookup {
            position: position.heaps().to_vec(),
            outcome: if loss { Outcome::Loss } else { Outcome::Win },
            remoteness: None,
            nim_value,
            source,
            solve_id: None,
        };
        if let Some(q) = self.stored_quotient(game, convention)? {
            let loss =
                quotient_loss(&q, position.heaps()).map_err(|e| LookupError::Quotient(e.to_string()))?;
            if let Some(loss) = loss {
                return Ok(Some(lookup(loss, None, Source::Quotient)));
            }
        }
        let decision = theory::decide(game, convention, position, None)
            .map_err(|e| LookupError::Quotient(e.to_string()))?;
        Ok(decision.map(|d| lookup(d.loss, d.nim_value, Source::Theory)))
    }

    fn theory(
        &mut self,
        game: &GameSpec,
        convention: Convention,
        position: &Position,
    ) -> Result<Answer, LookupError> {
        match answer_from_theory_until(game, convention, position, &self.stop) {
            Ok(Some(answer)) => Ok(answer),
            Ok(None) => Err(self.not_covered(game, convention, position)),
            Err(QueryError::Theory(theory::TheoryError::Stopped(_))) => Err(LookupError::Stopped),
            Err(e @ (QueryError::TooCostly { .. } | QueryError::Resource(_))) => {
                Err(LookupError::TooCostly(e.to_string()))
            }
            Err(e) => Err(LookupError::TooLarge(format!("{e:#}"))),
        }
    }

    /// [`answer`](Self::answer) of a heap position that fits a database.
    fn answer_heaps(
        &mut self,
        game: &GameSpec,
        convention: Convention,
        position: &Position,
        listing: Listing,
    ) -> Result<Answer, LookupError> {
        let solves = self.reader.solves_of(game, convention)?;
        for solve in solves.iter() {
            let Some(record) = self.reader.record(solve, position)? else {
                continue;
            };
            let remoteness = record.remoteness as u32;
            let outcome = Outcome::from_remoteness(convention, remoteness);
            let mut moves = Vec::new();
            let mut best = None;
            // The child a move leads to, and its stored remoteness.
            let child = |reader: &mut Reader<'a>, mv: &Move| -> Result<(Position, u32), LookupError> {
                let to = mv.apply(position);
                let child = reader.record(solve, &to)?.ok_or_else(|| {
                    StoreError::Corrupt(format!(
                        "solve #{} is missing the child {to} of {position}; the database is inconsistent",
                        solve.id
                    ))
                })?;
                Ok((to, child.remoteness as u32))
            };
            let value = |mv: Move, _to: Position, remoteness: u32| {
                heap_move(position, &mv, Outcome::from_remoteness(convention, remoteness), Some(remoteness))
            };
            if listing == Listing::BestOnly && remoteness > 0 {
                // From a win only a loss can be the best move: skip the children a theorem
                // shows to be wins.
                let theorem = if outcome == Outcome::Win { LossTheorem::of(game) } else { None };
                let mut scratch = Vec::with_capacity(position.len() + 2);
                for mv in all_moves(game.rules(), position) {
                    if let Some(theorem) = theorem
                        && !theorem.may_lose(child_heaps(position, &mv, &mut scratch), convention)
                    {
                        continue;
                    }
                    let (to, r) = child(&mut self.reader, &mv)?;
                    if r == remoteness - 1 {
                        best = Some(value(mv, to, r));
                        break;
                    }
                }
            }
            if best.is_none() {
                // Every move, and the best among them (also when a best-only search found
                // none: a terminal position, or a solve whose remoteness is not exact).
                for mv in all_moves(game.rules(), position) {
                    let (to, r) = child(&mut self.reader, &mv)?;
                    moves.push(value(mv, to, r));
                }
                best = best_move(&moves).cloned();
                if listing == Listing::BestOnly {
                    moves.clear();
                }
            }
            return Ok(Answer {
                game: game.canonical(),
                convention,
                position: position.cells(),
                outcome,
                remoteness: Some(remoteness),
                nim_value: record.nim_value.map(u64::from),
                best_move: best,
                moves,
                moves_omitted: 0,
                source: Source::Database,
                theorem: None,
                cited: None,
                solve_id: Some(solve.id),
            });
        }
        let mut answer = if let Some(q) = self.stored_quotient(game, convention)?
            && let Some(answer) = quotient_answer(&q, game, convention, position)
                .map_err(|e| LookupError::Quotient(format!("{e:#}")))?
        {
            answer
        } else if self.defer_theory {
            return Err(LookupError::Deferred);
        } else {
            self.theory(game, convention, position)?
        };
        if listing == Listing::BestOnly {
            answer.moves.clear();
            answer.moves_omitted = 0;
        }
        Ok(answer)
    }
}

/// The heap position of `cells` (any order; zeros dropped) when every heap is at most
/// [`MAX_INPUT_HEAP`](crate::game::MAX_INPUT_HEAP), the heaps databases reach.
fn bounded(cells: &[u64]) -> Option<Position> {
    let max = u64::from(crate::game::MAX_INPUT_HEAP);
    if cells.iter().any(|&h| h > max) {
        return None;
    }
    Some(Position::new(cells.iter().map(|&h| h as u32).collect()))
}

/// A family's position given as cells, in its canonical form, or why it is not one.
impl Session<'_> {
    /// A game defined in Python named alone (`defined:NAME`) as its stored solve has it,
    /// with the position put in its layout's form; `None` for every other game.
    fn resolved(
        &self,
        game: &Game,
        convention: Convention,
        position: &[u64],
    ) -> Result<Option<(Game, Vec<u64>)>, LookupError> {
        use crate::stored::StoredError as E;
        crate::stored::resolve_position(Some(self.db), game, position).map_err(|e| match e {
            E::Store(e) => LookupError::Store(e),
            E::BadPosition(m) => LookupError::BadPosition(m),
            E::NoDefined(_) => LookupError::Space(SpaceError::NoSolve(game.to_string(), convention)),
            other => LookupError::BadPosition(other.to_string()),
        })
    }
}

fn family_position(game: &Game, position: &[u64]) -> Result<Vec<u32>, LookupError> {
    game.family_counts(position).map_err(|e| LookupError::BadPosition(e.to_string()))
}

/// The heaps after `mv` from `position`, in no order and without zeros, written into
/// `scratch` (a theorem's loss test needs no canonical position).
fn child_heaps<'s>(position: &Position, mv: &Move, scratch: &'s mut Vec<u32>) -> &'s [u32] {
    scratch.clear();
    scratch.extend_from_slice(position.heaps());
    for c in mv.changes() {
        if let Some(i) = scratch.iter().position(|&h| h == c.heap) {
            scratch.swap_remove(i);
        }
    }
    for c in mv.changes() {
        scratch.extend_from_slice(c.result.parts());
    }
    scratch.retain(|&h| h != 0);
    scratch
}

/// A theorem that decides every position of a game from its heaps alone: Bouton's rule,
/// Moore's theorem, Wythoff's pairs (up to two heaps).
#[derive(Clone, Copy)]
enum LossTheorem {
    Bouton,
    Moore(u32),
    Wythoff,
}

impl LossTheorem {
    /// The theorem for `game`, if it has one.
    fn of(game: &GameSpec) -> Option<Self> {
        if game.is_nim() {
            return Some(LossTheorem::Bouton);
        }
        match game.rules().theory().formula {
            Some(Formula::Moore { k }) => Some(LossTheorem::Moore(k)),
            Some(Formula::Wythoff) => Some(LossTheorem::Wythoff),
            _ => None,
        }
    }

    /// Whether `heaps` may be a loss under `convention`: `false` only when the theorem shows
    /// a win (Wythoff's pairs say nothing of three heaps or more).
    fn may_lose(self, heaps: &[u32], convention: Convention) -> bool {
        match self {
            LossTheorem::Bouton => theory::nim_loss(heaps, convention),
            LossTheorem::Moore(k) => theory::moore_loss(heaps, k, convention),
            LossTheorem::Wythoff => theory::wythoff_loss(heaps, convention).unwrap_or(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_lookup_is_its_answer_without_the_moves() {
        use crate::game::Game;
        use crate::space::{space_bounds, space_of};
        /// A game, its convention, its solve's bounds (max_total, max_heaps) and positions
        /// beyond that solve.
        type Case = (&'static str, Convention, Option<u32>, u32, &'static [&'static [u32]]);
        let cases: [Case; 4] = [
            ("staircase", Convention::Normal, Some(12), 4, &[&[30, 0, 20, 5], &[5, 7, 5]]),
            ("staircase", Convention::Misere, Some(12), 4, &[&[9, 9, 9]]),
            ("welter", Convention::Misere, Some(12), 12, &[&[20, 9, 3, 0]]),
            ("raise:2", Convention::Normal, None, 3, &[&[2, 2, 1, 1, 1], &[1, 1, 1, 1]]),
        ];
        let mut db = Database::open_in_memory().unwrap();
        let mut spaces = Vec::new();
        for (name, convention, max_total, max_heaps, _) in cases {
            let game: Game = name.parse().unwrap();
            let bounds = space_bounds(&game, max_total, None, Some(max_heaps)).unwrap();
            let space = space_of(&game, bounds).unwrap();
            crate::driver::solve_space_into(
                &mut db,
                &game,
                convention,
                space.as_ref(),
                &crate::solve::Silent,
            )
            .unwrap();
            spaces.push(space);
        }
        let mut session = Session::new(&db);
        let mut seen = [0u64; 4]; // database, theory, draws, no answer
        for ((name, convention, _, _, beyond), space) in cases.into_iter().zip(&spaces) {
            let game: Game = name.parse().unwrap();
            let mut positions: Vec<Vec<u32>> = beyond.iter().map(|p| p.to_vec()).collect();
            let mut p = Vec::new();
            for tier in space.tiers() {
                for rank in 0..space.size(tier) {
                    space.unrank(tier, rank, &mut p);
                    positions.push(p.clone());
                }
            }
            for p in &positions {
                let cells: Vec<u64> = p.iter().map(|&c| u64::from(c)).collect();
                let short = session.lookup(&game, convention, &cells);
                let whole = session.answer(&game, convention, &cells, Listing::BestOnly);
                match (short, whole) {
                    (Ok(s), Ok(w)) => {
                        let w = (w.outcome, w.remoteness, w.nim_value, w.source, w.solve_id);
                        assert_eq!(
                            (s.outcome, s.remoteness, s.nim_value, s.source, s.solve_id),
                            w,
                            "{name} {p:?}"
                        );
                        seen[if s.source == Source::Database { 0 } else { 1 }] += 1;
                        seen[2] += u64::from(s.outcome == Outcome::Draw);
                    }
                    (Err(s), Err(w)) => {
                        assert_eq!(s.to_string(), w.to_string(), "{name} {p:?}");
                        seen[3] += 1;
                    }
                    (s, w) => panic!("{name} {p:?}: {s:?} against {w:?}"),
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 0), "every kind of answer was compared: {seen:?}");
    }

    #[test]
    fn a_stopped_session_answers_stopped_and_the_next_answer_is_whole() {
        let db = Database::open_in_memory().unwrap();
        let mut session = Session::new(&db);
        let spec: GameSpec = "hex:0.FB".parse().unwrap();
        let game = Game::from(spec.clone());
        let position = [200];
        let stop = theory::Stop::new();
        stop.stop();
        session.set_stop(stop);
        let stopped = session.lookup(&game, Convention::Normal, &position);
        assert!(matches!(stopped, Err(LookupError::Stopped)), "{stopped:?}");
        session.set_stop(theory::Stop::never());
        let found = session.lookup(&game, Convention::Normal, &position).unwrap();
        let g = theory::mex_values(spec.heap_rules().unwrap(), 200);
        assert_eq!(found.nim_value, Some(u64::from(g[200])));
    }

    /// A session that defers theory defers it in `lookup` too (the heap games' lookup
    /// computed heap values all the same, so that a caller watching the CPU time of theory
    /// alone, Python's `query_many`, could not tell them from a stored read); a theorem that
    /// decides at once still answers.
    #[test]
    fn a_deferring_session_s_lookup_leaves_heap_values_to_the_caller() {
        let db = Database::open_in_memory().unwrap();
        let mut session = Session::new(&db);
        session.set_defer_theory(true);
        let kayles: Game = "kayles".parse().unwrap();
        let deferred = session.lookup(&kayles, Convention::Normal, &[200, 7]);
        assert!(matches!(deferred, Err(LookupError::Deferred)), "{deferred:?}");
        let nim: Game = "nim".parse().unwrap();
        assert_eq!(session.lookup(&nim, Convention::Normal, &[7, 5, 3]).unwrap().source, Source::Theory);
        session.set_defer_theory(false);
        assert_eq!(session.lookup(&kayles, Convention::Normal, &[200, 7]).unwrap().source, Source::Theory);
    }

    /// Issue 34, round five: a family theorem's move list and best-move search (up to a
    /// million moves) did not look at the stop; a session's stop now stops them (a
    /// staircase whose winning move is the last of 999,003; a Welter position's list;
    /// Wythoff's list), and the answer without a stop is the whole one.
    #[test]
    fn a_family_theorem_s_moves_hear_the_stop() {
        let db = Database::open_in_memory().unwrap();
        let mut session = Session::new(&db);
        let staircase: Game = "staircase".parse().unwrap();
        let welter: Game = "welter".parse().unwrap();
        let wythoff: Game = "wythoff".parse().unwrap();
        let asked = [
            (&staircase, vec![0, 1000, 998_000]),
            (&welter, vec![300, 200, 100, 7]),
            (&wythoff, vec![1000, 999]),
        ];
        let stop = theory::Stop::new();
        stop.stop();
        session.set_stop(stop);
        for (game, position) in &asked {
            let stopped = session.answer(game, Convention::Normal, position, Listing::All);
            assert!(matches!(stopped, Err(LookupError::Stopped)), "{game}: {stopped:?}");
        }
        session.set_stop(theory::Stop::never());
        let whole = session.answer(&staircase, Convention::Normal, &asked[0].1, Listing::All).unwrap();
        let best = whole.best_move.expect("a win has a best move");
        assert_eq!(best.description, "move 998000 coins from step 3 to step 2 → [0 999000]");
        assert_eq!((whole.moves.len(), whole.moves_omitted), (0, 999_000), "every move counted, none listed");
        let listed = session.answer(&welter, Convention::Normal, &asked[1].1, Listing::All).unwrap();
        assert_eq!(listed.moves.len() as u64, listed.moves_omitted.max(listed.moves.len() as u64));
        assert!(!listed.moves.is_empty());
    }
}
