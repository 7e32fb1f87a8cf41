//! `nimdb serve`: the HTTP API and the web explorer.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Args;

use nimdb::server::{Config, serve};

use super::DbArg;

/// Arguments of `nimdb serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    db: DbArg,
    /// Where to listen (port 0 picks a free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Solve positions no stored solve holds when that takes at most N positions (writes to
    /// the database); without it the server never writes.
    #[arg(long, value_name = "N")]
    solve_up_to: Option<u64>,
    /// The most positions all on-the-spot solves may add up to while the server runs
    /// [default: 20 × --solve-up-to]; past it, a position no stored solve holds is refused.
    #[arg(long, value_name = "N", requires = "solve_up_to")]
    solve_total: Option<u64>,
    /// Lookup threads [default: the number of cores].
    #[arg(long, value_name = "N")]
    workers: Option<usize>,
}

/// `--solve-total` is this many times `--solve-up-to` unless given.
const DEFAULT_TOTAL_FACTOR: u64 = 20;

/// Runs `nimdb serve` until SIGINT or SIGTERM.
pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let workers =
        args.workers.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())).max(1);
    let solve_total = args.solve_total.or(args.solve_up_to.map(|n| n.saturating_mul(DEFAULT_TOTAL_FACTOR)));
    serve(Config { db: args.db.db, addr: args.addr, solve_up_to: args.solve_up_to, solve_total, workers })?;
    Ok(ExitCode::SUCCESS)
}
