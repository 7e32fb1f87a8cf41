//! `nimdb atlas`: the misère atlas of every octal code with up to `--digits` digits, each
//! charted under a per-code budget, stored one code at a time, resumed after a kill, and
//! exported as a table, CSV, Markdown or JSON.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;

use nimdb::game::{GameSpec, HeapFamily, Rules};
use nimdb::resources::MemoryBudget;
use nimdb::store::Database;
use nimdb::theory::quotient::atlas::{
    Budget, Chart, Entry, MAX_ATLAS_DIGITS, StopReason, Tally, atlas_codes, chart_code_from, tally,
};

use super::DbArg;
use super::interrupt::{self, EXIT_INTERRUPTED};

/// Arguments of `nimdb atlas`.
#[derive(Debug, Args)]
pub struct AtlasArgs {
    /// Chart every octal code 0.d1..dD with D up to this many digits (last digit nonzero).
    #[arg(long, value_name = "D", default_value_t = 3)]
    digits: u32,
    /// CPU seconds a code may spend (heard between heaps and inside long walks).
    #[arg(long, value_name = "S", default_value_t = 1.0)]
    seconds: f64,
    /// The most heaps a code may add looking for a period.
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=20_000))]
    max_heap: u32,
    /// The largest quotient (and reduced candidate) a code may build. Memory grows with its
    /// square.
    #[arg(long, value_name = "N", default_value_t = 4096, value_parser = clap::value_parser!(u64).range(2..=1_000_000))]
    max_elements: u64,
    /// The largest candidate before reduction.
    #[arg(long, value_name = "N", default_value_t = 1 << 22, value_parser = clap::value_parser!(u64).range(2..=1 << 32))]
    max_candidate: u64,
    /// The most states one verification walk may visit.
    #[arg(long, value_name = "N", default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1..=1 << 32))]
    max_states: u64,
    /// The memory a code's computation may plan to use (e.g. 8G) [default: 80% of the memory
    /// available now]; budgets that could need more are refused up front.
    #[arg(long, value_name = "SIZE", value_parser = nimdb::resources::parse_size)]
    memory_limit: Option<u64>,
    /// Print the atlas as CSV (RFC 4180; a value that does not apply is an empty field).
    #[arg(long, conflicts_with_all = ["markdown", "json"])]
    csv: bool,
    /// Print the atlas as a Markdown table with its summary.
    #[arg(long, conflicts_with = "json")]
    markdown: bool,
    /// Print one JSON object: the summary and every entry.
    #[arg(long, conflicts_with = "svg")]
    json: bool,
    /// Print the atlas as one SVG picture: |Q| of every code against the code, coloured by
    /// what was found (e.g. `nimdb atlas --svg > atlas.svg`).
    #[arg(long, conflicts_with_all = ["csv", "markdown"])]
    svg: bool,
    /// No progress display.
    #[arg(long, short = 'q')]
    quiet: bool,
    #[command(flatten)]
    db: DbArg,
}

/// Runs `nimdb atlas`.
pub fn run(args: AtlasArgs) -> anyhow::Result<ExitCode> {
    interrupt::install();
    let codes = atlas_codes(args.digits).map_err(|_| {
        anyhow::anyhow!("--digits must be between 1 and {MAX_ATLAS_DIGITS}, not {}", args.digits)
    })?;
    if !args.seconds.is_finite() || args.seconds <= 0.0 || args.seconds > 1e6 {
        bail!("--seconds must be a number of seconds above 0 and at most 1000000, not {}", args.seconds);
    }
    let budget = Budget {
        max_heap: args.max_heap,
        max_elements: args.max_elements as usize,
        max_candidate: args.max_candidate,
        max_states: args.max_states as usize,
        seconds: args.seconds,
        ..Budget::default()
    };
    let needed = budget.limits().memory_bound(budget.max_heap);
    MemoryBudget::given(args.memory_limit)
        .map_err(super::words::memory_limit)?
        .check(&format!("a quotient of up to {} elements", args.max_elements), needed)
        .context("lower --max-elements, --max-candidate or --max-states, or raise --memory-limit")?;
    let db = Database::open(&args.db.db)?;
    let run = db.next_atlas_run()?;
    let bar = super::progress::codes_bar(codes.len(), args.quiet);
    let mut entries: Vec<Entry> = Vec::with_capacity(codes.len());
    let (mut charted, mut charted_seconds) = (0usize, 0.0f64);
    for code in &codes {
        if interrupt::interrupted() {
            break;
        }
        let name = code.to_string();
        bar.set_message(name.clone());
        let stored = db.atlas_entry(&name)?;
        if let Some(row) = &stored
            && !row.entry.redo_under(&budget)
        {
            entries.push(row.entry.clone());
            bar.inc(1);
            continue;
        }
        let spec = GameSpec::from_rules(Rules::Heap(HeapFamily::TakeBreak(code.clone())));
        // A partial code goes on from the verified quotient it reached, kept as the code's
        // one unproven quotient row (checked again before use), its earlier CPU time counted
        // in the budget.
        let from = match stored.as_ref().map(|r| &r.entry.chart) {
            Some(Chart::Partial(_)) => db
                .load_quotient(&spec, None)
                .ok()
                .flatten()
                .filter(|q| !q.proven())
                .map(|q| (q, stored.as_ref().map_or(0.0, |r| r.entry.seconds))),
            _ => None,
        };
        let earlier = Duration::from_secs_f64(from.as_ref().map_or(0.0, |f| f.1));
        let start = thread_cpu_time();
        let clock = || thread_cpu_time().saturating_sub(start) + earlier;
        let Some(c) =
            chart_code_from(code, &budget, &clock, &interrupt::interrupted, from.as_ref().map(|f| &f.0))
        else {
            break;
        };
        // The entry and, in the same transaction, a certified quotient (where `quotient` and
        // `query --misere` read it) or a partial code's verified quotient so far (for a rerun
        // to go on from, and for `query --misere`), replacing the code's older one.
        let q = c.quotient.as_deref().or(c.reached.as_deref());
        db.save_charted_code(&c.entry, run, q.map(|q| (&spec, q)))?;
        charted += 1;
        charted_seconds += c.entry.seconds - earlier.as_secs_f64();
        entries.push(c.entry);
        bar.inc(1);
    }
    bar.finish_and_clear();
    if interrupt::interrupted() {
        eprintln!(
            "nimdb: interrupted after {} of {} codes ({charted} charted this run): every finished code is stored, \
             and the same command goes on from there",
            entries.len(),
            codes.len(),
        );
        return Ok(ExitCode::from(EXIT_INTERRUPTED));
    }
    reclaim(&db, args.quiet);
    let t = tally(&entries);
    let out = if args.svg {
        super::atlas_picture::svg(&entries, args.digits)
    } else if args.csv {
        csv(&entries)
    } else if args.markdown {
        markdown(&entries, &t, args.digits)
    } else if args.json {
        serde_json::to_string(&serde_json::json!({
            "digits": args.digits,
            "summary": summary_json(&t),
            "entries": entries,
        }))? + "\n"
    } else {
        let mut s = text(&entries);
        s += &summary(&t);
        s += &format!(
            "this run: {charted} codes charted in {charted_seconds:.1} CPU s, {} read from the database\n",
            entries.len() - charted
        );
        s
    };
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(out.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        r => r.context("writing the atlas")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Gives the file's free pages back when they are many (rows superseded by this run or
/// earlier ones; see `Database::reclaim_free_pages`), saying so on stderr unless `quiet`.
/// A failure (say, no disk space for the rebuild) is a warning: every row stays as it was.
pub(super) fn reclaim(db: &Database, quiet: bool) {
    match db.reclaim_free_pages() {
        Ok(Some(r)) if !quiet => eprintln!(
            "nimdb: gave back {} free pages of {} ({:.1} MB): the file went from {:.1} MB to {:.1} MB",
            r.free_before,
            r.pages_before,
            (r.free_before * r.page_size) as f64 / 1e6,
            (r.pages_before * r.page_size) as f64 / 1e6,
            (r.pages_after * r.page_size) as f64 / 1e6,
        ),
        Ok(_) => {}
        Err(e) => eprintln!("nimdb: warning: the free pages were not given back ({e}); every row is kept"),
    }
}

/// The CPU time this thread has used (CLOCK_THREAD_CPUTIME_ID): a code's budget does not
/// shrink when other processes share the machine.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// One line of counts: certified (tame), partial by reason, CPU seconds.
fn summary(t: &Tally) -> String {
    let partial: usize = t.partial.iter().map(|(_, n)| n).sum();
    let by: Vec<String> = t.partial.iter().map(|(r, n)| format!("{n} {}", reason_words(*r))).collect();
    format!(
        "{} codes: {} certified finite ({} tame, {} wild), {partial} partial{}; {:.1} CPU s in all\n",
        t.codes,
        t.certified,
        t.tame,
        t.certified - t.tame,
        if by.is_empty() { String::new() } else { format!(" ({})", by.join(", ")) },
        t.seconds
    )
}

fn summary_json(t: &Tally) -> serde_json::Value {
    let partial: serde_json::Map<String, serde_json::Value> =
        t.partial.iter().map(|(r, n)| (r.name().to_string(), (*n).into())).collect();
    serde_json::json!({
        "codes": t.codes, "certified": t.certified, "tame": t.tame,
        "partial": partial, "seconds": t.seconds,
    })
}

/// What stopped a partial code, in words for the summary.
fn reason_words(r: StopReason) -> &'static str {
    match r {
        StopReason::Time => "out of time",
        StopReason::Elements => "over the element budget",
        StopReason::Candidate => "over the candidate budget",
        StopReason::States => "over the walk's states",
        StopReason::Recalibrations => "out of recalibrations",
        StopReason::Heaps => "with no period by the heap budget",
        StopReason::Infinite => "proven infinite",
    }
}

/// The cells every format shares, by column name.
struct Cells {
    code: String,
    status: &'static str,
    size: String,
    p_count: String,
    period: String,
    preperiod: String,
    tame: String,
    /// Certified: the heap the certificate needs; partial: the heap reached.
    heap: String,
    stopped_by: String,
    apparent: String,
    generators: String,
    relations: Vec<String>,
    p_words: Vec<String>,
    detail: String,
    seconds: String,
}

fn cells(e: &Entry) -> Cells {
    let mut c = Cells {
        code: e.code.clone(),
        status: e.status(),
        size: String::new(),
        p_count: String::new(),
        period: String::new(),
        preperiod: String::new(),
        tame: String::new(),
        heap: String::new(),
        stopped_by: String::new(),
        apparent: String::new(),
        generators: String::new(),
        relations: Vec::new(),
        p_words: Vec::new(),
        detail: String::new(),
        seconds: format!("{:.3}", e.seconds),
    };
    match &e.chart {
        Chart::Certified(q) => {
            c.size = q.size.to_string();
            c.p_count = q.p_count.to_string();
            c.period = q.period.to_string();
            c.preperiod = q.preperiod.to_string();
            c.tame = if q.tame { "tame" } else { "wild" }.to_string();
            c.heap = q.certified_heap.to_string();
            c.generators = generators(&q.generator_heaps);
            c.relations = q.relations.clone();
            c.p_words = q.p_words.clone();
        }
        Chart::Partial(p) => {
            c.size = p.size.to_string();
            c.p_count = p.p_count.to_string();
            c.heap = p.heap.to_string();
            c.stopped_by = p.reason.name().to_string();
            c.apparent = p.apparent.map_or(String::new(), |(per, pre)| format!("{per} from {pre}"));
            c.detail = p.detail.clone();
        }
    }
    c
}

/// `a=1 b=2 c=5`: each generator and the heap whose image it is.
fn generators(heaps: &[u32]) -> String {
    heaps
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let name = if i < 26 { ((b'a' + i as u8) as char).to_string() } else { format!("x{}", i + 1) };
            format!("{name}={h}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn text(entries: &[Entry]) -> String {
    let mut s = format!(
        "{:<7} {:<9} {:>6} {:>5} {:>6} {:>9} {:<5} {:>6} {:<14} {}\n",
        "code", "status", "|Q|", "|P|", "period", "preperiod", "tame", "heap", "stopped by", "generators"
    );
    let d = |v: &str| if v.is_empty() { "-".to_string() } else { v.to_string() };
    for e in entries {
        let c = cells(e);
        s += &format!(
            "{:<7} {:<9} {:>6} {:>5} {:>6} {:>9} {:<5} {:>6} {:<14} {}\n",
            c.code,
            c.status,
            d(&c.size),
            d(&c.p_count),
            d(&c.period),
            d(&c.preperiod),
            d(&c.tame),
            d(&c.heap),
            d(&c.stopped_by),
            d(&c.generators)
        );
    }
    s
}

/// CSV, RFC 4180: a header and one row per code.
fn csv(entries: &[Entry]) -> String {
    let mut s = String::from(
        "code,status,size,p_count,period,preperiod,tame,heap,stopped_by,apparent_period,generators,relations,p_elements,detail,cpu_seconds\n",
    );
    for e in entries {
        let c = cells(e);
        let row = [
            c.code,
            c.status.to_string(),
            c.size,
            c.p_count,
            c.period,
            c.preperiod,
            c.tame,
            c.heap,
            c.stopped_by,
            c.apparent,
            c.generators,
            c.relations.join("; "),
            c.p_words.join(" "),
            c.detail,
            c.seconds,
        ];
        s += &(row.iter().map(|f| csv_field(f)).collect::<Vec<_>>().join(",") + "\n");
    }
    s
}

/// One CSV field (RFC 4180): quoted, with inner quotes doubled, when it holds a comma, a
/// quote or a line break.
fn csv_field(c: &str) -> String {
    if c.contains([',', '"', '\n', '\r']) { format!("\"{}\"", c.replace('"', "\"\"")) } else { c.to_string() }
}

/// A Markdown table: the summary, then one row per code (generators as their heaps; the
/// relations are counted here and listed in `--csv` and `--json`).
fn markdown(entries: &[Entry], t: &Tally, digits: u32) -> String {
    let unit = if digits == 1 { "digit" } else { "digits" };
    let mut s = format!("Octal codes with up to {digits} {unit}. {}\n\n", summary(t).trim_end());
    s += &territory(entries, digits);
    s += "\n";
    s += "| code | status | \\|Q\\| | \\|P\\| | period | preperiod | tame | heap | stopped by | generators (heaps) | relations |\n";
    s += "|---|---|---:|---:|---:|---:|---|---:|---|---|---:|\n";
    for e in entries {
        let c = cells(e);
        let stopped = if c.apparent.is_empty() {
            c.stopped_by.clone()
        } else {
            format!("{} (apparent period {})", c.stopped_by, c.apparent)
        };
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            c.code,
            c.status,
            c.size,
            c.p_count,
            c.period,
            c.preperiod,
            c.tame,
            c.heap,
            stopped,
            c.generators,
            if c.status == "certified" { c.relations.len().to_string() } else { String::new() }
        );
    }
    s
}

/// The map of the territory, as a fenced block of one character per code: the code
/// 0.d₁…d_D, padded with zeros to D digits, sits in the row of its first D − 2 digits (D ≥ 3;
/// one row for D ≤ 2) and the column of its last two. `T` certified tame, `W` certified wild
/// with |Q| ≤ 64, `Q` certified wild with a larger |Q|; a partial code by what stopped it:
/// `.` time, `e` elements, `c` candidate, `s` states, `r` recalibrations, `h` heaps, `i`
/// proven infinite.
fn territory(entries: &[Entry], digits: u32) -> String {
    let mark = |e: &Entry| match &e.chart {
        Chart::Certified(c) if c.tame => 'T',
        Chart::Certified(c) if c.size <= 64 => 'W',
        Chart::Certified(_) => 'Q',
        Chart::Partial(p) => match p.reason {
            StopReason::Time => '.',
            StopReason::Elements => 'e',
            StopReason::Candidate => 'c',
            StopReason::States => 's',
            StopReason::Recalibrations => 'r',
            StopReason::Heaps => 'h',
            StopReason::Infinite => 'i',
        },
    };
    let by: std::collections::HashMap<String, char> = entries
        .iter()
        .map(|e| {
            let d = e.code.trim_start_matches("0.");
            (format!("{d:0<width$}", width = digits as usize), mark(e))
        })
        .collect();
    let cols = if digits >= 2 { 64 } else { 8 };
    let rows = 8usize.pow(digits) / cols;
    let lead = digits.saturating_sub(2) as usize;
    let mut s = String::from("```\n");
    let columns = if digits == 1 {
        "d1 = 0 … 7".to_string()
    } else {
        format!("d{}d{} = 00 … 77", digits - 1, digits)
    };
    s += &format!("{:width$}  {columns} (octal, left to right)\n", "", width = lead + 2);
    for r in 0..rows {
        let head = if lead == 0 { String::new() } else { format!("{r:0lead$o}") };
        let line: String = (0..cols)
            .map(|c| {
                let key = format!("{head}{:0w$o}", c, w = digits.min(2) as usize);
                by.get(&key).copied().unwrap_or(' ')
            })
            .collect();
        s += &format!("0.{head:<lead$}  {line}\n");
    }
    s += "```\nT tame, W wild (|Q| ≤ 64), Q wild (|Q| > 64); partial: . time, e elements, c candidate, s states, \
          r recalibrations, h heaps\n";
    s
}

#[cfg(test)]
mod tests {
    use super::{csv_field, generators};

    #[test]
    fn fields_and_generators() {
        assert_eq!(csv_field("a^2 = 1; b^3 = b"), "a^2 = 1; b^3 = b");
        assert_eq!(csv_field("x, y"), "\"x, y\"");
        assert_eq!(generators(&[1, 2, 5]), "a=1 b=2 c=5");
        assert_eq!(generators(&[]), "");
    }
}
