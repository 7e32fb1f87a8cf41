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
    let mut solves = db.solves()?;
    solves.sort_by_key(|s| s.id);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&solves)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}: {} solve(s)", db.path().display(), solves.len());
    if db.schema_version() < nimdb::store::SCHEMA_VERSION as i64 {
        println!(
            "schema version {} (read as it is): its checksums are plain CRC-32s, not bound to each tier's identity; the first nimdb command that writes to it upgrades it",
            db.schema_version()
        );
    }
    for u in db.checksum_upgrades()? {
        println!(
            "checksums recomputed on {} UTC by {}, upgrading schema version {} to {}: {} tier(s) and {} quotient(s) bound to their identity, {} tier(s) and {} quotient(s) failed their old checksums (refused when read); `nimdb verify --full` checks the positions themselves",
            u.upgraded_at,
            u.engine,
            u.from_version,
            u.to_version,
            u.tiers_rebound,
            u.quotients_rebound,
            u.tiers_failed,
            u.quotients_failed
        );
    }
    super::quotient::print_stored(&db)?;
    if solves.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let header = ["id", "game", "conv", "bounds", "status", "positions", "losses", "disk", "time"];
    // Text columns are left-aligned, numbers right-aligned; widths fit the longest cell.
    let right = [true, false, false, false, false, true, true, true, true];
    let mut rows = vec![header.map(String::from).to_vec()];
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
        rows.push(vec![
            s.id.to_string(),
            s.game.clone(),
            s.convention.as_str().to_string(),
            bounds,
            status,
            s.positions.to_string(),
            s.losses.to_string(),
            mb(s.bytes),
            format!("{:.2}s", s.solve_seconds),
        ]);
    }
    let widths: Vec<usize> =
        (0..header.len()).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .zip(right)
            .map(|((cell, &w), right)| if right { format!("{cell:>w$}") } else { format!("{cell:<w$}") })
            .collect();
        println!("{}", cells.join("  ").trim_end());
    }
    Ok(ExitCode::SUCCESS)
}
