//! `nimdb verify`.

use std::process::ExitCode;

use clap::Args;

/// Arguments of `nimdb verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {}

/// Runs `nimdb verify`.
pub fn run(_args: VerifyArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("nimdb verify is not built yet")
}
