//! `nimdb export`: every stored position of a solve as CSV or JSON lines, streamed.

use std::io::{BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use nimdb::game::{Convention, Game};
use nimdb::store::{Database, ExportFilter, SolveRecord};
use nimdb::stored::StoredError;

use super::DbArg;

/// Output formats.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Format {
    /// `position,outcome,remoteness[,nim_value]` with the heaps (or steps) space-separated;
    /// a draw's remoteness is empty.
    Csv,
    /// One `{"position":[…],"outcome":…,"remoteness":…}` object a line (a draw's remoteness
    /// is null).
    Jsonl,
}

/// Arguments of `nimdb export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[arg(long, short = 'g', help = game_help(), value_parser = super::args::parse_stored_game)]
    game: Option<Game>,
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

/// `--game`'s help: every game, and which one is exported when it is left out.
fn game_help() -> String {
    format!("{} [default: nim, or with --solve the solve's own game]", nimdb::game::any_game_help())
}

/// The solve to export and its game: `--solve ID` (of `--game` when that is given too),
/// else the game's largest under the convention.
fn pick_solve(db: &Database, args: &ExportArgs) -> anyhow::Result<(SolveRecord, Game)> {
    let game = args.game.as_ref().map(|g| nimdb::stored::resolve(Some(db), g)).transpose()?;
    if let Some(id) = args.solve {
        return nimdb::stored::solve_by_id(db, id, game.as_ref()).map_err(|e| match e {
            StoredError::NoSuchSolve(_) => anyhow::anyhow!("{e} in {} (see nimdb info)", db.path().display()),
            StoredError::OtherGame { ref of, .. } => anyhow::anyhow!("{e} (export it with --game {of})"),
            other => other.into(),
        });
    }
    let game = game.unwrap_or_else(|| nimdb::game::GameSpec::nim().into());
    let convention = Convention::from_misere(args.misere);
    match nimdb::stored::largest_solve(db, &game, convention)? {
        Some(solve) => Ok((solve, game)),
        None => {
            let misere = if args.misere { " --misere" } else { "" };
            anyhow::bail!("no stored solve of {game}{misere} in {} (see nimdb info)", db.path().display())
        }
    }
}

/// Writes rows in one format, a line at a time, through a buffered standard output.
struct Rows<W: Write> {
    out: W,
    format: Format,
    line: Vec<u8>,
    numbers: itoa::Buffer,
}

impl<W: Write> Rows<W> {
    fn header(&mut self, nim_values: bool) -> std::io::Result<()> {
        match self.format {
            Format::Csv if nim_values => self.out.write_all(b"position,outcome,remoteness,nim_value\n"),
            Format::Csv => self.out.write_all(b"position,outcome,remoteness\n"),
            Format::Jsonl => Ok(()),
        }
    }

    /// One position; `remoteness` is `None` for a draw.
    fn row(
        &mut self,
        position: &[u32],
        outcome: &[u8],
        remoteness: Option<u16>,
        nim_value: Option<u16>,
    ) -> std::io::Result<()> {
        let (line, numbers) = (&mut self.line, &mut self.numbers);
        line.clear();
        let csv = matches!(self.format, Format::Csv);
        if !csv {
            line.extend_from_slice(b"{\"position\":[");
        }
        for (i, h) in position.iter().enumerate() {
            if i > 0 {
                line.push(if csv { b' ' } else { b',' });
            }
            line.extend_from_slice(numbers.format(*h).as_bytes());
        }
        line.extend_from_slice(if csv { b"," } else { b"],\"outcome\":\"" });
        line.extend_from_slice(outcome);
        line.extend_from_slice(if csv { b"," } else { b"\",\"remoteness\":" });
        match remoteness {
            Some(r) => line.extend_from_slice(numbers.format(r).as_bytes()),
            None if csv => {}
            None => line.extend_from_slice(b"null"),
        }
        if let Some(g) = nim_value {
            line.extend_from_slice(if csv { b"," } else { b",\"nim_value\":" });
            line.extend_from_slice(numbers.format(g).as_bytes());
        }
        if !csv {
            line.push(b'}');
        }
        line.push(b'\n');
        self.out.write_all(line)
    }
}

/// A progress bar on a terminal, hidden elsewhere.
fn progress(positions: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(
        Some(positions),
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
    bar
}

/// Runs `nimdb export`.
pub fn run(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let db = Database::open_read_only(&args.db.db)?;
    let (solve, game) = pick_solve(&db, &args)?;
    // A damaged solve is refused before a row is written.
    nimdb::stored::check_readable(&game, &solve)?;
    let filter = ExportFilter { losses_only: args.losses_only, max_total: args.max_total };
    let bar = progress(solve.positions);
    let out = BufWriter::with_capacity(1 << 17, std::io::stdout().lock());
    let mut rows =
        Rows { out, format: args.format, line: Vec::with_capacity(256), numbers: itoa::Buffer::new() };
    let mut seen = 0u64;
    let written: anyhow::Result<u64> =
        rows.header(solve.nim_values).map_err(anyhow::Error::from).and_then(|()| {
            nimdb::stored::for_each_stored(&db, &game, &solve, filter, |p| -> anyhow::Result<()> {
                rows.row(p.position, p.outcome.as_str().as_bytes(), p.remoteness, p.nim_value)?;
                seen += 1;
                if seen.is_multiple_of(65_536) {
                    bar.set_position(seen);
                }
                Ok(())
            })
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
    match rows.out.flush() {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r?,
    }
    Ok(ExitCode::SUCCESS)
}
