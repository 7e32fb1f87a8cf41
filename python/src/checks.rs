//! `Database.verify`: the library's check of every stored solve of a game, as `nimdb
//! verify` runs it, for any game — a game defined in Python included, whose stored
//! positions are recomputed from its function's moves.

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use nimdb::game::Convention;
use nimdb::verify::{Theory, VerifyReport as Report};

/// What `Database.verify` found: the theory's verdict on every stored position, each
/// position recomputed from its children's stored values, the stored counts and checksums.
/// `ok` is what `nimdb verify`'s exit status says.
#[pyclass(module = "nimdb", frozen, get_all)]
pub struct VerifyReport {
    /// The canonical game.
    pub game: String,
    /// Whether the misère convention's solves were checked.
    pub misere: bool,
    /// False when a theorem was contradicted (one of nimdb's, or a user's marked proven), a
    /// stored nim-value disagrees with its definition, a position disagrees with its
    /// children, or a checksum or count is wrong.
    pub ok: bool,
    /// The theory checked against, by name: 'bouton', 'misere-nim', 'sprague-grundy',
    /// 'tame-prediction' (not a theorem), 'moore', 'wythoff', or a family's theorem's name
    /// (None: no theory applies).
    pub theory: Option<String>,
    /// The theory in words.
    pub theory_text: String,
    /// Whether that theory is a theorem (a disagreement is then a failure; the misère tame
    /// prediction is not one).
    pub theorem: bool,
    /// The solves checked.
    pub solves: Vec<i64>,
    /// Positions checked against the theory.
    pub checked: u64,
    /// Of those, the ones it agrees with.
    pub agree: u64,
    /// Of those, the ones it disagrees with.
    pub mismatches: u64,
    /// Stored positions no theorem covers (checked for self-consistency only).
    pub no_theorem: u64,
    /// The smallest disagreeing positions, in the game's notation.
    pub first_mismatches: Vec<Py<PyTuple>>,
    /// Stored nim-values checked, and how many disagree.
    pub nim_values_checked: u64,
    /// Stored nim-values that disagree with their definition.
    pub nim_value_mismatches: u64,
    /// Positions recomputed from their children's stored values.
    pub sampled: u64,
    /// Positions recomputed from the rules alone (`full=True`).
    pub recomputed: u64,
    /// Of those, the ones whose stored value differs.
    pub recomputed_mismatches: u64,
    /// Draws stored (a loopy game's).
    pub draws: u64,
    /// Whether every tier passed its checksums and every recomputed position matched.
    pub consistent: bool,
    /// What was inconsistent, each problem once.
    pub problems: Vec<String>,
    /// Misère octal games: positions checked against the misère quotient (None: no check).
    pub quotient_checked: Option<u64>,
    /// Of those, the ones that disagree with it.
    pub quotient_mismatches: Option<u64>,
    /// The theorems and conjectures stated by the user (`nimdb.Theorem`, given to
    /// `nimdb.define` or to this call) under this convention, each checked against every
    /// stored position.
    pub theorems: Vec<Py<crate::stated::TheoremCheck>>,
    /// The whole report as one JSON object, as `nimdb verify --json` prints it (with the
    /// user's theorems under "stated").
    pub json: String,
}

impl VerifyReport {
    /// The library's report as a Python object.
    pub fn of(py: Python<'_>, r: &Report) -> PyResult<Self> {
        let positions = |list: &[Vec<u64>]| -> PyResult<Vec<Py<PyTuple>>> {
            list.iter().map(|p| Ok(PyTuple::new(py, p)?.unbind())).collect()
        };
        Ok(VerifyReport {
            game: r.game.clone(),
            misere: r.convention == Convention::Misere,
            ok: !r.failed(),
            theory: theory_key(r.theory),
            theory_text: r.theory.describe().to_string(),
            theorem: r.theorem,
            solves: r.solves.clone(),
            checked: r.checked,
            agree: r.agree,
            mismatches: r.mismatches,
            no_theorem: r.no_theorem,
            first_mismatches: positions(&r.first_mismatches)?,
            nim_values_checked: r.nim_values_checked,
            nim_value_mismatches: r.nim_value_mismatches,
            sampled: r.sampled,
            recomputed: r.recomputed,
            recomputed_mismatches: r.recomputed_mismatches,
            draws: r.draws,
            consistent: r.consistent,
            problems: r.problems.clone(),
            quotient_checked: r.quotient.as_ref().map(|q| q.checked),
            quotient_mismatches: r.quotient.as_ref().map(|q| q.mismatches),
            theorems: r
                .stated
                .iter()
                .map(|c| Py::new(py, crate::stated::TheoremCheck::of(py, c)?))
                .collect::<PyResult<_>>()?,
            json: serde_json::to_string(r).unwrap_or_default(),
        })
    }
}

/// The theory's short name (`verify --json`'s key for it; a family's theorem by its name).
fn theory_key(theory: Theory) -> Option<String> {
    let key = match theory {
        Theory::Bouton => "bouton",
        Theory::MisereNim => "misere-nim",
        Theory::SpragueGrundy => "sprague-grundy",
        Theory::TamePrediction => "tame-prediction",
        Theory::Moore { .. } => "moore",
        Theory::Wythoff => "wythoff",
        Theory::Family { theorem } => theorem.name(),
        Theory::None => return None,
    };
    Some(key.to_string())
}

#[pymethods]
impl VerifyReport {
    fn __bool__(&self) -> bool {
        self.ok
    }

    fn __repr__(&self) -> String {
        let misere = if self.misere { ", misère" } else { "" };
        let verdict = if self.ok { "ok" } else { "FAILED" };
        format!(
            "VerifyReport({}{misere}: {verdict}, {} positions against the theory ({} disagree), {} recomputed from their children, theory: {})",
            self.game,
            self.checked,
            self.mismatches,
            self.sampled,
            self.theory.as_deref().unwrap_or("none")
        )
    }

    /// Every field, as `nimdb verify --json` prints them.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?.call_method1("loads", (&self.json,))
    }
}
