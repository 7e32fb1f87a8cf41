//! Interactive play against the computer (`nimdb play`).
//!
//! The pieces, each with one job:
//!
//! * [`seats`]: the two seats and who controls each (`--players`);
//! * [`session`]: the game state, with the position history for undo and the winner by
//!   convention;
//! * [`input`]: what a player types (commands; moves naming heaps by size in heap games,
//!   a move's number or the position it leads to in every game), checked against the rules
//!   with a message that says what is wrong;
//! * [`advisor`]: the computer's judgement through [`plan_until`](crate::query::plan_until) (any game),
//!   the move it plays (the fastest win, the
//!   longest resistance, or a move that keeps a draw) and hints in words;
//! * [`board`]: heaps (or a staircase's steps) drawn as numbered rows of marks;
//! * [`rules_text`]: the rules in one sentence;
//! * [`messages`]: the verdict and the winner's messages;
//! * [`console`]: the line-based loop over any reader and writer.
//!
//! The session speaks to the game only through its [`Family`](crate::game::Family), so
//! every game nimdb knows can be played: the heap games, Staircase Nim, Welter's game and
//! the loopy `raise:C`, where a position that comes round a third time with the same player
//! to move ends the game in a draw.
//!
//! The loop reads whole lines and never needs a terminal, so it plays the same through a
//! pipe as at a keyboard. Answers may come from theory without a remoteness; the computer
//! then still plays the best move given, and hints say the move count is unknown.

pub mod advisor;
pub mod board;
pub mod console;
pub mod input;
pub mod messages;
/// The rules in one sentence (the game room says them: [`crate::game::rules_in_words`]).
pub mod rules_text {
    pub use crate::game::rules_in_words;
}
pub mod seats;
pub mod session;

pub use advisor::{Advice, AdviceError, Advisor, Choice, computer_choice, hint_text, plan_within};
pub use board::render_board;
pub use console::{Console, Ending, PlayError, moves_text, play};
pub use input::{InputError, MoveRequest, Request, parse_family_request, parse_request, resolve_move};
pub use seats::{Controller, Players, Seat, UnknownPlayers};
pub use session::{PlayedMove, Session, SessionError};
