//! `nimdb info`.

use std::process::ExitCode;

use clap::Args;

/// Arguments of `nimdb info`.
#[derive(Debug, Args)]
pub struct InfoArgs {}

/// Runs `nimdb info`.
pub fn run(_args: InfoArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("nimdb info is not built yet")
}
