//! `nimdb heaps`.

use std::process::ExitCode;

use clap::Args;

/// Arguments of `nimdb heaps`.
#[derive(Debug, Args)]
pub struct HeapsArgs {}

/// Runs `nimdb heaps`.
pub fn run(_args: HeapsArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("nimdb heaps is not built yet")
}
