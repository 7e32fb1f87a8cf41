//! `nimdb tree`.

use std::process::ExitCode;

use clap::Args;

/// Arguments of `nimdb tree`.
#[derive(Debug, Args)]
pub struct TreeArgs {}

/// Runs `nimdb tree`.
pub fn run(_args: TreeArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("nimdb tree is not built yet")
}
