//! `nimdb query`.

use std::process::ExitCode;

use clap::Args;

/// Arguments of `nimdb query`.
#[derive(Debug, Args)]
pub struct QueryArgs {}

/// Runs `nimdb query`.
pub fn run(_args: QueryArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("nimdb query is not built yet")
}
