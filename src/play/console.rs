//! The game loop: a line-based conversation over any reader and writer, so it runs the
//! same on a terminal, through a pipe and inside tests.

use std::io::{self, BufRead, Read, Write};

use rand::Rng;

use crate::game::{Convention, Position};

use super::advisor::{AdviceError, Advisor, computer_choice, hint_text};
use super::board::render_board;
use super::input::{
    InputError, MoveRequest, Request, move_examples, parse_family_request, parse_request, resolve_move,
};
use super::messages::{drawn_message, verdict, winner_message};
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
    /// A loopy game's position came round a third time with the same player to move.
    Drawn,
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
    /// not UTF-8 are replaced rather than refused. A line longer than [`MAX_LINE_BYTES`]
    /// is refused in one message and the prompt returns; its rest is skipped unread into
    /// memory, so no input holds more than that.
    fn ask(&mut self, prompt: &str) -> io::Result<Option<String>> {
        loop {
            write!(self.output, "{prompt}")?;
            self.output.flush()?;
            let mut raw = Vec::new();
            let limit = MAX_LINE_BYTES as u64 + 1;
            if (&mut self.input).take(limit).read_until(b'\n', &mut raw)? == 0 {
                writeln!(self.output)?;
                return Ok(None);
            }
            if raw.len() > MAX_LINE_BYTES && raw.last() != Some(&b'\n') {
                let skipped = raw.len() as u64 + skip_line(&mut self.input)?;
                let start = String::from_utf8_lossy(&raw[..raw.len().min(20)]).into_owned();
                if self.echo_input {
                    writeln!(self.output, "{start}…")?;
                }
                writeln!(
                    self.output,
                    "the line is longer than 64 KiB ({skipped} bytes): not a move; type 'help' for the ways to write one"
                )?;
                continue;
            }
            let line = String::from_utf8_lossy(&raw).trim_end_matches(['\n', '\r']).to_string();
            if self.echo_input {
                // A long line is echoed by its start: the transcript stays readable.
                match line.char_indices().nth(ECHOED_CHARS) {
                    Some((cut, _)) => writeln!(self.output, "{}…", &line[..cut])?,
                    None => writeln!(self.output, "{line}")?,
                }
            }
            return Ok(Some(line));
        }
    }
}

/// The longest line of input read, in bytes (a position of thousands of counts fits).
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// The most characters of a line read from a pipe that are echoed after its prompt.
const ECHOED_CHARS: usize = 200;

/// Skips the rest of a line (up to and with its newline, or to the end of the input)
/// without holding it; returns the bytes skipped.
fn skip_line(input: &mut impl BufRead) -> io::Result<u64> {
    let mut skipped = 0u64;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(skipped);
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(skipped + i as u64 + 1);
            }
            None => {
                let n = buf.len();
                input.consume(n);
                skipped += n as u64;
            }
        }
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
        session.show(session.start()),
        session.family().rules_text().trim_end_matches('.'),
    );
    if session.family().loopy() {
        out += "A position that comes round a third time with the same player to move ends the game in a draw.\n";
    }
    if session.players().has_human() {
        match session.game().heaps() {
            Some(spec) => {
                let start = Position::from_sorted(session.start().to_vec());
                let example = match move_examples(spec, &start).first() {
                    Some((forms, meaning)) => {
                        format!(", e.g. '{}' ({meaning})", forms.split("  or  ").next().unwrap_or(""))
                    }
                    None => String::new(),
                };
                out +=
                    &format!("Moves name a heap by its size{example}. Commands: hint, undo, quit, help.\n");
            }
            None => {
                let example = match session.legal_moves().first() {
                    Some(m) => format!(", e.g. '1' or 'to {}' ({})", session.show(&m.to), m.text),
                    None => String::new(),
                };
                out += &format!(
                    "A move is its number in 'moves' or the position it leads to{example}. Commands: moves, hint, undo, quit, help.\n"
                );
            }
        }
    }
    out
}

/// The `help` text.
pub fn help_text(session: &Session) -> String {
    let mut out = format!("Rules: {}.\n", session.family().rules_text().trim_end_matches('.'));
    match session.game().heaps() {
        Some(spec) => {
            out += "Moves name a heap by its size (the number in parentheses). From here, for example:\n";
            let position = Position::from_sorted(session.position().to_vec());
            let examples = move_examples(spec, &position);
            let width = examples.iter().map(|(forms, _)| forms.len()).max().unwrap_or(0);
            for (forms, meaning) in examples {
                out += &format!("  {forms:<width$}   {meaning}\n");
            }
            out += "  #N   the move numbered N by 'moves'\n";
        }
        None => {
            out += "A move is named by its number in the 'moves' listing (3 or #3), or by the position it\n";
            out += "leads to (to 3 0 1 5, or the counts alone), written as positions are shown.\n";
        }
    }
    out += "Commands:\n";
    out += "  moves  the legal moves, numbered\n";
    out += "  hint   the best move, with the outcome and how many moves perfect play takes\n";
    out += match session.players() {
        Players::HumanHuman => "  undo   take back the last move\n",
        _ => "  undo   take back your last move and the computer's reply\n",
    };
    out += "  quit   stop the game\n  help   this text";
    out
}

/// The legal moves, numbered from 1, each with the position it leads to.
pub fn moves_text(session: &Session) -> String {
    let moves = session.legal_moves();
    let width = moves.len().to_string().len();
    let lines: Vec<String> = moves
        .iter()
        .enumerate()
        .map(|(i, m)| format!("  {:>width$}. {} → {}", i + 1, m.text, session.show(&m.to)))
        .collect();
    lines.join("\n")
}

/// `you` → `your`, `the computer` → `the computer's`.
fn possessive(name: &str) -> String {
    if name == "you" { "your".to_string() } else { format!("{name}'s") }
}

/// "the computer's take 1 from the 3-heap and your take 3 from the 4-heap".
fn list_taken_back(players: Players, back: &[PlayedMove]) -> String {
    let items: Vec<String> =
        back.iter().map(|p| format!("{} {}", possessive(players.name(p.seat)), p.mv.text)).collect();
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
    Advice(#[from] AdviceError),
    /// The answer for a position that is not over has no best move.
    #[error("no best move from {0}")]
    NoBestMove(String),
    /// The session refused a move.
    #[error(transparent)]
    Refused(#[from] SessionError),
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
    let board = |s: &Session| render_board(s.family().layout(), s.position());
    console.say(&introduction(session))?;
    console.say(board(session).trim_end())?;
    let mut board_shown = true;
    loop {
        if let Some(winner) = session.winner() {
            console.say("")?;
            console.say(board(session).trim_end())?;
            console.say("")?;
            console.say(&verdict(session).expect("the game is over"))?;
            console.say(&winner_message(players, winner, rng))?;
            return Ok(Ending::Finished { winner });
        }
        if session.is_drawn() {
            console.say("")?;
            console.say(&drawn_message(session))?;
            return Ok(Ending::Drawn);
        }
        let seat = session.to_move();
        let label = players.label(seat);
        if players.controller(seat) == Controller::Computer {
            let answer = advisor.answer(session.position())?;
            let choice = computer_choice(answer)
                .ok_or_else(|| PlayError::NoBestMove(session.show(session.position())))?;
            let (to, description) = (choice.to.clone(), choice.description.clone());
            session.play(&to)?;
            console.say(&format!("{label}: {description}"))?;
            board_shown = false;
            continue;
        }
        if !board_shown {
            console.say("")?;
            console.say(board(session).trim_end())?;
            board_shown = true;
        }
        let prompt = match players {
            Players::HumanHuman => format!("{label}> "),
            _ => "Your move> ".to_string(),
        };
        let here = session.show(session.position());
        let Some(line) = console.ask(&prompt)? else {
            console.say(&format!("End of input: the game stops at {here} with no winner."))?;
            return Ok(Ending::EndOfInput);
        };
        let request = match session.game().heaps() {
            Some(_) => parse_request(&line),
            None => parse_family_request(&line),
        };
        match request {
            Err(message) => console.say(&message.to_string())?,
            Ok(Request::Nothing) => {}
            Ok(Request::Help) => console.say(&help_text(session))?,
            Ok(Request::Moves) => console.say(&moves_text(session))?,
            Ok(Request::Quit) => {
                let who = capitalized(players.name(seat));
                console.say(&format!("{who} quit; the game stops at {here} with no winner."))?;
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
            Ok(Request::Move(request)) => match resolve(session, &request) {
                Err(message) => console.say(&message.to_string())?,
                Ok(to) => {
                    session.play(&to)?;
                    let played = &session.played().last().expect("a move was just played").mv;
                    console.say(&format!("{label}: {} → {}", played.text, session.show(&played.to)))?;
                    board_shown = false;
                }
            },
        }
    }
}

/// The position a typed move leads to, checked against the legal moves.
fn resolve(session: &Session, request: &MoveRequest) -> Result<Vec<u32>, InputError> {
    let legal = session.legal_moves();
    let here = session.show(session.position());
    match request {
        MoveRequest::Listed(k) => match legal.get(k - 1) {
            Some(m) => Ok(m.to.clone()),
            None => Err(InputError(format!(
                "there is no move {k}: {here} has {} (type 'moves' to list them)",
                legal.len()
            ))),
        },
        MoveRequest::Reaching(counts) => {
            let to = session.family().canonical(counts.clone()).map_err(|e| InputError(e.to_string()))?;
            if legal.iter().any(|m| m.to == to) {
                Ok(to)
            } else {
                Err(InputError(format!(
                    "no move leads from {here} to {}; type 'moves' to list the {} that do",
                    crate::game::echo(&session.show(&to), 60),
                    legal.len()
                )))
            }
        }
        heap_request => match session.game().heaps() {
            Some(spec) => {
                let position = Position::from_sorted(session.position().to_vec());
                resolve_move(heap_request, spec, &position).map(|mv| mv.apply(&position).into())
            }
            None => unreachable!("a family's request is listed or reaching"),
        },
    }
}
