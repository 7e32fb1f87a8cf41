//! `nimdb info`.

use std::process::ExitCode;

use clap::Args;

use nimdb::store::{Database, SolveStatus};

use super::words;

use super::DbArg;
use super::solve::mb;

/// Arguments of `nimdb info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    db: DbArg,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `nimdb info`.
pub fn run(args: InfoArgs) -> anyhow::Result<ExitCode> {
    // Reading writes nothing: an empty file stays empty, a read-only directory is fine.
    let db = Database::open_for_reading(&args.db.db)
        .map_err(words::store)?
        .ok_or_else(|| words::store(nimdb::store::StoreError::Missing(args.db.db.clone())))?;
    let solves = db.solves()?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&solves)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}: {} solve(s)", db.path().display(), solves.len());
    super::quotient::print_stored(&db)?;
    if solves.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{:>3}  {:<20} {:<7} {:<30} {:<26} {:>12} {:>10} {:>9} {:>9}",
        "id", "game", "conv", "bounds", "status", "positions", "losses", "disk", "time"
    );
    for s in &solves {
        let status = match s.status {
            SolveStatus::Complete => "complete".to_string(),
            SolveStatus::Partial => match s.last_tier {
                Some(t) => format!("partial up to tier {t}"),
                None => "partial, nothing stored".to_string(),
            },
        };
        let mut bounds = s.target_universe().to_string();
        if s.nim_values {
            bounds += ", nim-values";
        }
        println!(
            "{:>3}  {:<20} {:<7} {:<30} {:<26} {:>12} {:>10} {:>9} {:>8.2}s",
            s.id,
            s.game,
            s.convention.as_str(),
            bounds,
            status,
            s.positions,
            s.losses,
            mb(s.bytes),
            s.solve_seconds
        );
    }
    Ok(ExitCode::SUCCESS)
}
