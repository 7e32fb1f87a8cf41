//! The computer's judgement: answers from [`plan_until`] (the database, a solve on the spot, a
//! misère quotient or a theorem), seen through one [`Advice`]; the move the computer plays;
//! and hints in words.

use std::collections::HashMap;
use std::time::Duration;

use crate::answer::{Answer, best_move};
use crate::game::{Convention, Game, Outcome};
use crate::query::{
    AUTO_SOLVE_LIMIT, CpuWatch, DEFAULT_CPU_LIMIT, Plan, QueryError, Quotients, answer_after_solving_until,
    plan_until,
};
use crate::store::Database;
use crate::theory::Stop;
use crate::theory::families::outcome_by_theorem;

/// A move the computer may play, and what it leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The position after the move, in the family's canonical form.
    pub to: Vec<u32>,
    /// The move in words, with the position it leads to.
    pub description: String,
    /// The remoteness after the move, when known.
    pub remoteness: Option<u32>,
}

/// What the computer knows of a position: its outcome for the player to move, how long
/// perfect play lasts when known, and the best move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Advice {
    /// The outcome for the player to move (a draw only in loopy games).
    pub outcome: Outcome,
    /// Moves to the end under perfect play, when known.
    pub remoteness: Option<u32>,
    /// The fastest win, the longest resistance, or a move that keeps the draw; `None` at
    /// a terminal position.
    pub best_move: Option<Choice>,
}

impl Advice {
    fn of(game: &Game, convention: Convention, answer: Answer) -> Advice {
        let family = game.family();
        let narrow = |cells: &[u64]| cells.iter().map(|&c| c as u32).collect::<Vec<u32>>();
        // A theorem's answer may name no move: from a loss every move loses, so the first will
        // do; past the theorem's move search, the first move to the outcome wanted, judged by
        // the theorem alone.
        let best_move = match answer.best_move.or_else(|| best_move(&answer.moves).cloned()) {
            Some(m) => {
                Some(Choice { to: narrow(&m.to), description: m.description, remoteness: m.remoteness })
            }
            None => {
                let want = match answer.outcome {
                    Outcome::Loss => None,
                    Outcome::Win => Some(Outcome::Loss),
                    Outcome::Draw => Some(Outcome::Draw),
                };
                family
                    .moves(&narrow(&answer.position))
                    .into_iter()
                    .find(|m| want.is_none() || outcome_by_theorem(family, &m.to, convention) == want)
                    .map(|m| Choice {
                        description: format!("{} → {}", m.text, family.show(&m.to)),
                        to: m.to,
                        remoteness: None,
                    })
            }
        };
        Advice { outcome: answer.outcome, remoteness: answer.remoteness, best_move }
    }
}

/// Why the computer could not judge a position.
#[derive(Debug, thiserror::Error)]
pub enum AdviceError {
    /// The query failed.
    #[error(transparent)]
    Query(Box<QueryError>),
    /// The work of judging `position` (heap values, a theorem's move list, a solve on the
    /// spot, whose finished tiers are stored) used the CPU limit and was stopped.
    #[error("judging {position} was stopped at the CPU limit of {} s", limit.as_secs_f64())]
    OverLimit {
        /// The position, in the game's notation.
        position: String,
        /// The limit it used.
        limit: Duration,
    },
}

/// How `position` will be judged (see [`plan_until`]), within `cpu_limit` of CPU time:
/// heap values predicted past it are refused before they start, and the work is stopped
/// once it has used it ([`AdviceError::OverLimit`]). Reads `db`, writes nothing: what a
/// face checks the start with before it opens the database for writing.
pub fn plan_within(
    db: Option<&Database>,
    game: &Game,
    convention: Convention,
    position: &[u64],
    cpu_limit: Duration,
) -> Result<Plan, AdviceError> {
    let stop = Stop::new().with_cpu_limit(cpu_limit);
    let watch = CpuWatch::start(&stop);
    plan_until(db, game, convention, position, AUTO_SOLVE_LIMIT, Quotients::StoredOrComputed, &stop)
        .map_err(|e| over_limit(e, &watch, game, position, cpu_limit))
}

/// A query's error, or [`AdviceError::OverLimit`] where the watch stopped the work.
fn over_limit(
    e: QueryError,
    watch: &CpuWatch,
    game: &Game,
    position: &[u64],
    limit: Duration,
) -> AdviceError {
    if watch.fired() {
        AdviceError::OverLimit { position: game.show(position), limit }
    } else {
        AdviceError::Query(Box::new(e))
    }
}

/// Looks positions up for one game and convention, remembering the answers of this game.
pub struct Advisor {
    db: Database,
    game: Game,
    convention: Convention,
    solve_limit: u64,
    cpu_limit: Duration,
    /// One watch for every answer, rearmed with each answer's stop (started with the first).
    watch: Option<CpuWatch>,
    answers: HashMap<Vec<u32>, Advice>,
}

impl Advisor {
    /// An advisor backed by `db`, solving small spaces on the spot (heap universes of up
    /// to [`AUTO_SOLVE_LIMIT`] positions), each answer within [`DEFAULT_CPU_LIMIT`] of CPU
    /// time (see [`with_cpu_limit`](Self::with_cpu_limit)).
    pub fn new(db: Database, game: impl Into<Game>, convention: Convention) -> Self {
        Advisor {
            db,
            game: game.into(),
            convention,
            solve_limit: AUTO_SOLVE_LIMIT,
            cpu_limit: DEFAULT_CPU_LIMIT,
            watch: None,
            answers: HashMap::new(),
        }
    }

    /// The same advisor, each answer it has not given before within `limit` of CPU time
    /// (`play --cpu-limit`): heap values predicted past it are refused, and work past it is
    /// stopped ([`AdviceError::OverLimit`]).
    pub fn with_cpu_limit(mut self, limit: Duration) -> Self {
        self.cpu_limit = limit;
        self
    }

    /// The value of `position` (in the family's canonical form) and its best move. Fails
    /// when the position is neither stored, nor small enough to solve now, nor answered by
    /// theory.
    pub fn answer(&mut self, position: &[u32]) -> Result<&Advice, AdviceError> {
        if !self.answers.contains_key(position) {
            let cells: Vec<u64> = position.iter().map(|&c| u64::from(c)).collect();
            let stop = Stop::new().with_cpu_limit(self.cpu_limit);
            let watch = match &self.watch {
                Some(watch) => {
                    watch.rearm(&stop);
                    watch
                }
                None => self.watch.insert(CpuWatch::start(&stop)),
            };
            let over = |e| over_limit(e, watch, &self.game, &cells, self.cpu_limit);
            let (game, convention, quotients) = (&self.game, self.convention, Quotients::StoredOrComputed);
            let plan =
                plan_until(Some(&self.db), game, convention, &cells, self.solve_limit, quotients, &stop);
            let answer = match plan.map_err(over)? {
                Plan::Answered(answer) => *answer,
                Plan::Solve(cover) => {
                    answer_after_solving_until(&mut self.db, game, convention, &cells, cover, &stop)
                        .map_err(over)?
                }
            };
            let advice = Advice::of(&self.game, self.convention, answer);
            self.answers.insert(position.to_vec(), advice);
        }
        Ok(&self.answers[position])
    }
}

/// The move the computer plays: the answer's best move, i.e. the fastest win when winning,
/// the longest resistance when losing, a move that keeps the draw from a draw. `None` only
/// at a terminal position.
pub fn computer_choice(answer: &Advice) -> Option<&Choice> {
    answer.best_move.as_ref()
}

/// A hint in words for the player to move: the outcome, how long perfect play takes when
/// that is known, and the best move with the reason it is best.
pub fn hint_text(answer: &Advice) -> String {
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
        (Outcome::Draw, _) => format!(
            "Neither side can force a win from here: {mv} keeps the draw (any move that leaves the opponent a win loses)"
        ),
    }
}

fn plural(n: u32, word: &str) -> String {
    if n == 1 { word.to_string() } else { format!("{word}s") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn advisor(game: &str, convention: Convention) -> (tempfile::TempDir, Advisor) {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&dir.path().join("play.sqlite")).unwrap();
        let game: Game = game.parse().unwrap();
        (dir, Advisor::new(db, game, convention))
    }

    #[test]
    fn a_theorem_s_loss_still_gives_the_computer_a_move() {
        // Staircase 2 0 2 5: the odd steps 2, 2 have nim-sum 0, a loss by the theorem, which
        // names no move; the computer still has one to play.
        let (_dir, mut a) = advisor("staircase", Convention::Normal);
        let answer = a.answer(&[2, 0, 2, 5]).unwrap();
        assert_eq!((answer.outcome, answer.remoteness), (Outcome::Loss, None));
        assert_eq!(computer_choice(answer).unwrap().to, vec![1, 0, 2, 5]);
        // Past the theorem's move search the computer still finds its winning move.
        let (_dir, mut a) = advisor("welter", Convention::Normal);
        let answer = a.answer(&[1 << 20, 0]).unwrap();
        assert_eq!(answer.outcome, Outcome::Win);
        assert_eq!(computer_choice(answer).unwrap().to, vec![1, 0]);
    }

    #[test]
    fn hints_the_fastest_win() {
        let (_dir, mut a) = advisor("nim", Convention::Normal);
        let answer = a.answer(&[7, 4, 2]).unwrap();
        assert_eq!(answer.outcome, Outcome::Win);
        let r = answer.remoteness.unwrap();
        let hint = hint_text(answer);
        assert!(
            hint.starts_with(&format!("You can win in {r} moves: take 1 from the 7-heap → [6,4,2]")),
            "{hint}"
        );
        assert_eq!(computer_choice(answer).unwrap().to, vec![6, 4, 2]);
    }

    #[test]
    fn hints_the_longest_resistance_when_lost() {
        // Seed 004: one heap of 5 in the take-1-to-3 game whose last mover loses is lost.
        let (_dir, mut a) = advisor("subtraction:1,2,3", Convention::Misere);
        let answer = a.answer(&[5]).unwrap();
        assert_eq!(answer.outcome, Outcome::Loss);
        let hint = hint_text(answer);
        assert!(hint.starts_with("You are losing against perfect play (the opponent wins in"), "{hint}");
        assert!(hint.contains("the move that holds out longest: take 1 from the 5-heap → [4]"), "{hint}");
    }

    #[test]
    fn hints_without_remoteness_for_theory_answers() {
        let (_dir, mut a) = advisor("nim", Convention::Normal);
        let mut answer = a.answer(&[3, 1]).unwrap().clone();
        answer.remoteness = None;
        for m in answer.best_move.iter_mut() {
            m.remoteness = None;
        }
        let hint = hint_text(&answer);
        assert!(hint.starts_with("You can win: take 2 from the 3-heap → [1,1]"), "{hint}");
    }

    #[test]
    fn families_with_their_own_space_are_judged_in_their_own_notation() {
        // Staircase 0 1 (one coin on step 2): the odd steps' nim-sum is 0, a loss.
        let (_dir, mut a) = advisor("staircase", Convention::Normal);
        let answer = a.answer(&[0, 1]).unwrap();
        assert_eq!(answer.outcome, Outcome::Loss);
        assert_eq!(answer.best_move.as_ref().unwrap().description, "move 1 coin from step 2 to step 1 → [1]");
        // Nim with raising to 2 from two heaps of 2: Smith's theory says a draw, kept by the
        // hint's move (checked against the database's solve in tests/spaced.rs).
        let (_dir, mut a) = advisor("raise:2", Convention::Normal);
        let answer = a.answer(&[2, 2]).unwrap().clone();
        let hint = hint_text(&answer);
        assert_eq!(answer.outcome, Outcome::Draw, "{hint}");
        assert!(hint.starts_with("Neither side can force a win from here"), "{hint}");
    }
}
