//! `nimdb explain`.

use std::process::ExitCode;

use clap::Args;

/// Arguments of `nimdb explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {}

/// Runs `nimdb explain`.
pub fn run(_args: ExplainArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("nimdb explain is not built yet")
}
