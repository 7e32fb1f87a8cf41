//! Theory answers under an address-space limit (`ulimit -v`, issue 34 M2): a query that a
//! theorem or a misère quotient answers needs a few megabytes, and answers within them.

use std::process::Output;

/// Runs `nimdb args` in a shell whose address space is limited to `kib` KiB.
fn under_ulimit(kib: u64, args: &[&str]) -> Output {
    let script = format!("ulimit -v {kib}; exec \"$0\" \"$@\"");
    std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_nimdb"))
        .args(args)
        .env_remove("NIMDB_DB")
        .output()
        .unwrap()
}

/// Finding M2: `query --game kayles 100 90 80` aborted with SIGABRT ("memory allocation of
/// 79610044 bytes failed") under `ulimit -v` of 20, 40 and 80 MB, though it peaks at 8 MB
/// resident without a limit: planning built the rank table of the smallest universe that
/// holds the position (total 270: 79.6 MB of address space, never touched past its first
/// tier too large to rank) before theory answered. A table that cannot be allocated is now
/// a universe too large to solve, and theory answers.
#[test]
fn theory_answers_fit_a_small_address_space() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("none.sqlite");
    let db = db.to_str().unwrap();
    let queries: [(&[&str], &str); 5] = [
        (&["--game", "kayles", "100", "90", "80"], "source: theory"),
        (&["--game", "dawson", "100", "90"], "source: theory"),
        (&["--game", "octal:0.07", "120", "60"], "source: theory"),
        (&["--game", "hex:0.[F]", "100", "50"], "source: theory"),
        (&["--game", "kayles", "--misere", "100", "90", "80"], "source: misère quotient"),
    ];
    for mb in [20, 40, 80] {
        for (args, source) in queries {
            let out = under_ulimit(mb * 1000, &[&["query", "--db", db][..], args].concat());
            let (stdout, stderr) =
                (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
            assert!(out.status.success(), "{args:?} under {mb} MB: {:?} {stderr}", out.status);
            assert!(stdout.contains(source), "{args:?} under {mb} MB: {stdout}");
        }
    }
    assert!(!std::path::Path::new(db).exists(), "a query made the database");
}

/// Finding M2: `--memory-limit 100G` above a 2 GB address-space limit was taken at its
/// word: `solve` and `tree` planned memory they could not get and aborted part-way. A limit
/// above what the process may use is refused in one line, naming it, before anything is
/// written; one within it is taken.
#[test]
fn a_memory_limit_above_the_address_space_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.sqlite");
    let db = db.to_str().unwrap();
    let over = ["--memory-limit", "100G"];
    for args in [
        &["solve", "--db", db, "--game", "kayles", "--misere", "--max-total", "20"][..],
        &["solve", "--db", db, "--game", "staircase", "--max-total", "10", "--max-heaps", "3"],
        &["tree", "--game", "kayles", "3", "2"],
        &["quotient", "--db", db, "--game", "kayles"],
        &["atlas", "--db", db, "--digits", "1"],
    ] {
        let out = under_ulimit(2_000_000, &[args, &over[..]].concat());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {stderr}");
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with(
                "nimdb: error: --memory-limit: a memory limit of 100 GB is more than this process may use"
            ),
            "{args:?}: {stderr}"
        );
        assert!(!std::path::Path::new(db).exists(), "{args:?} made the database");
    }
    let args = ["solve", "--quiet", "--db", db, "--game", "kayles", "--misere", "--max-total", "20"];
    let out = under_ulimit(2_000_000, &[&args[..], &["--memory-limit", "1G"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Finding M2: a query that solves on the spot planned no memory: `query --game wythoff 1000
/// 999` (a universe of 2 million positions) aborted under `ulimit -v` of 40 MB in the
/// solver. An on-the-spot solve is planned as `nimdb solve` plans it: past the memory this
/// process may use, a theorem answers where one applies, else the query is refused in one
/// line before anything is written.
#[test]
fn an_on_the_spot_solve_is_planned_against_the_address_space() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("q.sqlite");
    let db = db.to_str().unwrap();
    for mb in [20, 40, 80] {
        let out = under_ulimit(mb * 1000, &["query", "--db", db, "--game", "wythoff", "1000", "999"]);
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "under {mb} MB: {:?} {stderr}", out.status);
        assert!(stdout.contains("source: theory"), "under {mb} MB: {stdout}");
    }
    let out = under_ulimit(20_000, &["query", "--db", db, "--game", "grundy", "--misere", "25", "20"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("on the spot") && stderr.ends_with("nothing was written\n"), "{stderr}");
    assert!(!std::path::Path::new(db).exists(), "a refused query made the database");
}
