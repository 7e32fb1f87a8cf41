//! `mpirun -np N nimdb solve … --mpi` (feature `mpi`; needs Open MPI's `mpirun`): the
//! tiers equal the single-process solve's, only rank 0 prints, a failure on rank 0 ends
//! every rank, and a worker killed mid-run fails the job without a torn tier, after which
//! a rerun resumes from the last committed tier; a signal to any rank or Ctrl-C to mpirun
//! stops every rank at the same tier boundary, and a rerun resumes; offers and blocks
//! travel combined and coded; each rank holds its share of the window, peaks within what
//! `--dry-run --mpi-ranks N` predicts, and spills its own blocks past `--window-limit`.
//!
//! Run with `cargo test --release --features mpi --test mpi` (`.ci/run` does).
#![cfg(feature = "mpi")]

mod common;

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{nimdb, tier_payloads};
use nimdb::game::{Convention, GameSpec};
use nimdb::index::{TierId, Universe};
use nimdb::mpi::{Header, JobPlan, MpiError, Reply, WireTier, decode, encode};
use nimdb::solve::SolvedTier;

/// `mpirun -np N nimdb ARGS… --mpi`, as root if need be, more ranks than cores allowed.
/// The MPI jobs of this file run one at a time: several jobs of oversubscribed ranks at once
/// on a small machine starve each other, and the signal tests depend on a rank finishing its
/// tier within mpirun's second between SIGTERM and SIGKILL.
static ONE_JOB_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_job_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_JOB_AT_A_TIME.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn mpirun(np: usize, args: &[&str]) -> Command {
    let mut cmd = Command::new("mpirun");
    cmd.args(["--allow-run-as-root", "--oversubscribe", "-np", &np.to_string()])
        .arg(env!("CARGO_BIN_EXE_nimdb"))
        .args(args)
        .arg("--mpi")
        .env_remove("NIMDB_DB");
    cmd
}

fn solve_args<'a>(db: &'a Path, game: &'a [&'a str]) -> Vec<&'a str> {
    let mut args = vec!["solve", "--db", db.to_str().unwrap()];
    args.extend_from_slice(game);
    args
}

/// Every tier's (total, heaps, CRC-32, payload), in order.
fn tiers(db: &Path) -> Vec<(i64, i64, i64, Vec<u8>)> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let checksums: Vec<i64> = conn
        .prepare("SELECT checksum FROM tiers ORDER BY solve_id, total, heaps")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    tier_payloads(&conn).into_iter().zip(checksums).map(|((t, h, p), c)| (t, h, c, p)).collect()
}

/// The tiers of a single-process solve of `game`.
fn single(dir: &Path, name: &str, game: &[&str]) -> Vec<(i64, i64, i64, Vec<u8>)> {
    let db = dir.join(name);
    let out = nimdb().args(solve_args(&db, game)).arg("--quiet").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    tiers(&db)
}

fn text(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Waits for `child` at most `limit`; a job still running then is killed and the test fails.
fn wait_within(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the MPI job did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

const LINES: &[&str] = &["--game", "lines", "--misere", "--max-total", "40"];
const KAYLES: &[&str] = &["--game", "kayles", "--misere", "--max-total", "40"];
const NIM: &[&str] = &["--game", "nim", "--max-heap", "10", "--max-heaps", "6"];

/// The tab-separated rows of `--mpi-stats` with `columns` fields whose first field
/// satisfies `first`.
fn rows(stdout: &str, columns: usize, first: impl Fn(&str) -> bool) -> Vec<Vec<&str>> {
    stdout
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|r| r.len() == columns && first(r[0]))
        .collect()
}

#[test]
fn two_three_and_four_ranks_store_the_tiers_of_one_process_and_only_rank_0_prints() {
    let _job = one_job_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    for (name, game) in [("lines", LINES), ("kayles", KAYLES), ("nim", NIM)] {
        let alone = single(dir.path(), &format!("{name}-1.sqlite"), game);
        assert!(alone.len() > 30, "{name}");
        for np in [2, 3, 4] {
            let db = dir.path().join(format!("{name}-{np}.sqlite"));
            let mut args = solve_args(&db, game);
            args.push("--mpi-stats");
            let mut job = mpirun(np, &args);
            if np == 3 {
                // Finished blocks reach rank 0's database in parts of 100 values: every
                // tier of more than 300 positions crosses in several.
                job.env("NIMDB_GATHER_PART", "100");
            }
            let out = job.output().unwrap();
            let (stdout, stderr) = text(&out);
            assert!(out.status.success(), "{name} -np {np}: {stderr}");
            assert!(tiers(&db) == alone, "{name} -np {np}: the MPI solve's tiers differ from one process's");

            // Rank 0's report, once; the other ranks print nothing.
            assert_eq!(stdout.lines().filter(|l| l.starts_with("solved ")).count(), 1, "{stdout}");
            assert!(stdout.contains(&format!("{} new tiers", alone.len())), "{stdout}");
            assert!(stdout.contains(&format!("mpi: {np} ranks;")), "{stdout}");
            assert!(!stderr.contains("nimdb"), "{stderr}");

            // One run recorded, by rank 0, for the job of np processes, with every tier.
            let (runs, processes, run_tiers): (i64, i64, i64) = rusqlite::Connection::open(&db)
                .unwrap()
                .query_row("SELECT COUNT(*), MAX(processes), MAX(tiers) FROM solve_runs", [], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .unwrap();
            assert_eq!((runs, processes as usize, run_tiers as usize), (1, np, alone.len()), "{name}");

            // --mpi-stats: a row per tier and rank. Each rank but 0 sends rank 0 its block of
            // every tier, a byte a position while remoteness stays below 256 (as here).
            // Offers and child requests go out once per cell and compressed: the job sends
            // fewer than 5 bytes of them a position (8 to 21 before, at 8 bytes an offer).
            let tier_rows = rows(&stdout, 8, |f| f.contains(','));
            assert_eq!(tier_rows.len(), alone.len() * np, "{stdout}");
            let (mut gathered, mut exchanged) = (vec![0u64; np], 0);
            for (i, row) in tier_rows.iter().enumerate() {
                let rank: usize = row[1].parse().unwrap();
                assert_eq!(rank, i % np, "{row:?}");
                let bytes: Vec<u64> = row[2..6].iter().map(|b| b.parse().unwrap()).collect();
                exchanged += bytes[0];
                gathered[rank] += bytes[2];
            }
            let positions: u64 = stdout
                .split("positions: ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no position count in {stdout}"));
            assert_eq!(gathered[0], 0, "rank 0 keeps its blocks");
            let sent_to_0: u64 = gathered.iter().sum();
            let others = positions * (np as u64 - 1) / np as u64;
            assert!(
                sent_to_0.abs_diff(others) <= alone.len() as u64,
                "{sent_to_0} bytes gathered for {others} positions on ranks 1..{np}"
            );
            assert!(exchanged < 5 * positions, "{name} -np {np}: {exchanged} bytes of offers and requests");

            // Every rank's totals: its sent bytes are the sum of its parts, and every rank
            // held a window (its blocks of the solved tiers).
            let rank_rows = rows(&stdout, 12, |f| f.parse::<usize>().is_ok());
            assert_eq!(
                rank_rows.iter().map(|r| r[0].parse().unwrap()).collect::<Vec<usize>>(),
                (0..np).collect::<Vec<_>>()
            );
            for row in rank_rows {
                let n: Vec<u64> = row[1..6].iter().map(|b| b.parse().unwrap()).collect();
                assert_eq!(n[0], n[1] + n[2] + n[3] + n[4], "{row:?}");
                assert!(row[11].parse::<u64>().unwrap() > 0, "{row:?}");
            }
        }
    }
}

#[test]
fn a_failure_on_rank_0_ends_every_rank_with_one_error() {
    let _job = one_job_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("missing").join("x.sqlite");
    let mut child =
        mpirun(3, &solve_args(&db, LINES)).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let status = wait_within(&mut child, Duration::from_secs(120));
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(!status.success());
    assert_eq!(stderr.matches("nimdb: error:").count(), 1, "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(!db.exists());

    // A part size out of range is refused before the database is opened.
    let db = dir.path().join("parts.sqlite");
    for bad in ["0", "many", "16777217"] {
        let out = mpirun(2, &solve_args(&db, LINES)).env("NIMDB_GATHER_PART", bad).output().unwrap();
        let (stdout, stderr) = text(&out);
        assert!(!out.status.success(), "{bad}");
        assert_eq!(stderr.matches("nimdb: error:").count(), 1, "{stderr}");
        assert!(stderr.contains(&format!("NIMDB_GATHER_PART={bad} is not a whole number")), "{stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(!db.exists());
    }
}

/// The pid of rank `rank` of the job whose `mpirun` is `launcher`: a process that mpirun
/// started (or one of its descendants) with `OMPI_COMM_WORLD_RANK=rank`.
fn rank_pid(launcher: u32, rank: usize) -> Option<u32> {
    let parent = |pid: u32| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat[stat.rfind(')')? + 2..].split(' ').nth(1)?.parse().ok()
    };
    let wanted = format!("OMPI_COMM_WORLD_RANK={rank}");
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else { continue };
        if !environ.split(|&b| b == 0).any(|var| var == wanted.as_bytes()) {
            continue;
        }
        let mut up = Some(pid);
        while let Some(p) = up.filter(|&p| p > 1) {
            if p == launcher {
                return Some(pid);
            }
            up = parent(p);
        }
    }
    None
}

/// How many tiers a database holds (0 while it is not there yet or is busy).
fn stored(db: &Path) -> usize {
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| c.query_row("SELECT COUNT(*) FROM tiers", [], |r| r.get::<_, i64>(0)))
        .map(|n| n as usize)
        .unwrap_or(0)
}

#[test]
fn a_killed_worker_fails_the_job_cleanly_and_a_rerun_resumes() {
    let _job = one_job_at_a_time();
    const GAME: &[&str] = &["--game", "lines", "--misere", "--max-total", "50"];
    let dir = tempfile::tempdir().unwrap();
    let alone = single(dir.path(), "alone.sqlite", GAME);
    let db = dir.path().join("killed.sqlite");

    // Kill rank 2 once a third of the tiers (the small ones: most of the work is still to
    // come) are committed.
    let mut job =
        mpirun(3, &solve_args(&db, GAME)).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let started = Instant::now();
    while stored(&db) < alone.len() / 3 {
        assert!(job.try_wait().unwrap().is_none(), "the job ended before the worker was killed");
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(10));
    }
    let worker = rank_pid(job.id(), 2).expect("rank 2 of the job");
    assert!(Command::new("kill").args(["-KILL", &worker.to_string()]).status().unwrap().success());
    let status = wait_within(&mut job, Duration::from_secs(120));
    let (_, stderr) = text(&job.wait_with_output().unwrap());
    assert!(!status.success(), "the job succeeded without its rank 2: {stderr}");

    // Only whole tiers were committed, each the single-process solve's.
    let kept = tiers(&db);
    assert!(
        kept.len() >= alone.len() / 3 && kept.len() < alone.len(),
        "{} of {} tiers",
        kept.len(),
        alone.len()
    );
    for tier in &kept {
        assert!(alone.contains(tier), "tier {},{} differs from the single-process solve", tier.0, tier.1);
    }

    // A rerun resumes from there and ends with the single-process tiers.
    let out = mpirun(3, &solve_args(&db, GAME)).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains(&format!("{} new tiers", alone.len() - kept.len())), "{stdout}");
    assert!(tiers(&db) == alone, "the resumed solve's tiers differ from one process's");
}

/// Starts `mpirun -np 3` on `game` into `db`, waits until `at_least` tiers are committed,
/// sends `signal` to `target(mpirun's pid)`, and returns the job's exit status and stderr.
fn signalled_job(
    db: &Path,
    game: &[&str],
    at_least: usize,
    signal: &str,
    target: impl Fn(u32) -> u32,
) -> (std::process::ExitStatus, String) {
    let mut job =
        mpirun(3, &solve_args(db, game)).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let started = Instant::now();
    while stored(db) < at_least {
        assert!(job.try_wait().unwrap().is_none(), "the job ended before it was signalled");
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(10));
    }
    let pid = target(job.id());
    assert!(Command::new("kill").args([signal, &pid.to_string()]).status().unwrap().success());
    let status = wait_within(&mut job, Duration::from_secs(120));
    let (_, stderr) = text(&job.wait_with_output().unwrap());
    (status, stderr)
}

/// After a stop: the job failed with nimdb's one line, the database holds whole tiers of
/// the single-process solve but not all of them, and a rerun completes it byte-identical.
fn stopped_then_resumed(
    db: &Path,
    game: &[&str],
    alone: &[(i64, i64, i64, Vec<u8>)],
    status: std::process::ExitStatus,
    stderr: &str,
) {
    assert!(!status.success(), "the signalled job succeeded: {stderr}");
    let said: Vec<&str> = stderr.lines().filter(|l| l.starts_with("nimdb:")).collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(said[0].starts_with("nimdb: interrupted: the "), "{stderr}");
    assert!(said[0].ends_with("run the same command again to resume"), "{stderr}");
    let kept = tiers(db);
    assert!(!kept.is_empty() && kept.len() < alone.len(), "{} of {} tiers", kept.len(), alone.len());
    let now: usize = said[0]["nimdb: interrupted: the ".len()..].split(' ').next().unwrap().parse().unwrap();
    assert_eq!(now, kept.len(), "the message's tiers are the stored ones: {stderr}");
    for tier in &kept {
        assert!(alone.contains(tier), "tier {},{} differs from the single-process solve", tier.0, tier.1);
    }
    let out = mpirun(3, &solve_args(db, game)).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains(&format!("{} new tiers", alone.len() - kept.len())), "{stdout}");
    assert!(tiers(db) == alone, "the resumed solve's tiers differ from one process's");
}

/// SIGTERM to one rank (rank 2) stops every rank after the tier in flight: the ranks agree
/// on the stop at the end of each tier. Rank 2 exits with 130, which mpirun passes on.
#[test]
fn a_signal_to_one_rank_stops_every_rank_at_a_tier_boundary_and_a_rerun_resumes() {
    let _job = one_job_at_a_time();
    const GAME: &[&str] = &["--game", "lines", "--misere", "--max-total", "50"];
    let dir = tempfile::tempdir().unwrap();
    let alone = single(dir.path(), "alone.sqlite", GAME);
    let db = dir.path().join("stopped.sqlite");
    let (status, stderr) = signalled_job(&db, GAME, alone.len() / 3, "-TERM", |mpirun| {
        rank_pid(mpirun, 2).expect("rank 2 of the job")
    });
    assert_eq!(status.code(), Some(130), "{stderr}");
    stopped_then_resumed(&db, GAME, &alone, status, &stderr);
}

/// Ctrl-C to mpirun: it sends every rank SIGTERM a second later (and SIGKILL a second after
/// that), and each rank stops after the tier in flight.
#[test]
fn ctrl_c_to_mpirun_stops_the_job_at_a_tier_boundary_and_a_rerun_resumes() {
    let _job = one_job_at_a_time();
    const GAME: &[&str] = &["--game", "lines", "--misere", "--max-total", "60"];
    let dir = tempfile::tempdir().unwrap();
    let alone = single(dir.path(), "alone.sqlite", GAME);
    let db = dir.path().join("stopped.sqlite");
    let (status, stderr) = signalled_job(&db, GAME, alone.len() / 4, "-INT", |mpirun| mpirun);
    stopped_then_resumed(&db, GAME, &alone, status, &stderr);
}

/// `--window-limit` on an MPI job: every rank spills its own blocks past the limit (rank 0
/// beside the database, the others there too when the directory exists on their node),
/// holds at most the limit and the spilled blocks' loss values, and the tiers are those of
/// one process; no spill file is left behind.
#[test]
fn every_rank_spills_its_own_blocks_past_the_window_limit() {
    let _job = one_job_at_a_time();
    const GAME: &[&str] = &["--game", "lines", "--misere", "--max-total", "50"];
    let dir = tempfile::tempdir().unwrap();
    let alone = single(dir.path(), "alone.sqlite", GAME);
    let db = dir.path().join("limited.sqlite");
    let mut args = solve_args(&db, GAME);
    args.extend(["--window-limit", "64K", "--mpi-stats"]);
    let out = mpirun(3, &args).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(tiers(&db) == alone, "the spilling MPI solve's tiers differ from one process's");
    assert!(stdout.contains("spilled: "), "{stdout}");
    let windows: Vec<u64> =
        rows(&stdout, 12, |f| f.parse::<usize>().is_ok()).iter().map(|r| r[11].parse().unwrap()).collect();
    assert_eq!(windows.len(), 3, "{stdout}");
    for (rank, &held) in windows.iter().enumerate() {
        // Unlimited, each rank holds about 570 KB here; spilling, 64 KiB and the loss
        // values (2 bytes a loss) of what it spilled.
        assert!(held < 160 << 10, "rank {rank} held {held} bytes of window under a 64 KiB limit");
    }
    // `--dry-run --mpi-ranks 3` with the same limit predicts every rank's peak within 25%,
    // and says the window spills.
    let mut limited = GAME.to_vec();
    limited.extend(["--window-limit", "64K"]);
    let (line, leader, others) = predicted_line(&limited, 3);
    assert!(line.contains("of window each in memory, the rest of its"), "{line}");
    let peaks = rank_figures(&stdout);
    for (rank, &(peak, _)) in peaks.iter().enumerate() {
        let guess = if rank == 0 { leader } else { others };
        assert!(
            (guess as f64 - peak as f64).abs() <= 0.25 * peak as f64,
            "rank {rank}: `{line}` predicted {guess} bytes, the rank peaked at {peak}"
        );
    }
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("spill"))
        .collect();
    assert!(left.is_empty(), "spill files left behind: {left:?}");
}

// The control messages, without MPI.
#[test]
fn control_messages_round_trip() {
    let game: GameSpec = "lines".parse().unwrap();
    let universe = Universe { max_total: 30, max_heap: None, max_heaps: None };
    let plan = JobPlan::new(&game, Convention::Misere, &universe, false);
    let header = Header::Solve(plan.clone());
    assert_eq!(decode::<Header>(&encode(&header).unwrap()).unwrap(), header);
    assert_eq!(plan.game().unwrap(), game);
    assert_eq!(plan.options().universe, universe);
    assert_eq!(plan.options().convention, Convention::Misere);

    let tier =
        WireTier { total: 9, heaps: 2, remoteness: vec![1, 3, 300, 2], nim_values: None, seconds: 0.5 };
    let done = Reply::Done(tier.clone());
    assert_eq!(decode::<Reply<WireTier>>(&encode(&done).unwrap()).unwrap(), done);
    let failed = Reply::<()>::Failed("disk full".into());
    assert_eq!(decode::<Reply<()>>(&encode(&failed).unwrap()).unwrap(), failed);
    let solved: SolvedTier = tier.into();
    assert_eq!(solved.tier, TierId { total: 9, heaps: 2 });
}

#[test]
fn a_foreign_version_or_truncated_message_is_refused() {
    let game: GameSpec = "kayles".parse().unwrap();
    let universe = Universe { max_total: 10, max_heap: None, max_heaps: None };
    let mut plan = JobPlan::new(&game, Convention::Normal, &universe, false);
    plan.version = "0.0.0-other".into();
    assert!(matches!(plan.game(), Err(MpiError::Version { .. })));
    let bytes = encode(&Header::Solve(plan)).unwrap();
    assert!(decode::<Header>(&bytes[..bytes.len() - 1]).is_err());
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(decode::<Header>(&longer).is_err());
}

/// The peak memory (`VmHWM`) a single-process solve of `game` recorded in its run.
fn single_peak(dir: &Path, name: &str, game: &[&str]) -> u64 {
    let db = dir.join(name);
    let out = nimdb().args(solve_args(&db, game)).arg("--quiet").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let peak: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT MAX(peak_memory_bytes) FROM solve_runs", [], |r| r.get(0))
        .unwrap();
    peak as u64
}

/// Every rank's (peak memory, peak window bytes) in a job of `np` ranks solving `game`.
fn rank_memory(dir: &Path, name: &str, np: usize, game: &[&str]) -> Vec<(u64, u64)> {
    let db = dir.join(name);
    let mut args = solve_args(&db, game);
    args.extend(["--mpi-stats", "--quiet"]);
    let out = mpirun(np, &args).output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let figures = rank_figures(&stdout);
    assert_eq!(figures.len(), np, "{stdout}");
    figures
}

/// Every rank's (peak memory, peak window bytes), from `--mpi-stats`' rows of ranks.
fn rank_figures(stdout: &str) -> Vec<(u64, u64)> {
    rows(stdout, 12, |f| f.parse::<usize>().is_ok())
        .iter()
        .map(|r| (r[10].parse().unwrap(), r[11].parse().unwrap()))
        .collect()
}

/// Bytes from the command line's sizes ("25 MB", "601.2 KB": binary units).
fn size(words: &str) -> u64 {
    let (n, unit) = words.trim().trim_start_matches('~').split_once(' ').unwrap();
    let scale = match unit {
        "KB" => 1u64 << 10,
        "MB" => 1 << 20,
        "GB" => 1 << 30,
        other => panic!("unit {other}"),
    };
    (n.parse::<f64>().unwrap() * scale as f64) as u64
}

/// `nimdb solve GAME --dry-run --mpi-ranks N`'s predictions: rank 0's peak, the others'.
fn predicted(game: &[&str], ranks: usize) -> (u64, u64) {
    let (_, leader, others) = predicted_line(game, ranks);
    (leader, others)
}

/// [`predicted`], with the whole line that gives it.
fn predicted_line(game: &[&str], ranks: usize) -> (String, u64, u64) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("dry.sqlite");
    let out = nimdb()
        .args(solve_args(&db, game))
        .args(["--dry-run", "--mpi-ranks", &ranks.to_string()])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let line = stdout.lines().find(|l| l.starts_with("mpi ranks:")).expect("an mpi ranks line");
    let (_, rest) = line.split_once(": ").unwrap();
    let (_, rest) = rest.split_once(": ").unwrap();
    let (leader, rest) = rest.split_once(" on rank 0, ").unwrap();
    let (others, _) = rest.split_once(" on each other rank").unwrap();
    assert!(!db.exists(), "a dry run wrote the database");
    (line.to_string(), size(leader), size(others))
}

/// Misère lines to total 50 with 4 ranks: each rank's window (its blocks of the solved
/// tiers, as the solver counts them) is below 0.3 of one rank's; each rank's peak memory
/// (`VmHWM`) less its fixed overhead is below 0.45 of the single process's peak; and
/// `--dry-run --mpi-ranks 4` predicts every rank's peak within 25%. A rank's fixed
/// overhead (docs/DISTRIBUTED.md) is its peak on a solve too small to hold a window
/// (total 4) run the same way: code, libraries (Open MPI's) and MPI's own buffers.
#[test]
fn four_ranks_each_hold_a_quarter_of_the_window() {
    let _job = one_job_at_a_time();
    const GAME: &[&str] = &["--game", "lines", "--misere", "--max-total", "50"];
    const TINY: &[&str] = &["--game", "lines", "--misere", "--max-total", "4"];
    let dir = tempfile::tempdir().unwrap();
    let single = single_peak(dir.path(), "one.sqlite", GAME);
    let single_fixed = single_peak(dir.path(), "one-tiny.sqlite", TINY);
    let alone = rank_memory(dir.path(), "alone.sqlite", 1, GAME)[0];
    let ranks = rank_memory(dir.path(), "four.sqlite", 4, GAME);
    let fixed = rank_memory(dir.path(), "four-tiny.sqlite", 4, TINY);
    let (leader, others) = predicted(GAME, 4);
    eprintln!(
        "single {single} (fixed {single_fixed}); one rank {alone:?}; four {ranks:?} (fixed {fixed:?}); predicted {leader}, {others}"
    );
    for (rank, (&(peak, window), &(fixed, _))) in ranks.iter().zip(&fixed).enumerate() {
        assert!(
            window * 10 < alone.1 * 3,
            "rank {rank} of 4 held a window of {window} bytes, a single rank {}",
            alone.1
        );
        let own = peak.saturating_sub(fixed);
        assert!(
            (own as f64) < 0.45 * single as f64,
            "rank {rank}'s peak {peak} less its fixed overhead {fixed} is not below 0.45 of one process's {single}"
        );
        // Strictly, each side less its own fixed overhead: ranks 1–3 grow 0.4–0.5 of what
        // the single process grows (the rank table, which every rank builds whole, and Open
        // MPI's message buffers do not divide; docs/DISTRIBUTED.md).
        let grows = single.saturating_sub(single_fixed) as f64;
        if rank > 0 {
            assert!(
                (own as f64) < 0.6 * grows,
                "rank {rank} grew {own} bytes past its fixed overhead, the single process {grows}"
            );
        }
        let guess = if rank == 0 { leader } else { others };
        assert!(
            (guess as f64 - peak as f64).abs() <= 0.25 * peak as f64,
            "rank {rank}: --dry-run --mpi-ranks 4 predicted {guess} bytes, the rank peaked at {peak}"
        );
    }
}

/// Remoteness past 255: the answers, the gathered blocks and a resume's scattered blocks go
/// at two bytes a value once a tier's greatest remoteness passes a byte. Take-1 on up to
/// two heaps of 300 tokens in all: every position's remoteness is its token count.
#[test]
fn remoteness_past_a_byte_goes_two_bytes_a_value_and_the_tiers_are_one_process_s() {
    let _job = one_job_at_a_time();
    const GAME: &[&str] = &["--game", "subtraction:1", "--max-total", "300", "--max-heaps", "2"];
    let dir = tempfile::tempdir().unwrap();
    let alone = single(dir.path(), "alone.sqlite", GAME);
    for np in [2, 3] {
        let db = dir.path().join(format!("wide-{np}.sqlite"));
        // At -np 3 the blocks reach rank 0 in parts of 7 values, two bytes each.
        let mut job = mpirun(np, &solve_args(&db, GAME));
        if np == 3 {
            job.env("NIMDB_GATHER_PART", "7");
        }
        let out = job.output().unwrap();
        let (_, stderr) = text(&out);
        assert!(out.status.success(), "-np {np}: {stderr}");
        assert!(tiers(&db) == alone, "-np {np}: the MPI solve's tiers differ from one process's");
    }
    let conn = rusqlite::Connection::open(dir.path().join("wide-2.sqlite")).unwrap();
    let most: i64 = conn.query_row("SELECT MAX(max_remoteness) FROM tiers", [], |r| r.get(0)).unwrap();
    assert!(most > 255, "{most}");
    // A resume whose stored tiers pass a byte: drop the upper totals and solve again.
    conn.execute("DELETE FROM tiers WHERE total > 280", []).unwrap();
    drop(conn);
    // Rank 0 reads each stored tier a block at a time and sends every rank its block in
    // parts of 7 values, two bytes each.
    let out = mpirun(3, &solve_args(&dir.path().join("wide-2.sqlite"), GAME))
        .env("NIMDB_GATHER_PART", "7")
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert!(out.status.success(), "resume: {stderr}");
    assert!(tiers(&dir.path().join("wide-2.sqlite")) == alone, "the resumed tiers differ");
}

/// A resume whose stored tier is damaged past its first block: rank 0 has already told
/// every rank the tier is coming and sent some of it when the damage shows. Every rank
/// still gets its whole block and then the failure, so the job ends at once with one
/// error naming the damage; nothing stored is changed.
#[test]
fn a_tier_damaged_midway_through_a_resume_fails_every_rank_with_one_error() {
    let _job = one_job_at_a_time();
    const GAME: &[&str] = &["--game", "lines", "--misere", "--max-total", "48"];
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("damaged.sqlite");
    let out = mpirun(3, &solve_args(&db, GAME)).output().unwrap();
    assert!(out.status.success(), "{}", text(&out).1);
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute("DELETE FROM tiers WHERE total = 48", []).unwrap();
    // The largest tier of total 47, which the resume reads: a byte of its second block.
    let (heaps, positions): (i64, i64) = conn
        .query_row(
            "SELECT heaps, positions FROM tiers WHERE total = 47 ORDER BY positions DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(positions > 2 * 4096, "{positions} positions: the tier needs a second block");
    conn.execute(
        "UPDATE tiers SET payload = CAST(substr(payload, 1, 5000) || X'7F' || substr(payload, 5002) AS BLOB)
         WHERE total = 47 AND heaps = ?1",
        [heaps],
    )
    .unwrap();
    drop(conn);
    let before = tiers(&db);
    let mut child = mpirun(3, &solve_args(&db, GAME))
        .env("NIMDB_GATHER_PART", "500")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_within(&mut child, Duration::from_secs(120));
    let out = child.wait_with_output().unwrap();
    let (_, stderr) = text(&out);
    assert!(!status.success());
    assert_eq!(stderr.matches("nimdb: error:").count(), 1, "{stderr}");
    assert!(stderr.contains("block 1 fails its checksum"), "{stderr}");
    assert!(tiers(&db) == before, "the failed resume changed what was stored");
}
