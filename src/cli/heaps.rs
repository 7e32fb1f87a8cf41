//! `nimdb heaps`: single-heap nim-values, misère values, genus and periodicity of a game.

use std::io::{BufWriter, Write};
use std::ops::ControlFlow;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde_json::json;

use crate::cli::progress::HeapBar;
use crate::cli::{DbArg, GameArgs, interrupt, words};
use nimdb::query::CpuWatch;
use nimdb::store::Database;
use nimdb::theory::Stop;
use nimdb::theory::period::{CertificateRule, Periodicity};
use nimdb::theory::report::{DEFAULT_MISERE_UP_TO, HeapOptions, HeapStream, check_up_to};

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
    /// The CPU seconds the run may take, as `query --cpu-limit`: nim-values predicted to
    /// take longer are refused before they start, and the run is stopped when it has used
    /// them (the heaps finished are stored). No limit unless given.
    #[arg(long, value_name = "SECONDS", value_parser = super::query::cpu_seconds)]
    cpu_limit: Option<std::time::Duration>,
    #[command(flatten)]
    db: DbArg,
}

/// Runs `nimdb heaps`: rows are written as their values are computed, a stretch at a time,
/// with a progress bar on a terminal; Ctrl-C stops after the stretch under way, keeping the
/// stored rows.
pub fn run(args: HeapsArgs) -> anyhow::Result<ExitCode> {
    if args.game.misere {
        anyhow::bail!(
            "heaps reports both conventions at once (nim-values, and misère values with genus up to \
             --misere-up-to); --misere has no meaning here"
        );
    }
    let spec = super::args::heap_game(&args.game.game, "heaps")?;
    let up_to = check_up_to(spec, args.up_to).map_err(words::theory)?;
    let opts = HeapOptions { up_to, misere_up_to: args.misere_up_to, ..HeapOptions::new(up_to) };
    // Read first: a run refused by its predicted cost writes nothing.
    let stop = Stop::new();
    let stop = args.cpu_limit.map_or(stop.clone(), |limit| stop.with_cpu_limit(limit));
    // The watch covers the prediction's probes too (as `query`'s covers its plan).
    let watch = CpuWatch::start(&stop);
    let over = |limit: std::time::Duration| {
        format!("stopped at the CPU limit of {} s; raise --cpu-limit to let it finish", limit.as_secs_f64())
    };
    if let (Some(limit), Some(rules)) = (args.cpu_limit, spec.heap_rules()) {
        let known = match (args.no_cache, Database::open_for_reading(&args.db.db).map_err(words::store)?) {
            (false, Some(db)) => nimdb::driver::stored_values(&db, spec).map_err(words::driver)?,
            _ => Vec::new(),
        };
        let n = up_to;
        nimdb::query::check_values_cost(spec, rules, n, &known, &stop).map_err(|e| match e {
            nimdb::query::QueryError::TooCostly { seconds, .. } => anyhow::anyhow!(
                "{e}; raise --cpu-limit (to about {}) to compute them; nothing was computed",
                (seconds * 1.5).ceil().max(limit.as_secs_f64())
            ),
            _ if watch.fired() => {
                anyhow::anyhow!("the heaps' values were {}; nothing was computed", over(limit))
            }
            e => words::query(e),
        })?;
    }
    let db = if args.no_cache { None } else { Some(Database::open(&args.db.db).map_err(words::store)?) };
    let format = if args.json {
        Format::Json
    } else if args.csv {
        Format::Csv
    } else {
        Format::Text
    };
    let mut out =
        Output { w: BufWriter::with_capacity(1 << 16, std::io::stdout().lock()), format, error: None };
    let bar = HeapBar::new(up_to);
    interrupt::install();
    let run = nimdb::driver::run_heaps_until(db.as_ref(), spec, &opts, &stop, |stream, from, to| {
        if from == 0 {
            out.head(stream);
        }
        out.rows(stream, from, to);
        bar.at(to, &format!("{} B/value", stream.value_bytes()));
        if out.error.is_some() || interrupt::interrupted() || stop.is_stopped() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    bar.finish();
    let run = match (run, args.cpu_limit) {
        (Err(_), Some(limit)) if watch.fired() => {
            anyhow::bail!("the heaps' values were {}; nothing was stored", over(limit))
        }
        (run, _) => run.map_err(words::driver)?,
    };
    if let Some(e) = out.error.take() {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return Ok(ExitCode::SUCCESS);
        }
        return Err(e).context("writing the table");
    }
    let Some(periodicity) = &run.periodicity else {
        let _ = out.w.flush();
        let kept = match (&db, run.stored_to) {
            (Some(_), Some(s)) => format!(
                "heaps 0..={s} are stored in {}; the same command continues from there",
                args.db.db.display()
            ),
            _ => "nothing was stored (--no-cache)".to_string(),
        };
        if let (true, Some(limit)) = (watch.fired(), args.cpu_limit) {
            anyhow::bail!(
                "stopped at the CPU limit of {} s after heap {} of {up_to}: {kept} (raise --cpu-limit to let it finish)",
                limit.as_secs_f64(),
                run.done
            );
        }
        eprintln!("nimdb: interrupted after heap {} of {up_to}: {kept}", run.done);
        return Ok(ExitCode::from(interrupt::EXIT_INTERRUPTED));
    };
    out.tail(&run.stream, periodicity);
    match out.w.flush() {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.context("writing the table")?,
    }
    match out.error.take() {
        Some(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e).context("writing the table"),
        _ => Ok(ExitCode::SUCCESS),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Csv,
    Json,
}

/// The table written as it is computed; the first write error is kept and ends the run.
struct Output<W: Write> {
    w: W,
    format: Format,
    error: Option<std::io::Error>,
}

fn cell<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(String::new, |v| v.to_string())
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serializable")
}

impl<W: Write> Output<W> {
    fn put(&mut self, s: &str) {
        if self.error.is_none()
            && let Err(e) = self.w.write_all(s.as_bytes())
        {
            self.error = Some(e);
        }
    }

    /// Everything before the first row.
    fn head(&mut self, r: &HeapStream) {
        let n = r.up_to();
        match self.format {
            Format::Text => {
                let w = n.to_string().len().max(3);
                self.put(&format!("{}: single heaps 0..={n}\n", r.game()));
                self.put(&format!("{:>w$} {:>6} {:>7}  {:<12} tame\n", "n", "g(n)", "misère", "genus"));
            }
            Format::Csv => self.put("n,nim_value,misere_value,genus\n"),
            Format::Json => {
                // Keys in the order they can be written: what is known at the start, then the
                // values as they come, then what is known at the end.
                self.put(&format!(
                    "{{\"game\":{},\"up_to\":{n},\"genus_depth\":{}",
                    json(&r.game().to_string()),
                    r.genus_depth()
                ));
                let mut list = |name: &str, cell: &dyn Fn(u32) -> String| {
                    self.put(&format!(",\"{name}\":["));
                    let mut chunk = String::new();
                    for h in 0..=n {
                        if h > 0 {
                            chunk.push(',');
                        }
                        chunk.push_str(&cell(h));
                        if chunk.len() > 1 << 16 {
                            self.put(&chunk);
                            chunk.clear();
                        }
                    }
                    chunk.push(']');
                    self.put(&chunk);
                };
                list("misere_values", &|h| json(&r.misere(h)));
                list("genus", &|h| json(&r.genus(h).map(|g| g.to_string())));
                list("tame", &|h| json(&r.tame(h)));
                self.put(",\"values\":[");
            }
        }
    }

    /// Rows `from..=to`.
    fn rows(&mut self, r: &HeapStream, from: u32, to: u32) {
        let mut s = String::with_capacity((to - from + 1) as usize * 8);
        let w = r.up_to().to_string().len().max(3);
        let mut num = itoa::Buffer::new();
        for i in from..=to {
            let v = r.value(i);
            match self.format {
                Format::Text => {
                    let tame = match r.tame(i) {
                        Some(true) => "yes",
                        Some(false) => "no",
                        None => "",
                    };
                    let line = format!(
                        "{:>w$} {:>6} {:>7}  {:<12} {tame}",
                        i,
                        v,
                        cell(r.misere(i)),
                        cell(r.genus(i))
                    );
                    s.push_str(line.trim_end());
                    s.push('\n');
                }
                Format::Csv => {
                    s.push_str(num.format(i));
                    s.push(',');
                    s.push_str(num.format(v));
                    s.push(',');
                    s.push_str(&cell(r.misere(i)));
                    s.push(',');
                    s.push_str(&cell(r.genus(i)));
                    s.push('\n');
                }
                Format::Json => {
                    if i > 0 {
                        s.push(',');
                    }
                    s.push_str(num.format(v));
                }
            }
        }
        self.put(&s);
    }

    /// Everything after the last row.
    fn tail(&mut self, r: &HeapStream, p: &Periodicity) {
        let method = r.method();
        match self.format {
            Format::Text => {
                let mut s = format!("periodicity: {p}\nnim-values: {method}\n");
                match r.misere_up_to() {
                    Some(m) => {
                        s += &format!(
                            "misère values, genus (γ0..γ{}) and tameness: heaps 0..={m}, exact",
                            r.genus_depth()
                        );
                        if let Some(note) = r.misere_note() {
                            s += &format!("; {note}");
                        }
                        s.push('\n');
                    }
                    None => s += "misère values: not computed\n",
                }
                self.put(&s);
            }
            Format::Csv => {}
            Format::Json => {
                let certificate = p.certificate.map(|c| {
                    let (rule, k) = match c.rule {
                        CertificateRule::GuySmith { k } => ("guy-smith", k),
                        CertificateRule::Window { k } => ("window", k),
                    };
                    json!({ "rule": rule, "k": k, "checked_from": c.from, "checked_below": c.to })
                });
                let end = format!(
                    "],\"period\":{},\"preperiod\":{},\"proven\":{},\"certificate\":{},\"arithmetic_period\":{},\"summary\":{},\"method\":{}}}\n",
                    json(&p.period),
                    json(&p.preperiod),
                    p.proven,
                    json(&certificate),
                    json(&p.arithmetic),
                    json(&p.to_string()),
                    json(&method)
                );
                self.put(&end);
            }
        }
    }
}
