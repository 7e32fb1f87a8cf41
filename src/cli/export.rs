//! `nimdb export`: every stored position of a solve as CSV or JSON lines, streamed.

use std::io::{BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use nimdb::game::{Convention, GameSpec};
use nimdb::store::{Database, ExportFilter, SolveRecord};

use super::DbArg;

/// Output formats.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    /// `position,outcome,remoteness[,nim_value]` with the heaps space-separated.
    Csv,
    /// One `{"position":[…],"outcome":…,"remoteness":…}` object a line.
    Jsonl,
}

/// Arguments of `nimdb export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[arg(long, short = 'g', help = nimdb::game::GAME_HELP, value_parser = super::args::parse_game, default_value = "nim")]
    game: GameSpec,
    /// The misère convention (the last move loses).
    #[arg(long)]
    misere: bool,
    /// The stored solve to export (see `nimdb info`) [default: the game's largest].
    #[arg(long, value_name = "ID")]
    solve: Option<i64>,
    /// Only P-positions (losses for the player to move).
    #[arg(long)]
    losses_only: bool,
    /// Only positions with at most this many tokens.
    #[arg(long, value_name = "T")]
    max_total: Option<u32>,
    /// Output format.
    #[arg(long, value_enum, default_value = "csv")]
    format: Format,
    #[command(flatten)]
    db: DbArg,
}

fn pick_solve(db: &Database, args: &ExportArgs) -> anyhow::Result<SolveRecord> {
    let convention = Convention::from_misere(args.misere);
    if let Some(id) = args.solve {
        return db
            .solves()?
            .into_iter()
            .find(|s| s.id == id)
            .ok_or_else(|| anyhow::anyhow!("no solve #{id} in {} (see nimdb info)", db.path().display()));
    }
    db.solves_of(&args.game, convention)?.into_iter().max_by_key(|s| (s.positions, -s.id)).ok_or_else(|| {
        let misere = if args.misere { " --misere" } else { "" };
        anyhow::anyhow!(
            "no stored solve of {}{misere} in {} (see nimdb info)",
            args.game.canonical(),
            db.path().display()
        )
    })
}

/// Runs `nimdb export`.
pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let db = Database::open_read_only(&args.db.db)?;
    let solve = pick_solve(&db, &args)?;
    let filter = ExportFilter { losses_only: args.losses_only, max_total: args.max_total };
    let bar = ProgressBar::with_draw_target(
        Some(solve.positions),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{bar:32}] {human_pos}/{human_len} positions  {per_sec}  ETA {eta}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let mut out = BufWriter::with_capacity(1 << 17, std::io::stdout().lock());
    let nim_values = solve.nim_values;
    let convention = solve.convention;
    match args.format {
        Format::Csv => {
            out.write_all(if nim_values {
                b"position,outcome,remoteness,nim_value\n".as_slice()
            } else {
                b"position,outcome,remoteness\n".as_slice()
            })?;
        }
        Format::Jsonl => {}
    }
    let mut numbers = itoa::Buffer::new();
    let mut line = Vec::with_capacity(256);
    let mut seen = 0u64;
    let format = args.format;
    let written = db.for_each_stored(&solve, filter, |heaps, record| -> anyhow::Result<()> {
        line.clear();
        let outcome: &[u8] = if convention.is_win(record.remoteness as u32) { b"win" } else { b"loss" };
        match format {
            Format::Csv => {
                for (i, h) in heaps.iter().enumerate() {
                    if i > 0 {
                        line.push(b' ');
                    }
                    line.extend_from_slice(numbers.format(*h).as_bytes());
                }
                line.push(b',');
                line.extend_from_slice(outcome);
                line.push(b',');
                line.extend_from_slice(numbers.format(record.remoteness).as_bytes());
                if let Some(g) = record.nim_value {
                    line.push(b',');
                    line.extend_from_slice(numbers.format(g).as_bytes());
                }
            }
            Format::Jsonl => {
                line.extend_from_slice(b"{\"position\":[");
                for (i, h) in heaps.iter().enumerate() {
                    if i > 0 {
                        line.push(b',');
                    }
                    line.extend_from_slice(numbers.format(*h).as_bytes());
                }
                line.extend_from_slice(b"],\"outcome\":\"");
                line.extend_from_slice(outcome);
                line.extend_from_slice(b"\",\"remoteness\":");
                line.extend_from_slice(numbers.format(record.remoteness).as_bytes());
                if let Some(g) = record.nim_value {
                    line.extend_from_slice(b",\"nim_value\":");
                    line.extend_from_slice(numbers.format(g).as_bytes());
                }
                line.push(b'}');
            }
        }
        line.push(b'\n');
        out.write_all(&line)?;
        seen += 1;
        if seen.is_multiple_of(65_536) {
            bar.set_position(seen);
        }
        Ok(())
    });
    bar.finish_and_clear();
    match written {
        Ok(_) => {}
        // A closed pipe (`| head`) ends the export quietly.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => return Err(e),
    }
    match out.flush() {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r?,
    }
    Ok(ExitCode::SUCCESS)
}
