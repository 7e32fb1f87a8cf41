//! `nimdb.play`: the command line's terminal game (`nimdb play`, the library's
//! `nimdb::play`), played from Python, for any game a database has solved, a game defined
//! in Python included. The session, the computer's judgement, the board and the
//! conversation are the library's own; Python supplies the two ends of the conversation
//! (`input()` and `sys.stdout`, so it plays in a terminal, through a pipe or in Jupyter), and
//! a defined game's moves with their labels come from its function.
//!
//! The game runs with the GIL released, so that other Python threads run while the computer
//! judges a position; it is taken again for what is Python's: reading a line (`input()`),
//! writing one (`sys.stdout`), a defined game's moves and the checks for Ctrl-C. An
//! exception from the moves function, or a Ctrl-C at the prompt, stops the game and is
//! raised.

use std::io::{self, BufReader, Read, Write};
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::prelude::*;
use rand::SeedableRng;
use rand::rngs::StdRng;

use nimdb::play::{AdviceError, Advisor, Console, Ending, Players, Seat, Session, plan_within};
use nimdb::query::{Plan, QueryError};

use crate::database::Database;
use crate::defined::{defined_of, game_arg, other_rules};
use crate::errors::{Kind, NimdbError, cells_arg, convention, cpu_limit_arg, message};
use crate::signals;

/// The text written since the last whole line: the prompt `input()` is then given, so that
/// a terminal's line editing knows where the typed text starts. Shared by the two ends of
/// the conversation; a mutex, since the game runs with the GIL released (which asks for
/// `Send`), though only the game's own thread takes it.
type Pending = Arc<Mutex<String>>;

/// The text `pending` holds (a panic while it was held leaves the text as it was).
fn held(pending: &Pending) -> MutexGuard<'_, String> {
    pending.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The conversation's output: whole lines to `sys.stdout`, a line's start kept for the
/// prompt. A write after an exception was kept (the moves function raised) fails, which
/// stops the game before it says anything built on the missing moves.
struct PyOut {
    pending: Pending,
}

impl PyOut {
    fn emit(text: &str) -> io::Result<()> {
        Python::attach(|py| {
            let out = py.import("sys")?.getattr("stdout")?;
            out.call_method1("write", (text,))?;
            out.call_method0("flush")?;
            Ok::<(), PyErr>(())
        })
        .map_err(|e| {
            signals::keep(e);
            io::Error::other("sys.stdout failed")
        })
    }

    /// Writes out a line's start left pending (at the end of the game).
    fn finish(&self) -> io::Result<()> {
        let rest = std::mem::take(&mut *held(&self.pending));
        if rest.is_empty() { Ok(()) } else { Self::emit(&rest) }
    }
}

impl Write for PyOut {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if signals::poll() {
            return Err(io::Error::other("stopped: an exception is pending"));
        }
        let mut pending = held(&self.pending);
        pending.push_str(&String::from_utf8_lossy(buf));
        if let Some(cut) = pending.rfind('\n') {
            let lines: String = pending.drain(..=cut).collect();
            drop(pending);
            Self::emit(&lines)?;
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The conversation's input: one line a call of `input(prompt)` (the prompt the output left
/// pending); end of input at `EOFError`. Another exception (Ctrl-C's KeyboardInterrupt) is
/// kept and stops the game.
struct PyIn {
    pending: Pending,
    line: Vec<u8>,
    at: usize,
}

impl Read for PyIn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.line.len() {
            let prompt = std::mem::take(&mut *held(&self.pending));
            let read = Python::attach(|py| {
                match py.import("builtins").and_then(|b| b.call_method1("input", (prompt,))) {
                    Ok(line) => Ok(Some(line.extract::<String>()?)),
                    Err(e) if e.is_instance_of::<pyo3::exceptions::PyEOFError>(py) => Ok(None),
                    Err(e) => Err(e),
                }
            });
            match read {
                Ok(Some(line)) => {
                    self.line = (line + "\n").into_bytes();
                    self.at = 0;
                }
                Ok(None) => return Ok(0),
                Err(e) => {
                    signals::keep(e);
                    return Err(io::Error::other("input was interrupted"));
                }
            }
        }
        let n = buf.len().min(self.line.len() - self.at);
        buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// An exception kept meanwhile (from the moves function, input or output), else `err`.
fn raised(err: PyErr) -> PyErr {
    signals::take().unwrap_or(err)
}

/// Plays `game` from `position` in the terminal, as `nimdb play` does: the board, your
/// moves typed (a heap game's as `take 2 from 7`; any game's as the number `moves` lists or
/// the position it leads to), `hint`, `undo`, `moves`, `help`, `quit`; the computer plays
/// perfectly from `db`'s stored solves (a theorem's answer where one decides). `players`
/// is "human-computer" (the default), "computer-human", "human-human" or
/// "computer-computer"; `seed` fixes the winner's message. `cpu_limit` is the CPU seconds
/// the computer may take to judge a position it has not judged before (default 5, as
/// `nimdb play`): heap values predicted past it are refused, and work past it is stopped,
/// raising `TooCostly`.
///
/// A game from `nimdb.define` is played with its function's moves and labels and the values
/// of its stored solve (`Database.solve` first): the start must be stored (or answered by a
/// theorem given to `define` and marked proven); every later position is one of its
/// descendants, so nothing is solved while playing. A built-in game on a database opened
/// with `read_only=False` may be solved on the spot, as `nimdb play` does.
///
/// Lines are read with `input()` and written to `sys.stdout`, so it plays in a terminal,
/// through a pipe (each line read is then echoed after its prompt) or in Jupyter. Returns
/// how the game ended: "first" or "second" (the winning seat), "draw" (a loopy game's
/// position came round a third time), "quit", or "end-of-input". An exception in the moves
/// function, or Ctrl-C, stops the game and is raised.
#[pyfunction]
#[pyo3(signature = (game, position, misere = false, *, db, players = "human-computer", seed = None, cpu_limit = None))]
#[allow(clippy::too_many_arguments)]
pub fn play(
    py: Python<'_>,
    game: &Bound<'_, PyAny>,
    position: &Bound<'_, PyAny>,
    misere: bool,
    db: &Bound<'_, Database>,
    players: &str,
    seed: Option<u64>,
    cpu_limit: Option<f64>,
) -> PyResult<&'static str> {
    let limit = cpu_limit_arg(cpu_limit)?;
    let defined = defined_of(game);
    let game = game_arg(game)?;
    let conv = convention(misere);
    let players: Players =
        players.parse().map_err(|e: nimdb::play::UnknownPlayers| Kind::BadArgument.err(e.to_string()))?;
    let cells = cells_arg(&game, position)?.map_err(|e| Kind::BadPosition.err(e))?;
    let start =
        cells.iter().map(|&c| u32::try_from(c)).collect::<Result<Vec<u32>, _>>().map_err(|_| {
            Kind::BadPosition.err(format!("{} has a heap too large to play", game.show(&cells)))
        })?;
    let (path, read_only) = db.get().location()?;
    // A defined game is solved by Database.solve alone (it reads the moves first): the
    // game reads its stored solve and writes nothing.
    let read_only = read_only || defined.is_some();
    signals::clear();
    let store = if read_only {
        nimdb::store::Database::open_read_only(&path)
    } else {
        nimdb::store::Database::open(&path)
    }
    .map_err(|e| Kind::Database.err(e.to_string()))?;
    other_rules(&store, defined.as_ref()).map_err(|e| Kind::BadGame.err(e))?;
    let session = Session::new(game.clone(), conv, players, start.clone());
    let mut session = session.map_err(|e| raised(Kind::BadPosition.err(e.to_string())))?;
    // The start must be answered without a solve a read-only game may not run.
    // Other Python threads run while the start is judged.
    let (store, planned) = py.detach(|| {
        let planned = plan_within(Some(&store), &game, conv, &cells, limit);
        (store, planned)
    });
    let planned = planned.map_err(|e| raised(advice_error(e)))?;
    if let (Plan::Solve(cover), true) = (&planned, read_only) {
        let how = if defined.is_some() {
            "solve it first with Database.solve (a game defined in Python is solved there, where its moves are read)"
        } else {
            "solve it first, or open the database with read_only=False to let play solve it on the spot"
        };
        return Err(Kind::NotAnswered.err(format!(
            "{} is not covered by any stored solve of {game}{} and no theorem decides it ({} positions would): {how}",
            game.show(&cells),
            if misere { " (misère)" } else { "" },
            cover.positions()
        )));
    }
    let advisor = Advisor::new(store, game.clone(), conv).with_cpu_limit(limit);
    let (mut advisor, judged) = py.detach(|| {
        let mut advisor = advisor;
        let judged = advisor.answer(&start).map(drop);
        (advisor, judged)
    });
    judged.map_err(|e| raised(advice_error(e)))?;
    let mut rng = match seed {
        Some(seed) => StdRng::seed_from_u64(seed),
        None => rand::make_rng(),
    };
    let echo = !py
        .import("sys")?
        .getattr("stdin")?
        .call_method0("isatty")
        .and_then(|t| t.extract::<bool>())
        .unwrap_or(false);
    let pending = Pending::default();
    let input = BufReader::new(PyIn { pending: pending.clone(), line: Vec::new(), at: 0 });
    let output = PyOut { pending: pending.clone() };
    let mut console = Console::new(input, output, echo);
    // Released for the whole game: each end of the conversation, the moves function and
    // the signal checks take the GIL again for their own calls.
    let ended = py.detach(|| nimdb::play::play(&mut session, &mut advisor, &mut rng, &mut console));
    let out = console.into_output();
    if let Some(e) = signals::take() {
        return Err(e);
    }
    out.finish().map_err(|_| raised(NimdbError::new_err("sys.stdout failed")))?;
    match ended {
        Ok(Ending::Finished { winner: Seat::First }) => Ok("first"),
        Ok(Ending::Finished { winner: Seat::Second }) => Ok("second"),
        Ok(Ending::Drawn) => Ok("draw"),
        Ok(Ending::Quit) => Ok("quit"),
        Ok(Ending::EndOfInput) => Ok("end-of-input"),
        Err(nimdb::play::PlayError::Advice(e)) => Err(raised(advice_error(e))),
        Err(e) => Err(raised(NimdbError::new_err(e.to_string()))),
    }
}

/// Why the computer could not judge a position, as the exception `play` raises: work
/// refused by its predicted cost or stopped at the CPU limit is `TooCostly` and names
/// `cpu_limit`; else `NotAnswered`.
fn advice_error(e: AdviceError) -> PyErr {
    match e {
        AdviceError::Query(e) => match *e {
            QueryError::TooCostly { seconds, .. } => Kind::TooCostly
                .err(format!("{e}; raise cpu_limit (to about {}) to compute them", (seconds * 1.5).ceil())),
            e => Kind::NotAnswered.err(message(&e)),
        },
        over @ AdviceError::OverLimit { .. } => {
            Kind::TooCostly.err(format!("{over}; raise cpu_limit to let it finish"))
        }
    }
}
