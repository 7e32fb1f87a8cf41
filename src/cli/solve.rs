//! `nimdb solve`.

use std::process::ExitCode;

use clap::Args;

use nimdb::driver::solve_into_spilling;
use nimdb::game::{Convention, GameSpec};
use nimdb::index::Universe;
use nimdb::resources::{Bytes, MemoryBudget};
use nimdb::solve::{MAX_SOLVE_TOTAL, SolveOptions, SolveReport, Spill, reach};
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

/// What a solve run solves, once its arguments are checked.
pub(super) struct Prepared {
    pub game: GameSpec,
    pub convention: Convention,
    pub universe: Universe,
    pub nim_values: bool,
    /// Where the lower tiers spill when they do not fit the memory budget.
    pub spill: Option<Spill>,
}

/// Runs `nimdb solve`.
pub fn run(args: SolveArgs) -> anyhow::Result<ExitCode> {
    if args.game.game.heaps().is_none() {
        let game = &args.game.game;
        // Never ignored: the families' solver holds its tiers in memory (no window to
        // spill) and runs in one process.
        if args.window_limit.is_some() {
            anyhow::bail!(
                "--window-limit is not taken for {game}: its solver keeps every tier it reads in memory and never spills (--memory-limit bounds the solve, and --dry-run shows its cost)"
            );
        }
        if args.mpi_ranks.is_some() {
            anyhow::bail!(
                "--mpi-ranks is not taken for {game}: an MPI job solves heap games only, and {game} is solved by one process"
            );
        }
        return super::space::solve(super::space::SolveRequest {
            game,
            convention: args.game.convention(),
            max_total: args.max_total,
            max_heap: args.max_heap,
            max_heaps: args.max_heaps,
            nim_values: args.nim_values,
            dry_run: args.dry_run,
            quiet: args.quiet,
            memory_limit: args.memory_limit,
            db: &args.db.db,
        });
    }
    let Some(job) = prepare(&args)? else {
        return Ok(ExitCode::SUCCESS);
    };
    let mut db = Database::open(&args.db.db).map_err(words::store)?;
    let bar = SolveBar::new(!args.quiet);
    // Ctrl-C stops before the next tier; the finished ones are committed already.
    super::interrupt::install();
    let result = solve_into_spilling(
        &mut db,
        &job.game,
        job.convention,
        job.universe,
        job.nim_values,
        &bar,
        job.spill.as_ref(),
    );
    bar.finish();
    if let Some(code) = super::interrupt::stopped_solve(&result, db.path(), false) {
        return Ok(code);
    }
    let (solve, report) = result.map_err(words::driver)?;
    if !args.quiet {
        print_report(&db, &job, &solve, &report);
    }
    Ok(ExitCode::SUCCESS)
}

/// Checks the arguments and the memory budget, and decides whether the lower tiers spill.
/// With `--dry-run`, prints the estimates and returns `None`.
pub(super) fn prepare(args: &SolveArgs) -> anyhow::Result<Option<Prepared>> {
    let game = super::args::heap_game(&args.game.game, "solve")?;
    let convention = args.game.convention();
    let universe =
        Universe::new(game.rules(), &game.canonical(), args.max_total, args.max_heap, args.max_heaps)
            .map_err(words::universe)?;
    if universe.max_total > MAX_SOLVE_TOTAL {
        anyhow::bail!("--max-total {} is too large (at most {MAX_SOLVE_TOTAL})", universe.max_total);
    }
    let table = universe.table().map_err(words::universe)?;
    let options =
        SolveOptions { convention, universe, nim_values: args.nim_values, strategy: Default::default() };
    let estimate = nimdb::solve::estimate(game, &options, &table);
    let budget = MemoryBudget::given(args.memory_limit).map_err(super::words::memory_limit)?;
    if args.dry_run {
        println!("game:        {game}{}", if args.game.misere { " --misere" } else { "" });
        println!("universe:    {universe}");
        println!("tiers:       {}", estimate.tiers);
        println!("positions:   {}", estimate.positions);
        println!(
            "memory:      ~{} (tiers within {} tokens of the one being solved)",
            mb(estimate.memory_bytes),
            reach(game.rules(), &universe)
        );
        if let Some(ranks) = args.mpi_ranks {
            // Each rank spills past the budget one process would (the job's plan), or past
            // --window-limit, whichever is less.
            let planned = plan(&estimate, &budget, "this solve", &args.db.db).ok().flatten();
            let cap = [planned, args.window_limit].into_iter().flatten().min();
            let e = nimdb::solve::estimate_ranks(game, &options, &table, ranks as usize, cap);
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
        println!(
            "disk:        ~{} (up to {} byte(s) per position)",
            mb(estimate.disk_bytes),
            estimate.record_bytes
        );
        match plan(&estimate, &budget, "this solve", &args.db.db) {
            Ok(None) => println!("budget:      {} ({}): fits", Bytes(budget.bytes), budget.source),
            Ok(Some(window)) => println!(
                "budget:      {} ({}): lower tiers past {} spill to disk (up to {})",
                Bytes(budget.bytes),
                budget.source,
                Bytes(window),
                Bytes(estimate.window_bytes.saturating_sub(window))
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
    let window = plan(&estimate, &budget, &format!("solving {game} ({universe})"), &args.db.db)?;
    let window = match (window, args.window_limit) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
    .filter(|&bytes| bytes < estimate.window_bytes);
    let spill = window.map(|budget_bytes| Spill::beside(&args.db.db, budget_bytes));
    if let (Some(spill), false) = (&spill, args.quiet) {
        eprintln!(
            "note: the lower tiers (~{}) do not fit {}; past {} they spill to mapped files in {} (up to {} of disk, freed by the end)",
            Bytes(estimate.window_bytes),
            match args.window_limit {
                Some(limit) if limit == spill.budget => format!("the window limit ({})", Bytes(limit)),
                _ => format!("the memory budget ({})", Bytes(budget.bytes)),
            },
            Bytes(spill.budget),
            spill.dir.display(),
            Bytes(estimate.window_bytes.saturating_sub(spill.budget))
        );
    }
    Ok(Some(Prepared { game: game.clone(), convention, universe, nim_values: args.nim_values, spill }))
}

/// Prints the summary of a finished solve run.
pub(super) fn print_report(db: &Database, job: &Prepared, solve: &SolveRecord, report: &SolveReport) {
    let Prepared { game, convention, universe, .. } = job;
    let rate = |n: u64| if report.seconds > 0.0 { n as f64 / report.seconds } else { 0.0 };
    println!(
        "solved {game} ({convention}, {universe}) into {}: solve #{}, {}",
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
