//! `nimdb quotient`: the misère quotient (Plambeck–Siegel) of an octal game, with its
//! presentation, heap images, periodicity certificate and tameness.

use std::io::{IsTerminal, Write as _};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{Value, json};

use nimdb::game::GameSpec;
use nimdb::store::Database;

use super::interrupt::{self, EXIT_INTERRUPTED};
use super::{DbArg, words};
use nimdb::resources::MemoryBudget;
use nimdb::store::quotients::Toward;
use nimdb::theory::quotient::{
    Computed, DEFAULT_CAP, Limits, Quotient, QuotientError, QuotientOptions, compute_quotient_from,
};

/// Arguments of `nimdb quotient`.
#[derive(Debug, Args)]
pub struct QuotientArgs {
    /// The game: an octal code (kayles, dawson, lines, nim, subtraction:1,2,3, octal:0.137).
    #[arg(long, short = 'g', required_unless_present = "survey")]
    game: Option<String>,
    /// Compute the quotient of heaps 1..=N [default: grow until a period is proven, up to
    /// 1000].
    #[arg(long, value_name = "N")]
    max_heap: Option<u64>,
    /// Print one JSON object.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Survey every octal code 0.d1..dD with up to --digits digits (last digit nonzero).
    #[arg(long, conflicts_with_all = ["game", "max_heap"])]
    survey: bool,
    /// The most digits after the point, for --survey.
    #[arg(long, value_name = "D", default_value_t = 3, requires = "survey")]
    digits: u32,
    /// Print the survey as CSV (RFC 4180; a value that does not apply, such as the period of an
    /// open code, is an empty field).
    #[arg(long, requires = "survey")]
    csv: bool,
    /// The largest quotient (and reduced candidate) the computation may build; beyond it,
    /// it stops and says so. Memory grows with its square.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = clap::value_parser!(u64).range(2..=1_000_000))]
    max_elements: u64,
    /// The memory the computation may plan to use (e.g. 8G) [default: 80% of the memory
    /// available now]. A computation whose limits could need more is refused up front.
    #[arg(long, value_name = "SIZE", value_parser = nimdb::resources::parse_size)]
    memory_limit: Option<u64>,
    /// A time budget in seconds [default: 10 for an open-ended computation (no --max-heap),
    /// none with --max-heap]. Past it, the verified quotient of the heaps done is stored and
    /// the command says how far it got.
    #[arg(long, value_name = "S", conflicts_with = "survey")]
    seconds: Option<f64>,
    /// No progress display.
    #[arg(long, short = 'q')]
    quiet: bool,
    #[command(flatten)]
    db: DbArg,
}

/// Runs `nimdb quotient`.
pub fn run(args: QuotientArgs) -> anyhow::Result<ExitCode> {
    interrupt::install();
    if args.survey {
        return survey(&args);
    }
    let name = args.game.as_deref().unwrap_or_default();
    let game: nimdb::game::Game = super::args::parse_any_game(name).map_err(anyhow::Error::msg)?;
    let spec: GameSpec = super::args::heap_game(&game, "quotient")?.clone();
    let Some(code) = spec.octal() else {
        bail!(
            "{spec} is not an octal game: misère quotients are computed for octal codes only \
             (its heaps must split by an octal rule)"
        );
    };
    let mut opts = match args.max_heap {
        Some(n) => QuotientOptions::to_heap(n).map_err(words::quotient)?,
        None => QuotientOptions::default(),
    };
    opts.limits = Limits::with_max_elements(args.max_elements as usize);
    opts.stop = Some(interrupt::interrupted);
    if let Some(s) = args.seconds.filter(|s| !(s.is_finite() && *s > 0.0 && *s <= 1e9)) {
        bail!("--seconds must be a number of seconds above 0, not {s}");
    }
    let budget = opts.budget(args.seconds);
    let needed = opts.limits.memory_bound(opts.max_heap.unwrap_or(opts.cap));
    MemoryBudget::given(args.memory_limit)
        .map_err(super::words::memory_limit)?
        .check(&format!("a quotient of up to {} elements", args.max_elements), needed)
        .context("lower --max-elements or raise --memory-limit")?;
    let db = Database::open(&args.db.db)?;
    // The game's one stored quotient answers every range it covers; one of fewer heaps is
    // gone on from (within the element budget), so a rerun picks up where one stopped.
    let (stored, from) = match db.quotient_toward(&spec, opts.max_heap, opts.max_states)? {
        Toward::Covered(q) => (Some(q), None),
        // Open-ended, up to the cap already without a period: that is the answer.
        Toward::GoOnFrom(q) if opts.max_heap.is_none() && q.max_heap >= opts.cap => (Some(q), None),
        Toward::GoOnFrom(q) if q.size() <= args.max_elements as usize => (None, Some(q)),
        Toward::GoOnFrom(_) | Toward::Nothing => (None, None),
    };
    let reused = stored.is_some();
    // The first heap the computation adds (past the stored quotient's when it went on).
    let first = std::cell::Cell::new(None);
    let q = match stored {
        Some(q) => q,
        None => match compute(code, opts, budget, args.quiet, from.as_ref(), &first)
            .map_err(words::quotient)
            .with_context(|| format!("no misère quotient for {spec}"))?
        {
            Computed::Complete(q) => {
                db.save_quotient(&spec, &q)?;
                super::atlas::reclaim(&db, args.quiet);
                q
            }
            Computed::Stopped { quotient: q, why } => {
                let kept = kept(&q, db.save_quotient(&spec, &q)?);
                bail!("no misère quotient for {spec}: {}; {kept}", words::quotient(why));
            }
            Computed::Interrupted(q) if !interrupt::interrupted() => {
                let kept = kept(&q, db.save_quotient(&spec, &q)?);
                bail!(
                    "no misère quotient for {spec} within the time budget ({} s{}); {kept}; run it again to go on from there, or give more --seconds",
                    budget.unwrap_or_default(),
                    if args.seconds.is_none() { ", the default of an open-ended computation" } else { "" },
                );
            }
            Computed::Interrupted(q) => {
                // Keep what is complete: the verified quotient of the heaps added so far.
                let kept = kept(&q, db.save_quotient(&spec, &q)?);
                eprintln!("nimdb: interrupted at heap {}: {kept}", q.max_heap);
                return Ok(ExitCode::from(EXIT_INTERRUPTED));
            }
        },
    };
    let out = if args.json {
        let mut v = q.to_json(&spec);
        v["reused"] = json!(reused);
        serde_json::to_string(&v)? + "\n"
    } else {
        let mut t = to_text(&spec, &q, args.max_heap.is_none());
        if reused {
            t += "(read from the database)\n";
        } else if let Some(h) = first.get().filter(|&h| h > 1) {
            t += &format!("(went on from the quotient of heaps 1..{} stored in the database)\n", h - 1);
        }
        t
    };
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(out.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.context("writing the quotient")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// What a stopped computation kept, in words: `stored` says whether its quotient is now the
/// game's one stored quotient (it is not when one of more heaps was kept instead).
fn kept(q: &Quotient, stored: bool) -> String {
    let what = format!(
        "the verified quotient of heaps 1..{h} (|Q| = {}{})",
        q.size(),
        if q.proven() { ", period proven" } else { "" },
        h = q.max_heap,
    );
    if stored {
        format!("{what} is stored, and `--max-heap {}` reads it back", q.max_heap)
    } else {
        format!("{what} was not stored: the database keeps one of more heaps")
    }
}

/// Computes the quotient (going on from `from`, a stored quotient of fewer heaps, when
/// given; `first` is set to the first heap added), with a spinner on a terminal, stopping at Ctrl-C or when `seconds` (a wall-clock
/// budget) run out.
fn compute(
    code: &nimdb::game::TakeBreakCode,
    mut opts: QuotientOptions,
    seconds: Option<f64>,
    quiet: bool,
    from: Option<&Quotient>,
    first: &std::cell::Cell<Option<u32>>,
) -> Result<Computed, QuotientError> {
    opts.deadline = seconds.map(|s| std::time::Instant::now() + std::time::Duration::from_secs_f64(s));
    let bar = ProgressBar::with_draw_target(
        None,
        if !quiet && std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(ProgressStyle::with_template("{spinner} heap {pos} |Q| = {msg}").expect("valid template"));
    let q = compute_quotient_from(
        code,
        opts,
        &mut |heap, size| {
            first.set(first.get().or(Some(heap)));
            bar.set_position(heap as u64);
            bar.set_message(size.to_string());
            !interrupt::interrupted()
        },
        from,
    );
    bar.finish_and_clear();
    q
}

/// Prints the stored quotients, for `nimdb info`.
pub fn print_stored(db: &Database) -> anyhow::Result<()> {
    let rows = db.list_quotients()?;
    if rows.is_empty() {
        return Ok(());
    }
    println!("{} stored misère quotient(s)", rows.len());
    println!(
        "  {:<20} {:>8} {:<7} {:>6} {:>5} {:>7} {:>10} tame",
        "game", "heaps", "status", "|Q|", "|P|", "period", "preperiod"
    );
    let o = |v: Option<u32>| v.map_or("-".to_string(), |v| v.to_string());
    for r in rows {
        println!(
            "  {:<20} {:>8} {:<7} {:>6} {:>5} {:>7} {:>10} {}",
            r.game,
            format!("1..{}", r.max_heap),
            r.status,
            o(r.size),
            o(r.p_count),
            o(r.period),
            o(r.preperiod),
            r.tame.map_or("-", |t| if t { "yes" } else { "no" })
        );
    }
    Ok(())
}

fn to_text(spec: &GameSpec, q: &Quotient, open_ended: bool) -> String {
    let pres = q.presentation();
    let mut s = String::new();
    let w = |x: u32| pres.words[x as usize].clone();
    s += &format!("misère quotient of {spec} ({}), heaps 1..{}\n", q.code, q.max_heap);
    s += &format!("|Q| = {}, |P| = {}\n", q.size(), q.p_count());
    let gens: Vec<String> =
        pres.generators.iter().zip(&pres.generator_heaps).map(|(g, h)| format!("{g} = heap {h}")).collect();
    s += &format!("generators: {}\n", if gens.is_empty() { "none".to_string() } else { gens.join(", ") });
    if pres.relations.is_empty() {
        s += "relations: none\n";
    } else {
        s += "relations:\n";
        for r in &pres.relations {
            s += &format!("  {r}\n");
        }
    }
    let ps: Vec<String> = q.monoid.p_elements().into_iter().map(w).collect();
    s += &format!("P = {{{}}}\n", ps.join(", "));
    s += "heap images:\n";
    let imgs: Vec<String> =
        (1..=q.max_heap).map(|n| format!("{n}:{}", w(q.heap_images[n as usize]))).collect();
    for chunk in imgs.chunks(10) {
        s += &format!("  {}\n", chunk.join("  "));
    }
    match (q.certificate, q.apparent) {
        (Some(c), _) => {
            s += &format!(
                "period {}, preperiod {}, proven: the quotient holds for every heap size\n",
                c.period, c.from
            );
            s += &format!("  certificate: {c}\n");
        }
        (None, Some((p, e))) => {
            s +=
                &format!("no period proven (apparent period {p}, preperiod {e} in heaps 1..{})\n", q.max_heap)
        }
        (None, None) if open_ended && q.max_heap >= DEFAULT_CAP => {
            s += &format!("no period proven up to the cap, heap {DEFAULT_CAP}\n")
        }
        (None, None) => s += &format!("no period proven in heaps 1..{}\n", q.max_heap),
    }
    s += &format!(
        "closure check: {} states; every position of the closure of heaps 1..{} has the outcome its element predicts\n",
        q.check.states, q.max_heap
    );
    s +=
        if q.tame { "tame: yes (the misère Nim quotient of its nim-values)\n" } else { "tame: no (wild)\n" };
    s
}

/// Per-code limits of a survey.
const SURVEY_CAP: u32 = 400;
const SURVEY_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);

/// `nimdb quotient --survey --digits D`.
fn survey(args: &QuotientArgs) -> anyhow::Result<ExitCode> {
    use nimdb::theory::quotient::survey::{
        MAX_SURVEY_DIGITS, SurveyError, SurveyOutcome, survey_codes, survey_one,
    };
    let codes = survey_codes(args.digits).map_err(|e| match e {
        SurveyError::Digits { given } => {
            anyhow::anyhow!("--digits must be between 1 and {MAX_SURVEY_DIGITS}, not {given}")
        }
        other => other.into(),
    })?;
    let db = Database::open(&args.db.db)?;
    let bar = super::progress::codes_bar(codes.len(), args.quiet);
    let limits = Limits::with_max_elements(args.max_elements as usize);
    let mut rows: Vec<Value> = Vec::new();
    for code in &codes {
        if interrupt::interrupted() {
            break;
        }
        let spec =
            GameSpec::from_rules(nimdb::game::Rules::Heap(nimdb::game::HeapFamily::TakeBreak(code.clone())));
        let game = spec.canonical();
        bar.set_message(game.clone());
        let stored = db.load_quotient(&spec, None)?.filter(|q| q.proven());
        let open_row = db.list_quotients()?.into_iter().find(|r| r.game == game && r.status == "open");
        let row = match (stored, open_row) {
            (Some(q), _) => solved_row(&code.to_string(), &game, &q),
            (None, Some(r)) => {
                open_json(&code.to_string(), &game, r.max_heap, r.note.as_deref().unwrap_or(""))
            }
            (None, None) => {
                match survey_one(code, SURVEY_CAP, limits, SURVEY_BUDGET, &interrupt::interrupted) {
                    SurveyOutcome::Stopped => break,
                    SurveyOutcome::Solved(q) => {
                        db.save_quotient(&spec, &q)?;
                        solved_row(&code.to_string(), &game, &q)
                    }
                    SurveyOutcome::Open { heap, why } => {
                        db.save_open_quotient(&spec, heap, &why)?;
                        open_json(&code.to_string(), &game, heap, &why)
                    }
                }
            }
        };
        rows.push(row);
        bar.inc(1);
    }
    bar.finish_and_clear();
    if interrupt::interrupted() {
        eprintln!(
            "nimdb: interrupted after {} of {} codes: those {} are stored, and a rerun reads them and goes on",
            rows.len(),
            codes.len(),
            rows.len()
        );
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    let out = if args.json {
        serde_json::to_string(&json!({"digits": args.digits, "codes": rows}))? + "\n"
    } else {
        let mut s = String::new();
        if args.csv {
            s += "code,game,status,size,p_count,period,preperiod,certified_heap,tame,note\n";
        } else {
            s += &format!(
                "{:<8} {:<22} {:<7} {:>6} {:>5} {:>7} {:>10} {:>9} {:<5} note\n",
                "code", "game", "status", "|Q|", "|P|", "period", "preperiod", "certified", "tame"
            );
        }
        // A value that does not apply prints "-" in the table and as an empty CSV field.
        let missing = if args.csv { "" } else { "-" };
        let f = |v: &Value| match v {
            Value::Null => missing.to_string(),
            Value::String(t) => t.clone(),
            v => v.to_string(),
        };
        for r in &rows {
            let cells: Vec<String> = [
                "code",
                "game",
                "status",
                "size",
                "p_count",
                "period",
                "preperiod",
                "certified_heap",
                "tame",
                "note",
            ]
            .iter()
            .map(|k| f(&r[*k]))
            .collect();
            if args.csv {
                s += &(cells.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(",") + "\n");
            } else {
                s += &format!(
                    "{:<8} {:<22} {:<7} {:>6} {:>5} {:>7} {:>10} {:>9} {:<5} {}\n",
                    cells[0],
                    cells[1],
                    cells[2],
                    cells[3],
                    cells[4],
                    cells[5],
                    cells[6],
                    cells[7],
                    cells[8],
                    cells[9]
                );
            }
        }
        if !args.csv {
            let open = rows.iter().filter(|r| r["status"] == "open").count();
            s += &format!("{} codes: {} solved, {} open\n", rows.len(), rows.len() - open, open);
        }
        s
    };
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(out.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.context("writing the survey")?,
    }
    Ok(ExitCode::SUCCESS)
}

fn solved_row(code: &str, game: &str, q: &Quotient) -> Value {
    let c = q.certificate;
    json!({
        "code": code, "game": game, "status": "solved", "size": q.size(), "p_count": q.p_count(),
        "period": c.map(|c| c.period), "preperiod": c.map(|c| c.from),
        "certified_heap": c.map(|c| c.needs), "tame": q.tame, "note": Value::Null,
    })
}

fn open_json(code: &str, game: &str, heap: u32, why: &str) -> Value {
    json!({
        "code": code, "game": game, "status": "open", "size": Value::Null, "p_count": Value::Null,
        "period": Value::Null, "preperiod": Value::Null, "certified_heap": Value::Null,
        "tame": Value::Null, "note": format!("open at heap {heap}: {why}"),
    })
}

/// One CSV field (RFC 4180): quoted, with inner quotes doubled, when it holds a comma, a
/// quote or a line break.
fn csv_field(c: &str) -> String {
    if c.contains([',', '"', '\n', '\r']) { format!("\"{}\"", c.replace('"', "\"\"")) } else { c.to_string() }
}

#[cfg(test)]
mod tests {
    use super::csv_field;

    #[test]
    fn csv_fields_are_quoted_only_when_needed() {
        assert_eq!(csv_field(""), "");
        assert_eq!(csv_field("12"), "12");
        assert_eq!(csv_field("open at heap 3: a, b"), "\"open at heap 3: a, b\"");
        assert_eq!(csv_field("say \"x\""), "\"say \"\"x\"\"\"");
    }
}
