//! The computer's judgement: answers from [`query`] (the database, a solve on the spot,
//! or theory), the move the computer plays, and hints in words.

use std::collections::HashMap;

use crate::game::{Convention, GameSpec, Position};
use crate::query::{AUTO_SOLVE_LIMIT, Answer, MoveValue, Outcome, QueryError, query};
use crate::store::Database;

/// Looks positions up for one game and convention, remembering the answers of this game.
pub struct Advisor {
    db: Database,
    game: GameSpec,
    convention: Convention,
    solve_limit: u64,
    answers: HashMap<Position, Answer>,
}

impl Advisor {
    /// An advisor backed by `db`, solving universes of up to [`AUTO_SOLVE_LIMIT`]
    /// positions on the spot.
    pub fn new(db: Database, game: GameSpec, convention: Convention) -> Self {
        Advisor { db, game, convention, solve_limit: AUTO_SOLVE_LIMIT, answers: HashMap::new() }
    }

    /// The value of `position` and of every move from it. Fails when the position is
    /// neither stored, nor small enough to solve now, nor answered by theory.
    pub fn answer(&mut self, position: &Position) -> Result<&Answer, QueryError> {
        if !self.answers.contains_key(position) {
            let answer = query(&mut self.db, &self.game, self.convention, position, self.solve_limit)?;
            self.answers.insert(position.clone(), answer);
        }
        Ok(&self.answers[position])
    }
}

/// The move the computer plays: the answer's best move, i.e. the fastest win when winning
/// and the longest resistance when losing. `None` only at a terminal position.
pub fn computer_choice(answer: &Answer) -> Option<&MoveValue> {
    answer.best_move.as_ref()
}

/// A hint in words for the player to move: the outcome, how long perfect play takes when
/// that is known, and the best move with the reason it is best.
pub fn hint_text(answer: &Answer) -> String {
    let Some(best) = &answer.best_move else {
        return "There is no move left: the game is over.".to_string();
    };
    let mv = &best.description;
    match (answer.outcome, answer.remoteness) {
        (Outcome::Win, Some(r)) => {
            let then = match best.remoteness {
                None => String::new(),
                Some(0) => " (the last move)".to_string(),
                Some(c) => format!(" (it leaves the opponent lost, with {c} {} to go)", plural(c, "move")),
            };
            format!("You can win in {r} {}: {mv}{then}", plural(r, "move"))
        }
        (Outcome::Win, None) => format!(
            "You can win: {mv} (theory says the opponent is then lost; the number of moves is not known)"
        ),
        (Outcome::Loss, Some(r)) => format!(
            "You are losing against perfect play (the opponent wins in {r} {}); the move that holds out longest: {mv}",
            plural(r, "move")
        ),
        (Outcome::Loss, None) => format!(
            "You are losing against perfect play (by theory: every move leaves the opponent a win); try: {mv}"
        ),
    }
}

fn plural(n: u32, word: &str) -> String {
    if n == 1 { word.to_string() } else { format!("{word}s") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::Source;

    fn advisor(game: &str, convention: Convention) -> (tempfile::TempDir, Advisor) {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("play.sqlite")).unwrap();
        (dir, Advisor::new(db, game.parse().unwrap(), convention))
    }

    #[test]
    fn hints_the_fastest_win() {
        let (_dir, mut a) = advisor("nim", Convention::Normal);
        let answer = a.answer(&"7 4 2".parse().unwrap()).unwrap();
        assert_eq!(answer.outcome, Outcome::Win);
        let r = answer.remoteness.unwrap();
        let hint = hint_text(answer);
        assert!(
            hint.starts_with(&format!("You can win in {r} moves: take 1 from the 7-heap → [6,4,2]")),
            "{hint}"
        );
        assert_eq!(computer_choice(answer).unwrap().to.to_string(), "[6,4,2]");
    }

    #[test]
    fn hints_the_longest_resistance_when_lost() {
        // Seed 004: one heap of 5 in the take-1-to-3 game whose last mover loses is lost.
        let (_dir, mut a) = advisor("subtraction:1,2,3", Convention::Misere);
        let answer = a.answer(&"5".parse().unwrap()).unwrap();
        assert_eq!(answer.outcome, Outcome::Loss);
        let hint = hint_text(answer);
        assert!(hint.starts_with("You are losing against perfect play (the opponent wins in"), "{hint}");
        assert!(hint.contains("the move that holds out longest: take 1 from the 5-heap → [4]"), "{hint}");
    }

    #[test]
    fn hints_without_remoteness_for_theory_answers() {
        let (_dir, mut a) = advisor("nim", Convention::Normal);
        let mut answer = a.answer(&"3 1".parse().unwrap()).unwrap().clone();
        answer.remoteness = None;
        answer.source = Source::Theory;
        for m in answer.moves.iter_mut().chain(answer.best_move.iter_mut()) {
            m.remoteness = None;
        }
        let hint = hint_text(&answer);
        assert!(hint.starts_with("You can win: take 2 from the 3-heap → [1,1]"), "{hint}");
    }
}
