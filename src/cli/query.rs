//! `nimdb query`.

use std::process::ExitCode;

use clap::Args;

use nimdb::answer::{Answer, Source};
use nimdb::game::{Convention, Game, Outcome};
use nimdb::query::{
    AUTO_SOLVE_LIMIT, Plan, Quotients, answer_after_solving, answer_from_theorem, cover_fits, plan,
};
use nimdb::store::Database;

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
        return super::batch::run(game, convention, &args.db.db, args.moves);
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
    let plan =
        plan(reader.as_ref(), game, convention, &position, AUTO_SOLVE_LIMIT, Quotients::StoredOrComputed)
            .map_err(words::query)?;
    let answer = match plan {
        Plan::Answered(answer) => *answer,
        Plan::Solve(cover) => match cover_fits(game, convention, &cover, &args.db.db) {
            Ok(()) => {
                drop(reader);
                let mut db = Database::open(&args.db.db).map_err(words::store)?;
                answer_after_solving(&mut db, game, convention, &position, cover).map_err(words::query)?
            }
            // Past the memory or disk this process may use: a theorem answers, if one
            // applies; else the refusal, before anything is written.
            Err(refused) => match answer_from_theorem(game, convention, &position).map_err(words::query)? {
                Some(answer) => answer,
                None => anyhow::bail!("{refused}; nothing was written"),
            },
        },
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        print!("{}", render(game, &answer, args.moves));
    }
    Ok(ExitCode::SUCCESS)
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
