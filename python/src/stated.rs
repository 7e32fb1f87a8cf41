//! `nimdb.Theorem`: a formula the user states of a game (a nim-value or an outcome for each
//! position, under one convention), with its name and citation. `Database.verify` checks it
//! against every stored position and lists the first counterexamples; given to
//! `nimdb.define(theorem=…)` and marked `proven=True`, it also answers the positions of
//! that game no stored solve holds, each answer naming it (source "user-theorem").

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use nimdb::game::{Claim, Claimed, Convention, Outcome, Stated, show_tuple};

use crate::errors::{Kind, NimdbError};

/// The longest citation taken, in characters.
const MAX_CITATION: usize = 300;

/// A Python formula as the library's [`Stated`].
pub struct PyStated {
    citation: String,
    formula: Py<PyAny>,
    claim: Claim,
    convention: Convention,
    proven: bool,
}

impl std::fmt::Debug for PyStated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PyStated({:?})", self.citation)
    }
}

impl PyStated {
    /// The formula's value at `position`, read as its claim says, or the exception to
    /// raise (a `NimdbError` naming the theorem and the position, caused by the formula's
    /// own exception when it raised).
    fn read(&self, py: Python<'_>, position: &[u32]) -> PyResult<Claimed> {
        let at = || format!("theorem {:?} at {}", self.citation, show_tuple(position));
        let given = self.formula.bind(py).call1((PyTuple::new(py, position)?,)).map_err(|e| {
            let err = NimdbError::new_err(format!("{} raised: {e}", at()));
            err.set_cause(py, Some(e));
            err
        })?;
        let shown = || given.repr().map(|r| r.to_string()).unwrap_or_default();
        match self.claim {
            Claim::NimValue => {
                let value = (!given.is_instance_of::<pyo3::types::PyBool>())
                    .then(|| given.extract::<u64>().ok())
                    .flatten()
                    .ok_or_else(|| {
                        NimdbError::new_err(format!(
                            "{} gave {}, not a nim-value (an int ≥ 0)",
                            at(),
                            echo(&shown())
                        ))
                    })?;
                let outcome = if value == 0 { Outcome::Loss } else { Outcome::Win };
                Ok(Claimed { outcome, nim_value: Some(value) })
            }
            Claim::Outcome => {
                let word = given.cast::<PyString>().ok().and_then(|s| s.extract::<String>().ok());
                let outcome = match word.as_deref() {
                    Some("win") => Outcome::Win,
                    Some("loss") => Outcome::Loss,
                    Some("draw") => Outcome::Draw,
                    _ => {
                        return Err(NimdbError::new_err(format!(
                            "{} gave {}, not an outcome ('win', 'loss' or 'draw')",
                            at(),
                            echo(&shown())
                        )));
                    }
                };
                Ok(Claimed { outcome, nim_value: None })
            }
        }
    }
}

fn echo(text: &str) -> String {
    nimdb::game::echo(text, 60)
}

impl Stated for PyStated {
    fn citation(&self) -> &str {
        &self.citation
    }
    fn convention(&self) -> Convention {
        self.convention
    }
    fn claim(&self) -> Claim {
        self.claim
    }
    fn proven(&self) -> bool {
        self.proven
    }
    fn value(&self, position: &[u32]) -> Result<Claimed, String> {
        // The exception is kept, to be raised when the library returns; the library stops
        // on the message.
        Python::attach(|py| {
            self.read(py, position).map_err(|e| {
                let message = e.value(py).to_string();
                crate::signals::keep(e);
                message
            })
        })
    }
}

/// A formula stated of a game: `formula(position)` gives each position's nim-value (an
/// int; under misère play the misère nim-value, 0 exactly at a loss) or, with
/// `gives="outcome"`, its outcome for the player to move ('win', 'loss' or 'draw'), under
/// the convention `misere` says. `citation` names it (e.g. "Jenkyns and Mayberry 1980,
/// Thm. 2" or "my conjecture 3"). `Database.verify(game, theorem=…)` checks it against every
/// stored position and lists the first counterexamples. Given to `nimdb.define(…,
/// theorem=…)` with `proven=True` (the user vouches for it: nimdb cannot), it also answers
/// the positions of that game no stored solve holds, as source "user-theorem"; a conjecture
/// (`proven=False`, the default) is only checked.
#[pyclass(module = "nimdb", frozen)]
pub struct Theorem {
    inner: Arc<PyStated>,
}

#[pymethods]
impl Theorem {
    #[new]
    #[pyo3(signature = (citation, formula, *, gives = "nim-value", misere = false, proven = false))]
    fn new(
        py: Python<'_>,
        citation: &str,
        formula: Py<PyAny>,
        gives: &str,
        misere: bool,
        proven: bool,
    ) -> PyResult<Self> {
        if !formula.bind(py).is_callable() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "formula must be callable: formula(position) -> a nim-value or an outcome",
            ));
        }
        let citation = citation.trim();
        if citation.is_empty() || citation.chars().count() > MAX_CITATION {
            return Err(Kind::BadArgument.err(format!(
                "a theorem's citation names it in 1 to {MAX_CITATION} characters, e.g. \"Jenkyns and Mayberry 1980, Thm. 2\""
            )));
        }
        let claim = match gives {
            "nim-value" | "nim_value" => Claim::NimValue,
            "outcome" => Claim::Outcome,
            other => {
                return Err(Kind::BadArgument
                    .err(format!("gives={:?}: a theorem gives \"nim-value\" or \"outcome\"", echo(other))));
            }
        };
        let convention = if misere { Convention::Misere } else { Convention::Normal };
        Ok(Theorem {
            inner: Arc::new(PyStated { citation: citation.to_string(), formula, claim, convention, proven }),
        })
    }

    /// Its name and citation.
    #[getter]
    fn citation(&self) -> String {
        self.inner.citation.clone()
    }
    /// The formula.
    #[getter]
    fn formula(&self, py: Python<'_>) -> Py<PyAny> {
        self.inner.formula.clone_ref(py)
    }
    /// "nim-value" or "outcome".
    #[getter]
    fn gives(&self) -> &'static str {
        self.inner.claim.word()
    }
    /// Whether it is stated of misère play.
    #[getter]
    fn misere(&self) -> bool {
        self.inner.convention == Convention::Misere
    }
    /// Whether the user marks it proven (only then does it answer positions).
    #[getter]
    fn proven(&self) -> bool {
        self.inner.proven
    }
    fn __repr__(&self) -> String {
        format!(
            "nimdb.Theorem({:?}, gives={:?}, misere={}, proven={})",
            self.inner.citation,
            self.gives(),
            if self.misere() { "True" } else { "False" },
            if self.inner.proven { "True" } else { "False" }
        )
    }
}

impl Theorem {
    /// The library's view of it.
    pub fn stated(&self) -> Arc<dyn Stated> {
        self.inner.clone()
    }
    /// What it gives.
    pub fn claim(&self) -> Claim {
        self.inner.claim
    }
}

/// A `theorem=` argument: one `Theorem`, or a sequence of them (None: none).
pub fn theorems_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Py<Theorem>>> {
    let Some(obj) = obj else { return Ok(Vec::new()) };
    if obj.is_none() {
        return Ok(Vec::new());
    }
    if let Ok(t) = obj.cast::<Theorem>() {
        return Ok(vec![t.clone().unbind()]);
    }
    let wrong = || Kind::BadType.err("theorem is a nimdb.Theorem, or a list of them");
    let items = obj.try_iter().map_err(|_| wrong())?;
    let mut out = Vec::new();
    for item in items {
        out.push(item?.cast::<Theorem>().map_err(|_| wrong())?.clone().unbind());
    }
    Ok(out)
}

/// What `Database.verify` found of one stated theorem (`VerifyReport.theorems`).
#[pyclass(module = "nimdb", frozen, get_all)]
pub struct TheoremCheck {
    /// The theorem's citation.
    pub citation: String,
    /// "nim-value" or "outcome".
    pub gives: &'static str,
    /// Whether the user marks it proven (a counterexample then makes the report not ok).
    pub proven: bool,
    /// Stored positions checked (a position stored in two solves is checked in each).
    pub checked: u64,
    /// Of those, the ones it agrees with.
    pub agree: u64,
    /// Of those, the ones it does not.
    pub counterexamples: u64,
    /// The smallest counterexamples (at most 10): (position, what the formula says, what
    /// the database says), each value a nim-value (int) or an outcome ('win', 'loss',
    /// 'draw').
    pub first_counterexamples: Vec<(Py<PyTuple>, Py<PyAny>, Py<PyAny>)>,
}

#[pymethods]
impl TheoremCheck {
    fn __bool__(&self) -> bool {
        self.counterexamples == 0
    }
    fn __repr__(&self) -> String {
        format!(
            "TheoremCheck({:?}, gives={:?}, proven={}, checked={}, counterexamples={})",
            self.citation,
            self.gives,
            if self.proven { "True" } else { "False" },
            self.checked,
            self.counterexamples
        )
    }
}

impl TheoremCheck {
    /// The library's check as a Python object.
    pub fn of(py: Python<'_>, c: &nimdb::verify::StatedCheck) -> PyResult<Self> {
        use nimdb::verify::Value;
        let value = |v: Value| -> PyResult<Py<PyAny>> {
            Ok(match v {
                Value::NimValue(n) => n.into_pyobject(py)?.into_any().unbind(),
                Value::Outcome(o) => PyString::new(py, Outcome::as_str(o)).into_any().unbind(),
            })
        };
        let first = c
            .first_counterexamples
            .iter()
            .map(|x| Ok((PyTuple::new(py, &x.position)?.unbind(), value(x.stated)?, value(x.actual)?)))
            .collect::<PyResult<_>>()?;
        Ok(TheoremCheck {
            citation: c.citation.clone(),
            gives: c.claim.word(),
            proven: c.proven,
            checked: c.checked,
            agree: c.agree,
            counterexamples: c.counterexamples,
            first_counterexamples: first,
        })
    }
}
