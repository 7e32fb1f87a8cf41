//! Theory: Bouton's rule, single-heap nim-value sequences, periodicity and misère genus.
//!
//! Everything here is computed from a heap's own moves, independently of the position
//! database, so that the database can be checked against it:
//! * [`bouton`]: normal and misère Nim, Sprague–Grundy on nim-values;
//! * [`sequence`]: nim-value sequences g(0..=N) (reference mex and the fast engines);
//! * [`shape`], [`sparse`]: the move shape and the rare/common method behind the fast engine;
//! * [`cost`]: what a sequence costs, predicted before it is computed (the plain mex's and
//!   the plain method's options read, in closed form, and the memory held);
//! * [`rare`]: the rare-pair engine (sparse-space codes with no period, such as 0.161 and
//!   Grundy's game), one stopping scan per heap over values kept in u8/u16/u32;
//! * [`period`]: periods and preperiods, with the Guy–Smith certificate;
//! * [`misere`], [`genus`]: misère nim-values of positions and Conway's genus of heaps;
//! * [`cache`]: what a cache of single-heap values holds (the table itself is the store's);
//! * [`report`]: everything about a game's heaps up to N, as `nimdb heaps` prints it, whole
//!   or a stretch at a time ([`report::HeapStream`]);
//! * [`space_values`]: the nim-value of every position of any acyclic family's space, by
//!   mex in tier order (what a conjectured formula is tested against);
//! * [`stop`]: asking a long nim-value computation to stop ([`Stop`]), which then gives back
//!   the values it finished ([`Stopped`]);
//! * [`quotient`]: misère quotients (Plambeck–Siegel), computed, certified and used to answer
//!   misère positions of any size;
//! * [`moore`], [`wythoff`]: the outcome rules of the families that are not sums of heaps
//!   (Moore's theorem for Nim_k, Wythoff's pairs for two heaps);
//! * [`exact_nim`]: the nim-value of exact k-Nim with 2k > n, its longest play (Boros,
//!   Gurvich, Ho, Makino and Mursić);
//! * [`decide`](mod@decide): which theorem decides a position, with its outcome and a winning move;
//! * [`lowering`], [`quotient_play`]: winning moves straight from the theorems, for heaps
//!   of any size that fits in u64 (Bouton, Moore and Wythoff lower heaps; a misère quotient
//!   finds its first winning move without listing moves).
//!
//! Speed: finite octal codes stop computing as soon as the values carry a Guy–Smith
//! certificate (Kayles and Dawson's Kayles at heap 256) and copy the rest, which the theorem
//! makes exact; before that, and for games with no period (Grundy's game), the rare/common
//! method of [`sparse`] does the work (Kayles to 10⁶ in about 0.1 s without the shortcut).
#![warn(missing_docs)]

use nimdb_core::game;
#[cfg(test)]
use nimdb_solve as solve;

pub mod bouton;
pub mod cache;
pub mod cost;
pub mod decide;
pub mod exact_nim;
pub mod families;
pub mod genus;
pub mod lowering;
pub mod misere;
pub mod moore;
pub mod period;
pub mod quotient;
pub mod quotient_play;
pub mod rare;
pub mod recent;
pub mod report;
pub mod sequence;
pub mod shape;
pub mod space_values;
pub mod sparse;
pub mod sparse_space;
pub mod stop;
pub mod wythoff;

mod mex;

pub use bouton::{
    NimMove, bouton_loss, bouton_move, misere_nim_loss, misere_nim_move, misere_nim_rule, nim_loss, nim_sum,
    normal_nim_loss, normal_nim_move, position_nim_value, sprague_grundy_loss, tame_misere_loss,
};
pub use decide::{Decision, Theorem, decide};
pub use genus::{Genus, GenusSolver, tame_sum_loss};
pub use lowering::Lowering;
pub use misere::MisereSolver;
pub use moore::{moore_loss, moore_loss_u64, moore_move};
pub use period::{Periodicity, analyse};
pub use report::{HeapOptions, HeapReport, TheoryError, heap_report, heap_report_from};
pub use sequence::{mex_values, nim_values};
pub use stop::{Stop, StopOnDrop, Stopped};
pub use wythoff::{wythoff_loss, wythoff_loss_u64, wythoff_move};
