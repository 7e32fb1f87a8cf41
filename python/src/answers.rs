//! What queries return: [`Answer`] and [`Move`] for one position, [`Lookups`] (numpy
//! arrays) for a batch.

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use nimdb::beyond::{WideAnswer, WideMoveValue};
use nimdb::game::Convention;
use nimdb::game::Outcome;
use nimdb::query::Source;

/// The word for a source, as `query --json` writes it.
pub fn source_word(s: Source) -> &'static str {
    match s {
        Source::Database => "database",
        Source::Solved => "solved",
        Source::Theory => "theory",
        Source::Quotient => "quotient",
    }
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
    }
}

/// One move and the value of the position it leads to.
#[pyclass(module = "nimdb", frozen)]
pub struct Move {
    /// The size of the heap moved in.
    #[pyo3(get)]
    pub heap: u64,
    /// Tokens taken.
    #[pyo3(get)]
    pub taken: u128,
    /// The move in words, e.g. "take 2 from the 7-heap, leaving 2 and 3".
    #[pyo3(get)]
    pub description: String,
    /// The outcome for the player to move after it (the opponent): "win" or "loss".
    #[pyo3(get)]
    pub outcome: &'static str,
    /// Its remoteness, when known.
    #[pyo3(get)]
    pub remoteness: Option<u32>,
    to: Vec<u64>,
}

#[pymethods]
impl Move {
    /// The position after the move, heaps largest first.
    #[getter]
    fn to<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.to)
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

impl From<&WideMoveValue> for Move {
    fn from(m: &WideMoveValue) -> Self {
        Move {
            heap: m.heap,
            taken: m.taken,
            description: m.description.clone(),
            outcome: Outcome::as_str(m.outcome),
            remoteness: m.remoteness,
            to: m.to.heaps().to_vec(),
        }
    }
}

/// The answer to one position: what `nimdb query --json` prints.
#[pyclass(module = "nimdb", frozen)]
pub struct Answer {
    /// The canonical game, e.g. "0.77" for Kayles.
    #[pyo3(get)]
    pub game: String,
    /// Whether the misère convention was played.
    #[pyo3(get)]
    pub misere: bool,
    /// The outcome for the player to move: "win" or "loss".
    #[pyo3(get)]
    pub outcome: &'static str,
    /// Moves to the end under optimal play, when known (`None` for theory and quotient
    /// answers).
    #[pyo3(get)]
    pub remoteness: Option<u32>,
    /// The nim-value (misère nim-value under misère), when stored or known.
    #[pyo3(get)]
    pub nim_value: Option<u64>,
    /// The best move, `None` at a terminal position (or when no move is known).
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
    /// "theory" or "quotient".
    #[pyo3(get)]
    pub source: &'static str,
    /// The stored solve used, if any.
    #[pyo3(get)]
    pub solve_id: Option<i64>,
    position: Vec<u64>,
}

#[pymethods]
impl Answer {
    /// The position, heaps largest first.
    #[getter]
    fn position<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.position)
    }

    /// Whether the player to move wins.
    #[getter]
    fn win(&self) -> bool {
        self.outcome == "win"
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
    pub fn new(py: Python<'_>, a: &WideAnswer) -> PyResult<Self> {
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
            solve_id: a.solve_id,
            position: a.position.heaps().to_vec(),
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
    const SOURCES: (&'static str, &'static str, &'static str, &'static str) =
        ("database", "solved", "theory", "quotient");

    fn __len__(&self, py: Python<'_>) -> usize {
        self.outcome.bind(py).len().unwrap_or(0)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Lookups({} positions, {} errors)", self.__len__(py), self.errors.len())
    }
}

/// One move of a spaced game (staircase, welter, raise:C) and the value it leads to.
#[pyclass(module = "nimdb", frozen)]
pub struct SpacedMove {
    /// The move in words, e.g. "move 1 coin from step 1 off the staircase".
    #[pyo3(get)]
    pub description: String,
    /// The outcome for the player to move after it (the opponent): "win", "loss" or "draw".
    #[pyo3(get)]
    pub outcome: &'static str,
    /// Its remoteness, when known (never for a draw).
    #[pyo3(get)]
    pub remoteness: Option<u32>,
    to: Vec<u32>,
}

#[pymethods]
impl SpacedMove {
    /// The position after the move, in the family's own order.
    #[getter]
    fn to<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.to)
    }

    fn __repr__(&self) -> String {
        format!(
            "SpacedMove({:?}, outcome={:?}, remoteness={})",
            self.description,
            self.outcome,
            py_opt(self.remoteness)
        )
    }
}

impl From<&nimdb::spaced::SpacedMoveValue> for SpacedMove {
    fn from(m: &nimdb::spaced::SpacedMoveValue) -> Self {
        SpacedMove {
            description: m.description.clone(),
            outcome: Outcome::as_str(m.outcome),
            remoteness: m.remoteness,
            to: m.to.clone(),
        }
    }
}

/// The answer to one position of a spaced game: what `nimdb query --json` prints for it.
#[pyclass(module = "nimdb", frozen)]
pub struct SpacedAnswer {
    /// The game, e.g. "staircase".
    #[pyo3(get)]
    pub game: String,
    /// Whether the misère convention was played.
    #[pyo3(get)]
    pub misere: bool,
    /// The outcome for the player to move: "win", "loss" or "draw".
    #[pyo3(get)]
    pub outcome: &'static str,
    /// Moves to the end under optimal play, when known (`None` for theory and draws).
    #[pyo3(get)]
    pub remoteness: Option<u32>,
    /// The nim-value, when a theorem gives it.
    #[pyo3(get)]
    pub nim_value: Option<u64>,
    /// The best move: fastest win, slowest loss, or a move that keeps the draw.
    #[pyo3(get)]
    pub best_move: Option<Py<SpacedMove>>,
    /// Every move in the family's move order.
    #[pyo3(get)]
    pub moves: Vec<Py<SpacedMove>>,
    /// How many moves a theorem's answer left out of `moves` (too many to list); 0 when
    /// every move is listed.
    #[pyo3(get)]
    pub moves_omitted: u64,
    /// Where the answer came from: "database", "solved" or "theory".
    #[pyo3(get)]
    pub source: &'static str,
    /// The theorem, when the answer is the theorem's: its name, as `nimdb query` prints it.
    #[pyo3(get)]
    pub theorem: Option<&'static str>,
    /// The stored solve used, if any.
    #[pyo3(get)]
    pub solve_id: Option<i64>,
    position: Vec<u32>,
}

#[pymethods]
impl SpacedAnswer {
    /// The position, in the family's own order (staircase: step 1 first).
    #[getter]
    fn position<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.position)
    }

    fn __repr__(&self) -> String {
        format!(
            "SpacedAnswer(game={:?}, position={:?}, misere={}, outcome={:?}, remoteness={}, source={:?})",
            self.game,
            self.position,
            if self.misere { "True" } else { "False" },
            self.outcome,
            py_opt(self.remoteness),
            self.source
        )
    }
}

impl SpacedAnswer {
    /// The Python answer for the library's.
    pub fn new(py: Python<'_>, a: &nimdb::spaced::SpacedAnswer) -> PyResult<Self> {
        Ok(SpacedAnswer {
            game: a.game.clone(),
            misere: a.convention == Convention::Misere,
            outcome: Outcome::as_str(a.outcome),
            remoteness: a.remoteness,
            nim_value: a.nim_value,
            best_move: a.best_move.as_ref().map(|m| Py::new(py, SpacedMove::from(m))).transpose()?,
            moves: a.moves.iter().map(|m| Py::new(py, SpacedMove::from(m))).collect::<PyResult<_>>()?,
            moves_omitted: a.moves_omitted,
            source: source_word(a.source),
            theorem: a.theorem.map(nimdb::game::Formula::name),
            solve_id: a.solve_id,
            position: a.position.clone(),
        })
    }
}
