//! The state of one game: the rules, who plays which seat, and every move so far (for
//! undo). It knows nothing about terminals or databases.

use crate::game::{Convention, GameSpec, Move, Position, all_moves};

use super::seats::{Controller, Players, Seat};

/// One move already played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// Who played it.
    pub seat: Seat,
    /// The move.
    pub mv: Move,
    /// The position it was played from.
    pub from: Position,
}

/// A game in progress (or finished): the position history from the start.
#[derive(Clone, Debug)]
pub struct Session {
    game: GameSpec,
    convention: Convention,
    players: Players,
    start: Position,
    position: Position,
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
        /// The start.
        start: Position,
    },
    /// The move is not legal here.
    #[error("{mv} is not a legal move from {position} in {game}")]
    Illegal {
        /// The move, in words.
        mv: String,
        /// The position.
        position: Position,
        /// Canonical game.
        game: String,
    },
}

impl Session {
    /// A new game from `start`. Refuses an empty start, or one with no legal move, since
    /// such a game would be over before the first move.
    pub fn new(
        game: GameSpec,
        convention: Convention,
        players: Players,
        start: Position,
    ) -> Result<Self, SessionError> {
        if start.is_empty() {
            return Err(SessionError::NoHeaps);
        }
        if all_moves(game.rules(), &start).is_empty() {
            return Err(SessionError::OverBeforeStart { game: game.canonical(), start });
        }
        Ok(Session { game, convention, players, position: start.clone(), start, played: Vec::new() })
    }

    /// The game.
    pub fn game(&self) -> &GameSpec {
        &self.game
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
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
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

    /// The legal moves from the current position, in nimdb's fixed move order.
    pub fn legal_moves(&self) -> Vec<Move> {
        all_moves(self.game.rules(), &self.position)
    }

    /// Whether the game is over: the player to move has no move.
    pub fn is_over(&self) -> bool {
        self.legal_moves().is_empty()
    }

    /// Plays `mv` for the seat to move. Refuses a move that is not legal here.
    pub fn play(&mut self, mv: Move) -> Result<&Position, SessionError> {
        if !self.legal_moves().contains(&mv) {
            return Err(SessionError::Illegal {
                mv: mv.to_string(),
                position: self.position.clone(),
                game: self.game.canonical(),
            });
        }
        let next = mv.apply(&self.position);
        let from = std::mem::replace(&mut self.position, next);
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
    use crate::game::HeapResult;

    fn session(game: &str, convention: Convention, players: Players, start: &str) -> Session {
        Session::new(game.parse().unwrap(), convention, players, start.parse().unwrap()).unwrap()
    }

    fn to(heap: u32, left: u32) -> Move {
        Move::single(heap, if left == 0 { HeapResult::VANISH } else { HeapResult::one(left) })
    }

    #[test]
    fn refuses_games_over_before_they_start() {
        let nim = GameSpec::nim();
        let normal = Convention::Normal;
        assert!(Session::new(nim, normal, Players::default(), Position::default()).is_err());
        let grundy: GameSpec = "grundy".parse().unwrap();
        let err = Session::new(grundy, normal, Players::default(), "2 1 1".parse().unwrap())
            .unwrap_err()
            .to_string();
        assert!(err.contains("no move from [2,1,1]"), "{err}");
    }

    #[test]
    fn plays_and_decides_the_winner_by_convention() {
        for (convention, winner) in [(Convention::Normal, Seat::Second), (Convention::Misere, Seat::First)] {
            let mut s = session("nim", convention, Players::HumanHuman, "2 1");
            assert!(s.play(to(3, 1)).is_err());
            s.play(to(2, 0)).unwrap();
            assert_eq!(s.to_move(), Seat::Second);
            assert_eq!(s.winner(), None);
            s.play(to(1, 0)).unwrap();
            assert!(s.is_over());
            assert_eq!(s.last_mover(), Some(Seat::Second));
            assert_eq!(s.winner(), Some(winner));
        }
    }

    #[test]
    fn undo_returns_to_the_humans_turn() {
        let mut s = session("nim", Convention::Normal, Players::ComputerHuman, "5 4 3");
        s.play(to(5, 4)).unwrap(); // computer
        assert!(s.undo().is_empty(), "no human move yet");
        s.play(to(4, 1)).unwrap(); // human
        s.play(to(3, 2)).unwrap(); // computer
        let back = s.undo();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].mv, to(3, 2));
        assert_eq!(s.position().to_string(), "[4,4,3]");
        assert_eq!(s.to_move(), Seat::Second);

        let mut s = session("nim", Convention::Normal, Players::HumanHuman, "5 4 3");
        s.play(to(5, 4)).unwrap();
        s.play(to(4, 1)).unwrap();
        assert_eq!(s.undo().len(), 1);
        assert_eq!(s.position().to_string(), "[4,4,3]");
        assert_eq!(s.to_move(), Seat::Second);
    }
}
