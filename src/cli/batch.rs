//! `nimdb query --batch`: one position a line on stdin, one JSON object a line on stdout.

use std::io::{BufRead, BufWriter, Write};

use std::path::Path;
use std::process::ExitCode;

use nimdb::batch::{Session, parse_line};
use nimdb::game::{Convention, GameSpec};
use nimdb::store::Database;

/// Answers every line of stdin in order. Each object carries its input line number; a bad
/// line gets `{"line":N,"error":"…"}` and the run goes on (exit status 1 at the end). Blank
/// lines and `#` comments are skipped. With `moves`, each object is the whole
/// `query --json` answer; otherwise outcome, remoteness and nim-value.
pub fn run(game: &GameSpec, convention: Convention, db: &Path, moves: bool) -> anyhow::Result<ExitCode> {
    let db = Database::open_read_only(db)?;
    let mut session = Session::new(&db);
    let stdin = std::io::stdin();
    let mut input = std::io::BufReader::with_capacity(1 << 16, stdin.lock());
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut line = String::new();
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
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        if waits {
            // See what other connections committed meanwhile (solves, tiers, quotients).
            session.refresh()?;
        }
        number += 1;
        buf.clear();
        let result = parse_line(&line).map_err(|e| e.to_string()).and_then(|p| match p {
            None => Ok(false),
            Some(position) => {
                let written = if moves {
                    session
                        .answer_any(game, convention, &position)
                        .map(|a| serde_json::to_writer(&mut buf, &a))
                } else {
                    session
                        .lookup_any(game, convention, &position)
                        .map(|a| serde_json::to_writer(&mut buf, &a))
                };
                written.map_err(|e| e.to_string())?.map_err(|e| e.to_string())?;
                Ok(true)
            }
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
