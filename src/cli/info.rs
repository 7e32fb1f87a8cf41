//! `nimdb info`.

use std::process::ExitCode;

use clap::Args;

use nimdb::store::{Database, RunOutcome, SolveHistory, SolveRun, SolveStatus};

use super::words;

use super::DbArg;
use super::cost::mb;

/// Arguments of `nimdb info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    db: DbArg,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Also list every recorded run of every solve: when, what it committed, its time, rate,
    /// peak memory and how it ended.
    #[arg(long)]
    runs: bool,
}

/// Runs `nimdb info`.
pub fn run(args: InfoArgs) -> anyhow::Result<ExitCode> {
    // Reading writes nothing: an empty file stays empty, a read-only directory is fine.
    let db = Database::open_for_reading(&args.db.db)
        .map_err(words::store)?
        .ok_or_else(|| words::store(nimdb::store::StoreError::Missing(args.db.db.clone())))?;
    let solves = db.solve_histories()?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&solves)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}: {} solve(s)", db.path().display(), solves.len());
    let version = db.schema_version();
    if version < nimdb::store::SCHEMA_VERSION as i64 {
        let mut lacks = Vec::new();
        if version < 5 {
            lacks.push("its checksums are plain CRC-32s, not bound to each tier's identity");
        }
        if !db.records_runs() {
            lacks.push("it has no record of solve runs (rate, peak and runs show as —)");
        }
        if version < nimdb::store::STORAGE_IDS_SINCE_VERSION {
            lacks.push("its games are keyed by the names they had when stored, not by storage ids");
        }
        println!(
            "schema version {version} (read as it is): {}; the first nimdb command that writes to it upgrades it",
            lacks.join(", and ")
        );
    }
    for u in db.checksum_upgrades()? {
        println!(
            "checksums recomputed on {} UTC by {}, upgrading schema version {} to {}: {} tier(s) and {} quotient(s) bound to {}, {} tier(s) and {} quotient(s) failed their old checksums (refused when read); `nimdb verify --full` checks the positions themselves",
            u.upgraded_at,
            u.engine,
            u.from_version,
            u.to_version,
            u.tiers_rebound,
            u.quotients_rebound,
            if u.to_version >= nimdb::store::STORAGE_IDS_SINCE_VERSION {
                "their game's storage id"
            } else {
                "their identity"
            },
            u.tiers_failed,
            u.quotients_failed
        );
    }
    super::quotient::print_stored(&db)?;
    if solves.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let header = [
        "id",
        "game",
        "conv",
        "bounds",
        "status",
        "positions",
        "losses",
        "payload",
        "time",
        "rate",
        "peak",
        "runs",
    ];
    // Text columns are left-aligned, numbers right-aligned; widths fit the longest cell.
    let right = [true, false, false, false, false, true, true, true, true, true, true, true];
    let mut rows = vec![header.map(String::from).to_vec()];
    for h in &solves {
        let s = &h.solve;
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
            h.positions_per_second.map_or(NONE.into(), rate),
            h.peak_memory_bytes.map_or(NONE.into(), mb),
            h.run_count.map_or(NONE.into(), |n| n.to_string()),
        ]);
    }
    print_table(&rows, &right);
    // The counts a solve's row records, against its tiers' rows (an edited or damaged file).
    for h in &solves {
        let s = &h.solve;
        let counts = db.tier_counts(s.id)?;
        let held = counts.values().fold((0i64, 0i64), |(p, l), c| (p + c.positions, l + c.losses));
        if held != (s.positions as i64, s.losses as i64) {
            println!(
                "solve #{} records {} positions and {} losses, but its tiers hold {} and {}: the file was \
                 edited or damaged (`nimdb verify` checks every tier against its records)",
                s.id, s.positions, s.losses, held.0, held.1
            );
        }
    }
    if args.runs {
        print_runs(&solves, db.schema_version());
    }
    Ok(ExitCode::SUCCESS)
}

/// What a cell shows when the database has no such figure.
const NONE: &str = "—";

/// `--runs`: every recorded run, by solve.
fn print_runs(solves: &[SolveHistory], schema_version: i64) {
    println!();
    if solves.iter().all(|h| h.runs.is_none()) {
        println!("runs: not recorded in a database of schema version {schema_version}");
        return;
    }
    println!("runs:");
    let header = [
        "solve",
        "run",
        "started (UTC)",
        "until (UTC)",
        "target",
        "tiers",
        "positions",
        "time",
        "rate",
        "peak",
        "ranks",
        "threads",
        "nimdb",
        "outcome",
    ];
    let right = [true, true, false, false, true, true, true, true, true, true, true, true, false, false];
    let mut rows = vec![header.map(String::from).to_vec()];
    // Runs are numbered within their solve, oldest first (`--json` gives their row ids).
    let numbered = solves.iter().flat_map(|h| h.runs.iter().flatten().enumerate());
    for (nth, run) in numbered {
        let SolveRun { solve_id, started_at, updated_at, target_total, tiers, positions, seconds, .. } = run;
        rows.push(vec![
            solve_id.to_string(),
            (nth + 1).to_string(),
            started_at.clone(),
            updated_at.clone(),
            target_total.to_string(),
            tiers.to_string(),
            positions.to_string(),
            format!("{seconds:.2}s"),
            run.positions_per_second.map_or(NONE.into(), rate),
            run.peak_memory_bytes.map_or(NONE.into(), mb),
            run.processes.to_string(),
            run.threads.to_string(),
            run.nimdb_version.clone(),
            match run.outcome {
                RunOutcome::Running => "running or killed".to_string(),
                other => other.as_str().to_string(),
            },
        ]);
    }
    print_table(&rows, &right);
}

/// Positions per second in short units.
fn rate(per_second: f64) -> String {
    if per_second >= 1e6 {
        format!("{:.2} M/s", per_second / 1e6)
    } else if per_second >= 1e3 {
        format!("{:.1} k/s", per_second / 1e3)
    } else {
        format!("{per_second:.0}/s")
    }
}

/// Prints `rows` (the header first) with each column as wide as its longest cell.
fn print_table(rows: &[Vec<String>], right: &[bool]) {
    let columns = right.len();
    let widths: Vec<usize> =
        (0..columns).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .zip(right)
            .map(|((cell, &w), &right)| if right { format!("{cell:>w$}") } else { format!("{cell:<w$}") })
            .collect();
        println!("{}", cells.join("  ").trim_end());
    }
}
