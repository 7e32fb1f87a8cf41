#![warn(missing_docs)]
//! nimdb: a retrograde-analysis solver with a persistent position database for impartial
//! heap games (Nim, subtraction games, octal take-and-break games, Grundy's game), under
//! normal and misère play.
//!
//! The crate is layered like a tablebase generator: [`game`] says what the rules are,
//! [`index`] ranks positions densely within tiers, [`solve`] computes outcomes and
//! remoteness tier by tier, [`store`] keeps the results in SQLite for instant lookup, and
//! [`driver`] solves into the store. The command line is the `nimdb` binary's own; the
//! library has no command-line dependency. See `docs/ARCHITECTURE.md`.

pub mod batch;
pub mod beyond;
pub mod driver;
pub mod explain;
pub mod game;
pub mod index;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod play;
pub mod query;
pub mod resources;
#[cfg(feature = "server")]
pub mod server;
pub mod solve;
pub mod spaced;
pub mod store;
pub mod theory;
pub mod tree;
pub mod verify;
