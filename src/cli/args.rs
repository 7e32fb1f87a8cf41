//! Arguments shared by several subcommands.

use std::path::PathBuf;

use clap::Args;

use nimdb::game::{Convention, GameSpec, SpacedGame, SpacedSpecError};

/// A game of either kind: a heap game (the multiset families) or a family that owns its
/// position space (staircase, welter, raise:C).
#[derive(Debug, Clone)]
pub enum AnyGame {
    /// A heap game.
    Heaps(GameSpec),
    /// A spaced family.
    Spaced(SpacedGame),
}

impl AnyGame {
    /// The heap game, or a refusal naming the commands that take a spaced family.
    pub fn heaps(&self, command: &str) -> anyhow::Result<&GameSpec> {
        match self {
            AnyGame::Heaps(g) => Ok(g),
            AnyGame::Spaced(s) => anyhow::bail!(
                "{command} does not take {s} yet: its positions are not heaps of one bag \
                 (solve, query and verify take it)"
            ),
        }
    }
}

/// Parses `--game` for a command that takes spaced families too.
pub(super) fn parse_any_game(s: &str) -> Result<AnyGame, String> {
    match s.parse::<SpacedGame>() {
        Ok(g) => Ok(AnyGame::Spaced(g)),
        Err(e @ SpacedSpecError::Cap(_)) => Err(e.to_string()),
        Err(SpacedSpecError::Unknown) => parse_game(s).map(AnyGame::Heaps),
    }
}

/// `--game G [--misere]`.
#[derive(Debug, Clone, Args)]
pub struct GameArgs {
    #[arg(long, short = 'g', help = nimdb::game::any_game_help(), value_parser = parse_any_game)]
    pub game: AnyGame,
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
