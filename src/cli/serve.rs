//! `nimdb serve`: the HTTP API and the web explorer.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use nimdb::server::schedule::{self, Limits};
use nimdb::server::{Config, listen, serve};

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
    /// Threads for stored lookups, and as many for theorem answers (1..=64) [default: the
    /// number of cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=schedule::MAX_WORKERS as i64))]
    workers: Option<u16>,
    /// Threads for answers computed on the spot: heap values, long move lists, slices,
    /// quotients (1..=64).
    #[arg(long, value_name = "N", default_value_t = schedule::DEFAULT_THEORY_WORKERS as u16,
          value_parser = clap::value_parser!(u16).range(1..=schedule::MAX_WORKERS as i64))]
    theory_workers: u16,
    /// The CPU seconds one request's work may take; past them it is stopped and answered
    /// 422 (up to 3600).
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = cpu_seconds)]
    cpu_limit: Duration,
    /// The requests each pool (lookups, theorem answers, computed answers) holds waiting;
    /// one more is answered 503 at once (1..=4096).
    #[arg(long, value_name = "N", default_value_t = schedule::DEFAULT_QUEUE as u16,
          value_parser = clap::value_parser!(u16).range(1..=schedule::MAX_QUEUE as i64))]
    queue: u16,
    /// The seconds a client may take to send a request's head, or stay idle between
    /// requests, before its connection is closed (up to 3600).
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = timeout_seconds)]
    header_timeout: Duration,
    /// The seconds a client may take to send a request's body before it is answered 408
    /// (up to 3600).
    #[arg(long, value_name = "SECONDS", default_value = "10", value_parser = timeout_seconds)]
    body_timeout: Duration,
}

/// Seconds more than 0 and at most `max`, as a duration.
fn positive_seconds(text: &str, max: f64) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s <= max => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!("'{text}' is not a number of seconds more than 0 and at most {max}")),
    }
}

fn cpu_seconds(text: &str) -> Result<Duration, String> {
    positive_seconds(text, schedule::MAX_CPU_SECONDS)
}

fn timeout_seconds(text: &str) -> Result<Duration, String> {
    positive_seconds(text, listen::MAX_TIMEOUT_SECONDS)
}

/// `--solve-total` is this many times `--solve-up-to` unless given.
const DEFAULT_TOTAL_FACTOR: u64 = 20;

/// Runs `nimdb serve` until SIGINT or SIGTERM.
pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let mut config = Config::new(args.db.db, args.addr);
    if let Some(n) = args.workers {
        config.workers = n.into();
    }
    config.theory_workers = args.theory_workers.into();
    config.solve_up_to = args.solve_up_to;
    config.solve_total =
        args.solve_total.or(args.solve_up_to.map(|n| n.saturating_mul(DEFAULT_TOTAL_FACTOR)));
    config.limits = Limits { cpu: args.cpu_limit, queue: args.queue.into() };
    config.header_timeout = args.header_timeout;
    config.body_timeout = args.body_timeout;
    serve(config)?;
    Ok(ExitCode::SUCCESS)
}
