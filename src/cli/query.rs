//! `nimdb query`.

use std::process::ExitCode;

use clap::Args;

use nimdb::beyond::{Reply, WideAnswer, answer_beyond};
use nimdb::game::{BigPosition, Convention, Outcome};
use nimdb::query::{AUTO_SOLVE_LIMIT, Plan, answer_after_solving, plan_query};
use nimdb::store::Database;

use super::{DbArg, words};

/// Arguments of `nimdb query`.
#[derive(Debug, Args)]
pub struct QueryArgs {
    #[arg(long, short = 'g', help = nimdb::game::any_game_help(), value_parser = super::args::parse_any_game, default_value = "nim")]
    game: nimdb::game::Game,
    /// Play the misère convention (the last move loses).
    #[arg(long)]
    misere: bool,
    /// Read positions from stdin, one a line, and write one JSON object a line.
    #[arg(long, conflicts_with_all = ["heaps", "json"])]
    batch: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// List every move with its value.
    #[arg(long)]
    moves: bool,
    #[command(flatten)]
    db: DbArg,
    /// The heaps: `3 4 7`, `3,4,7` or `[3,4,7]`.
    #[arg(allow_negative_numbers = true, num_args = 0..)]
    heaps: Vec<String>,
}

/// Runs `nimdb query`.
pub fn run(args: QueryArgs) -> anyhow::Result<ExitCode> {
    let convention = Convention::from_misere(args.misere);
    if args.batch {
        return super::batch::run(&args.game, convention, &args.db.db, args.moves);
    }
    let game = match &args.game {
        nimdb::game::Game::Heaps(g) => g,
        s => {
            if args.heaps.is_empty() {
                let example = super::spaced::example(s);
                anyhow::bail!("no position given: pass the counts (`nimdb query --game {s} {example}`)");
            }
            return super::spaced::query(s, convention, &args.heaps, &args.db.db, args.json, args.moves);
        }
    };
    if args.heaps.is_empty() {
        anyhow::bail!(
            "no position given: pass the heaps (`nimdb query 7 5 3`, `[]` for the empty position), \
             or --batch to read positions from stdin"
        );
    }
    let asked = BigPosition::parse_words(&args.heaps).map_err(anyhow::Error::msg)?;
    // Read first, writing nothing: only a query that must solve on the spot opens the
    // database for writing (creating it if needed).
    let reader = Database::open_for_reading(&args.db.db).map_err(words::store)?;
    let reply = match asked.narrow() {
        // Heaps beyond any database: a theorem answers, or nothing does.
        None => Reply::Beyond(Box::new(
            answer_beyond(reader.as_ref(), game, convention, &asked).map_err(words::query)?,
        )),
        Some(position) => {
            let plan = plan_query(reader.as_ref(), game, convention, &position, AUTO_SOLVE_LIMIT)
                .map_err(words::query)?;
            Reply::Bounded(Box::new(match plan {
                Plan::Answered(answer) => *answer,
                Plan::Solve(universe) => match on_the_spot_fits(game, convention, &universe, &args.db.db) {
                    Ok(()) => {
                        drop(reader);
                        let mut db = Database::open(&args.db.db).map_err(words::store)?;
                        answer_after_solving(&mut db, game, convention, &position, universe)
                            .map_err(words::query)?
                    }
                    // Past the memory or disk this process may use: theory answers, if a
                    // theorem applies; else the refusal, before anything is written.
                    Err(refused) => match nimdb::query::answer_from_theory(game, convention, &position)
                        .map_err(words::query)?
                    {
                        Some(answer) => answer,
                        None => anyhow::bail!("{refused}; nothing was written"),
                    },
                },
            }))
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&reply)?);
    } else {
        print!("{}", render(&reply.wide(), args.moves));
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether solving `universe` on the spot fits in memory whole (no spill: the on-the-spot
/// solve does not spill) within the memory available to this process (`ulimit -v`, the
/// cgroup's limit) and on the disk beside `db`, as `nimdb solve` plans it.
fn on_the_spot_fits(
    game: &nimdb::game::GameSpec,
    convention: Convention,
    universe: &nimdb::index::Universe,
    db: &std::path::Path,
) -> Result<(), nimdb::resources::ResourceError> {
    let Ok(table) = universe.table() else { return Ok(()) };
    let options = nimdb::solve::SolveOptions {
        convention,
        universe: *universe,
        nim_values: false,
        strategy: Default::default(),
    };
    let estimate = nimdb::solve::estimate(game, &options, &table);
    let budget = nimdb::resources::MemoryBudget::new(None);
    let what = format!("solving {universe} on the spot");
    match estimate.plan(&budget, &what, db)? {
        None => Ok(()),
        Some(_) => budget.check(&what, estimate.memory_bytes),
    }
}

/// The answer in words.
pub fn render(a: &WideAnswer, all_moves: bool) -> String {
    let mut out = String::new();
    let remoteness = a.remoteness.map_or("unknown".to_string(), |r| r.to_string());
    let conv = if a.convention == nimdb::game::Convention::Misere { ", misère" } else { "" };
    out += &format!("{} ({}{conv}): {} for the player to move", a.position, a.game, a.outcome);
    out += &format!(", remoteness {remoteness}");
    if let Some(g) = a.nim_value {
        out += &format!(", nim-value {g}");
    }
    out += "\n";
    match &a.best_move {
        None => out += "no moves: the game is over\n",
        Some(m) => {
            let why = match (a.outcome, a.remoteness.is_some()) {
                (Outcome::Win, true) => "wins fastest",
                (Outcome::Loss, true) => "loses slowest",
                (Outcome::Win, false) => "wins",
                (Outcome::Loss, false) => "every move loses against perfect play",
                (Outcome::Draw, _) => "keeps the draw",
            };
            out += &format!("best move ({why}): {}\n", m.description);
        }
    }
    if all_moves && a.moves_omitted > 0 {
        out += &format!("moves: {} (too many to list)\n", a.moves_omitted);
    } else if all_moves {
        out += &format!("moves ({}):\n", a.moves.len());
        for m in &a.moves {
            let r = m.remoteness.map_or("?".to_string(), |r| r.to_string());
            out += &format!("  {:<48} opponent {} in {r}\n", m.description, m.outcome);
        }
    }
    out += &format!(
        "source: {}\n",
        match a.source {
            nimdb::query::Source::Database => "database",
            nimdb::query::Source::Solved => "solved now and stored",
            nimdb::query::Source::Theory => "theory",
            nimdb::query::Source::Quotient => "misère quotient",
        }
    );
    out
}
