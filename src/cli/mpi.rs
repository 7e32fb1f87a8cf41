//! `nimdb solve --mpi` (feature `mpi`): every rank of `mpirun -np N` runs this. Rank 0 checks
//! the arguments, opens the database, broadcasts the plan, solves its block of each tier,
//! gathers the others' blocks into the database and prints; the other ranks receive the
//! plan and what rank 0 reads, solve their blocks, and print nothing (see `nimdb::mpi` and
//! docs/DISTRIBUTED.md).

use std::cell::Cell;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::anyhow;

use nimdb::driver::solve_into_with;
use nimdb::mpi::{FollowerStore, Header, JobPlan, LeaderStore, MpiTeam, RankFigures, TierTraffic};
use nimdb::solve::{Partners, Progress, SolveError, solve_partitioned_spilling};
use nimdb::store::Database;

use super::cost::mb;
use super::progress::SolveBar;
use super::solve::{SolveArgs, prepare, print_report};
use super::words;

/// Runs this rank's part of `nimdb solve --mpi`.
pub fn run(args: SolveArgs) -> anyhow::Result<ExitCode> {
    // Every rank refuses alike, before MPI starts.
    if let Err(e) = nimdb::driver::partitionable(&args.game.game) {
        anyhow::bail!("--mpi is not taken: {e} (run nimdb solve without --mpi)");
    }
    // A rank waiting in a collective busy-polls by default, taking a core from its own
    // rayon threads and from the other ranks of its node (here, -np 2 on 2 cores: 24 s
    // instead of 8.6 s for misère lines to 60). Yield instead, unless the user chose.
    const YIELD: &str = "OMPI_MCA_mpi_yield_when_idle";
    if std::env::var_os(YIELD).is_none() {
        // SAFETY: nothing else runs yet: the command line was only parsed, and no thread
        // (rayon's pool, the writer, MPI's own) has been started.
        unsafe { std::env::set_var(YIELD, "1") };
    }
    // This thread makes every MPI call and hands the solver's parallel work to rayon many
    // times a tier: as one of the pool's threads it runs that work itself, instead of
    // waking another thread and sleeping until it is done each time.
    let _ = rayon::ThreadPoolBuilder::new().use_current_thread().build_global();
    let (_session, team) = nimdb::mpi::init().map_err(|e| anyhow!("{e}"))?;
    // Ctrl-C, SIGTERM or SIGUSR1 on any rank stops every rank after the tier in flight: the
    // ranks agree on the flag at the end of each tier (see `Partners::agree`).
    super::interrupt::install_for_rank();
    if team.index() == 0 { lead(&args, &team) } else { follow(&team) }
}

/// Rank 0.
fn lead(args: &SolveArgs, team: &MpiTeam) -> anyhow::Result<ExitCode> {
    let stop = |failed| team.announce(Some(&Header::Stop { failed })).map_err(|e| anyhow!("{e}"));
    let gather_part = nimdb::mpi::gather_part_from_env();
    let opened = gather_part.as_ref().map_err(|e| anyhow!("{e}")).and_then(|_| prepare(args)).and_then(
        |job| match job {
            None => Ok(None),
            Some((job, _)) if job.nim_values() && team.size() > 1 => {
                let _ = job;
                Err(anyhow!(
                    "--nim-values visits every edge with the sweep solver, which runs on one process; \
                 run it without mpirun, or with -np 1"
                ))
            }
            Some(job) => Ok(Some((Database::open(&args.db.db).map_err(words::store)?, job))),
        },
    );
    let (mut db, (job, planned)) = match opened {
        Ok(Some(opened)) => opened,
        Ok(None) => {
            stop(false)?;
            return Ok(ExitCode::SUCCESS);
        }
        Err(e) => {
            // Said before the other ranks hear of it: once one of them exits with a
            // failure, mpirun ends the whole job, this rank included, perhaps before it
            // could print.
            super::report_failure(&e);
            stop(true)?;
            return Ok(ExitCode::FAILURE);
        }
    };
    let (game, universe) = job.partitioned().map_err(words::job)?;
    let mut plan = JobPlan::new(game, job.convention(), &universe, job.nim_values());
    plan.tier_stats = args.mpi_stats;
    if let Ok(part) = gather_part {
        plan.gather_part = part;
        team.set_gather_part(part);
    }
    plan.spill = planned.spill.as_ref().map(|s| (s.budget, s.dir.to_string_lossy().into_owned()));
    // Rank 0 writes: its log folds in at the mark the plan found room for.
    db.set_log_pages(planned.log_pages);
    let bar = SolveBar::new(!args.quiet);
    let started = Instant::now();
    // The plan goes out once the solve record is open, right before the first store call;
    // if opening it fails, the other ranks are told to stop instead.
    let announced = Cell::new(false);
    let result = solve_into_with(
        &mut db,
        game,
        job.convention(),
        universe,
        job.nim_values(),
        team.size(),
        |options, sink| {
            team.announce(Some(&Header::Solve(plan))).map_err(|e| SolveError::Team(e.to_string()))?;
            announced.set(true);
            let mut store = LeaderStore::new(sink, team);
            let result =
                solve_partitioned_spilling(game, options, &mut store, &bar, team, planned.spill.as_ref());
            if let Err(e @ SolveError::Spill(_)) = &result {
                // Only this rank saw it: the others wait in the solve's next collective.
                team.abort(&e.to_string());
            }
            result
        },
    );
    bar.finish();
    if !announced.get() {
        // As above: the error is said before the other ranks are told to stop.
        if let Err(e) = result.map_err(words::driver) {
            super::report_failure(&e);
        }
        stop(true)?;
        return Ok(ExitCode::FAILURE);
    }
    let window = result.as_ref().map_or(0, |(_, report)| report.peak_window_bytes);
    let (figures, tiers) =
        team.gather(started.elapsed().as_secs_f64(), window, args.mpi_stats).unwrap_or_default();
    let code = if let Some(code) = super::interrupt::stopped_solve(&result, db.path(), false) {
        code
    } else {
        match result.map_err(words::driver) {
            Ok((solve, report)) => {
                if !args.quiet {
                    print_report(&db, &job, &solve, &report);
                    print_summary(team, &figures);
                }
                if args.mpi_stats {
                    print_tiers(&tiers);
                    print_ranks(&figures);
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                super::report_failure(&e);
                ExitCode::FAILURE
            }
        }
    };
    // The other ranks exit once this one has said what happened: a rank that exits with a
    // failure makes mpirun end the job, perhaps before rank 0 could print.
    team.barrier();
    Ok(code)
}

/// Every rank but 0: silent; its exit status says whether the job succeeded.
fn follow(team: &MpiTeam) -> anyhow::Result<ExitCode> {
    let plan = match team.announce(None) {
        Ok(Header::Solve(plan)) => plan,
        Ok(Header::Stop { failed }) => return Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }),
        Err(e) => team.abort(&e.to_string()),
    };
    let game = plan.game().unwrap_or_else(|e| team.abort(&e.to_string()));
    team.set_gather_part(plan.gather_part);
    let started = Instant::now();
    let mut store = FollowerStore::new(team);
    let spill = plan.rank_spill(team.index());
    let result =
        solve_partitioned_spilling(&game, &plan.options(), &mut store, &Stoppable, team, spill.as_ref());
    if let Err(e @ SolveError::Spill(_)) = &result {
        // Only this rank saw it: the others wait in the solve's next collective.
        team.abort(&e.to_string());
    }
    let window = result.as_ref().map_or(0, |report| report.peak_window_bytes);
    team.gather(started.elapsed().as_secs_f64(), window, plan.tier_stats);
    team.barrier();
    // A failure here is rank 0's too (every error comes from what it broadcast, or from the
    // same computation on the same data, and the ranks agree on a stop), and rank 0
    // reports it.
    Ok(match result {
        Ok(_) => ExitCode::SUCCESS,
        Err(SolveError::Interrupted { .. }) => ExitCode::from(super::interrupt::EXIT_INTERRUPTED),
        Err(_) => ExitCode::FAILURE,
    })
}

/// The progress of every rank but 0: silent, but it reports this rank's stop signal, so
/// that the ranks agree to stop whichever of them was signalled.
struct Stoppable;

impl Progress for Stoppable {
    fn interrupted(&self) -> bool {
        super::interrupt::interrupted()
    }
}

/// One line after the usual report: the job's size and its communication.
fn print_summary(team: &MpiTeam, figures: &[RankFigures]) {
    if figures.is_empty() {
        return;
    }
    let (least, most) = figures
        .iter()
        .fold((f64::INFINITY, 0f64), |(lo, hi), f| (lo.min(f.traffic.seconds), hi.max(f.traffic.seconds)));
    let sent: u64 = figures.iter().map(|f| f.traffic.sent_bytes()).sum();
    let most_sent = figures.iter().map(|f| f.traffic.sent_bytes()).max().unwrap_or(0);
    let peak = figures.iter().map(|f| f.peak_bytes).max().unwrap_or(0);
    println!(
        "mpi: {} rank{}; sent {} in all, at most {} by one rank; peak memory at most {} a rank; \
         {:.2}–{:.2} s per rank in collectives (waits included)",
        team.size(),
        if team.size() == 1 { "" } else { "s" },
        mb(sent),
        mb(most_sent),
        mb(peak),
        least,
        most,
    );
}

/// `--mpi-stats`: every rank's bytes sent per tier.
fn print_tiers(tiers: &[TierTraffic]) {
    println!(
        "tier\trank\texchanged_bytes\tanswered_bytes\tgathered_bytes\tbroadcast_bytes\tcollectives\tcollective_s"
    );
    for t in tiers {
        println!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.6}",
            t.tier,
            t.rank,
            t.traffic.exchanged_bytes,
            t.traffic.answered_bytes,
            t.traffic.gathered_bytes,
            t.traffic.broadcast_bytes,
            t.traffic.collectives,
            t.traffic.seconds,
        );
    }
}

/// `--mpi-stats`: every rank's totals.
fn print_ranks(figures: &[RankFigures]) {
    println!(
        "rank\tsent_bytes\texchanged_bytes\tanswered_bytes\tgathered_bytes\tbroadcast_bytes\tcollectives\tcollective_s\tsolve_s\tcpu_s\tpeak_bytes\twindow_bytes"
    );
    for f in figures {
        println!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.6}\t{:.6}\t{:.3}\t{}\t{}",
            f.rank,
            f.traffic.sent_bytes(),
            f.traffic.exchanged_bytes,
            f.traffic.answered_bytes,
            f.traffic.gathered_bytes,
            f.traffic.broadcast_bytes,
            f.traffic.collectives,
            f.traffic.seconds,
            f.solve_seconds,
            f.cpu_seconds,
            f.peak_bytes,
            f.window_bytes,
        );
    }
}
