//! `nimdb play`.

use std::process::ExitCode;

use clap::Args;

/// Arguments of `nimdb play`.
#[derive(Debug, Args)]
pub struct PlayArgs {}

/// Runs `nimdb play`.
pub fn run(_args: PlayArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("nimdb play is not built yet")
}
