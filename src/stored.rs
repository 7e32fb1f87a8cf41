//! The stored solves of any game, and every position they hold: what `export` (the
//! command and the Python package's) reads, one path for every game.
//!
//! A solve's records are read in its game's own space: a heap game's tiers are walked in
//! the multiset universe's rank order, a family's in its position space's. Which space
//! is the game's business ([`Game::heaps`] picks the first); a face only names the game or
//! the solve.

use crate::game::{Convention, DRAW, Game, Outcome};
use crate::space::SpaceError;
use crate::store::{Database, ExportFilter, SolveRecord, StoreError};

/// One stored position of a solve, as [`for_each_stored`] gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredPosition<'a> {
    /// The position in the game's notation (a heap game's heaps largest first; a
    /// staircase's coins on steps 1, 2, …).
    pub position: &'a [u32],
    /// Win, loss or draw for the player to move.
    pub outcome: Outcome,
    /// Moves to the end with best play; `None` for a draw.
    pub remoteness: Option<u16>,
    /// The nim-value (misère nim-value under misère play), when the solve stores them.
    pub nim_value: Option<u16>,
}

/// Why a solve was not read for a game.
#[derive(Debug, thiserror::Error)]
pub enum StoredError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The solve's records cannot be read in its space.
    #[error(transparent)]
    Space(#[from] SpaceError),
    /// No solve has this id.
    #[error("no solve #{0}")]
    NoSuchSolve(i64),
    /// The solve is of a game this build does not know (a newer nimdb stored it).
    #[error("solve #{solve} is a solve of {game}, a game this build of nimdb does not know")]
    UnknownGame {
        /// The solve.
        solve: i64,
        /// Its game, as stored.
        game: String,
    },
    /// No solve of a game defined in Python under this name is stored.
    #[error(
        "no solve of a game named {0} defined in Python is stored here (define it with nimdb.define and solve it with Database.solve)"
    )]
    NoDefined(String),
    /// A position the resolved game's layout refuses.
    #[error("{0}")]
    BadPosition(String),
    /// The solve is of another game than the one named.
    #[error("solve #{solve} is a solve of {of}, not of {asked}")]
    OtherGame {
        /// The solve.
        solve: i64,
        /// Its game.
        of: String,
        /// The game named.
        asked: String,
    },
}

/// `game` as the database knows it: a game defined in Python named on a command line
/// (`defined:NAME`) becomes the game of its stored solves (their layout, loopiness, cap and
/// fingerprint, read from their storage id; its moves are not known here). Every other game
/// is itself. `db` is `None` when there is no database file yet.
pub fn resolve(db: Option<&Database>, game: &Game) -> Result<Game, StoredError> {
    let Some(name) = game.unresolved_name() else { return Ok(game.clone()) };
    let prefix = crate::game::Defined::storage_prefix(name);
    let stored = match db {
        Some(db) => db.solves()?,
        None => Vec::new(),
    };
    // One set of rules is stored under a name (the Python package refuses another).
    stored
        .iter()
        .filter(|s| s.game_id.starts_with(&prefix))
        .find_map(|s| Game::from_storage_id(&s.game_id))
        .ok_or_else(|| StoredError::NoDefined(name.to_string()))
}

/// For a game defined in Python named alone (`defined:NAME`): the game of its stored solve
/// ([`resolve`]) and `cells` (read in the order written) put in that game's canonical form.
/// `None` for every other game, which is itself (nothing cloned on a lookup's path).
pub fn resolve_position(
    db: Option<&Database>,
    game: &Game,
    cells: &[u64],
) -> Result<Option<(Game, Vec<u64>)>, StoredError> {
    if game.unresolved_name().is_none() {
        return Ok(None);
    }
    let resolved = resolve(db, game)?;
    let cells =
        resolved.position_from_counts(cells.to_vec()).map_err(|e| StoredError::BadPosition(e.to_string()))?;
    Ok(Some((resolved, cells)))
}

/// The stored solves of `game` under `convention`, oldest first.
pub fn solves_of(db: &Database, game: &Game, convention: Convention) -> Result<Vec<SolveRecord>, StoreError> {
    match game.heaps() {
        // A database older than schema version 7 keys a heap game by its name: the store
        // finds it under either.
        Some(spec) => db.solves_of(spec, convention),
        None => db.solves_stored_as(&game.storage_id(), convention),
    }
}

/// The largest stored solve of `game` under `convention` (most positions, then the oldest):
/// what an export reads when no solve is named.
pub fn largest_solve(
    db: &Database,
    game: &Game,
    convention: Convention,
) -> Result<Option<SolveRecord>, StoreError> {
    Ok(solves_of(db, game, convention)?.into_iter().max_by_key(|s| (s.positions, -s.id)))
}

/// Solve `id` and its game; when `game` is named too, the solve must be of it.
pub fn solve_by_id(db: &Database, id: i64, game: Option<&Game>) -> Result<(SolveRecord, Game), StoredError> {
    let solve = db.solves()?.into_iter().find(|s| s.id == id).ok_or(StoredError::NoSuchSolve(id))?;
    // The game named, when the solve is its own: it may carry what the stored id does not
    // (a game defined in Python keeps its moves).
    if let Some(asked) = game.filter(|g| g.storage_id() == solve.game_id) {
        return Ok((solve, asked.clone()));
    }
    let of = game_of(&solve)?;
    match game {
        Some(asked) if asked.storage_id() != of.storage_id() => {
            Err(StoredError::OtherGame { solve: id, of: of.to_string(), asked: asked.to_string() })
        }
        _ => Ok((solve, of)),
    }
}

/// The game a stored solve is of: by its storage id, or, in a database older than schema
/// version 7, by the name it was stored under.
pub fn game_of(solve: &SolveRecord) -> Result<Game, StoredError> {
    Game::from_storage_id(&solve.game_id)
        .or_else(|| solve.game.parse().ok())
        .ok_or_else(|| StoredError::UnknownGame { solve: solve.id, game: solve.game.clone() })
}

/// Checks that `solve` of `game` can be read (a family's bounds give a space its records can
/// be ranked in): a face calls this before it writes anything, so that a damaged solve is
/// refused with nothing written.
pub fn check_readable(game: &Game, solve: &SolveRecord) -> Result<(), StoredError> {
    if game.heaps().is_none() {
        crate::space::check_stored(game, solve)?;
    }
    Ok(())
}

/// Calls `row` with every stored position of `solve` (a solve of `game`) that passes
/// `filter`, tier by tier and in rank order within a tier, one checksummed block at a time
/// (constant memory). `filter.losses_only` keeps the losses (not the draws);
/// `filter.max_total` bounds the tier total. Returns the rows given; stops at the first
/// error `row` returns.
pub fn for_each_stored<E: From<StoredError>>(
    db: &Database,
    game: &Game,
    solve: &SolveRecord,
    filter: ExportFilter,
    mut row: impl FnMut(StoredPosition<'_>) -> Result<(), E>,
) -> Result<u64, E> {
    let convention = solve.convention;
    let outcome = |r: u16| match r {
        DRAW if game.family().loopy() => Outcome::Draw,
        r if convention.is_win(r as u32) => Outcome::Win,
        _ => Outcome::Loss,
    };
    /// Carries `row`'s own error through a reader whose error type is the store's.
    enum Failed<E> {
        Row(E),
        Read(StoredError),
    }
    impl<E> From<StoreError> for Failed<E> {
        fn from(e: StoreError) -> Self {
            Failed::Read(e.into())
        }
    }
    impl<E> From<SpaceError> for Failed<E> {
        fn from(e: SpaceError) -> Self {
            Failed::Read(e.into())
        }
    }
    let read = match game.heaps() {
        Some(_) => db.for_each_stored(solve, filter, |heaps, record| {
            let o = outcome(record.remoteness);
            let position = StoredPosition {
                position: heaps,
                outcome: o,
                remoteness: (o != Outcome::Draw).then_some(record.remoteness),
                nim_value: record.nim_value,
            };
            row(position).map_err(Failed::Row)
        }),
        None => crate::space::for_each_stored_in_space(db, game, solve, filter, |position, r| {
            let o = outcome(r);
            let position = StoredPosition {
                position,
                outcome: o,
                remoteness: (o != Outcome::Draw).then_some(r),
                nim_value: None,
            };
            row(position).map_err(Failed::Row)
        }),
    };
    match read {
        Ok(n) => Ok(n),
        Err(Failed::Row(e)) => Err(e),
        Err(Failed::Read(e)) => Err(e.into()),
    }
}
