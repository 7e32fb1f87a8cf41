//! The bottom layer of nimdb: what a game is and where its positions live.
//!
//! * [`game`]: heap games (Nim, subtraction, octal and hexadecimal codes, Grundy's game,
//!   Moore's Nim_k, Wythoff) and the other families (Staircase Nim, Welter's game, a loopy
//!   Nim), their positions, moves and rules;
//! * [`index`]: position spaces, tier by tier: the rank of a position inside its tier and
//!   back;
//! * [`footprint`]: what a solve's tiers take on disk, the database's growth and its
//!   write-ahead log's peak, bounded from above;
//! * [`mex`]: the minimum excluded value of a list of nim-values;
//! * [`resources`]: the memory and disk the machine offers, which every command that may be
//!   large checks before it starts.
//!
//! Every other crate of nimdb (theory, solver, store, and the faces in `nimdb`) builds on
//! this one; nothing here knows of them.
#![warn(missing_docs)]

pub mod footprint;
pub mod game;
pub mod index;
pub mod mex;
pub mod resources;
