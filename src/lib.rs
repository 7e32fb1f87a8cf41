#![warn(missing_docs)]
//! nimdb: a retrograde-analysis solver with a persistent position database for impartial
//! games (Nim, subtraction games, octal take-and-break games, Grundy's game, and families
//! with their own position space: Staircase Nim, Welter's game, the loopy Nim with
//! raising), under normal and misère play.
//!
//! The crate is layered like a tablebase generator: [`game`] says what the rules are,
//! [`index`] ranks positions densely within tiers, [`solve`] computes outcomes and
//! remoteness tier by tier, [`store`] keeps the results in SQLite for instant lookup, and
//! [`driver`] solves into the store. The command line is the `nimdb` binary's own; the
//! library has no command-line dependency. See `docs/ARCHITECTURE.md`.
//!
//! # Quick start
//!
//! The crate root re-exports what it takes to open a database, solve a game into it and
//! look positions up; every error converts into [`Error`], so `?` works throughout.
//!
//! ```
//! use nimdb::{Convention, Database, GameSpec, Outcome, Position, Source, Universe};
//!
//! # fn main() -> Result<(), nimdb::Error> {
//! // A database in memory (Database::open(path) for a file).
//! let mut db = Database::open_in_memory()?;
//! let nim: GameSpec = "nim".parse()?;
//! // Every misère Nim position of at most 9 tokens in at most 3 heaps, solved and stored.
//! let universe = Universe::new(nim.rules(), &nim.canonical(), Some(9), None, Some(3))?;
//! let (solve, _report) = nimdb::solve_into(&mut db, &nim, Convention::Misere, universe, false, &nimdb::Silent)?;
//! assert_eq!(solve.positions, 53);
//!
//! // [3,2,1] is a loss for the player to move: its heaps' XOR is 0 and one is larger than 1.
//! let position: Position = "3 2 1".parse()?;
//! let answer = nimdb::query(&mut db, &nim.clone().into(), Convention::Misere, &position.cells(), 0)?;
//! assert_eq!((answer.outcome, answer.source), (Outcome::Loss, Source::Database));
//! let best = answer.best_move.expect("a move from a non-terminal position");
//! println!("{position}: {:?} in {:?} moves; best {}", answer.outcome, answer.remoteness, best.description);
//! # Ok(())
//! # }
//! ```

pub use nimdb_core::{footprint, game, index, resources};
pub use nimdb_solve as solve;
pub use nimdb_store as store;
pub use nimdb_theory as theory;

pub mod answer;
pub mod batch;
pub mod driver;
pub mod explain;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod play;
pub mod query;
#[cfg(feature = "server")]
pub mod server;
pub mod space;
pub mod stored;
pub mod tree;
pub mod verify;

pub use answer::{Answer, Lookup, Source};
pub use batch::{LookupError, Session};
pub use driver::{DriverError, solve_into};
pub use game::Outcome;
pub use game::{Convention, GameSpec, HeapListError, Position, SpecError};
pub use index::{Universe, UniverseError};
pub use query::{QueryError, query};
pub use solve::Silent;
pub use store::{Database, StoreError};
pub use verify::VerifyError;

/// Any error of the library: each room's error converts into it (`?` works across rooms).
/// Its message is the room's own, in the library's words.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A game spec could not be parsed.
    #[error(transparent)]
    Spec(#[from] game::SpecError),
    /// A heap list could not be parsed.
    #[error(transparent)]
    HeapList(#[from] game::HeapListError),
    /// A take-and-break code is invalid.
    #[error(transparent)]
    Code(#[from] game::CodeError),
    /// A universe cannot be indexed.
    #[error(transparent)]
    Universe(#[from] index::UniverseError),
    /// A rank table cannot be built.
    #[error(transparent)]
    Table(#[from] index::TableError),
    /// The database failed or refused.
    #[error(transparent)]
    Store(#[from] store::StoreError),
    /// A stored misère quotient could not be read or written.
    #[error(transparent)]
    QuotientStore(#[from] store::quotients::QuotientStoreError),
    /// A solve failed.
    #[error(transparent)]
    Solve(#[from] solve::SolveError),
    /// A solve into the database failed.
    #[error(transparent)]
    Driver(#[from] driver::DriverError),
    /// A query could not be answered.
    #[error(transparent)]
    Query(#[from] query::QueryError),
    /// A batch lookup could not be answered.
    #[error(transparent)]
    Lookup(#[from] batch::LookupError),
    /// A stored solve could not be checked.
    #[error(transparent)]
    Verify(#[from] verify::VerifyError),
    /// Heap theory failed.
    #[error(transparent)]
    Theory(#[from] theory::report::TheoryError),
    /// A misère quotient could not be computed.
    #[error(transparent)]
    Quotient(#[from] theory::quotient::QuotientError),
    /// A survey of octal codes could not be listed.
    #[error(transparent)]
    Survey(#[from] theory::quotient::survey::SurveyError),
    /// A game tree could not be built.
    #[error(transparent)]
    Tree(#[from] tree::TreeError),
    /// A position could not be explained.
    #[error(transparent)]
    Explain(#[from] explain::ExplainError),
    /// A game could not be played.
    #[error(transparent)]
    Play(#[from] play::PlayError),
    /// A game session refused.
    #[error(transparent)]
    Session(#[from] play::SessionError),
    /// A player's input was not understood.
    #[error(transparent)]
    Input(#[from] play::InputError),
    /// A resource budget refused the work.
    #[error(transparent)]
    Resource(#[from] resources::ResourceError),
}
