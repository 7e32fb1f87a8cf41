//! `nimdb query`.

use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use nimdb::answer::{Answer, Source};
use nimdb::game::{Convention, Game, Outcome};
use nimdb::query::{
    AUTO_SOLVE_LIMIT, CpuWatch, Plan, QueryError, Quotients, answer_after_solving_until,
    answer_from_theorem_until, cover_fits, plan_until,
};
use nimdb::space::SpaceError;
use nimdb::store::Database;
use nimdb::theory::{Stop, TheoryError};

use super::{DbArg, words};

/// Arguments of `nimdb query`.
#[derive(Debug, Args)]
pub struct QueryArgs {
    #[arg(long, short = 'g', help = nimdb::game::any_game_help(), value_parser = super::args::parse_stored_game, default_value = "nim")]
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
    /// The CPU seconds the answer may take (with --batch: each line's answer): heap values
    /// predicted to take longer are refused before they start, and the work (heap values,
    /// a theorem's move list, a solve on the spot) is stopped when it has used them.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = cpu_seconds)]
    cpu_limit: Duration,
    #[command(flatten)]
    db: DbArg,
    /// The heaps: `3 4 7`, `3,4,7` or `[3,4,7]`.
    #[arg(allow_negative_numbers = true, num_args = 0..)]
    heaps: Vec<String>,
}

/// Runs `nimdb query`.
pub fn run(args: QueryArgs) -> anyhow::Result<ExitCode> {
    let convention = Convention::from_misere(args.misere);
    let game = &args.game;
    if args.batch {
        return super::batch::run(game, convention, &args.db.db, args.moves, args.cpu_limit);
    }
    if args.heaps.is_empty() {
        anyhow::bail!(
            "no position given: pass one (`nimdb query --game {game} {}`, `[]` for the empty position), \
             or --batch to read positions from stdin",
            words::example(game)
        );
    }
    // Read first, writing nothing: only a query that must solve on the spot opens the
    // database for writing (creating it if needed).
    let reader = Database::open_for_reading(&args.db.db).map_err(words::store)?;
    // A game defined in Python is the game of its stored solve (its layout read from it).
    let game = &nimdb::stored::resolve(reader.as_ref(), game)?;
    let position = game.read_position(&args.heaps)?;
    // The CPU limit: heap values predicted past it are refused up front, and the watch
    // stops the work (heap values, a solve on the spot) once it has used it.
    let stop = Stop::new().with_cpu_limit(args.cpu_limit);
    let watch = CpuWatch::start(&stop);
    let over = |e: QueryError| over_limit(e, &watch, args.cpu_limit);
    let quotients = Quotients::StoredOrComputed;
    let plan = plan_until(reader.as_ref(), game, convention, &position, AUTO_SOLVE_LIMIT, quotients, &stop)
        .map_err(over)?;
    let answer = match plan {
        Plan::Answered(answer) => *answer,
        // Solved on rayon's global pool.
        Plan::Solve(cover) => {
            match cover_fits(game, convention, &cover, &args.db.db, nimdb::solve::pool_threads()) {
                Ok(()) => {
                    drop(reader);
                    let mut db = Database::open(&args.db.db).map_err(words::store)?;
                    answer_after_solving_until(&mut db, game, convention, &position, cover, &stop)
                        .map_err(over)?
                }
                // Past the memory or disk this process may use: a theorem answers, if one
                // applies; else the refusal, before anything is written.
                Err(refused) => {
                    match answer_from_theorem_until(game, convention, &position, &stop).map_err(over)? {
                        Some(answer) => answer,
                        None => anyhow::bail!("{refused}; nothing was written"),
                    }
                }
            }
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        print!("{}", render(game, &answer, args.moves));
    }
    Ok(ExitCode::SUCCESS)
}

/// `--cpu-limit`: a positive number of seconds, at most an hour.
pub(super) fn cpu_seconds(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 3600.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err(format!("'{text}' is not a number of seconds more than 0 and at most 3600")),
    }
}

/// A query's error in one line: work the CPU watch stopped says so and names the flag
/// that raises the limit; the rest as [`words::query`] words them.
fn over_limit(e: QueryError, watch: &CpuWatch, limit: Duration) -> anyhow::Error {
    let limit = limit.as_secs_f64();
    if !watch.fired() {
        return words::query(e);
    }
    match e {
        QueryError::Theory(TheoryError::Stopped(_)) => anyhow::anyhow!(
            "the heap values were stopped at the CPU limit of {limit} s; raise --cpu-limit to let them finish"
        ),
        QueryError::Space(SpaceError::Stopped) => anyhow::anyhow!(
            "the theorem's move list was stopped at the CPU limit of {limit} s; raise --cpu-limit to let it finish"
        ),
        QueryError::Solve(_) => anyhow::anyhow!(
            "the solve on the spot was stopped at the CPU limit of {limit} s; the tiers it finished are stored, \
             and the same query goes on from them (raise --cpu-limit to let it finish)"
        ),
        other => words::query(other),
    }
}

/// The answer in words.
pub fn render(game: &Game, a: &Answer, all_moves: bool) -> String {
    let mut out = String::new();
    let conv = if a.convention == Convention::Misere { ", misère" } else { "" };
    out += &format!("{} ({}{conv}): {} for the player to move", game.show(&a.position), a.game, a.outcome);
    match (a.outcome, a.remoteness) {
        (Outcome::Draw, _) => out += " (neither player can force a win)",
        (_, Some(r)) => out += &format!(", remoteness {r}"),
        (_, None) => out += ", remoteness unknown",
    }
    if let Some(g) = a.nim_value {
        out += &format!(", nim-value {g}");
    }
    out += "\n";
    if !game.family().moves_known() {
        out += &format!(
            "moves: not known here: {game} is defined in Python, and its moves are the defining function's (Database.query lists them)\n"
        );
        return out;
    }
    match &a.best_move {
        // From a win or a draw a best move exists; past the theorem's search it is not named.
        None if a.outcome != Outcome::Loss && a.moves_omitted > 0 => {
            out += &format!(
                "best move: not searched for (the position has up to {} moves, more than the theorem's search examines)\n",
                a.moves_omitted
            )
        }
        None if a.moves.is_empty() && a.moves_omitted == 0 => out += "no moves: the game is over\n",
        None => out += "every move loses against perfect play\n",
        Some(m) => {
            let why = match (a.outcome, a.remoteness.is_some()) {
                (Outcome::Win, true) => "wins fastest",
                (Outcome::Win, false) => "wins",
                (Outcome::Loss, true) => "loses slowest",
                (Outcome::Loss, false) => "every move loses against perfect play",
                (Outcome::Draw, _) => "keeps the draw",
            };
            out += &format!("best move ({why}): {}\n", m.description);
        }
    }
    if all_moves && a.moves_omitted > 0 {
        out += &format!("{}\n", nimdb::query::unlisted_words(game, a));
    } else if all_moves {
        out += &format!("moves ({}):\n", a.moves.len());
        for m in &a.moves {
            let r = match (m.outcome, m.remoteness) {
                (_, Some(r)) => format!(" in {r}"),
                (Outcome::Draw, None) => String::new(),
                (_, None) => " in ?".to_string(),
            };
            out += &format!("  {:<48} opponent {}{r}\n", m.description, m.outcome);
        }
    }
    let source = match (a.source, a.theorem) {
        (Source::Theory, Some(theorem)) => format!("theory ({})", theorem.name()),
        (source, _) => source.words().to_string(),
    };
    out += &format!("source: {source}\n");
    out
}
