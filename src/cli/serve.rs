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
    /// Lookup threads [default: the number of cores].
    #[arg(long, value_name = "N")]
    workers: Option<usize>,
}

/// Runs `nimdb serve` until SIGINT or SIGTERM.
pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let workers =
        args.workers.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())).max(1);
    serve(Config { db: args.db.db, addr: args.addr, solve_up_to: args.solve_up_to, workers })?;
    Ok(ExitCode::SUCCESS)
}
