//! `nimdb values`: the nim-value of every position of a universe, computed by mex in tier
//! order (no database): for any acyclic family, what a conjectured Sprague–Grundy formula
//! is tested against.

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use clap::Args;

use nimdb::space::{space_bounds, space_of};
use nimdb::theory::Stop;
use nimdb::theory::space_values::space_nim_values;

use super::args::GameArgs;
use super::words;

/// Arguments of `nimdb values`.
#[derive(Debug, Args)]
pub struct ValuesArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Every position whose tier total is at most this (tokens; for staircase the weighted
    /// sum of the steps).
    #[arg(long, short = 't')]
    max_total: Option<u32>,
    /// Only positions with at most this many heaps.
    #[arg(long)]
    max_heaps: Option<u32>,
    /// Only positions whose heaps are all at most this size (a hypergraph's row: the box of
    /// its n heaps, total n × this unless --max-total is smaller).
    #[arg(long)]
    max_heap: Option<u32>,
}

/// Runs `nimdb values`: prints `position,nim_value`, one line a position, in solve order.
pub fn run(args: ValuesArgs) -> anyhow::Result<ExitCode> {
    let game = &args.game.game;
    let bounds = space_bounds(game, args.max_total, args.max_heap, args.max_heaps)
        .map_err(|e| anyhow::anyhow!("{e} (--max-total N, --max-heaps K; --max-heap H for a hypergraph)"))?;
    let space = space_of(game, bounds).map_err(words::space)?;
    let positions = space.positions();
    // Four bytes a position, held while they are computed.
    anyhow::ensure!(
        positions <= 500_000_000,
        "{positions} positions is more than values computes in memory (at most 500,000,000): lower --max-total"
    );
    let values = space_nim_values(game.family(), space.as_ref(), args.game.convention(), &Stop::never())?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut written = writeln!(out, "position,nim_value");
    values.for_each(space.as_ref(), |position, value| {
        if written.is_ok() {
            let counts: Vec<String> = position.iter().map(u32::to_string).collect();
            written = writeln!(out, "{},{value}", counts.join(" "));
        }
    });
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        r => r.map(|()| ExitCode::SUCCESS).map_err(Into::into),
    }
}
