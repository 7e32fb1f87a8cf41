//! nimdb's Python face: the `nimdb` package's native module (`nimdb._nimdb`).
//!
//! Like the command line, this crate is a thin layer over the `nimdb` library: it parses
//! Python arguments into the library's types, calls the library's own answer, solve, export
//! and theory paths, and turns what they return into Python objects (numpy arrays for
//! anything long). It computes nothing of its own. Every call that may take long (solves,
//! batches, exports, heap values, quotients) releases the GIL while the library works, and
//! listens for Ctrl-C between steps (see [`signals`]). Errors are `nimdb.NimdbError` with the
//! library's messages.

#![warn(missing_docs)]

use pyo3::prelude::*;

mod answers;
mod checks;
mod database;
mod defined;
mod errors;
mod play;
mod signals;
mod stated;
mod theory;
mod tree;

/// The native module; `nimdb/__init__.py` re-exports it.
#[pymodule]
fn _nimdb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NimdbError", m.py().get_type::<errors::NimdbError>())?;
    errors::add_kinds(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_INPUT_HEAP", nimdb::game::MAX_INPUT_HEAP)?;
    m.add("MAX_SOLVE_TOTAL", nimdb::solve::MAX_SOLVE_TOTAL)?;
    m.add("AUTO_SOLVE_LIMIT", nimdb::query::AUTO_SOLVE_LIMIT)?;
    m.add_class::<answers::Answer>()?;
    m.add_class::<answers::Move>()?;
    m.add_class::<answers::Lookups>()?;
    m.add_class::<database::Database>()?;
    m.add_class::<database::SolveSummary>()?;
    m.add_class::<database::SolveInfo>()?;
    m.add_class::<database::Export>()?;
    m.add_class::<database::Estimate>()?;
    m.add_class::<theory::HeapValues>()?;
    m.add_class::<theory::Quotient>()?;
    m.add_class::<defined::DefinedGame>()?;
    m.add_class::<checks::VerifyReport>()?;
    m.add_class::<stated::Theorem>()?;
    m.add_class::<stated::TheoremCheck>()?;
    m.add_function(wrap_pyfunction!(database::open, m)?)?;
    m.add_function(wrap_pyfunction!(database::estimate, m)?)?;
    m.add_function(wrap_pyfunction!(defined::define, m)?)?;
    m.add_function(wrap_pyfunction!(theory::heap_values, m)?)?;
    m.add_function(wrap_pyfunction!(theory::quotient, m)?)?;
    m.add_function(wrap_pyfunction!(tree::tree, m)?)?;
    m.add_function(wrap_pyfunction!(play::play, m)?)?;
    Ok(())
}
