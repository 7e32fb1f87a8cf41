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

/// The kinds of [`NimdbError`]: each a subclass of it (and of the built-in exception Python
/// code expects for it), made when the module is imported ([`add_kinds`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `NimdbError` itself.
    Base,
    /// `BadGame(NimdbError, ValueError)`: an unknown or malformed game, or one the call does
    /// not take.
    BadGame,
    /// `BadPosition(NimdbError, ValueError)`: something that is not a position of the game.
    BadPosition,
    /// `BadArgument(NimdbError, ValueError)`: another argument out of its range (a negative
    /// count, a bound too large, a budget that is no size).
    BadArgument,
    /// `BadType(NimdbError, TypeError)`: a value of the wrong kind where nimdb reads it
    /// itself (positions, lengths, sizes).
    BadType,
    /// `NotAnswered(NimdbError, LookupError)`: no stored solve, quotient or theorem answers the
    /// position (and none may be computed here).
    NotAnswered,
    /// `TooCostly(NimdbError)`: refused up front, or stopped, because it would pass a budget
    /// (memory, disk, the file-size limit, elements, time).
    TooCostly,
    /// `DatabaseError(NimdbError)`: the database file cannot be opened, read or written, or
    /// the handle is closed, read-only or in use by the call that runs this one.
    Database,
}

impl Kind {
    /// Every kind but `Base`: (kind, class name, built-in base, doc).
    const CLASSES: [(Kind, &'static str, &'static str, &'static str); 7] = [
        (
            Kind::BadGame,
            "BadGame",
            "ValueError",
            "An unknown or malformed game, or one the call does not take.",
        ),
        (Kind::BadPosition, "BadPosition", "ValueError", "Something that is not a position of the game."),
        (
            Kind::BadArgument,
            "BadArgument",
            "ValueError",
            "An argument out of its range: a negative count, a bound too large, a budget that is no size.",
        ),
        (
            Kind::BadType,
            "BadType",
            "TypeError",
            "A value of the wrong kind where nimdb reads it itself (positions, lengths, sizes).",
        ),
        (
            Kind::NotAnswered,
            "NotAnswered",
            "LookupError",
            "No stored solve, misère quotient or theorem answers the position, and none may be computed here.",
        ),
        (
            Kind::TooCostly,
            "TooCostly",
            "",
            "Refused up front, or stopped, because it would pass a budget: memory, disk, the file-size limit, \
             elements, time.",
        ),
        (
            Kind::Database,
            "DatabaseError",
            "",
            "The database file cannot be opened, read or written, or the handle is closed, read-only, or in \
             use by the call that runs this one.",
        ),
    ];

    /// An exception of this kind (lazy: made with the GIL when raised).
    pub fn err(self, text: impl Into<String>) -> PyErr {
        let text = text.into();
        if self == Kind::Base {
            return NimdbError::new_err(text);
        }
        Python::attach(|py| match KINDS.get(py).and_then(|k| k.iter().find(|(kind, _)| *kind == self)) {
            Some((_, class)) => PyErr::from_type(class.bind(py).clone(), text),
            None => NimdbError::new_err(text),
        })
    }
}

static KINDS: pyo3::sync::PyOnceLock<Vec<(Kind, Py<pyo3::types::PyType>)>> = pyo3::sync::PyOnceLock::new();

/// Makes the subclasses of `NimdbError` ([`Kind`]) and adds them to the module.
pub fn add_kinds(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let builtins = py.import("builtins")?;
    let base = py.get_type::<NimdbError>();
    let mut made = Vec::new();
    for (kind, name, builtin, doc) in Kind::CLASSES {
        let bases = if builtin.is_empty() {
            pyo3::types::PyTuple::new(py, [base.clone().into_any()])?
        } else {
            pyo3::types::PyTuple::new(py, [base.clone().into_any(), builtins.getattr(builtin)?])?
        };
        let dict = pyo3::types::PyDict::new(py);
        dict.set_item("__doc__", doc)?;
        dict.set_item("__module__", "nimdb")?;
        let class =
            builtins.getattr("type")?.call1((name, bases, dict))?.cast_into::<pyo3::types::PyType>()?;
        m.add(name, &class)?;
        made.push((kind, class.unbind()));
    }
    let _ = KINDS.set(py, made);
    Ok(())
}

/// A library error as the kind of `NimdbError` it is, with its message: a store error is a
/// `DatabaseError`, a query's bad position a `BadPosition`, a position nothing answers
/// `NotAnswered`, a resource refusal `TooCostly`.
pub fn kind_of(e: &(dyn std::error::Error + 'static)) -> Kind {
    use nimdb::query::QueryError;
    if let Some(q) = e.downcast_ref::<QueryError>() {
        return match q {
            QueryError::BadPosition(_) => Kind::BadPosition,
            QueryError::Store(_) => Kind::Database,
            QueryError::Solve(d) => kind_of(d),
            QueryError::Theory(_) | QueryError::Quotient(_) | QueryError::MissingChild { .. } => Kind::Base,
            QueryError::TooCostly { .. } | QueryError::Resource(_) => Kind::TooCostly,
            _ => Kind::NotAnswered,
        };
    }
    if let Some(l) = e.downcast_ref::<nimdb::batch::LookupError>() {
        use nimdb::batch::LookupError as L;
        return match l {
            L::BadPosition(_) => Kind::BadPosition,
            L::NotCovered { .. } | L::Beyond(_) | L::TooLarge(_) => Kind::NotAnswered,
            L::TooCostly(_) => Kind::TooCostly,
            _ => match std::error::Error::source(l) {
                Some(inner) => kind_of(inner),
                None => Kind::Base,
            },
        };
    }
    if let Some(v) = e.downcast_ref::<nimdb::verify::VerifyError>() {
        use nimdb::verify::VerifyError as V;
        return match v {
            V::NoSolve { .. } => Kind::NotAnswered,
            V::Store(_) | V::Quotient(_) | V::Space(_) => Kind::Database,
            V::NoMoves { .. } => Kind::BadGame,
            _ => Kind::Base,
        };
    }
    if e.downcast_ref::<nimdb::store::StoreError>().is_some() {
        return Kind::Database;
    }
    if e.downcast_ref::<nimdb::resources::ResourceError>().is_some() {
        return Kind::TooCostly;
    }
    if e.downcast_ref::<nimdb::game::SpecError>().is_some() {
        return Kind::BadGame;
    }
    if e.downcast_ref::<nimdb::game::HeapListError>().is_some() {
        return Kind::BadPosition;
    }
    if let Some(d) = e.downcast_ref::<nimdb::driver::DriverError>() {
        return match std::error::Error::source(d) {
            Some(inner) => kind_of(inner),
            None => Kind::Base,
        };
    }
    Kind::Base
}

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

/// A library error as the kind of `NimdbError` it is ([`kind_of`]).
pub fn nimdb_error(e: impl std::error::Error + 'static) -> PyErr {
    kind_of(&e).err(message(&e))
}

/// Parses a game name (`nim`, `kayles`, `dawson`, `octal:0.137`, …).
pub fn parse_game(game: &str) -> PyResult<GameSpec> {
    nimdb::game::parse_heap_game(game).map_err(|e| Kind::BadGame.err(e.to_string()))
}

/// Parses any game: a heap game, or a family with its own position space.
pub fn parse_any_game(game: &str) -> PyResult<nimdb::game::Game> {
    game.parse().map_err(|e: nimdb::game::SpecError| Kind::BadGame.err(e.to_string()))
}

/// A whole-number argument `name` given as `value` (taken as a signed int, so that a
/// negative one is refused here in words, where Python's conversion to an unsigned type
/// raises OverflowError): from 0 to `max`, else `BadArgument` naming it.
pub fn whole(value: i64, name: &str, max: u64) -> PyResult<u64> {
    match u64::try_from(value) {
        Ok(v) if v <= max => Ok(v),
        Ok(_) => Err(Kind::BadArgument.err(format!("{name} is too large ({value}; at most {max})"))),
        Err(_) => Err(Kind::BadArgument.err(format!("{name} cannot be negative ({value})"))),
    }
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
        return text.parse().map_err(|e: nimdb::game::HeapListError| Kind::BadPosition.err(e.to_string()));
    }
    if let Ok(heaps) = obj.extract::<Vec<u64>>() {
        return Ok(BigPosition::new(heaps));
    }
    // The slow path, for a message that names what is wrong.
    let not_position = || {
        let kind = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        Kind::BadType.err(format!(
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
                return Err(Kind::BadPosition.err(format!(
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
        Kind::BadType.err(format!(
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
                return Err(Kind::BadPosition.err(not_a_count(game, &shown)));
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

/// `cpu_limit`: the CPU seconds one answer may take, more than 0 and at most an hour
/// (default [`DEFAULT_CPU_LIMIT`](nimdb::query::DEFAULT_CPU_LIMIT), as `nimdb query`).
pub(crate) fn cpu_limit_arg(cpu_limit: Option<f64>) -> PyResult<std::time::Duration> {
    match cpu_limit {
        None => Ok(nimdb::query::DEFAULT_CPU_LIMIT),
        Some(s) if s.is_finite() && s > 0.0 && s <= 3600.0 => Ok(std::time::Duration::from_secs_f64(s)),
        Some(s) => Err(Kind::BadArgument
            .err(format!("cpu_limit must be a number of seconds more than 0 and at most 3600, not {s}"))),
    }
}
