//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::Path;

use assert_cmd::Command;

/// The `nimdb` binary under test.
pub fn nimdb() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nimdb"));
    cmd.env_remove("NIMDB_DB");
    cmd
}

/// Every row of `solves` and `tiers` (payloads included), as text, to compare databases.
/// (Empty for files that are not nimdb databases.)
pub fn dump(path: &Path) -> Vec<String> {
    let Ok(conn) = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let Ok(mut stmt) = conn.prepare("SELECT id, game, convention, max_heap, max_heaps, target_total, solved_total, status, positions, losses FROM solves ORDER BY id") else {
        return Vec::new();
    };
    let rows = stmt
        .query_map([], |r| {
            Ok(format!(
                "solve {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<i64>>(3)?,
                r.get::<_, Option<i64>>(4)?,
                r.get::<_, i64>(5)?,
                r.get::<_, i64>(6)?,
                r.get::<_, String>(7)?,
                r.get::<_, i64>(8)?,
                r.get::<_, i64>(9)?
            ))
        })
        .unwrap();
    out.extend(rows.map(Result::unwrap));
    out.extend(tier_payloads(&conn).into_iter().map(|(t, k, p)| format!("tier {t} {k} {p:?}")));
    out
}

/// (total, heaps, payload) of every tier of every solve, in order.
pub fn tier_payloads(conn: &rusqlite::Connection) -> Vec<(i64, i64, Vec<u8>)> {
    let mut stmt =
        conn.prepare("SELECT total, heaps, payload FROM tiers ORDER BY solve_id, total, heaps").unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
}

/// Asserts a failed run printed exactly one line, starting `nimdb: error:` and containing
/// `needle`.
pub fn assert_one_line_error(output: &std::process::Output, needle: &str) {
    assert!(!output.status.success(), "expected failure, got {:?}", output.status);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one error line, got: {stderr}");
    assert!(lines[0].starts_with("nimdb: error:"), "{stderr}");
    assert!(lines[0].to_lowercase().contains(&needle.to_lowercase()), "expected '{needle}' in: {stderr}");
}

/// Runs `nimdb args`: (success, stdout, stderr).
pub fn run(args: &[&str]) -> (bool, String, String) {
    let out = nimdb().args(args).output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// Runs `nimdb args`, expects success, returns stdout.
pub fn ok(args: &[&str]) -> String {
    let (success, stdout, stderr) = run(args);
    assert!(success, "nimdb {args:?} failed: {stderr}");
    stdout
}

/// Runs `nimdb args`, expects a one-line error and a failing exit status, returns stderr.
pub fn err(args: &[&str]) -> String {
    let (success, _, stderr) = run(args);
    assert!(!success, "nimdb {args:?} should fail");
    assert!(stderr.starts_with("nimdb: error: "), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    stderr
}

/// Fails a test whose tool or privilege (chromium, tmux, Graphviz, root, mount) is missing,
/// naming it. Such a test is `#[ignore]`d with the reason, so that the default
/// `cargo test` lists it as ignored instead of passing it unrun; `.ci/run` installs the tools
/// and runs it with `--ignored`, and there a missing tool is a failure, never a pass.
pub fn missing(what: &str) -> ! {
    panic!("this test cannot run here: {what}")
}

/// The peak resident set of the solve `nimdb ARGS` into the database file `db`, in bytes (its
/// own memory and the pages of files it has mapped), and what it printed on both streams.
/// Panics if it fails.
///
/// The peak is the high-water mark the kernel keeps of the child's own memory (`VmHWM`),
/// which the solve records with its run (`solve_runs.peak_memory_bytes`), not `wait4`'s
/// `ru_maxrss`: on Linux `ru_maxrss` also takes in, at exec, the high-water mark of the
/// memory the process had before it (`exec_mmap`), and `Command` spawns with vfork, so the
/// child shares this test process's memory until its exec and reports this process's peak
/// whenever that is the larger (a test that held the tiers of another solve made a child of
/// 25 MB report 71 MB). `ru_maxrss` is checked to be at least the recorded peak, within a
/// megabyte (the kernel's per-CPU counts of resident pages are folded in lazily: the two
/// were measured 64 KB apart either way).
// The child is reaped by `wait4`, which also reports its peak memory; `Child::wait` would
// not.
#[allow(clippy::zombie_processes)]
pub fn peak_of(args: &[&std::ffi::OsStr], db: &std::path::Path) -> (u64, String) {
    use std::io::Read;
    let cmd = nimdb();
    let mut child = std::process::Command::new(cmd.get_program())
        .args(args)
        .env_remove("NIMDB_DB")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Both streams are drained while the child runs, so that a full pipe cannot stall it.
    let drain = |mut stream: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            stream.read_to_string(&mut text).unwrap();
            text
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for the kernel to fill; the pid is our child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    let text = out.join().unwrap() + &err.join().unwrap();
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "{args:?}: {text}");
    let conn = rusqlite::Connection::open(db).unwrap();
    let recorded: Option<i64> = conn
        .query_row("SELECT peak_memory_bytes FROM solve_runs ORDER BY id DESC LIMIT 1", [], |r| r.get(0))
        .unwrap();
    let peak = recorded.expect("the solve recorded its peak") as u64;
    let maxrss = usage.ru_maxrss as u64 * 1024;
    assert!(
        peak > 0 && peak <= maxrss + (1 << 20),
        "{args:?}: recorded peak {peak} bytes, ru_maxrss {maxrss}"
    );
    (peak, text)
}
