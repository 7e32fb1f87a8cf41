//! The game loop: a line-based conversation over any reader and writer, so it runs the
//! same on a terminal, through a pipe and inside tests.

use std::io::{self, BufRead, Write};

use rand::Rng;

use crate::game::{Convention, Position};
use crate::query::QueryError;

use super::advisor::{Advisor, computer_choice, hint_text};
use super::board::render_board;
use super::input::{Request, move_examples, parse_request, resolve_move};
use super::messages::{verdict, winner_message};
use super::rules_text::rules_in_words;
use super::seats::{Controller, Players, Seat, capitalized};
use super::session::{PlayedMove, Session, SessionError};

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// Played to the end; `winner` won.
    Finished {
        /// The winning seat.
        winner: Seat,
    },
    /// A player typed `quit`.
    Quit,
    /// The input ran out before the game ended.
    EndOfInput,
}

/// The two ends of the conversation.
pub struct Console<R, W> {
    input: R,
    output: W,
    echo_input: bool,
}

impl<R: BufRead, W: Write> Console<R, W> {
    /// A console reading lines from `input` and writing to `output`. With `echo_input`
    /// each line read is written back after its prompt, so that a session fed from a
    /// pipe or file reads like one typed at a terminal.
    pub fn new(input: R, output: W, echo_input: bool) -> Self {
        Console { input, output, echo_input }
    }

    /// The writer, e.g. to read back what a test session printed.
    pub fn into_output(self) -> W {
        self.output
    }

    fn say(&mut self, text: &str) -> io::Result<()> {
        writeln!(self.output, "{text}")
    }

    /// Prints `prompt` and reads one line; `None` at the end of the input. Bytes that are
    /// not UTF-8 are replaced rather than refused.
    fn ask(&mut self, prompt: &str) -> io::Result<Option<String>> {
        write!(self.output, "{prompt}")?;
        self.output.flush()?;
        let mut raw = Vec::new();
        if self.input.read_until(b'\n', &mut raw)? == 0 {
            writeln!(self.output)?;
            return Ok(None);
        }
        let line = String::from_utf8_lossy(&raw).trim_end_matches(['\n', '\r']).to_string();
        if self.echo_input {
            writeln!(self.output, "{line}")?;
        }
        Ok(Some(line))
    }
}

/// The lines printed before the first move: game, convention, rules, seats and commands.
pub fn introduction(session: &Session) -> String {
    let convention = match session.convention() {
        Convention::Normal => "normal play: whoever makes the last move wins",
        Convention::Misere => "misère play: whoever makes the last move loses",
    };
    let seats = match session.players() {
        Players::HumanComputer => "You move first; the computer moves second and plays perfectly.",
        Players::ComputerHuman => "The computer moves first and plays perfectly; you move second.",
        Players::HumanHuman => "Player 1 moves first, Player 2 second.",
        Players::ComputerComputer => "The computer plays both sides, perfectly.",
    };
    let mut out = format!(
        "nimdb play: {} from {} ({convention}).\nRules: {}.\n{seats}\n",
        session.game(),
        session.start(),
        rules_in_words(session.game()),
    );
    if session.players().has_human() {
        let example = match move_examples(session.game(), session.start()).first() {
            Some((forms, meaning)) => {
                format!(", e.g. '{}' ({meaning})", forms.split("  or  ").next().unwrap_or(""))
            }
            None => String::new(),
        };
        out += &format!("Moves name a heap by its size{example}. Commands: hint, undo, quit, help.\n");
    }
    out
}

/// The `help` text.
pub fn help_text(session: &Session) -> String {
    let mut out = format!("Rules: {}.\n", rules_in_words(session.game()));
    out += "Moves name a heap by its size (the number in parentheses). From here, for example:\n";
    let examples = move_examples(session.game(), session.position());
    let width = examples.iter().map(|(forms, _)| forms.len()).max().unwrap_or(0);
    for (forms, meaning) in examples {
        out += &format!("  {forms:<width$}   {meaning}\n");
    }
    out += "Commands:\n";
    out += "  hint   the best move, with the outcome and how many moves perfect play takes\n";
    out += match session.players() {
        Players::HumanHuman => "  undo   take back the last move\n",
        _ => "  undo   take back your last move and the computer's reply\n",
    };
    out += "  quit   stop the game\n  help   this text";
    out
}

/// `you` → `your`, `the computer` → `the computer's`.
fn possessive(name: &str) -> String {
    if name == "you" { "your".to_string() } else { format!("{name}'s") }
}

/// "the computer's 3 -> 2 and your 4 -> 1".
fn list_taken_back(players: Players, back: &[PlayedMove]) -> String {
    let items: Vec<String> =
        back.iter().map(|p| format!("{} {}", possessive(players.name(p.seat)), p.mv)).collect();
    items.join(" and ")
}

/// Why a game stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// Reading or writing the console failed.
    #[error(transparent)]
    Io(#[from] io::Error),
    /// The computer could not look its move up.
    #[error(transparent)]
    Query(Box<QueryError>),
    /// The answer for a position that is not over has no best move.
    #[error("no best move from {0}")]
    NoBestMove(Position),
    /// The session refused a move.
    #[error(transparent)]
    Refused(#[from] SessionError),
}

impl From<QueryError> for PlayError {
    fn from(e: QueryError) -> Self {
        PlayError::Query(Box::new(e))
    }
}

/// Plays `session` to its end (or until a player quits or the input runs out), asking the
/// `advisor` for the computer's moves and for hints, and drawing winner messages with `rng`.
///
/// Errors are input/output failures and failed lookups for the computer's moves; a failed
/// hint lookup is only reported in the conversation.
pub fn play<R: BufRead, W: Write, G: Rng + ?Sized>(
    session: &mut Session,
    advisor: &mut Advisor,
    rng: &mut G,
    console: &mut Console<R, W>,
) -> Result<Ending, PlayError> {
    let players = session.players();
    console.say(&introduction(session))?;
    console.say(render_board(session.position()).trim_end())?;
    let mut board_shown = true;
    loop {
        if let Some(winner) = session.winner() {
            console.say("")?;
            console.say(render_board(session.position()).trim_end())?;
            console.say("")?;
            console.say(&verdict(session).expect("the game is over"))?;
            console.say(&winner_message(players, winner, rng))?;
            return Ok(Ending::Finished { winner });
        }
        let seat = session.to_move();
        let label = players.label(seat);
        if players.controller(seat) == Controller::Computer {
            let answer = advisor.answer(session.position())?;
            let choice =
                computer_choice(answer).ok_or_else(|| PlayError::NoBestMove(session.position().clone()))?;
            let (mv, description) = (choice.mv.clone(), choice.description.clone());
            session.play(mv)?;
            console.say(&format!("{label}: {description}"))?;
            board_shown = false;
            continue;
        }
        if !board_shown {
            console.say("")?;
            console.say(render_board(session.position()).trim_end())?;
            board_shown = true;
        }
        let prompt = match players {
            Players::HumanHuman => format!("{label}> "),
            _ => "Your move> ".to_string(),
        };
        let Some(line) = console.ask(&prompt)? else {
            console
                .say(&format!("End of input: the game stops at {} with no winner.", session.position()))?;
            return Ok(Ending::EndOfInput);
        };
        match parse_request(&line) {
            Err(message) => console.say(&message.to_string())?,
            Ok(Request::Nothing) => {}
            Ok(Request::Help) => console.say(&help_text(session))?,
            Ok(Request::Quit) => {
                let who = capitalized(players.name(seat));
                console
                    .say(&format!("{who} quit; the game stops at {} with no winner.", session.position()))?;
                return Ok(Ending::Quit);
            }
            Ok(Request::Hint) => match advisor.answer(session.position()) {
                Ok(answer) => console.say(&hint_text(answer))?,
                Err(e) => console.say(&format!("No hint available: {e:#}"))?,
            },
            Ok(Request::Undo) => {
                let back = session.undo();
                if back.is_empty() {
                    console.say("Nothing to undo: no human move has been made yet.")?;
                } else {
                    let n = back.len();
                    let moves = if n == 1 { "move" } else { "moves" };
                    console.say(&format!("Took back {n} {moves}: {}.", list_taken_back(players, &back)))?;
                    board_shown = false;
                }
            }
            Ok(Request::Move(request)) => match resolve_move(&request, session.game(), session.position()) {
                Err(message) => console.say(&message.to_string())?,
                Ok(mv) => {
                    let description = mv.describe(session.position());
                    session.play(mv)?;
                    console.say(&format!("{label}: {description}"))?;
                    board_shown = false;
                }
            },
        }
    }
}
