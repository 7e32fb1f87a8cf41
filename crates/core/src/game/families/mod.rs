//! The families, each implementing the one contract ([`Family`](super::Family)):
//! - `heaps`: the heap games ([`GameSpec`](super::GameSpec)), a multiset of heaps;
//! - [`Staircase`]: Staircase Nim, an **ordered** sequence of coin counts on steps 1..n;
//! - [`Welter`]: Welter's game, a **set** of distinct non-negative heaps;
//! - [`Raise`]: Nim with raising (`raise:C`), a multiset of heaps in which a heap may also
//!   grow by one token up to `C`: a **loopy** game, whose positions may be draws;
//! - [`Hypergraph`]: Hypergraph Nim (`hyper:N:EDGES`), a **row** of n labelled heaps, a
//!   move lowering every heap of one edge;
//! - [`Defined`]: a game whose moves a program defines (the Python package's
//!   `nimdb.define`), in one of the layouts above.

mod defined;
mod heaps;
mod hyper;
mod raise;
mod staircase;
mod welter;

pub use defined::{BadName, Defined, MAX_DEFINED_NAME, canonical_capped, canonical_in, show_tuple};
pub use hyper::{Hypergraph, MAX_HYPER_HEAPS};
pub use raise::Raise;
pub use staircase::Staircase;
pub use welter::Welter;
