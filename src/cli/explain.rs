//! `nimdb explain`: Nim's binary-column rule for one position, normal or misère.

use std::process::ExitCode;

use clap::Args;

use nimdb::explain::{ExplainError, explain, explain_staircase, parse_heaps_in_order};
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
    if let Game::Staircase(stairs) = &args.game {
        if args.misere {
            anyhow::bail!(
                "explain covers Staircase Nim under normal play (its odd steps play Nim); under misère \
                 play no such rule is stated here: nimdb query --game staircase --misere answers from \
                 the database"
            );
        }
        let steps = Game::Staircase(*stairs)
            .parse_position(&args.heaps)
            .map_err(|e| anyhow::anyhow!("bad position: {e}"))?;
        let explanation = explain_staircase(&steps).map_err(|e| match e {
            ExplainError::NoHeaps => {
                anyhow::anyhow!("give the coins on each step, e.g. nimdb explain --game staircase 3 0 2 5")
            }
            other => other.into(),
        })?;
        print!("{explanation}");
        return Ok(ExitCode::SUCCESS);
    }
    if !matches!(&args.game, Game::Heaps(g) if g.is_nim()) {
        // A loopy game has no finite tree: its moves and values come from query.
        let other = if args.game.family().loopy() { "query --moves" } else { "tree" };
        // Say which theorem decides the game, if any: query answers from it.
        let theorem = match args.game.family().formula(Convention::from_misere(args.misere)) {
            Some(f) => format!("{} decides it (nimdb query answers from it)", f.name()),
            None => "no theorem decides it".to_string(),
        };
        anyhow::bail!(
            "explain covers Nim and Staircase Nim only (the binary-column rule: Bouton's theorem, and \
             the odd steps of a staircase), not {}, where {theorem}; \
             try nimdb {other} --game {} HEAPS",
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
