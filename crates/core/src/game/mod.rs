//! Games: the rules of an impartial game on heaps, its play convention, positions and moves.
//!
//! The game model ([`GameRules`] for people and programs, [`TierRules`] for the tier
//! solvers) is what every rule family implements; everything downstream (solvers, queries,
//! play, trees, verify) works through it. Heap games, where a move replaces one heap by up
//! to three ([`HeapRules`]: octal and hexadecimal codes, subtraction games, Grundy's game),
//! get the model from their heap rules through one implementation. Families whose moves
//! change several heaps ([`MooreRules`], [`WythoffRules`]) implement it directly. A new
//! family is one new type implementing the model, a variant of [`Rules`] and its spec
//! syntax in [`GameSpec`]. Positions with heaps beyond what a database reaches, which only
//! theorems answer, are [`BigPosition`]s.

mod any_game;
mod big;
mod convention;
mod echo;
mod families;
mod family;
mod heap_game;
mod model;
mod moore;
mod moves;
mod outcome;
mod position;
mod rule_set;
mod rules;
mod spec;
mod stated;
mod words;
mod wythoff;

pub use any_game::{BadPosition, Game, MAX_RAISE_CAP, parse_heap_game};
pub use big::{BigChange, BigMove, BigPosition};
pub use convention::Convention;
pub use echo::echo;
pub use families::{
    BadName, Defined, Hypergraph, MAX_DEFINED_NAME, MAX_HYPER_HEAPS, Raise, Staircase, Welter,
    canonical_capped, canonical_in, show_tuple,
};
pub use family::{
    DRAW, Family, LabelledMove, MAX_COUNT, MOVES_WORK_LIMIT, PositionError, SpaceLayout, moves_fit,
};
pub use model::{
    Formula, GameRules, HeapCountChange, ParentBounds, Theory, TierRules, all_moves, children_by_tokens,
    for_each_parent, insert_sorted, sort_heaps,
};
pub use moore::{MAX_MOORE_K, MooreRules};
pub use moves::{
    HeapChange, HeapResult, Move, MoveTable, for_each_three, heap_moves, heap_results, result_bound,
};
pub use outcome::Outcome;
pub use position::{HeapListError, MAX_INPUT_HEAP, Position, parse_counts};
pub use rule_set::{Rules, RulesVisitor};
pub use rules::{CodeError, GrundyRules, HeapFamily, HeapRules, TakeBreakCode};
pub use spec::{FAMILY_FORMS, GAME_FORMS, GAME_HELP, GameSpec, SpecError, any_game_help};
pub use stated::{Claim, Claimed, Stated};
pub use words::rules_in_words;
pub use wythoff::WythoffRules;
