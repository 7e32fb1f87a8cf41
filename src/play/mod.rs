//! Interactive play against the computer (`nimdb play`).
//!
//! The pieces, each with one job:
//!
//! * [`seats`]: the two seats and who controls each (`--players`);
//! * [`session`]: the game state, with the position history for undo and the winner by
//!   convention;
//! * [`input`]: what a player types (commands and moves naming heaps by size), checked
//!   against the rules with a message that says what is wrong;
//! * [`advisor`]: the computer's judgement through [`query`](crate::query::query), the
//!   move it plays (the fastest win, or the longest resistance) and hints in words;
//! * [`board`]: heaps drawn as numbered rows of marks;
//! * [`rules_text`]: the rules in one sentence;
//! * [`messages`]: the verdict and the winner's messages;
//! * [`console`]: the line-based loop over any reader and writer.
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

pub use advisor::{Advisor, computer_choice, hint_text};
pub use board::render_board;
pub use console::{Console, Ending, PlayError, play};
pub use input::{InputError, MoveRequest, Request, parse_request, resolve_move};
pub use seats::{Controller, Players, Seat, UnknownPlayers};
pub use session::{PlayedMove, Session, SessionError};
