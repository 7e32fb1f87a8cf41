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
    // about 54 GB for its largest tiers and the spilled tiers one tier reads: a budget of 64 GB
    // holds those).
    let e = err(&["solve", "--db", db, "--game", "kayles", "--max-total", "150", "--memory-limit", "64G"]);
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
    let out = ok(&["solve", "--dry-run", "--game", "lines", "--max-total", "60", "--memory-limit", "20M"]);
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

/// Thirty Welter heaps near 3,000: the theorem's move list judges about 90,000 moves, some
/// 0.15 CPU s.
fn welter_thirty() -> Vec<String> {
    (0..30).map(|i| (3000 + 7 * i).to_string()).collect()
}

/// Issue 34, round six: `query --batch` had no `--cpu-limit` (its lines were refused by the
/// library's 5 s and never stopped). Each line is now under the limit: heap values
/// predicted past it are refused, and work past it is stopped, each such line with its own
/// error object naming `--cpu-limit`, while the other lines are answered (exit status 1).
#[test]
fn each_batch_line_is_under_the_cpu_limit() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("b.sqlite");
    let db = db.to_str().unwrap();
    let batch = |args: &[&str], input: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_nimdb"))
            .args(["query", "--batch", "--db", db])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let lines: Vec<serde_json::Value> =
            String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (out.status.code(), lines, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    // Refused by the prediction: octal:0.74 to heap 30,000 is about 0.5 CPU s.
    let (code, lines, stderr) = batch(&["--game", "octal:0.74", "--cpu-limit", "0.2"], "30\n30000\n40\n");
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0]["outcome"].is_string() && lines[2]["outcome"].is_string(), "{lines:?}");
    let e = lines[1]["error"].as_str().unwrap_or_else(|| panic!("{lines:?}"));
    assert!(e.contains("more than the 0.2 s") && e.contains("--cpu-limit"), "{e}");
    // Stopped by the watch: a theorem's long move list.
    let welter = format!("1 2 3\n{}\n4 5\n", welter_thirty().join(" "));
    let (code, lines, stderr) = batch(&["--game", "welter", "--moves", "--cpu-limit", "0.01"], &welter);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0]["outcome"].is_string() && lines[2]["outcome"].is_string(), "{lines:?}");
    let e = lines[1]["error"].as_str().unwrap_or_else(|| panic!("{lines:?}"));
    assert!(e.contains("stopped at the CPU limit of 0.01 s") && e.contains("--cpu-limit"), "{e}");
    // Within the limit every line is answered.
    let (code, lines, stderr) = batch(&["--game", "welter", "--moves", "--cpu-limit", "60"], &welter);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(lines.iter().all(|l| l["error"].is_null()), "{lines:?}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "a batch wrote a file");
}

/// Issue 34, round six: `nimdb heaps` had no CPU limit. With `--cpu-limit`, nim-values
/// predicted past it are refused before anything is written, and a run past it is stopped
/// in one line (exit 1), the heaps finished stored.
#[test]
fn heaps_keeps_to_its_cpu_limit() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let db = db.to_str().unwrap();
    let e = err(&["heaps", "--db", db, "--game", "octal:0.74", "--up-to", "100000", "--cpu-limit", "5"]);
    for words in ["plain method", "option reads", "more than the 5 s", "--cpu-limit", "nothing was computed"]
    {
        assert!(e.contains(words), "{words}: {e}");
    }
    assert!(!e.trim().contains('\n'), "{e}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "a refused run left a file");
    // Grundy's game to 19,999 (no prediction refuses it: about 0.15 CPU s) under 0.02 s.
    let e =
        err(&["heaps", "--db", db, "--game", "grundy", "--up-to", "19999", "--csv", "--cpu-limit", "0.02"]);
    assert!(e.contains("stopped at the CPU limit of 0.02 s") && e.contains("--cpu-limit"), "{e}");
    // Without a limit (the default) it runs whole.
    let out = ok(&["heaps", "--db", db, "--game", "grundy", "--up-to", "19999", "--csv"]);
    assert_eq!(out.lines().count(), 20_001, "header and 20,000 rows");
}

/// Issue 34, round six: the family theorems' answers (staircase, Welter, raise) were not
/// under `query --cpu-limit`'s watch; a long move list is now stopped at the limit in one
/// line, and answered within it.
#[test]
fn a_family_theorem_s_move_list_is_under_the_cpu_limit() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("f.sqlite");
    let db = db.to_str().unwrap();
    let heaps = welter_thirty();
    let heaps: Vec<&str> = heaps.iter().map(String::as_str).collect();
    let e = err(&[&["query", "--db", db, "--game", "welter", "--cpu-limit", "0.01"][..], &heaps].concat());
    assert!(e.contains("stopped at the CPU limit of 0.01 s") && e.contains("--cpu-limit"), "{e}");
    let out = ok(&[&["query", "--db", db, "--game", "welter"][..], &heaps].concat());
    assert!(out.contains("Welter"), "{out}");
}

/// `nimdb play` judged each position with no CPU limit (the query's prediction at 5 s, and
/// no watch): a theorem's long move list or a run of heap values could hold the game for
/// as long as they took. `--cpu-limit` now bounds each new position's judgement as `query
/// --cpu-limit` bounds an answer: past it the game ends in one line naming the flag, and a
/// start refused so writes nothing.
#[test]
fn play_judges_each_position_within_its_cpu_limit() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("p.sqlite");
    let db = db.to_str().unwrap();
    let heaps = welter_thirty();
    let heaps: Vec<&str> = heaps.iter().map(String::as_str).collect();
    let play = ["play", "--db", db, "--players", "computer-computer"];
    // A theorem's move list (about 0.15 CPU s) at the start.
    let e = err(&[&play[..], &["--game", "welter", "--cpu-limit", "0.01"], &heaps].concat());
    assert!(e.contains("stopped at the CPU limit of 0.01 s") && e.contains("--cpu-limit"), "{e}");
    // Heap values (Grundy's game to 19,999: about 0.15 CPU s, which no prediction refuses).
    let e = err(&[&play[..], &["--game", "grundy", "--cpu-limit", "0.02", "19999"]].concat());
    assert!(e.contains("stopped at the CPU limit of 0.02 s") && e.contains("--cpu-limit"), "{e}");
    // Predicted past the limit: refused before it starts.
    let e = err(&[&play[..], &["--game", "octal:0.74", "--cpu-limit", "0.2", "30000"]].concat());
    assert!(e.contains("more than the 0.2 s") && e.contains("--cpu-limit"), "{e}");
    let e = err(&[&play[..], &["--game", "welter", "--cpu-limit", "0", "3"]].concat());
    assert!(e.contains("seconds"), "{e}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "a refused start wrote a file");
    // Within the limit the start is judged and the game begins (a human to move first,
    // whose input ends at once), and a small game is played to its end.
    let human = ["play", "--db", db, "--game", "welter", "--cpu-limit", "60"];
    let out = ok(&[&human[..], &heaps].concat());
    assert!(out.contains("End of input"), "{out}");
    let out = ok(&[&play[..], &["--game", "grundy", "--cpu-limit", "60", "20"]].concat());
    assert!(out.contains("wins"), "{out}");
}
