//! Games: the rules of an impartial heap game, its play convention, positions and moves.
//!
//! A game is fully described by how one heap may be replaced by zero, one or two heaps
//! ([`HeapRules`]). Everything else (move generation on whole positions, un-moves for the
//! retrograde solver, theory) is derived from that one trait, so a new rule family is one
//! new type implementing it.

mod convention;
mod moves;
mod position;
mod rules;
mod spec;

pub use convention::Convention;
pub use moves::{HeapResult, Move, MoveTable, all_moves, heap_results, result_bound};
pub use position::{MAX_INPUT_HEAP, Position};
pub use rules::{GrundyRules, HeapRules, OctalCode, Rules, RulesVisitor};
pub use spec::GameSpec;
