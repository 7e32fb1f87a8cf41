//! Theory: Bouton's rule, single-heap nim-value sequences, periodicity and misère genus.
//!
//! Everything here is computed from a heap's own moves, independently of the position
//! database, so that the database can be checked against it:
//! * [`bouton`]: normal and misère Nim, Sprague–Grundy on nim-values;
//! * [`sequence`]: nim-value sequences g(0..=N) (reference mex and the fast engines);
//! * [`shape`], [`sparse`]: the move shape and the rare/common method behind the fast engine;
//! * [`period`]: periods and preperiods, with the Guy–Smith certificate;
//! * [`misere`], [`genus`]: misère nim-values of positions and Conway's genus of heaps;
//! * [`cache`]: the `heap_values` table;
//! * [`report`]: everything about a game's heaps up to N, as `nimdb heaps` prints it.

pub mod bouton;
pub mod cache;
pub mod genus;
pub mod misere;
pub mod period;
pub mod report;
pub mod sequence;
pub mod shape;
pub mod sparse;

mod mex;
