//! Arguments shared by several subcommands.

use std::path::PathBuf;

use clap::Args;

use nimdb::game::{Convention, Game, GameSpec};

/// The heap game of `game` (its sums-of-heaps capability), or a refusal that says why the
/// command needs one.
pub fn heap_game<'g>(game: &'g Game, command: &str) -> anyhow::Result<&'g GameSpec> {
    game.heaps().ok_or_else(|| {
        anyhow::anyhow!(
            "{command} takes heap games only: {game} is not a sum of heaps (its positions are not a bag of independent heaps)"
        )
    })
}

/// Parses `--game` for a command that takes every game (the refusal of an unknown name
/// names every family: the library's own words).
pub(super) fn parse_any_game(s: &str) -> Result<Game, String> {
    s.parse().map_err(|e: nimdb::game::SpecError| e.reason().to_string())
}

/// Parses `--game` for a command that reads stored solves (`query`, `export`): every game,
/// and `defined:NAME`, a game defined in Python, found by its stored solve.
pub(super) fn parse_stored_game(s: &str) -> Result<Game, String> {
    Game::parse_stored(s).map_err(|e| e.reason().to_string())
}

/// `--game G [--misere]`.
#[derive(Debug, Clone, Args)]
pub struct GameArgs {
    #[arg(long, short = 'g', help = nimdb::game::any_game_help(), value_parser = parse_any_game)]
    pub game: Game,
    /// Play the misère convention (the last move loses).
    #[arg(long)]
    pub misere: bool,
}

impl GameArgs {
    /// The convention picked by `--misere`.
    pub fn convention(&self) -> Convention {
        Convention::from_misere(self.misere)
    }
}

/// `--db FILE`, defaulting to `$NIMDB_DB` or `nimdb.sqlite`.
#[derive(Debug, Clone, Args)]
pub struct DbArg {
    /// The database file.
    #[arg(long, env = "NIMDB_DB", default_value = "nimdb.sqlite")]
    pub db: PathBuf,
}
