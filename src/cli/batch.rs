//! `nimdb query --batch`: one position a line on stdin, one JSON object a line on stdout.

use std::io::{BufRead, BufWriter, Write};

use std::path::Path;
use std::process::ExitCode;

use nimdb::answer::Listing;
use nimdb::batch::{LookupError, Session};
use nimdb::game::{Convention, Game};
use nimdb::query::CpuWatch;
use nimdb::store::Database;
use nimdb::theory::Stop;

/// Answers every line of stdin in order. Each object carries its input line number; a bad
/// line gets `{"line":N,"error":"…"}` and the run goes on (exit status 1 at the end). Blank
/// lines and `#` comments are skipped. With `moves`, each object is the whole
/// `query --json` answer; otherwise outcome, remoteness and nim-value. Each line's work may
/// take `cpu_limit` of CPU time (as `query --cpu-limit`): heap values predicted past it
/// are refused before they start, and work past it is stopped, each such line with its
/// own error object.
pub fn run(
    game: &Game,
    convention: Convention,
    db: &Path,
    moves: bool,
    cpu_limit: std::time::Duration,
) -> anyhow::Result<ExitCode> {
    // No database yet (no file, or an empty one): theorems answer, as they answer a single
    // query, through an empty database in memory; nothing is written.
    let db = match Database::open_for_reading(db)? {
        Some(db) => db,
        None => Database::open_in_memory()?,
    };
    // A game defined in Python is the game of its stored solve (its layout read from it).
    let game = &nimdb::stored::resolve(Some(&db), game)?;
    let mut session = Session::new(&db);
    // One watch for the whole run, armed anew for each line with the line's own stop.
    let watch = CpuWatch::start(&Stop::new().with_cpu_limit(cpu_limit));
    let stdin = std::io::stdin();
    let mut input = std::io::BufReader::with_capacity(1 << 16, stdin.lock());
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut raw: Vec<u8> = Vec::with_capacity(256);
    let mut number = 0u64;
    let mut failed = false;
    let mut buf = Vec::with_capacity(256);
    loop {
        let waits = input.buffer().is_empty();
        if waits {
            // About to wait for input: show what is answered, and hold no read transaction.
            out.flush()?;
            session.release();
        }
        let Some(complete) = read_line_bounded(&mut input, &mut raw, MAX_LINE)? else {
            break;
        };
        if waits {
            // See what other connections committed meanwhile (solves, tiers, quotients).
            session.refresh()?;
        }
        number += 1;
        buf.clear();
        let text = match (complete, std::str::from_utf8(&raw)) {
            (false, _) => Err(format!("the line is longer than {} MiB", MAX_LINE >> 20)),
            (true, Ok(text)) => Ok(text),
            (true, Err(_)) => Err("the line is not UTF-8 text".to_string()),
        };
        let result = text.and_then(|t| {
            let line = t.trim();
            if line.is_empty() || line.starts_with('#') {
                return Ok(false);
            }
            let position = game.read_position(&[line]).map_err(|e| e.to_string())?;
            let stop = Stop::new().with_cpu_limit(cpu_limit);
            session.set_stop(stop.clone());
            watch.rearm(&stop);
            let over = |e: LookupError| line_error(e, &watch, cpu_limit);
            let written = if moves {
                session
                    .answer(game, convention, &position, Listing::All)
                    .map(|a| serde_json::to_writer(&mut buf, &a))
            } else {
                session.lookup(game, convention, &position).map(|a| serde_json::to_writer(&mut buf, &a))
            };
            written.map_err(over)?.map_err(|e| e.to_string())?;
            Ok(true)
        });
        match result {
            Ok(false) => {}
            Ok(true) => {
                write!(out, "{{\"line\":{number},")?;
                out.write_all(&buf[1..])?;
                out.write_all(b"\n")?;
            }
            Err(e) => {
                failed = true;
                write!(out, "{{\"line\":{number},\"error\":")?;
                serde_json::to_writer(&mut out, &e)?;
                out.write_all(b"}")?;
                out.write_all(b"\n")?;
            }
        }
    }
    out.flush()?;
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

/// A line's error in words: work the CPU watch stopped and heap values refused by their
/// predicted cost name `--cpu-limit`.
fn line_error(e: LookupError, watch: &CpuWatch, limit: std::time::Duration) -> String {
    let limit = limit.as_secs_f64();
    match e {
        _ if watch.fired() => {
            format!(
                "the answer was stopped at the CPU limit of {limit} s; raise --cpu-limit to let it finish"
            )
        }
        // Refused by the predicted CPU time (not by the memory this process may use).
        LookupError::TooCostly(e) if e.contains(" s an answer may take") => {
            format!("{e}; raise --cpu-limit to compute them")
        }
        e => e.to_string(),
    }
}

/// The longest line kept; the rest of a longer line is read past, not stored.
const MAX_LINE: usize = 1 << 20;

/// Reads one line's bytes (without its newline) into `raw`, keeping at most `cap` bytes.
/// `None` at the end of input; `Some(false)` when the line was longer than `cap`.
fn read_line_bounded(
    input: &mut impl BufRead,
    raw: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Option<bool>> {
    raw.clear();
    let (mut any, mut fits) = (false, true);
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(any.then_some(fits));
        }
        any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], i + 1),
            None => (chunk, chunk.len()),
        };
        if fits && raw.len() + part.len() <= cap {
            raw.extend_from_slice(part);
        } else {
            fits = false;
            raw.clear();
        }
        let ended = done <= chunk.len() && chunk.get(done - 1) == Some(&b'\n');
        input.consume(done);
        if ended {
            return Ok(Some(fits));
        }
    }
}
