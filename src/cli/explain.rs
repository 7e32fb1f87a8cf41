//! `nimdb explain`: Nim's binary-column rule for one position, normal or misère.

use std::process::ExitCode;

use clap::Args;

use nimdb::explain::{ExplainError, explain, parse_heaps_in_order};
use nimdb::game::{Convention, GameSpec};

/// Arguments of `nimdb explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The game; only nim is explained by binary columns.
    #[arg(long, short = 'g', value_parser = super::args::parse_game, default_value = "nim")]
    game: GameSpec,
    /// Explain misère Nim (the last move loses).
    #[arg(long)]
    misere: bool,
    /// The heaps, in the order to show them: `3 4 7`, `3,4,7` or `[3,4,7]`.
    #[arg(value_name = "HEAPS", num_args = 0.., allow_negative_numbers = true)]
    heaps: Vec<String>,
}

/// Runs `nimdb explain`.
pub fn run(args: ExplainArgs) -> anyhow::Result<ExitCode> {
    if !args.game.is_nim() {
        anyhow::bail!(
            "explain covers Nim only (the binary-column rule is Bouton's theorem for Nim), not {}; \
             try nimdb tree --game {} HEAPS",
            args.game,
            args.game
        );
    }
    let heaps = parse_heaps_in_order(&args.heaps)?;
    let explanation = explain(&heaps, Convention::from_misere(args.misere)).map_err(|e| match e {
        ExplainError::NoHeaps => anyhow::anyhow!("{e} (e.g. nimdb explain 3 4 7)"),
        other => other.into(),
    })?;
    print!("{explanation}");
    Ok(ExitCode::SUCCESS)
}
