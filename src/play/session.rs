//! The state of one game: the rules, who plays which seat, and every move so far (for
//! undo). It speaks to the game only through its [`Family`]: positions are the family's
//! canonical counts, moves are the family's listed moves. It knows nothing about terminals
//! or databases.

use crate::game::{Convention, Family, Game, LabelledMove, SpaceLayout, moves_fit};

use super::seats::{Controller, Players, Seat};

/// How many times a position of a loopy game may come round with the same player to move
/// before the game is declared drawn.
pub const DRAW_AFTER_REPETITIONS: usize = 3;

/// One move already played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// Who played it.
    pub seat: Seat,
    /// The move, as the family lists it.
    pub mv: LabelledMove,
    /// The position it was played from.
    pub from: Vec<u32>,
}

/// A game in progress (or finished): the position history from the start.
#[derive(Clone, Debug)]
pub struct Session {
    game: Game,
    convention: Convention,
    players: Players,
    start: Vec<u32>,
    position: Vec<u32>,
    played: Vec<PlayedMove>,
}

/// Why a game cannot start, or a move cannot be played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// The starting position is empty.
    #[error("the starting position has no heaps")]
    NoHeaps,
    /// The starting position has no move.
    #[error("{game} has no move from {start}: the game would be over before it starts")]
    OverBeforeStart {
        /// Canonical game.
        game: String,
        /// The start, in the family's notation.
        start: String,
    },
    /// The position has so many moves that listing them would pass the work allowed.
    #[error("{start} may have up to {bound} moves of {entries} counts each, too many to play from")]
    TooManyMoves {
        /// The start, shortened.
        start: String,
        /// The family's bound on its moves.
        bound: u64,
        /// Its number of counts.
        entries: usize,
    },
    /// No legal move leads to the position asked for.
    #[error("no move of {game} leads from {position} to {to}")]
    Illegal {
        /// The position asked for, in the family's notation.
        to: String,
        /// The position.
        position: String,
        /// Canonical game.
        game: String,
    },
}

impl Session {
    /// A new game of `game` from `start` (in the family's canonical form, e.g. a
    /// [`Position`](crate::game::Position) of a heap game). Refuses an empty heap position,
    /// or one with no legal move, since such a game would be over before the first move.
    pub fn new(
        game: impl Into<Game>,
        convention: Convention,
        players: Players,
        start: impl Into<Vec<u32>>,
    ) -> Result<Self, SessionError> {
        let (game, start) = (game.into(), start.into());
        if start.is_empty() && game.family().layout() == SpaceLayout::Multiset {
            return Err(SessionError::NoHeaps);
        }
        // Every move of every position is listed as the game goes on: checked at the start,
        // since later positions hold fewer tokens (raise:C's bound already counts every heap
        // at the cap, and its heaps are never added).
        if !moves_fit(game.family(), &start, 0) {
            let shown = crate::game::echo(&game.family().show(&start), 60);
            return Err(SessionError::TooManyMoves {
                start: shown,
                bound: game.family().move_bound(&start),
                entries: start.len(),
            });
        }
        if game.family().moves(&start).is_empty() {
            return Err(SessionError::OverBeforeStart {
                game: game.to_string(),
                start: game.family().show(&start),
            });
        }
        Ok(Session { game, convention, players, position: start.clone(), start, played: Vec::new() })
    }

    /// The game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The game's family: its moves, notation and rules.
    pub fn family(&self) -> &dyn Family {
        self.game.family()
    }

    /// `position` in the family's notation.
    pub fn show(&self, position: &[u32]) -> String {
        self.family().show(position)
    }

    /// The convention.
    pub fn convention(&self) -> Convention {
        self.convention
    }

    /// Who plays which seat.
    pub fn players(&self) -> Players {
        self.players
    }

    /// The starting position.
    pub fn start(&self) -> &[u32] {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &[u32] {
        &self.position
    }

    /// The moves played so far, oldest first.
    pub fn played(&self) -> &[PlayedMove] {
        &self.played
    }

    /// The seat whose turn it is.
    pub fn to_move(&self) -> Seat {
        Seat::after(self.played.len())
    }

    /// Who controls the seat to move.
    pub fn controller_to_move(&self) -> Controller {
        self.players.controller(self.to_move())
    }

    /// The legal moves from the current position, in the family's fixed move order.
    pub fn legal_moves(&self) -> Vec<LabelledMove> {
        self.family().moves(&self.position)
    }

    /// Whether the player to move has no move.
    pub fn is_over(&self) -> bool {
        self.legal_moves().is_empty()
    }

    /// How often the current position has come up with the same player to move, this time
    /// included.
    pub fn repetitions(&self) -> usize {
        let n = self.played.len();
        1 + self
            .played
            .iter()
            .enumerate()
            .filter(|(i, p)| (n - i).is_multiple_of(2) && p.from == self.position)
            .count()
    }

    /// Whether a loopy game is drawn: the position came up [`DRAW_AFTER_REPETITIONS`]
    /// times with the same player to move. Perfect play from a draw never ends, so a game
    /// that keeps repeating is stopped here.
    pub fn is_drawn(&self) -> bool {
        self.family().loopy() && !self.is_over() && self.repetitions() >= DRAW_AFTER_REPETITIONS
    }

    /// Plays the move that leads to `to` for the seat to move. Refuses a position no
    /// legal move leads to.
    pub fn play(&mut self, to: &[u32]) -> Result<&[u32], SessionError> {
        let Some(mv) = self.legal_moves().into_iter().find(|m| m.to == to) else {
            return Err(SessionError::Illegal {
                to: self.show(to),
                position: self.show(&self.position),
                game: self.game.to_string(),
            });
        };
        let from = std::mem::replace(&mut self.position, mv.to.clone());
        self.played.push(PlayedMove { seat: self.to_move(), mv, from });
        Ok(&self.position)
    }

    /// The seat that made the last move, if any move was made.
    pub fn last_mover(&self) -> Option<Seat> {
        self.played.last().map(|p| p.seat)
    }

    /// The winner once the game is over: the last mover under normal play, the other
    /// player under misère play. `None` while moves remain.
    pub fn winner(&self) -> Option<Seat> {
        if !self.is_over() {
            return None;
        }
        let last = self.last_mover()?;
        Some(match self.convention {
            Convention::Normal => last,
            Convention::Misere => last.other(),
        })
    }

    /// Takes back the last move made by a human and every computer move after it, so it
    /// is that human's turn again (in a human-human game: exactly one move). Returns the
    /// moves taken back, latest first; nothing when no human has moved yet.
    pub fn undo(&mut self) -> Vec<PlayedMove> {
        let by_human = |p: &PlayedMove| self.players.controller(p.seat) == Controller::Human;
        let Some(i) = self.played.iter().rposition(by_human) else {
            return Vec::new();
        };
        let mut back: Vec<PlayedMove> = self.played.drain(i..).collect();
        self.position = back[0].from.clone();
        back.reverse();
        back
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{GameSpec, Position};

    fn session(game: &str, convention: Convention, players: Players, start: &str) -> Session {
        let game: Game = game.parse().unwrap();
        let start = game.parse_position(&start.split_whitespace().collect::<Vec<_>>()).unwrap();
        Session::new(game, convention, players, start).unwrap()
    }

    #[test]
    fn refuses_games_over_before_they_start() {
        let nim = GameSpec::nim();
        let normal = Convention::Normal;
        assert_eq!(
            Session::new(nim, normal, Players::default(), Position::default()).unwrap_err(),
            SessionError::NoHeaps
        );
        let grundy: GameSpec = "grundy".parse().unwrap();
        let err = Session::new(grundy, normal, Players::default(), "2 1 1".parse::<Position>().unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("no move from [2,1,1]"), "{err}");
        let stair: Game = "staircase".parse().unwrap();
        let err = Session::new(stair, normal, Players::default(), vec![]).unwrap_err().to_string();
        assert!(err.contains("staircase has no move from"), "{err}");
    }

    #[test]
    fn plays_and_decides_the_winner_by_convention() {
        for (convention, winner) in [(Convention::Normal, Seat::Second), (Convention::Misere, Seat::First)] {
            let mut s = session("nim", convention, Players::HumanHuman, "2 1");
            let err = s.play(&[3]).unwrap_err().to_string();
            assert_eq!(err, "no move of nim leads from [2,1] to [3]");
            s.play(&[1]).unwrap();
            assert_eq!(s.to_move(), Seat::Second);
            assert_eq!(s.played()[0].mv.text, "take all 2 from the 2-heap");
            assert_eq!(s.winner(), None);
            s.play(&[]).unwrap();
            assert!(s.is_over());
            assert_eq!(s.last_mover(), Some(Seat::Second));
            assert_eq!(s.winner(), Some(winner));
        }
    }

    #[test]
    fn a_staircase_game_moves_coins_down_the_steps() {
        let mut s = session("staircase", Convention::Normal, Players::HumanHuman, "0 1");
        assert_eq!(s.show(s.position()), "[0 1]");
        s.play(&[1]).unwrap();
        assert_eq!(s.played()[0].mv.text, "move 1 coin from step 2 to step 1");
        s.play(&[]).unwrap();
        assert_eq!(s.winner(), Some(Seat::Second));
    }

    #[test]
    fn a_loopy_game_is_drawn_when_a_position_comes_round_a_third_time() {
        let mut s = session("raise:2", Convention::Normal, Players::HumanHuman, "1 1");
        assert!(!s.is_drawn());
        for round in 1..DRAW_AFTER_REPETITIONS {
            s.play(&[2, 1]).unwrap();
            s.play(&[1, 1]).unwrap();
            assert_eq!(s.repetitions(), round + 1);
        }
        assert!(s.is_drawn());
        assert_eq!(s.winner(), None);
        // A heap game never repeats, so it is never drawn.
        let s = session("nim", Convention::Normal, Players::HumanHuman, "1 1");
        assert!(!s.is_drawn());
    }

    #[test]
    fn undo_returns_to_the_humans_turn() {
        let mut s = session("nim", Convention::Normal, Players::ComputerHuman, "5 4 3");
        s.play(&[4, 4, 3]).unwrap(); // computer
        assert!(s.undo().is_empty(), "no human move yet");
        s.play(&[4, 3, 1]).unwrap(); // human
        s.play(&[3, 2, 1]).unwrap(); // computer
        let back = s.undo();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].mv.to, vec![3, 2, 1]);
        assert_eq!(s.show(s.position()), "[4,4,3]");
        assert_eq!(s.to_move(), Seat::Second);

        let mut s = session("nim", Convention::Normal, Players::HumanHuman, "5 4 3");
        s.play(&[4, 4, 3]).unwrap();
        s.play(&[4, 3, 1]).unwrap();
        assert_eq!(s.undo().len(), 1);
        assert_eq!(s.show(s.position()), "[4,4,3]");
        assert_eq!(s.to_move(), Seat::Second);
    }
}
