//! Commands whose cost exceeds the machine are refused up front, with the cost named, and
//! write nothing.

mod common;

use common::{err, ok};

#[test]
fn a_solve_over_the_memory_budget_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("big.sqlite");
    let db = db.to_str().unwrap();
    // About 360 GB of memory, or a terabyte of disk to spill its lower tiers to (and, spilled,
    // about 21 GB for its largest tiers: a budget of 32 GB holds those).
    let e = err(&["solve", "--db", db, "--game", "kayles", "--max-total", "150", "--memory-limit", "32G"]);
    assert!(
        e.contains("GB of memory")
            && e.contains("spilling its lower tiers to disk")
            && e.contains("nothing was written"),
        "{e}"
    );
    let e = err(&["solve", "--db", db, "--game", "kayles", "--max-total", "30", "--memory-limit", "1K"]);
    assert!(e.contains("more than the 1.0 KB allowed"), "{e}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "a refused solve left a file");
    // Within the limit it runs.
    ok(&["solve", "--quiet", "--db", db, "--game", "kayles", "--max-total", "30", "--memory-limit", "1G"]);
    let e = err(&["solve", "--db", db, "--game", "kayles", "--max-total", "30", "--memory-limit", "lots"]);
    assert!(e.contains("not a size"), "{e}");
}

#[test]
fn the_dry_run_says_whether_the_budget_fits() {
    let out = ok(&["solve", "--dry-run", "--game", "kayles", "--max-total", "150", "--memory-limit", "16G"]);
    assert!(out.contains("would be refused"), "{out}");
    let out = ok(&["solve", "--dry-run", "--game", "lines", "--max-total", "60", "--memory-limit", "14M"]);
    assert!(out.contains("spill to disk"), "{out}");
    let out = ok(&["solve", "--dry-run", "--game", "kayles", "--max-total", "40"]);
    assert!(out.contains("fits"), "{out}");
}

#[test]
fn a_tree_beyond_drawing_is_refused_at_once() {
    let e = err(&["tree", "--game", "nim", "--max-nodes", "18446744073709551615", "20", "20"]);
    assert!(e.contains("231408671323516023 nodes") && e.contains("at most 10000000"), "{e}");
}

#[test]
fn a_theory_answer_that_would_take_minutes_is_refused_with_its_cost() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("q.sqlite");
    let e = err(&["query", "--db", db.to_str().unwrap(), "--game", "octal:0.1337", "1000000", "3"]);
    assert!(e.contains("option reads") && e.contains("no proven period") && e.contains("--cpu-limit"), "{e}");
    // A game whose period is proven answers at any size.
    let out = ok(&["query", "--db", db.to_str().unwrap(), "--game", "kayles", "1000000", "3"]);
    assert!(out.contains("source: theory"), "{out}");
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let heaps: Vec<String> = (1..=3000).map(|h| h.to_string()).collect();
    for args in [
        vec!["explain".to_string()].into_iter().chain(heaps.iter().cloned()).collect::<Vec<_>>(),
        ["tree", "--game", "nim", "--max-nodes", "100000", "6", "5"].iter().map(|s| s.to_string()).collect(),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_nimdb"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read one byte, then close the pipe, as `| head -c 1` does.
        let mut out = child.stdout.take().unwrap();
        let mut one = [0u8; 1];
        out.read_exact(&mut one).unwrap();
        drop(out);
        let mut stderr = String::new();
        child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
        let status = child.wait().unwrap();
        assert!(!stderr.contains("panicked"), "{}: {stderr}", args[0]);
        assert_ne!(status.code(), Some(101), "{}: {status:?}", args[0]);
    }
}

/// Issue 34, round five: a plain-method theory answer's cost was predicted as zero, so
/// `query --game octal:0.74 100000` (about 11 CPU s) was never refused. Its cost is now
/// predicted from the plain method's options: refused up front in one line that names the
/// cost and the flag to raise, and answered within a limit that allows it.
#[test]
fn a_plain_method_answer_is_refused_up_front_naming_its_cost() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("q.sqlite");
    let db = db.to_str().unwrap();
    let started = std::time::Instant::now();
    let e = err(&["query", "--db", db, "--game", "octal:0.74", "100000"]);
    for words in ["plain method", "option reads", "CPU s", "more than the 5 s", "--cpu-limit"] {
        assert!(e.contains(words), "{words}: {e}");
    }
    eprintln!("refused after {:?}", started.elapsed());
    let e = err(&["query", "--db", db, "--game", "octal:0.74", "--cpu-limit", "0.2", "30000"]);
    assert!(e.contains("more than the 0.2 s") && e.contains("--cpu-limit"), "{e}");
    let e = err(&["query", "--db", db, "--game", "hex:0.[F]", "1335"]);
    assert!(e.contains("plain mex") && e.contains("--cpu-limit"), "{e}");
    let out = ok(&["query", "--db", db, "--game", "octal:0.74", "30000"]);
    assert!(out.contains("source: theory"), "{out}");
    let e = err(&["query", "--db", db, "--cpu-limit", "0", "3"]);
    assert!(e.contains("seconds"), "{e}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "a theory answer wrote a file");
}

/// Issue 34, round five: a solve on the spot was not under any CPU limit. `--cpu-limit`
/// now stops it before its next tier, in one line; the tiers it finished are stored.
#[test]
fn a_solve_on_the_spot_stops_at_the_cpu_limit() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let db = db.to_str().unwrap();
    // Misère hex:0.F [29, 29]: 4,841,062 positions, about 10 CPU s whole.
    let e = err(&["query", "--db", db, "--game", "hex:0.F", "--misere", "--cpu-limit", "0.3", "29", "29"]);
    assert!(e.contains("stopped at the CPU limit of 0.3 s") && e.contains("--cpu-limit"), "{e}");
    let info = ok(&["info", "--db", db]);
    assert!(info.contains("partial"), "{info}");
}
