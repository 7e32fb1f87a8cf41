//! `nimdb explain`: Nim's binary-column rule for one position, normal or misère.

use std::process::ExitCode;

use clap::Args;

use nimdb::explain::{ExplainError, explain_position};
use nimdb::game::{Convention, Game};

/// Arguments of `nimdb explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The game: nim, or staircase (normal play), whose odd steps play Nim; both are
    /// explained by binary columns.
    #[arg(long, short = 'g', value_parser = super::args::parse_any_game, default_value = "nim")]
    game: Game,
    /// Explain misère Nim (the last move loses).
    #[arg(long)]
    misere: bool,
    /// The heaps, in the order to show them: `3 4 7`, `3,4,7` or `[3,4,7]`.
    #[arg(value_name = "HEAPS", num_args = 0.., allow_negative_numbers = true)]
    heaps: Vec<String>,
}

/// Runs `nimdb explain`.
pub fn run(args: ExplainArgs) -> anyhow::Result<ExitCode> {
    let convention = Convention::from_misere(args.misere);
    let explanation = explain_position(&args.game, convention, &args.heaps).map_err(|e| match e {
        ExplainError::NoHeaps => {
            anyhow::anyhow!("{e} (e.g. nimdb explain --game {} {})", args.game, args.game.example_position())
        }
        other => other.into(),
    })?;
    print!("{explanation}");
    Ok(ExitCode::SUCCESS)
}
