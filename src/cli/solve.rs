//! `nimdb solve`.

use std::process::ExitCode;

use clap::Args;

use nimdb::driver::{JobError, SolveBounds, SolveJob, SolvePlan};
use nimdb::resources::{Bytes, MemoryBudget};
use nimdb::solve::{SolveOptions, SolveReport};
use nimdb::store::{Database, SolveRecord};

use super::cost::{mb, plan};
use super::progress::SolveBar;
use super::{DbArg, GameArgs, words};

/// Arguments of `nimdb solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    #[command(flatten)]
    pub(super) game: GameArgs,
    /// Solve every position with at most this many tokens [default: max-heap × max-heaps].
    #[arg(long, short = 't')]
    max_total: Option<u32>,
    /// Only positions whose heaps are all at most this size.
    #[arg(long)]
    max_heap: Option<u32>,
    /// Only positions with at most this many heaps (games that never split only).
    #[arg(long)]
    max_heaps: Option<u32>,
    #[command(flatten)]
    pub(super) db: DbArg,
    /// Print the positions and the memory and disk estimates, and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// No progress bar and no summary.
    #[arg(long, short = 'q')]
    pub(super) quiet: bool,
    /// Also store nim-values (misère nim-values under --misere); visits every edge.
    #[arg(long)]
    nim_values: bool,
    /// Memory budget (e.g. 4G) [default: 80% of the memory available now]. A solve whose
    /// lower tiers do not fit spills them to mapped files beside the database (same
    /// result, more disk reads); one that cannot fit even then is refused.
    #[arg(long, value_name = "SIZE", value_parser = nimdb::resources::parse_size)]
    memory_limit: Option<u64>,
    /// Hold at most SIZE of lower tiers in memory and spill the rest to mapped files beside
    /// the database (set for you when --memory-limit needs it).
    #[arg(long, value_name = "SIZE", value_parser = nimdb::resources::parse_size)]
    window_limit: Option<u64>,
    /// With --dry-run: also estimate each rank's peak memory in an MPI job of N ranks
    /// (`mpirun -np N nimdb solve … --mpi`, docs/DISTRIBUTED.md).
    #[arg(long, value_name = "N", requires = "dry_run", value_parser = clap::value_parser!(u32).range(1..))]
    mpi_ranks: Option<u32>,
    /// Solve as one rank of an MPI job: `mpirun -np N nimdb solve … --mpi`. Rank 0 writes
    /// the database and prints; the other ranks share each tier's work (docs/DISTRIBUTED.md).
    #[cfg(feature = "mpi")]
    #[arg(long)]
    pub(super) mpi: bool,
    /// With --mpi: also print each tier's communication (bytes and seconds in collectives)
    /// and each rank's totals.
    #[cfg(feature = "mpi")]
    #[arg(long, requires = "mpi")]
    pub(super) mpi_stats: bool,
}

/// Runs `nimdb solve`: one path for every game (the job picks the solver).
pub fn run(args: SolveArgs) -> anyhow::Result<ExitCode> {
    let Some((job, plan)) = prepare(&args)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let mut db = Database::open(&args.db.db).map_err(words::store)?;
    let bar = SolveBar::new(!args.quiet);
    // Ctrl-C stops before the next tier; the finished ones are committed already.
    super::interrupt::install();
    let result = job.run(&mut db, &bar, &plan);
    bar.finish();
    if let Some(code) = super::interrupt::stopped_solve(&result, db.path(), job.game().family().loopy()) {
        return Ok(code);
    }
    let (solve, report) = result.map_err(words::driver)?;
    if !args.quiet {
        print_report(&db, &job, &solve, &report);
    }
    Ok(ExitCode::SUCCESS)
}

/// Checks the arguments against the game's rules and the memory budget, and decides whether
/// the lower tiers spill. With `--dry-run`, prints the estimates and returns `None`. A flag
/// the game's solver cannot honour (`--window-limit` or `--mpi-ranks` for a solver that
/// never spills or runs in one process) is refused, dry run or not: never passed over.
pub(super) fn prepare(args: &SolveArgs) -> anyhow::Result<Option<(SolveJob, SolvePlan)>> {
    let game = &args.game.game;
    let bounds =
        SolveBounds { max_total: args.max_total, max_heap: args.max_heap, max_heaps: args.max_heaps };
    // Solved on rayon's global pool: the estimate counts its threads.
    let threads = nimdb::solve::pool_threads();
    let job =
        SolveJob::new(game, args.game.convention(), bounds, args.nim_values, threads).map_err(words::job)?;
    let estimate = job.estimate();
    let budget = MemoryBudget::given(args.memory_limit).map_err(super::words::memory_limit)?;
    if args.mpi_ranks.is_some() {
        job.partitioned().map_err(words::job)?;
    }
    if args.dry_run {
        // Only whether the flag applies: the budget's verdict is printed below.
        if let Err(e @ JobError::NoWindow(_)) =
            job.plan(&budget, args.window_limit, "this solve", &args.db.db)
        {
            return Err(words::job(e));
        }
        println!("game:        {game}{}", if args.game.misere { " --misere" } else { "" });
        println!("universe:    {}", job.covers());
        println!("tiers:       {}", estimate.tiers);
        println!("positions:   {}", estimate.positions);
        println!("memory:      ~{} ({})", mb(estimate.memory_bytes), job.memory_words());
        if let Some(ranks) = args.mpi_ranks {
            let (spec, universe) = job.partitioned().map_err(words::job)?;
            // Each rank spills past the budget one process would (the job's plan), or past
            // --window-limit, whichever is less.
            let planned = plan(estimate, &budget, "this solve", &args.db.db).ok().flatten();
            let cap = [planned, args.window_limit].into_iter().flatten().min();
            let options = SolveOptions {
                convention: job.convention(),
                universe,
                nim_values: job.nim_values(),
                strategy: Default::default(),
            };
            let table = universe.table().map_err(words::universe)?;
            let e = nimdb::solve::estimate_ranks(spec, &options, &table, ranks as usize, cap);
            let window = if e.window_bytes < e.whole_window_bytes {
                format!(
                    "{} of window each in memory, the rest of its {} spilled",
                    mb(e.window_bytes),
                    mb(e.whole_window_bytes)
                )
            } else {
                format!("{} of window each", mb(e.window_bytes))
            };
            println!(
                "mpi ranks:   {ranks}: ~{} on rank 0, ~{} on each other rank ({window}, {} fixed)",
                mb(e.leader_bytes),
                mb(e.rank_bytes),
                mb(e.fixed_bytes)
            );
        }
        // The disk for the tiers not stored yet: a solve that extends a stored one needs
        // only theirs.
        let stored = job.stored_at(&args.db.db).len();
        let resumed = job.estimate_at(&args.db.db);
        // The log the solve would run with: SQLite's default mark where the disk has room.
        let log = if resumed.log_pages(&args.db.db, 0) == nimdb::footprint::ROOMY_LOG_PAGES {
            resumed.roomy_log_bytes
        } else {
            resumed.log_bytes
        };
        println!(
            "disk:        ~{} of database at most (up to {} byte(s) per position), and up to {} of write-ahead log while it writes{}",
            mb(resumed.disk_bytes),
            resumed.record_bytes,
            mb(log),
            if stored > 0 {
                format!(
                    " (for the {} tiers not stored yet: {stored} are)",
                    estimate.tiers.saturating_sub(stored as u64)
                )
            } else {
                String::new()
            }
        );
        match job.cpu_time() {
            Some(t) => println!("time:        {}", t.words()),
            None => println!("time:        the defining program's"),
        }
        match plan(&resumed, &budget, "this solve", &args.db.db) {
            Ok(None) => println!("budget:      {} ({}): fits", Bytes(budget.bytes), budget.source),
            Ok(Some(window)) => println!(
                "budget:      {} ({}): a window of {} holds the lower tiers a tier reads and the marking arrays of the totals above it; lower tiers past it spill to disk (up to {}, of which a tier reads at most {})",
                Bytes(budget.bytes),
                budget.source,
                Bytes(window),
                Bytes(estimate.window_bytes.saturating_sub(window)),
                Bytes(estimate.spill_reads_bytes.min(estimate.window_bytes))
            ),
            Err(e) => println!("budget:      would be refused: {e}"),
        }
        if let Some(limit) = args.window_limit {
            if limit < estimate.window_bytes {
                println!(
                    "window:      --window-limit {}: lower tiers past it spill to disk (up to {})",
                    Bytes(limit),
                    Bytes(estimate.window_bytes - limit)
                );
            } else {
                println!(
                    "window:      --window-limit {}: the lower tiers (~{}) fit it, nothing spills",
                    Bytes(limit),
                    Bytes(estimate.window_bytes)
                );
            }
        }
        println!("dry run: nothing written");
        return Ok(None);
    }
    // Refuse before touching the file: a solve that cannot fit would only abort later.
    let what = format!("solving {game} ({})", job.covers());
    let planned = job.plan(&budget, args.window_limit, &what, &args.db.db).map_err(words::job)?;
    if let (Some(spill), false) = (&planned.spill, args.quiet) {
        eprintln!(
            "note: the lower tiers (~{}) do not fit {}; past {} they spill to mapped files in {} (up to {} of disk, freed by the end)",
            Bytes(estimate.window_bytes),
            if planned.by_window_limit {
                format!("the window limit ({})", Bytes(spill.budget))
            } else {
                format!("the memory budget ({})", Bytes(budget.bytes))
            },
            Bytes(spill.budget),
            spill.dir.display(),
            Bytes(estimate.window_bytes.saturating_sub(spill.budget))
        );
    }
    Ok(Some((job, planned)))
}

/// Prints the summary of a finished solve run.
pub(super) fn print_report(db: &Database, job: &SolveJob, solve: &SolveRecord, report: &SolveReport) {
    let (game, convention, covers) = (job.game(), job.convention(), job.covers());
    let rate = |n: u64| if report.seconds > 0.0 { n as f64 / report.seconds } else { 0.0 };
    println!(
        "solved {game} ({convention}, {covers}) into {}: solve #{}, {}",
        db.path().display(),
        solve.id,
        if report.tiers_now == 0 {
            "already stored".to_string()
        } else {
            format!("{} new tiers", report.tiers_now)
        }
    );
    println!(
        "positions: {} in the universe, {} solved now ({} losses) in {:.2} s — {:.2} M positions/s, {:.2} M edges/s",
        report.positions,
        report.solved_now,
        report.losses_now,
        report.seconds,
        rate(report.solved_now) / 1e6,
        rate(report.edges) / 1e6
    );
    if report.spilled_bytes > 0 {
        println!(
            "spilled: {} of lower tiers to mapped files (held at most {} in memory)",
            Bytes(report.spilled_bytes),
            Bytes(report.peak_window_bytes)
        );
    }
    println!(
        "stored: {} positions, {} losses, {} of tier payload, status {}",
        solve.positions,
        solve.losses,
        mb(solve.bytes),
        match solve.status {
            nimdb::store::SolveStatus::Complete => "complete",
            nimdb::store::SolveStatus::Partial => "partial",
        }
    );
}
