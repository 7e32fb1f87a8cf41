//! `nimdb verify`.

use std::process::ExitCode;

use clap::Args;

use nimdb::game::Game;
use nimdb::store::Database;

use super::words;
use nimdb::verify::{VerifyOptions, VerifyReport, verify_with};

use super::{DbArg, GameArgs};

/// Arguments of `nimdb verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    #[command(flatten)]
    game: GameArgs,
    #[command(flatten)]
    db: DbArg,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Positions to recompute from their children's stored values.
    #[arg(long, default_value_t = 10_000)]
    sample: u64,
    /// Seed of the random sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Also recompute every stored position from the rules alone and compare (catches any
    /// payload changed since it was solved, checksums or not).
    #[arg(long)]
    full: bool,
}

/// Runs `nimdb verify`: exit status 1 when a theorem is contradicted or the database is
/// inconsistent; wild positions under misère play are findings, not failures.
pub fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let game = &args.game.game;
    // Reading writes nothing: an empty file stays empty, a read-only directory is fine.
    let db = Database::open_for_reading(&args.db.db)
        .map_err(words::store)?
        .ok_or_else(|| words::store(nimdb::store::StoreError::Missing(args.db.db.clone())))?;
    let options = VerifyOptions { sample: args.sample, seed: args.seed, full: args.full };
    let report = verify_with(&db, game, args.game.convention(), &options).map_err(words::verify)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(game, &report));
    }
    Ok(if report.failed() { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn list(game: &Game, positions: &[Vec<u64>]) -> String {
    positions.iter().map(|p| game.show(p)).collect::<Vec<_>>().join(" ")
}

fn render(game: &Game, r: &VerifyReport) -> String {
    let list = |positions: &[Vec<u64>]| list(game, positions);
    let mut out = String::new();
    let ids: Vec<String> = r.solves.iter().map(|i| format!("#{i}")).collect();
    out += &format!("verify {} ({}), solve {}\n", r.game, r.convention, ids.join(", "));
    match r.theory.name() {
        Some(name) => out += &format!("theory: {name}: {}\n", r.theory.describe()),
        None => out += &format!("theory: {}\n", r.theory.describe()),
    }
    let pct = |n: u64| if r.checked > 0 { 100.0 * n as f64 / r.checked as f64 } else { 0.0 };
    out += &format!(
        "checked {} positions: {} agree ({:.2}%), {} disagree\n",
        r.checked,
        r.agree,
        pct(r.agree),
        r.mismatches
    );
    if r.no_theorem > 0 {
        out += &format!("{} positions: no theorem applies; self-consistency only\n", r.no_theorem);
    }
    if r.mismatches > 0 {
        let what = if r.theorem { "contradictions of the theorem" } else { "smallest wild positions" };
        out += &format!("{what}: {}\n", list(&r.first_mismatches));
    }
    if r.recomputed > 0 {
        out += &format!(
            "full recomputation: {} positions recomputed from the rules, {} differ from the stored values\n",
            r.recomputed, r.recomputed_mismatches
        );
    }
    if r.nim_values_checked > 0 {
        out += &format!(
            "nim-values: {} checked, {} disagree{}\n",
            r.nim_values_checked,
            r.nim_value_mismatches,
            if r.nim_value_mismatches > 0 {
                format!(" ({})", list(&r.first_nim_value_mismatches))
            } else {
                String::new()
            }
        );
    }
    if let Some(q) = &r.quotient {
        out += &match &q.unavailable {
            Some(why) => format!("misère quotient: not available ({why})\n"),
            None => format!(
                "misère quotient (|Q| = {}, heaps 1..{}{}): {} positions checked, {} disagree{}\n",
                q.size,
                q.max_heap,
                if q.proven { ", certified for every heap" } else { "" },
                q.checked,
                q.mismatches,
                if q.mismatches > 0 {
                    format!(" (contradictions: {})", list(&q.first_mismatches))
                } else {
                    String::new()
                }
            ),
        };
    }
    if r.draws > 0 {
        out += &format!("draws: {} positions from which neither player can force a win\n", r.draws);
    }
    out += &format!(
        "self-consistency: {} sampled positions recomputed from their children: {}\n",
        r.sampled,
        if r.consistent {
            "consistent".to_string()
        } else {
            let more = if r.problems_omitted > 0 {
                format!("; and {} more", r.problems_omitted)
            } else {
                String::new()
            };
            format!("INCONSISTENT — {}{more}", r.problems.join("; "))
        }
    );
    out += &format!(
        "verdict: {}\n",
        if r.failed() {
            "FAILED"
        } else if r.mismatches > 0 {
            "ok (the database shows where the tame prediction stops)"
        } else {
            "ok"
        }
    );
    out
}
