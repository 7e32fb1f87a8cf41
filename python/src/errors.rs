//! `nimdb.NimdbError` and the argument parsing every function shares.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyString;

use nimdb::game::{BigPosition, Convention, GameSpec};

pyo3::create_exception!(
    nimdb,
    NimdbError,
    PyException,
    "An error from nimdb: a bad game or position, a position no stored solve or theorem \
     answers, a database that cannot be read or written, a solve that does not fit memory. \
     The message is the library's own."
);

/// An error and its causes on one line, each cause once (a cause whose words the message
/// already holds is left out), as the command line reports them.
pub fn message(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !text.is_empty() && !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}

/// A library error as a `NimdbError`.
pub fn nimdb_error(e: impl std::error::Error + 'static) -> PyErr {
    NimdbError::new_err(message(&e))
}

/// Parses a game name (`nim`, `kayles`, `dawson`, `octal:0.137`, …).
pub fn parse_game(game: &str) -> PyResult<GameSpec> {
    nimdb::game::parse_heap_game(game).map_err(|e| NimdbError::new_err(e.to_string()))
}

/// Parses any game: a heap game, or a family with its own position space.
pub fn parse_any_game(game: &str) -> PyResult<nimdb::game::Game> {
    game.parse().map_err(|e: nimdb::game::SpecError| NimdbError::new_err(e.to_string()))
}

/// The convention `misere` names.
pub fn convention(misere: bool) -> Convention {
    Convention::from_misere(misere)
}

/// A position from Python: a sequence of heap sizes (ints, any order, zeros dropped) or a
/// string such as `"7 5 3"`, `"7,5,3"` or `"[7,5,3]"`.
pub fn position_arg(obj: &Bound<'_, PyAny>) -> PyResult<BigPosition> {
    if obj.is_instance_of::<PyString>() {
        let text: String = obj.extract()?;
        return text.parse().map_err(|e: nimdb::game::HeapListError| NimdbError::new_err(e.to_string()));
    }
    if let Ok(heaps) = obj.extract::<Vec<u64>>() {
        return Ok(BigPosition::new(heaps));
    }
    // The slow path, for a message that names what is wrong.
    let not_position = || {
        let kind = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        NimdbError::new_err(format!(
            "a position is a sequence of heap sizes (ints) or a string such as \"7 5 3\", not {kind}"
        ))
    };
    let items = obj.try_iter().map_err(|_| not_position())?;
    let mut heaps = Vec::new();
    for item in items {
        let item = item?;
        match item.extract::<u64>() {
            Ok(h) => heaps.push(h),
            Err(_) => {
                let shown = item.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
                let shown: String = shown.chars().take(60).collect();
                return Err(NimdbError::new_err(format!(
                    "bad heap list: heap {shown} is not a whole number from 0 to {}",
                    u64::MAX
                )));
            }
        }
    }
    Ok(BigPosition::new(heaps))
}

/// Counts of `game`'s position as Python gives them (a sequence of ints), each named when it
/// is not a whole number from 0 to `u64::MAX`.
pub fn counts_arg(game: &nimdb::game::Game, obj: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    if let Ok(counts) = obj.extract::<Vec<u64>>() {
        return Ok(counts);
    }
    let not_position = || {
        let kind = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        NimdbError::new_err(format!(
            "a position is a sequence of counts (ints) or a string such as \"7 5 3\", not {kind}"
        ))
    };
    let mut counts = Vec::new();
    for item in obj.try_iter().map_err(|_| not_position())? {
        let item = item?;
        match item.extract::<u64>() {
            Ok(c) => counts.push(c),
            Err(_) => {
                let shown = item.str().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
                let shown: String = shown.chars().take(60).collect();
                return Err(NimdbError::new_err(not_a_count(game, &shown)));
            }
        }
    }
    Ok(counts)
}

/// A position of any game from Python: a sequence of counts (ints: a heap game's heaps in
/// any order, zeros dropped; a staircase's coins on steps 1, 2, …) or a string such as
/// `"7 5 3"`, as an answer's cells. The outer error is a value that is not a position at all
/// (not a sequence, an item that is not a count); the inner one the game's refusal of what
/// was written or counted (a bad heap list, two equal Welter heaps, a heap over `raise:C`'s
/// cap), in the library's words.
pub fn cells_arg(game: &nimdb::game::Game, obj: &Bound<'_, PyAny>) -> PyResult<Result<Vec<u64>, String>> {
    let parsed = if obj.is_instance_of::<PyString>() {
        let text: String = obj.extract()?;
        let words: Vec<&str> = text.split_whitespace().collect();
        game.read_position(&words)
    } else {
        game.position_from_counts(counts_arg(game, obj)?)
    };
    Ok(parsed.map_err(|e| e.to_string()))
}

/// Why `shown` (a value given as a count) is no count of `game`, in the library's words:
/// what reading it as the game's position says.
pub fn not_a_count(game: &nimdb::game::Game, shown: &str) -> String {
    match game.read_position(&[shown]) {
        Err(e) => e.to_string(),
        Ok(_) => format!("bad position: {shown} is not a whole number from 0 to {}", u64::MAX),
    }
}

/// Warns that an old name is deprecated (a `DeprecationWarning`, which Python shows once per
/// place of call by default).
pub fn deprecated(py: Python<'_>, text: &str) -> PyResult<()> {
    let category = py.get_type::<pyo3::exceptions::PyDeprecationWarning>();
    let text = std::ffi::CString::new(text).expect("no NUL in the message");
    PyErr::warn(py, &category, &text, 1)
}
