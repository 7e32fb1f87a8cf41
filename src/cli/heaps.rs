//! `nimdb heaps`: single-heap nim-values, misère values, genus and periodicity of a game.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde_json::{Value, json};

use crate::cli::{DbArg, GameArgs, words};
use nimdb::store::Database;
use nimdb::theory::period::CertificateRule;
use nimdb::theory::report::{DEFAULT_MISERE_UP_TO, HeapOptions, HeapReport, check_up_to, heap_report};

/// Arguments of `nimdb heaps`.
#[derive(Debug, Args)]
pub struct HeapsArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Compute heaps 0..=N.
    #[arg(long, value_name = "N", default_value_t = 40)]
    up_to: u64,
    /// Misère values, genus and tameness for heaps up to M (they need every position a heap
    /// reaches, so they stay small).
    #[arg(long, value_name = "M", default_value_t = DEFAULT_MISERE_UP_TO)]
    misere_up_to: u32,
    /// Print one JSON object.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print CSV: n,nim_value,misere_value,genus.
    #[arg(long)]
    csv: bool,
    /// Neither read nor write the database's heap_values cache.
    #[arg(long)]
    no_cache: bool,
    #[command(flatten)]
    db: DbArg,
}

/// Runs `nimdb heaps`.
pub fn run(args: HeapsArgs) -> anyhow::Result<ExitCode> {
    let spec = &args.game.game;
    let up_to = check_up_to(spec, args.up_to).map_err(words::theory)?;
    let opts = HeapOptions { up_to, misere_up_to: args.misere_up_to, ..HeapOptions::new(up_to) };
    let report = if args.no_cache {
        heap_report(spec, &opts).map_err(words::theory)?
    } else {
        let db = Database::open(&args.db.db).map_err(words::store)?;
        nimdb::driver::heap_report(&db, spec, &opts).map_err(words::driver)?
    };
    let out = if args.json {
        serde_json::to_string(&to_json(&report))? + "\n"
    } else if args.csv {
        to_csv(&report)
    } else {
        to_text(&report)
    };
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(out.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.context("writing the table")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Opens the database and brings its schema up to date.
fn cell<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map_or_else(String::new, |v| v.to_string())
}

fn to_text(r: &HeapReport) -> String {
    let mut s = String::new();
    let n = r.values.len() - 1;
    let _ = writeln!(s, "{}: single heaps 0..={n}", r.game);
    let w = n.to_string().len().max(3);
    let _ = writeln!(s, "{:>w$} {:>6} {:>7}  {:<12} tame", "n", "g(n)", "misère", "genus");
    for i in 0..=n {
        let tame = match r.tame[i] {
            Some(true) => "yes",
            Some(false) => "no",
            None => "",
        };
        let line = format!(
            "{:>w$} {:>6} {:>7}  {:<12} {tame}",
            i,
            r.values[i],
            cell(&r.misere[i]),
            cell(&r.genus[i])
        );
        let _ = writeln!(s, "{}", line.trim_end());
    }
    let _ = writeln!(s, "periodicity: {}", r.periodicity);
    let _ = writeln!(s, "nim-values: {}", r.method);
    match r.misere_up_to() {
        Some(m) => {
            let _ =
                write!(s, "misère values, genus (γ0..γ{}) and tameness: heaps 0..={m}, exact", r.genus_depth);
            if let Some(note) = &r.misere_note {
                let _ = write!(s, "; {note}");
            }
            let _ = writeln!(s);
        }
        None => {
            let _ = writeln!(s, "misère values: not computed");
        }
    }
    s
}

fn to_csv(r: &HeapReport) -> String {
    let mut s = String::from("n,nim_value,misere_value,genus\n");
    for i in 0..r.values.len() {
        let _ = writeln!(s, "{i},{},{},{}", r.values[i], cell(&r.misere[i]), cell(&r.genus[i]));
    }
    s
}

fn to_json(r: &HeapReport) -> Value {
    let p = &r.periodicity;
    let certificate = p.certificate.map(|c| {
        let (rule, k) = match c.rule {
            CertificateRule::GuySmith { k } => ("guy-smith", k),
            CertificateRule::Window { k } => ("window", k),
        };
        json!({ "rule": rule, "k": k, "checked_from": c.from, "checked_below": c.to })
    });
    json!({
        "game": r.game.to_string(),
        "up_to": r.values.len() - 1,
        "values": r.values,
        "misere_values": r.misere,
        "genus": r.genus.iter().map(|g| g.as_ref().map(|g| g.to_string())).collect::<Vec<_>>(),
        "tame": r.tame,
        "genus_depth": r.genus_depth,
        "period": p.period,
        "preperiod": p.preperiod,
        "proven": p.proven,
        "certificate": certificate,
        "arithmetic_period": p.arithmetic,
        "summary": p.to_string(),
        "method": r.method,
    })
}
