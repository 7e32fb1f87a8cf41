//! Arguments shared by several subcommands.

use std::path::PathBuf;

use clap::Args;

use nimdb::game::{Convention, GameSpec};

/// `--game G [--misere]`.
#[derive(Debug, Clone, Args)]
pub struct GameArgs {
    #[arg(long, short = 'g', help = nimdb::game::GAME_HELP, value_parser = parse_game)]
    pub game: GameSpec,
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

/// Parses `--game`, refusing with what is wrong with the spec (clap names the spec).
pub(super) fn parse_game(s: &str) -> Result<GameSpec, String> {
    // clap's message already names the value given: say only what is wrong with it.
    s.parse().map_err(|e: nimdb::game::SpecError| e.reason().to_string())
}

/// `--db FILE`, defaulting to `$NIMDB_DB` or `nimdb.sqlite`.
#[derive(Debug, Clone, Args)]
pub struct DbArg {
    /// The database file [default: $NIMDB_DB, else nimdb.sqlite].
    #[arg(long, env = "NIMDB_DB", default_value = "nimdb.sqlite")]
    pub db: PathBuf,
}
