//! The command-line interface: one module per subcommand, each a thin layer over the library.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod args;
mod atlas;
mod atlas_picture;
mod batch;
mod cost;
mod explain;
mod export;
mod heaps;
mod info;
mod interrupt;
#[cfg(feature = "mpi")]
mod mpi;
mod play;
mod progress;
mod query;
mod quotient;
#[cfg(feature = "server")]
mod serve;
mod solve;
mod tree;
mod values;
mod verify;
mod words;

pub use args::{DbArg, GameArgs};

/// nimdb: solve Nim-family games into a position database and look up perfect play.
#[derive(Debug, Parser)]
#[command(name = "nimdb", version, about, long_about = None, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Write nothing to any database: a command that would (a solve, an on-the-spot solve,
    /// storing heap values or a quotient) is refused instead.
    #[arg(long, global = true)]
    read_only: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Solve a game's universe of positions into the database, tier by tier.
    Solve(solve::SolveArgs),
    /// Look up a position's outcome, remoteness and best move.
    Query(query::QueryArgs),
    /// List the stored solves.
    Info(info::InfoArgs),
    /// Check a stored solve against theory (Bouton, Sprague–Grundy, misère Nim).
    Verify(verify::VerifyArgs),
    /// Single-heap nim-values, misère values, genus and periodicity.
    Heaps(heaps::HeapsArgs),
    /// Play a game in the terminal against the computer.
    Play(play::PlayArgs),
    /// Print the complete game tree with minimax values.
    Tree(tree::TreeArgs),
    /// Explain Nim's binary-column rule for a position.
    Explain(explain::ExplainArgs),
    /// The misère quotient (Plambeck–Siegel) of an octal game.
    Quotient(quotient::QuotientArgs),
    /// The misère atlas: every octal code up to four digits, certified finite or partial.
    Atlas(atlas::AtlasArgs),
    /// Stream every stored position of a solve as CSV or JSON lines.
    Export(export::ExportArgs),
    /// The nim-value of every position of a universe, by mex (no database).
    Values(values::ValuesArgs),
    /// Serve the JSON API and the web explorer over HTTP (read-only).
    #[cfg(feature = "server")]
    Serve(serve::ServeArgs),
}

/// Runs the command line and turns any error into one line on stderr and exit status 1.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help, --version, and `nimdb` alone (usage).
        Err(e)
            if !e.use_stderr()
                || e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            e.exit()
        }
        Err(e) => {
            let msg = format!("{} (see nimdb --help)", clap_message(&e.to_string()));
            report_error(&msg);
            return ExitCode::from(2);
        }
    };
    if cli.read_only {
        nimdb::store::forbid_writes();
    }
    interrupt::ignore_file_size_signal();
    let result = match cli.command {
        // One rank of an MPI job (`--mpi`) runs the MPI driver, which prepares the solve as
        // `solve` does; every other solve runs here.
        #[cfg(feature = "mpi")]
        Command::Solve(a) if a.mpi => mpi::run(a),
        Command::Solve(a) => solve::run(a),
        Command::Query(a) => query::run(a),
        Command::Info(a) => info::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Heaps(a) => heaps::run(a),
        Command::Play(a) => play::run(a),
        Command::Tree(a) => tree::run(a),
        Command::Explain(a) => explain::run(a),
        Command::Quotient(a) => quotient::run(a),
        Command::Atlas(a) => atlas::run(a),
        Command::Export(a) => export::run(a),
        Command::Values(a) => values::run(a),
        #[cfg(feature = "server")]
        Command::Serve(a) => serve::run(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            report_failure(&e);
            ExitCode::FAILURE
        }
    }
}

/// Prints a command's error the way every command does (see [`report_error`]), for a
/// command that must say it before it ends (an MPI rank whose job may be torn down).
pub(crate) fn report_failure(e: &anyhow::Error) {
    report_error(&one_cause_each(e));
}

/// Prints an error on stderr: one line `nimdb: error: …`, or `{"error": …}` when `--json`
/// was asked for (so programs reading JSON get JSON).
fn report_error(msg: &str) {
    if std::env::args().skip(1).any(|a| a == "--json") {
        eprintln!("{}", serde_json::json!({ "error": cap_echoes(msg) }));
    } else {
        eprintln!("nimdb: error: {}", cap_echoes(msg));
    }
}

/// An error and its causes on one line, each cause once: a cause whose words the message
/// already holds (SQLite repeats its own message, with "Error code N: " in front, at each
/// level) is left out.
fn one_cause_each(e: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in e.chain() {
        let text = cause.to_string().replace('\n', " ");
        let mut text = text.trim();
        if let Some((head, rest)) = text.split_once(": ")
            && head.strip_prefix("Error code ").is_some_and(|n| n.chars().all(|c| c.is_ascii_digit()))
        {
            text = rest;
        }
        if text.is_empty() || message.contains(text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(text);
    }
    message
}

/// clap's message on one line: what is wrong, the argument it names, its allowed values and
/// any "did you mean" tip, without the usage footer.
fn clap_message(text: &str) -> String {
    let useful: Vec<&str> = text
        .lines()
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .map(str::trim)
        // "to pass '--x' as a value, use '-- --x'" leads only to "'--x' is not a heap
        // size": no value of nimdb's starts with a dash.
        .filter(|l| !l.is_empty() && !l.starts_with("tip: to pass '"))
        .collect();
    let joined = useful.join(" ");
    let joined = joined.trim_start_matches("error: ").replace(": tip:", ";").replace(" tip:", ";");
    if joined.is_empty() { "bad arguments".to_string() } else { joined }
}

/// The longest word of user input an error message repeats whole.
const ECHO_LIMIT: usize = 80;

/// Shortens every word of `message` longer than [`ECHO_LIMIT`] characters (an echoed
/// argument, typically) and writes control characters (line breaks, terminal escapes) as
/// escapes, so that an error stays one readable line whatever was typed.
fn cap_echoes(message: &str) -> String {
    let message: String = message
        .chars()
        .flat_map(|c| if c.is_control() { c.escape_default().collect() } else { vec![c] })
        .collect();
    message
        .split(' ')
        .map(|word| {
            let n = word.chars().count();
            if n <= ECHO_LIMIT {
                word.to_string()
            } else {
                let head: String = word.chars().take(ECHO_LIMIT - 20).collect();
                format!("{head}…({n} characters)")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn causes_are_not_repeated() {
        let sqlite = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(11),
            Some("database disk image is malformed".into()),
        );
        let e = anyhow::Error::new(nimdb::store::StoreError::from(sqlite));
        let message = super::one_cause_each(&e);
        assert_eq!(message.matches("malformed").count(), 1, "{message}");
        assert!(!message.contains("Error code"), "{message}");
        let e = anyhow::anyhow!("inner detail").context("outer words");
        assert_eq!(super::one_cause_each(&e), "outer words: inner detail");
    }

    #[test]
    fn long_echoes_are_capped() {
        let long = "x".repeat(10_000);
        let msg = super::cap_echoes(&format!("invalid value '{long}' for '--game'"));
        assert!(msg.len() < 150, "{msg}");
        assert!(msg.contains("(10002 characters)"), "{msg}");
        assert_eq!(super::cap_echoes("short words stay"), "short words stay");
    }
}
