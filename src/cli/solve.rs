//! `nimdb solve`.

use std::process::ExitCode;

use clap::Args;

/// Arguments of `nimdb solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {}

/// Runs `nimdb solve`.
pub fn run(_args: SolveArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("nimdb solve is not built yet")
}
