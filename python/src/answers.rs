//! What queries return: [`Answer`] and [`Move`] for one position, [`Lookups`] (numpy
//! arrays) for a batch.

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use nimdb::answer::{MoveValue, Source};
use nimdb::game::{Convention, Outcome};

/// The word for a source, as `query --json` writes it.
pub fn source_word(s: Source) -> &'static str {
    match s {
        Source::Database => "database",
        Source::Solved => "solved",
        Source::Theory => "theory",
        Source::Quotient => "quotient",
        Source::Stated => "user-theorem",
    }
}

/// Rich display in Jupyter: `nimdb._display.FUNCTION(obj)`, a self-contained HTML string
/// (no script) bounded in size however large the object.
pub fn html(obj: &Bound<'_, PyAny>, function: &str) -> PyResult<String> {
    obj.py().import("nimdb._display")?.call_method1(function, (obj,))?.extract()
}

/// An optional number as Python writes it.
pub fn py_opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "None".to_string(), |v| v.to_string())
}

/// The code [`Lookups`] gives a source: its index in `Lookups.SOURCES`.
pub fn source_code(s: Source) -> u8 {
    match s {
        Source::Database => 0,
        Source::Solved => 1,
        Source::Theory => 2,
        Source::Quotient => 3,
        Source::Stated => 4,
    }
}

/// One move and the value of the position it leads to.
#[pyclass(module = "nimdb", frozen)]
pub struct Move {
    /// For a heap game, the size of the heap moved in (`None` for staircase, welter and
    /// raise:C, whose moves are not taken from one heap).
    #[pyo3(get)]
    pub heap: Option<u64>,
    /// For a heap game, the tokens taken (`None` otherwise).
    #[pyo3(get)]
    pub taken: Option<u128>,
    /// The move in words, with the position it leads to, e.g. "take 2 from the 7-heap → [5,3]".
    #[pyo3(get)]
    pub description: String,
    /// The outcome for the player to move after it (the opponent): "win", "loss" or "draw".
    #[pyo3(get)]
    pub outcome: &'static str,
    /// Its remoteness, when known (never for a draw).
    #[pyo3(get)]
    pub remoteness: Option<u32>,
    to: Vec<u64>,
}

#[pymethods]
impl Move {
    /// The position after the move, in the game's canonical form (a heap game's heaps
    /// largest first; a staircase's step 1 first).
    #[getter]
    fn to<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.to)
    }

    /// HTML for Jupyter: the move, coloured by its outcome as in the explorer.
    fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
        html(slf.as_any(), "move_html")
    }

    fn __repr__(&self) -> String {
        format!(
            "Move({:?}, outcome={:?}, remoteness={})",
            self.description,
            self.outcome,
            py_opt(self.remoteness)
        )
    }
}

impl From<&MoveValue> for Move {
    fn from(m: &MoveValue) -> Self {
        Move {
            heap: m.heap,
            taken: m.taken,
            description: m.description.clone(),
            outcome: Outcome::as_str(m.outcome),
            remoteness: m.remoteness,
            to: m.to.clone(),
        }
    }
}

/// The answer to one position of any game: what `nimdb query --json` prints.
#[pyclass(module = "nimdb", frozen)]
pub struct Answer {
    /// The canonical game, e.g. "0.77" for Kayles, "staircase".
    #[pyo3(get)]
    pub game: String,
    /// Whether the misère convention was played.
    #[pyo3(get)]
    pub misere: bool,
    /// The outcome for the player to move: "win", "loss" or "draw" (a loopy game's
    /// position from which neither player can force a win).
    #[pyo3(get)]
    pub outcome: &'static str,
    /// Moves to the end under optimal play, when known (`None` for theory and quotient
    /// answers, and for draws).
    #[pyo3(get)]
    pub remoteness: Option<u32>,
    /// The nim-value (misère nim-value under misère), when stored or known.
    #[pyo3(get)]
    pub nim_value: Option<u64>,
    /// The best move: the fastest win, the slowest loss, or a move that keeps the draw;
    /// `None` at a terminal position (or when no move is known).
    #[pyo3(get)]
    pub best_move: Option<Py<Move>>,
    /// Every move in move order (empty when there are too many to list; see
    /// `moves_omitted`).
    #[pyo3(get)]
    pub moves: Vec<Py<Move>>,
    /// How many moves were left out of `moves`.
    #[pyo3(get)]
    pub moves_omitted: u64,
    /// Where the answer came from: "database", "solved" (solved on the spot and stored),
    /// "theory", "quotient", or "user-theorem" (a theorem given to `nimdb.define` and marked
    /// proven by the user, named in `theorem`).
    #[pyo3(get)]
    pub source: &'static str,
    /// The theorem, when the answer is a theorem's: its name, as `nimdb query` prints it
    /// (e.g. "Bouton's theorem"), or the user's citation when the source is "user-theorem".
    #[pyo3(get)]
    pub theorem: Option<String>,
    /// The stored solve used, if any.
    #[pyo3(get)]
    pub solve_id: Option<i64>,
    position: Vec<u64>,
}

#[pymethods]
impl Answer {
    /// The position, in the game's canonical form (a heap game's heaps largest first; a
    /// staircase's step 1 first).
    #[getter]
    fn position<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.position)
    }

    /// Whether the player to move wins.
    #[getter]
    fn win(&self) -> bool {
        self.outcome == "win"
    }

    /// HTML for Jupyter: the position drawn (SVG), the outcome, remoteness and source, and
    /// the moves coloured as in the explorer (at most 60 listed, then "… N more").
    fn _repr_html_(slf: &Bound<'_, Self>) -> PyResult<String> {
        html(slf.as_any(), "answer_html")
    }

    fn __repr__(&self) -> String {
        let heaps: Vec<String> = self.position.iter().map(u64::to_string).collect();
        format!(
            "Answer(game={:?}, position=({}), misere={}, outcome={:?}, remoteness={}, source={:?})",
            self.game,
            if heaps.len() == 1 { format!("{},", heaps[0]) } else { heaps.join(", ") },
            if self.misere { "True" } else { "False" },
            self.outcome,
            py_opt(self.remoteness),
            self.source
        )
    }
}

impl Answer {
    /// The Python answer for the library's.
    pub fn new(py: Python<'_>, a: &nimdb::Answer) -> PyResult<Self> {
        Ok(Answer {
            game: a.game.clone(),
            misere: a.convention == Convention::Misere,
            outcome: Outcome::as_str(a.outcome),
            remoteness: a.remoteness,
            nim_value: a.nim_value,
            best_move: a.best_move.as_ref().map(|m| Py::new(py, Move::from(m))).transpose()?,
            moves: a.moves.iter().map(|m| Py::new(py, Move::from(m))).collect::<PyResult<_>>()?,
            moves_omitted: a.moves_omitted,
            source: source_word(a.source),
            theorem: a.theorem.map(|t| t.name().to_string()).or_else(|| a.cited.clone()),
            solve_id: a.solve_id,
            position: a.position.clone(),
        })
    }
}

/// The answers to a batch of positions (`Database.query_many`), one array entry per
/// position, in the order given: what `nimdb query --batch` prints, as numpy arrays.
#[pyclass(module = "nimdb", frozen, get_all)]
pub struct Lookups {
    /// int8: 1 when the player to move wins, 0 when they lose, 2 for a draw (a position of
    /// a loopy game, `raise:C`, from which neither player can force a win), -1 when the
    /// position got no answer (see `errors`).
    pub outcome: Py<PyArray1<i8>>,
    /// int32: moves to the end under optimal play, -1 when unknown (and for a draw).
    pub remoteness: Py<PyArray1<i32>>,
    /// int64: the nim-value (misère nim-value under misère), -1 when unknown.
    pub nim_value: Py<PyArray1<i64>>,
    /// uint8: where each answer came from, an index into `SOURCES` (255: no answer).
    pub source: Py<PyArray1<u8>>,
    /// `(index, message)` for each position that got no answer (only with `strict=False`).
    pub errors: Vec<(usize, String)>,
}

#[pymethods]
impl Lookups {
    /// The names of the `source` codes.
    #[classattr]
    const SOURCES: (&'static str, &'static str, &'static str, &'static str, &'static str) =
        ("database", "solved", "theory", "quotient", "user-theorem");

    fn __len__(&self, py: Python<'_>) -> usize {
        self.outcome.bind(py).len().unwrap_or(0)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Lookups({} positions, {} errors)", self.__len__(py), self.errors.len())
    }

    /// A pandas DataFrame, one row per position: outcome ("win", "loss", "draw"; missing
    /// without an answer), remoteness and nim_value (missing when unknown), source, and the
    /// error of a position without an answer. With `positions` (what was passed to
    /// `query_many`), a first column `position` of tuples. Needs pandas.
    #[pyo3(signature = (positions = None))]
    fn to_frame<'py>(
        slf: &Bound<'py, Self>,
        positions: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        slf.py().import("nimdb._frames")?.call_method1("lookups_frame", (slf, positions))
    }
}
