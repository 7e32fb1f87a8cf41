//! `solve --dry-run` predicts the solve's peak memory within 25%: each case is solved in a
//! child process whose own peak resident memory the kernel reports (`wait4`).

mod common;

use std::process::Stdio;

use common::nimdb;

/// The `memory: ~N MB` figure of a dry run, in bytes.
fn estimate(args: &[&str], db: &std::path::Path) -> f64 {
    let out = nimdb().args(["solve", "--dry-run", "--db"]).arg(db).args(args).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.starts_with("memory:")).expect("a memory line");
    let figure = line.split('~').nth(1).unwrap();
    let mut words = figure.split_whitespace();
    let n: f64 = words.next().unwrap().parse().unwrap();
    match words.next().unwrap() {
        "MB" => n * 1048576.0,
        "KB" => n * 1024.0,
        unit => panic!("unit {unit}"),
    }
}

/// The peak resident memory of solving `args`, in bytes.
// The child is reaped by `wait4` below, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn peak(args: &[&str], db: &std::path::Path) -> f64 {
    let cmd = nimdb();
    let mut cmd = std::process::Command::new(cmd.get_program());
    let child = cmd
        .args(["solve", "--quiet", "--db"])
        .arg(db)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for the kernel to fill; the pid is our child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "{args:?} failed");
    usage.ru_maxrss as f64 * 1024.0
}

#[test]
fn dry_run_memory_is_within_25_percent_of_the_peak() {
    for args in [
        &["--game", "lines", "--misere", "--max-total", "60"][..],
        &["--game", "kayles", "--misere", "--max-total", "58"],
        &["--game", "nim", "--misere", "--max-heap", "20", "--max-heaps", "8"],
        &["--game", "dawson", "--max-total", "50"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("m.sqlite");
        let predicted = estimate(args, &db);
        let measured = peak(args, &db);
        let ratio = predicted / measured;
        eprintln!("{args:?}: estimated {:.1} MB, peak {:.1} MB", predicted / 1048576.0, measured / 1048576.0);
        assert!(
            (0.75..=1.25).contains(&ratio),
            "{args:?}: estimated {:.1} MB, peak {:.1} MB ({ratio:.2})",
            predicted / 1048576.0,
            measured / 1048576.0
        );
    }
}
