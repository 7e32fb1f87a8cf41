//! What identifies a solve: the key of a `solves` row, which the tier codec binds each tier's
//! checksums to and every table room looks solves up by. A leaf, below the codec and the
//! tables.

use nimdb_core::game::{Convention, GameSpec};
use nimdb_core::index::Universe;

/// What identifies a solve: the game, the convention, the caps of its universe and whether
/// it stores nim-values. Its total can grow; every stored tier stays valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolveKey {
    /// The game as the `solves` row keys it: its storage id
    /// ([`GameSpec::storage_id`]; a display name in a database older than schema version 7).
    pub game: String,
    /// Convention.
    pub convention: Convention,
    /// Heap size cap, if any.
    pub max_heap: Option<u32>,
    /// Heap count cap, if any.
    pub max_heaps: Option<u32>,
    /// Whether records hold nim-values.
    pub nim_values: bool,
}

impl SolveKey {
    /// The key of a solve of `game` over `universe`.
    pub fn new(game: &GameSpec, convention: Convention, universe: &Universe, nim_values: bool) -> Self {
        SolveKey {
            game: game.storage_id(),
            convention,
            max_heap: universe.max_heap,
            max_heaps: universe.max_heaps,
            nim_values,
        }
    }

    /// The key as stored in a `solves` row's columns.
    pub fn from_columns(
        game: String,
        convention: &str,
        max_heap: Option<u32>,
        max_heaps: Option<u32>,
        nim_values: bool,
    ) -> Self {
        SolveKey {
            game,
            convention: Convention::parse(convention).unwrap_or(Convention::Normal),
            max_heap,
            max_heaps,
            nim_values,
        }
    }
}
