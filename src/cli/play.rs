//! `nimdb play`: a game in the terminal against the computer (or another human).

use std::io::{self, IsTerminal};
use std::process::ExitCode;

use clap::Args;
use rand::SeedableRng;
use rand::rngs::StdRng;

use nimdb::play::{Advisor, Console, Players, Session, plan_within, play};
use nimdb::store::Database;

use super::{DbArg, GameArgs, words};

/// Arguments of `nimdb play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Who plays, first mover first: human-computer, computer-human, human-human or
    /// computer-computer.
    #[arg(long, value_name = "WHO", default_value = "human-computer")]
    players: String,
    /// Seed for the winner messages [default: from the system's entropy].
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    #[command(flatten)]
    db: DbArg,
    /// The CPU seconds the computer may take to judge a position it has not judged before:
    /// heap values predicted to take longer are refused before they start, and the work
    /// (heap values, a theorem's move list, a solve on the spot) is stopped when it has
    /// used them, ending the game with that error.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = super::query::cpu_seconds)]
    cpu_limit: std::time::Duration,
    /// The starting position: heaps `3 4 5`, `3,4,5` or `[3,4,5]`; for staircase, welter
    /// and raise:C the counts in the family's notation (`3 0 2 5`).
    #[arg(value_name = "HEAPS", num_args = 0.., allow_negative_numbers = true)]
    heaps: Vec<String>,
}

/// Runs `nimdb play`.
pub fn run(args: PlayArgs) -> anyhow::Result<ExitCode> {
    let players: Players = args.players.parse().map_err(words::players)?;
    let game = args.game.game.clone();
    if args.heaps.is_empty() {
        let example = words::example(&game);
        anyhow::bail!("give the starting position, e.g. nimdb play --game {game} {example}")
    }
    let convention = args.game.convention();
    // Validate everything before the database is opened for writing: Session::new says in
    // words why a start cannot be played, and a read-only plan says whether the start can be
    // looked up, solved on the spot or answered by theory; a refusal writes nothing.
    let start: Vec<u32> = game.parse_position(&args.heaps)?;
    Session::new(game.clone(), convention, players, start.clone()).map_err(words::session)?;
    {
        let reader = Database::open_for_reading(&args.db.db).map_err(words::store)?;
        let cells: Vec<u64> = start.iter().map(|&c| u64::from(c)).collect();
        plan_within(reader.as_ref(), &game, convention, &cells, args.cpu_limit)
            .map(drop)
            .map_err(words::advice)?;
    }
    let db = Database::open(&args.db.db).map_err(words::store)?;
    let mut advisor = Advisor::new(db, game.clone(), convention).with_cpu_limit(args.cpu_limit);
    // Fail before the first move (and before listing any moves) when the start can be
    // neither looked up, solved nor answered by theory; every later position is a
    // descendant and is covered with it.
    advisor.answer(&start).map_err(words::advice)?;
    let mut session = Session::new(game, convention, players, start).map_err(words::session)?;
    let mut rng = match args.seed {
        Some(seed) => StdRng::seed_from_u64(seed),
        None => rand::make_rng(),
    };
    let stdin = io::stdin();
    let echo = !stdin.is_terminal();
    let mut console = Console::new(stdin.lock(), io::stdout().lock(), echo);
    play(&mut session, &mut advisor, &mut rng, &mut console).map_err(words::play)?;
    Ok(ExitCode::SUCCESS)
}
