//! The misère atlas (`nimdb atlas`): published quotient figures as vectors, every budget's
//! reason, the stored rows, resuming after a kill without redoing finished codes, reruns
//! that redo only the partial codes a larger budget reaches, the exports, and (with
//! MisereSolver at hand) agreement with it code by code.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use nimdb::game::GameSpec;
use nimdb::theory::quotient::atlas::{Budget, Chart, Entry, StopReason, chart_code, chart_code_from};

/// A budget with no time limit to speak of (tests never depend on the clock).
fn generous() -> Budget {
    Budget { seconds: 1e9, ..Budget::default() }
}

fn chart(game: &str, budget: &Budget) -> Entry {
    let spec: GameSpec = game.parse().unwrap();
    let start = Instant::now();
    chart_code(spec.octal().unwrap(), budget, &|| start.elapsed(), &|| false).unwrap().entry
}

/// (code, |Q|, |P|, period, preperiod, tame) of certified quotients, with their sources:
/// * Plambeck, "Taming the wild in impartial combinatorial games" (INTEGERS 5, 2005), and
///   Siegel, "The structure and classification of misère quotients" (arXiv math/0703070):
///   0.75's quotient is R8, of order 8 with |P| = 2.
/// * Siegel's MisereSolver (its runner in /work/shared/tools/miseresolver, README): 0.123
///   gives 20/5, 0.144 gives 30/5, Kayles (0.77) 40/9 from heap 27 on.
/// * Bouton (1902) and Plambeck–Siegel's tame quotients: a code whose heaps have only the
///   nim-values 0 and 1 and which is tame has misère Nim's quotient on them, ℤ₂ = {1, a}
///   with P = {a} (0.3 and 0.7: take one token); with nim-values 0, 1 and 2 (0.33, take one
///   or two) it is T₂, of order 2² + 2 = 6 with |P| = 2.
/// * The other rows (0.71, 0.15, 0.53, 0.72, 0.34, 0.31, 0.52, 0.73, 0.152) are those of
///   `tests/quotient.rs`, there checked against the forward search position by position,
///   and for 0.152 against MisereSolver (34/6).
///
/// Periods and preperiods are nimdb's certified ones (Kayles' period 12 from heap 71 is
/// Guy–Smith's normal-play period, settling right after its last exception at heap 70).
const CERTIFIED: &[(&str, usize, usize, u32, u32, bool)] = &[
    ("octal:0.77", 40, 9, 12, 71, false),
    ("octal:0.75", 8, 2, 2, 8, false),
    ("octal:0.123", 20, 5, 5, 5, false),
    ("octal:0.144", 30, 5, 10, 12, false),
    ("octal:0.152", 34, 6, 48, 25, false),
    ("octal:0.71", 36, 9, 6, 3, false),
    ("octal:0.15", 42, 12, 10, 66, false),
    ("octal:0.53", 16, 3, 9, 21, false),
    ("octal:0.72", 24, 5, 4, 16, false),
    ("octal:0.34", 12, 3, 8, 7, false),
    ("octal:0.31", 6, 2, 2, 3, true),
    ("octal:0.52", 6, 2, 4, 6, true),
    ("octal:0.73", 6, 2, 4, 2, true),
    ("octal:0.3", 2, 1, 2, 0, true),
    ("octal:0.7", 2, 1, 2, 0, true),
    ("octal:0.33", 6, 2, 3, 0, true),
];

#[test]
fn certified_codes_give_the_published_figures() {
    for &(game, size, p, period, preperiod, tame) in CERTIFIED {
        let e = chart(game, &generous());
        let Chart::Certified(c) = &e.chart else { panic!("{game}: {e:?}") };
        assert_eq!(
            (c.size, c.p_count, c.period, c.preperiod, c.tame),
            (size, p, period, preperiod, tame),
            "{game}"
        );
        // The heap the certificate needs is within what was computed.
        assert!(c.certified_heap <= c.max_heap, "{game}: {c:?}");
        assert_eq!(e.code, game.trim_start_matches("octal:"));
    }
    // Kayles' generators are the heaps of the README's worked example.
    let e = chart("kayles", &generous());
    let Chart::Certified(c) = &e.chart else { panic!("{e:?}") };
    assert_eq!(c.generator_heaps, [1, 2, 5, 9, 12, 25, 27]);
    assert_eq!(c.certified_heap, 167);
}

/// |Q| and |P| of Dawson's Kayles (0.07) heaps 1..n as MisereSolver computes them (its
/// README: 144/23 at heap 25, 638/109 at heap 33): the atlas stops at the heap budget with
/// those figures, and at the element budget one heap before |Q| would pass it.
#[test]
fn partial_codes_give_miseresolvers_figures_where_they_stop() {
    for (max_heap, size, p) in [(25u32, 144usize, 23usize), (33, 638, 109)] {
        let e = chart("dawson", &Budget { max_heap, ..generous() });
        let Chart::Partial(q) = &e.chart else { panic!("{e:?}") };
        assert_eq!((q.reason, q.heap, q.size, q.p_count), (StopReason::Heaps, max_heap, size, p));
    }
    // Past heap 33 no budget certifies it: heap 34 has infinite order (the heap-34 diagonal,
    // docs/quotients.md), so the atlas stops before it and says so, and a larger budget
    // does not chart it again.
    let e = chart("dawson", &generous());
    let Chart::Partial(q) = &e.chart else { panic!("{e:?}") };
    assert_eq!((q.reason, q.heap, q.size, q.p_count), (StopReason::Infinite, 33, 638, 109));
    assert!(q.detail.contains("infinite for every n >= 34"), "{}", q.detail);
    assert!(
        !StopReason::Infinite
            .raised(&generous(), &Budget { max_heap: 10_000, max_elements: 1 << 20, ..generous() })
    );
    let e = chart("dawson", &Budget { max_elements: 600, ..generous() });
    let Chart::Partial(q) = &e.chart else { panic!("{e:?}") };
    assert_eq!((q.reason, q.heap, q.size, q.p_count), (StopReason::Elements, 32, 552, 93));
    assert!(q.detail.contains("600 elements"), "{}", q.detail);
    // 0.56's quotient keeps growing with |P| = 2 (then |Q| = 2ⁿ + 2 or 2ⁿ + 4, Siegel, arXiv
    // math/0703070): it stops at the heap budget.
    let e = chart("octal:0.56", &Budget { max_heap: 200, ..generous() });
    let Chart::Partial(q) = &e.chart else { panic!("{e:?}") };
    assert_eq!((q.reason, q.heap, q.p_count), (StopReason::Heaps, 200, 2));
    assert!((q.size - 2).is_power_of_two() || (q.size - 4).is_power_of_two(), "{q:?}");
}

fn rows(db: &std::path::Path) -> BTreeMap<String, (String, i64, i64, Option<String>)> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = conn.prepare("SELECT code, status, run, checksum, reason FROM atlas").unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn count(db: &std::path::Path) -> i64 {
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .and_then(|c| c.query_row("SELECT count(*) FROM atlas", [], |r| r.get(0)))
        .unwrap_or(0)
}

/// A run killed (SIGKILL) in the middle keeps every finished code; the same command then
/// charts only the rest, and a rerun with a larger budget charts only the partial codes that
/// budget reaches (each row says which run charted it).
#[test]
fn a_killed_atlas_resumes_without_redoing_finished_codes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.sqlite");
    let db = path.to_str().unwrap();
    let args = ["atlas", "--digits", "2", "--seconds", "0.2", "--max-heap", "100", "--quiet", "--db", db];
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nimdb"))
        .args(args)
        .env_remove("NIMDB_DB")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while count(&path) < 12 {
        assert!(child.try_wait().unwrap().is_none(), "the atlas ended before it could be killed");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let first = rows(&path);
    assert!(first.len() >= 12 && first.len() < 63, "{}", first.len());
    assert!(first.values().all(|r| r.1 == 1), "{first:?}");
    // Resume: the same command charts the rest as run 2 and leaves run 1's rows as they were.
    let out = common::ok(&args);
    assert!(out.contains("63 codes:"), "{out}");
    assert!(out.contains(&format!("{} read from the database", first.len())), "{out}");
    let second = rows(&path);
    assert_eq!(second.len(), 63);
    for (code, row) in &second {
        match first.get(code) {
            Some(old) => assert_eq!(row, old, "{code} was charted again"),
            None => assert_eq!(row.1, 2, "{code}"),
        }
    }
    // The same budget again redoes nothing.
    let again = common::ok(&args);
    assert!(again.contains("0 codes charted") && again.contains("63 read from the database"), "{again}");
    assert_eq!(rows(&path), second);
    // A larger heap budget redoes exactly the codes the heap budget stopped.
    let mut more = args.to_vec();
    more[6] = "200";
    common::ok(&more);
    let third = rows(&path);
    let stopped_by_heaps: Vec<&String> =
        second.iter().filter(|(_, r)| r.3.as_deref() == Some("heaps")).map(|(c, _)| c).collect();
    assert!(!stopped_by_heaps.is_empty(), "{second:?}");
    for (code, row) in &third {
        if stopped_by_heaps.contains(&code) {
            assert_eq!(row.1, 3, "{code} should be charted again");
        } else {
            assert_eq!(row, &second[code], "{code} was charted again");
        }
    }
    // A larger time budget redoes the codes that ran out of time, and only those.
    let mut longer = more.clone();
    longer[4] = "0.3";
    common::ok(&longer);
    let fourth = rows(&path);
    for (code, row) in &fourth {
        if third[code].3.as_deref() == Some("time") {
            assert_eq!(row.1, 4, "{code} should be charted again");
        } else {
            assert_eq!(row, &third[code], "{code} was charted again");
        }
    }
}

/// The unproven quotient rows by code (`0.07`): (max_heap, size).
fn unproven(db: &std::path::Path) -> BTreeMap<String, Vec<(u32, u32)>> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = conn
        .prepare("SELECT game, max_heap, size FROM quotients WHERE status = 'solved' AND proven = 0 ORDER BY max_heap")
        .unwrap();
    let mut by: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
    for r in stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get(1)?, r.get(2)?))).unwrap() {
        let (game, heap, size) = r.unwrap();
        by.entry(game.trim_start_matches("v1:tb:").to_string()).or_default().push((heap, size));
    }
    by
}

/// What the atlas and the quotient rows say together: one unproven quotient row per partial
/// code, the one it reached (same heap and |Q|; a code stopped before heap 1 has none), and
/// none for a certified code, which has its proven row.
fn check_one_row_per_code(db: &std::path::Path) -> usize {
    let store = nimdb::store::Database::open_read_only(db).unwrap();
    let rows = unproven(db);
    let mut partial = 0;
    for row in store.atlas_entries(4).unwrap() {
        let e = row.entry;
        match &e.chart {
            Chart::Partial(p) if p.heap > 0 && p.size > 0 => {
                assert_eq!(
                    rows.get(&e.code).map(Vec::as_slice),
                    Some(&[(p.heap, p.size as u32)][..]),
                    "{}",
                    e.code
                );
                partial += 1;
            }
            Chart::Partial(_) => assert!(rows.get(&e.code).is_none_or(|r| r.len() == 1), "{}", e.code),
            Chart::Certified(_) => {
                assert!(!rows.contains_key(&e.code), "{}: {:?}", e.code, rows[&e.code]);
                let spec: GameSpec = format!("octal:{}", e.code).parse().unwrap();
                assert!(store.load_quotient(&spec, None).unwrap().unwrap().proven(), "{}", e.code);
            }
        }
    }
    partial
}

/// Reruns under larger budgets go on from each partial code's quotient and replace it: one
/// unproven row per code after every run (before, every rerun added one per code), and
/// `query --misere` answers from it, up to its heap and no further.
#[test]
fn reruns_keep_one_quotient_row_per_code() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.sqlite");
    let db = path.to_str().unwrap();
    for seconds in ["0.05", "0.1", "0.2"] {
        common::ok(&[
            "atlas",
            "--digits",
            "2",
            "--seconds",
            seconds,
            "--max-heap",
            "300",
            "--quiet",
            "--db",
            db,
        ]);
        assert!(check_one_row_per_code(&path) > 5);
    }
    let store = nimdb::store::Database::open_read_only(&path).unwrap();
    let Chart::Partial(p) = store.atlas_entry("0.07").unwrap().unwrap().entry.chart else {
        panic!("Dawson's Kayles is partial")
    };
    drop(store);
    // A position of 15 heaps up to the heap Dawson's Kayles reached, beyond any solve on the
    // spot: answered from the stored quotient, read only. One heap further, refused.
    let mut heaps: Vec<String> = (p.heap - 14..=p.heap).rev().map(|h| h.to_string()).collect();
    let args = ["query", "--game", "dawson", "--misere", "--read-only", "--json", "--db", db];
    let q = |args: &[&str], heaps: &[String]| {
        let all: Vec<&str> = args.iter().copied().chain(heaps.iter().map(String::as_str)).collect();
        common::run(&all)
    };
    let (ok, out, err) = q(&args, &heaps);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["source"], "quotient", "{out}");
    heaps[0] = (p.heap + 1).to_string();
    let (ok, _, err) = q(&args, &heaps);
    assert!(!ok && err.contains("not covered"), "{err}");
}

/// A rerun killed (SIGKILL) while it replaces partial codes' rows loses nothing: every
/// partial code still has exactly the quotient its atlas row names (the old pair or the new
/// one, never a mix), and the same command then finishes without redoing what was done.
#[test]
fn a_killed_rerun_keeps_each_code_with_its_quotient() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.sqlite");
    let db = path.to_str().unwrap();
    common::ok(&["atlas", "--digits", "2", "--seconds", "0.05", "--max-heap", "300", "--quiet", "--db", db]);
    check_one_row_per_code(&path);
    let first = rows(&path);
    let args = ["atlas", "--digits", "2", "--seconds", "0.5", "--max-heap", "300", "--quiet", "--db", db];
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nimdb"))
        .args(args)
        .env_remove("NIMDB_DB")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let redone = |p: &std::path::Path| rows(p).values().filter(|r| r.1 == 2).count();
    while redone(&path) < 2 {
        assert!(child.try_wait().unwrap().is_none(), "the rerun ended before it could be killed");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let killed = rows(&path);
    assert!(killed.values().any(|r| r.1 == 1 && r.3.as_deref() == Some("time")), "nothing was left to do");
    check_one_row_per_code(&path);
    let out = common::ok(&args);
    assert!(out.contains("63 codes:"), "{out}");
    let after = rows(&path);
    for (code, row) in &killed {
        if row.1 == 2 {
            assert_eq!(&after[code], row, "{code} was charted again");
        }
    }
    assert_eq!(after.len(), first.len());
    check_one_row_per_code(&path);
}

/// A partial quotient of more than 256 elements (Dawson's Kayles to heap 31), stored packed
/// and read back, goes on to the same entry as a chart from heap 1 (heap 33: MisereSolver's
/// 638/109).
#[test]
fn a_large_partial_quotient_resumes_from_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.sqlite");
    let spec: GameSpec = "dawson".parse().unwrap();
    let code = spec.octal().unwrap();
    let start = Instant::now();
    let clock = || start.elapsed();
    let first = chart_code(code, &Budget { max_heap: 31, ..generous() }, &clock, &|| false).unwrap();
    let reached = first.reached.as_deref().expect("the heaps it reached are kept");
    assert!(reached.size() > 256, "{}", reached.size());
    {
        let store = nimdb::store::Database::open(&path).unwrap();
        store.save_charted_code(&first.entry, 1, Some((&spec, reached))).unwrap();
    }
    let store = nimdb::store::Database::open_read_only(&path).unwrap();
    let back = store.load_quotient(&spec, None).unwrap().unwrap();
    assert_eq!(back.to_data(), reached.to_data());
    let then = Budget { max_heap: 33, ..generous() };
    let resumed = chart_code_from(code, &then, &clock, &|| false, Some(&back)).unwrap();
    let fresh = chart("dawson", &then);
    assert_eq!(resumed.entry.chart, fresh.chart);
    let Chart::Partial(p) = &fresh.chart else { panic!("{fresh:?}") };
    assert_eq!((p.reason, p.heap, p.size, p.p_count), (StopReason::Heaps, 33, 638, 109));
    assert_eq!(
        resumed.reached.unwrap().to_data(),
        chart_code(code, &then, &clock, &|| false).unwrap().reached.unwrap().to_data()
    );
}

/// Ctrl-C stops the atlas between or inside codes: exit 130, one line, the finished codes
/// kept (the code in hand is not stored), and the same command goes on.
#[test]
fn ctrl_c_keeps_the_finished_codes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    let db = path.to_str().unwrap();
    let args = ["atlas", "--digits", "2", "--seconds", "0.2", "--max-heap", "300", "--db", db];
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nimdb"))
        .args(args)
        .env_remove("NIMDB_DB")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    while count(&path) < 5 {
        assert!(child.try_wait().unwrap().is_none(), "the atlas ended before it could be interrupted");
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("interrupted after") && err.contains("goes on"), "{err}");
    assert!(out.stdout.is_empty());
    let kept = rows(&path);
    let out = common::ok(&args);
    assert!(out.contains(&format!("{} read from the database", kept.len())), "{out}");
}

/// The exports: CSV with a header and one row per code (empty fields where a value does not
/// apply), Markdown with its summary and table, JSON with every entry; certified quotients
/// are also stored where `nimdb quotient` reads them.
#[test]
fn exports_and_stored_quotients() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e.sqlite");
    let db = db.to_str().unwrap();
    let base = ["atlas", "--digits", "1", "--seconds", "0.2", "--max-heap", "200", "--db", db];
    let text = common::ok(&base);
    assert!(text.contains("7 codes:"), "{text}");
    let csv = common::ok(&[&base[..], &["--csv"]].concat());
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 8, "{csv}");
    assert!(lines[0].starts_with("code,status,size,p_count,period,preperiod,tame,heap,stopped_by"));
    // 0.3: ℤ₂, certified at heap 3; its partial neighbours have no period.
    let row = lines.iter().find(|l| l.starts_with("0.3,")).unwrap();
    assert!(row.starts_with("0.3,certified,2,1,2,0,tame,"), "{row}");
    assert!(row.contains("a^2 = 1"), "{row}");
    let partial = lines.iter().find(|l| l.starts_with("0.4,")).unwrap();
    assert!(partial.starts_with("0.4,partial,") && partial.contains(",,,,"), "{partial}");
    let md = common::ok(&[&base[..], &["--markdown"]].concat());
    assert!(md.starts_with("Octal codes with up to 1 digit. 7 codes:"), "{md}");
    assert!(md.contains("| 0.3 | certified | 2 | 1 | 2 | 0 | tame | 3 |  | a=1 | 1 |"), "{md}");
    assert_eq!(md.lines().filter(|l| l.starts_with("| 0.")).count(), 7);
    let json: serde_json::Value =
        serde_json::from_str(&common::ok(&[&base[..], &["--json"]].concat())).unwrap();
    assert_eq!(json["entries"].as_array().unwrap().len(), 7);
    assert_eq!(json["summary"]["codes"], 7);
    assert_eq!(json["entries"][2]["chart"]["status"], "certified");
    // The picture: a mark per code with its figures, each kind counted in the legend, and
    // nothing but well-formed markup (every element closed).
    let svg = common::ok(&[&base[..], &["--svg"]].concat());
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.ends_with("</svg>\n"),
        "{svg}"
    );
    assert_eq!(svg.matches("<title>").count(), 7, "{svg}");
    assert!(
        svg.contains("<title>0.3: certified, |Q| = 2, |P| = 1, period 2 from heap 0, tame</title>"),
        "{svg}"
    );
    let tame = json["summary"]["tame"].as_u64().unwrap();
    assert!(svg.contains(&format!(">certified, tame ({tame})</text>")), "{svg}");
    assert_eq!(
        svg.matches("<circle").count() - svg.matches("r=\"4\"").count(),
        json["summary"]["certified"].as_u64().unwrap() as usize
    );
    for tag in ["svg", "text", "title"] {
        assert_eq!(
            svg.matches(&format!("<{tag}")).count(),
            svg.matches(&format!("</{tag}>")).count(),
            "{tag}"
        );
    }
    let e = common::err(&[&base[..], &["--svg", "--csv"]].concat());
    assert!(e.contains("cannot be used with"), "{e}");
    // The certified 0.7 is read back by `nimdb quotient`.
    let q: serde_json::Value =
        serde_json::from_str(&common::ok(&["quotient", "--game", "octal:0.7", "--json", "--db", db]))
            .unwrap();
    assert_eq!(q["reused"], true);
    assert_eq!(q["size"], 2);
}

#[test]
fn bad_input_is_refused_in_one_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("n.sqlite");
    let db = path.to_str().unwrap();
    let e = common::err(&["atlas", "--digits", "5", "--db", db]);
    assert!(e.contains("--digits must be between 1 and 4, not 5"), "{e}");
    let e = common::err(&["atlas", "--digits", "0", "--db", db]);
    assert!(e.contains("--digits"), "{e}");
    let e = common::err(&["atlas", "--seconds", "0", "--db", db]);
    assert!(e.contains("--seconds"), "{e}");
    let e = common::err(&["atlas", "--seconds", "nan", "--db", db]);
    assert!(e.contains("--seconds"), "{e}");
    let e = common::err(&["atlas", "--max-elements", "1000000", "--memory-limit", "1M", "--db", db]);
    assert!(e.contains("--memory-limit"), "{e}");
    let e = common::err(&["atlas", "--read-only", "--digits", "1", "--db", db]);
    assert!(e.contains("writes are forbidden (--read-only)"), "{e}");
    assert!(!path.exists());
}

/// Agreement with Siegel's MisereSolver, code by code: |Q| and |P| of the quotient of
/// heaps 1..n, at the heap where the atlas certified the code (or stopped). Needs Java and
/// MisereSolver built by /work/shared/tools/miseresolver/build.sh; set
/// `NIMDB_MISERESOLVER_CP` to its `out` directory and run with `--ignored`.
#[test]
#[ignore = "needs MisereSolver: set NIMDB_MISERESOLVER_CP to its classes"]
fn agrees_with_miseresolver_on_a_sample() {
    let cp =
        std::env::var("NIMDB_MISERESOLVER_CP").expect("NIMDB_MISERESOLVER_CP names MisereSolver's classes");
    let sample = [
        "0.77", "0.75", "0.71", "0.15", "0.53", "0.72", "0.34", "0.123", "0.144", "0.152", "0.31", "0.52",
        "0.73", "0.07", "0.137", "0.44", "0.312", "0.104", "0.161", "0.351",
    ];
    let budget = Budget { max_heap: 200, max_elements: 2000, ..generous() };
    for code in sample {
        let e = chart(&format!("octal:{code}"), &budget);
        let (heap, size, p) = match &e.chart {
            Chart::Certified(c) => (c.max_heap, c.size, c.p_count),
            Chart::Partial(q) => (q.heap, q.size, q.p_count),
        };
        if heap == 0 {
            continue;
        }
        let out = std::process::Command::new("java")
            .args(["-Xmx2g", "-cp", &cp, "org.cgsuite.core.misere.solver.Main", code, &heap.to_string()])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("heap {heap} ")))
            .unwrap_or_else(|| panic!("{code}: MisereSolver did not reach heap {heap}: {text}"));
        let f: Vec<&str> = line.split_whitespace().collect();
        let (ms_size, ms_p): (usize, usize) = (f[3].parse().unwrap(), f[5].parse().unwrap());
        assert_eq!((size, p), (ms_size, ms_p), "{code} at heap {heap}");
    }
}

/// Every row a database holds, read by SQL: its solves and tiers, its quotients (packed
/// bytes included), its atlas rows, and a table of filler.
fn everything(path: &std::path::Path) -> Vec<String> {
    let mut out = common::dump(path);
    let conn = rusqlite::Connection::open(path).unwrap();
    for (table, order) in [("quotients", "game, max_heap"), ("atlas", "code"), ("filler", "rowid")] {
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table} ORDER BY {order}")).unwrap();
        let n = stmt.column_count();
        let rows = stmt
            .query_map([], |r| {
                (0..n)
                    .map(|i| r.get::<_, rusqlite::types::Value>(i).map(|v| format!("{v:?}")))
                    .collect::<Result<Vec<_>, _>>()
            })
            .unwrap();
        out.extend(rows.map(|r| format!("{table} {}", r.unwrap().join(" "))));
    }
    out
}

/// A rerun finds many free pages and gives them back (a VACUUM); killed with SIGKILL while
/// it rebuilds the file (once the rebuilt pages are going into the write-ahead log), it
/// leaves the file intact: the integrity check passes and every row is as it was, free
/// pages and all; run to its end, it leaves the same rows in a smaller file.
#[test]
fn a_kill_while_free_pages_are_given_back_leaves_the_file_intact() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base.sqlite");
    let db = base.to_str().unwrap();
    let args = |db: &str| -> Vec<String> {
        ["atlas", "--digits", "2", "--seconds", "0.05", "--max-heap", "60", "--quiet", "--db", db]
            .map(String::from)
            .to_vec()
    };
    common::ok(&args(db).iter().map(String::as_str).collect::<Vec<_>>());
    common::ok(&["solve", "--game", "kayles", "--max-total", "20", "--db", db]);
    {
        // 16 MB of rows kept and 48 MB of free pages (a table dropped), so the rebuild takes a while.
        let conn = rusqlite::Connection::open(&base).unwrap();
        let fill = |table: &str, rows: i64| {
            conn.execute_batch(&format!(
                "CREATE TABLE {table} (b BLOB); INSERT INTO {table} SELECT randomblob(8000) FROM \
                 (WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < {rows}) SELECT i FROM r)"
            ))
            .unwrap();
        };
        fill("filler", 2000);
        fill("junk", 6000);
        conn.execute_batch("DROP TABLE junk").unwrap();
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    }
    let before = everything(&base);
    let pages = |p: &std::path::Path| -> (i64, i64) {
        let conn = rusqlite::Connection::open(p).unwrap();
        let ok: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
        assert_eq!(ok, "ok", "{}", p.display());
        (
            conn.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap(),
            conn.query_row("PRAGMA freelist_count", [], |r| r.get(0)).unwrap(),
        )
    };
    let (all, free) = pages(&base);
    assert!(free * 2 > all, "{all} pages, {free} free");
    let mut mid_way = 0;
    for (i, wal_bytes) in [64u64 << 10, 1 << 20, 4 << 20, 8 << 20, 12 << 20].into_iter().enumerate() {
        let trial = dir.path().join(format!("t{i}.sqlite"));
        std::fs::copy(&base, &trial).unwrap();
        let wal = dir.path().join(format!("t{i}.sqlite-wal"));
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_nimdb"))
            .args(args(trial.to_str().unwrap()))
            .env_remove("NIMDB_DB")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let killed = loop {
            if child.try_wait().unwrap().is_some() {
                break false;
            }
            if std::fs::metadata(&wal).is_ok_and(|m| m.len() > wal_bytes) {
                child.kill().unwrap();
                child.wait().unwrap();
                break true;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        assert_eq!(everything(&trial), before, "kill {i} (log past {wal_bytes} bytes)");
        let (_, left) = pages(&trial);
        if killed && left == free {
            mid_way += 1;
        }
    }
    // (The log grows through the rebuild, which commits only at its end.)
    assert!(mid_way > 0, "no kill landed before the rebuild's commit");
    // To its end (without --quiet, it says so): the same rows, the free pages given back.
    let quiet: Vec<String> = args(db);
    let loud: Vec<&str> = quiet.iter().map(String::as_str).filter(|a| *a != "--quiet").collect();
    let (ok, _, err) = common::run(&loud);
    assert!(ok, "{err}");
    assert!(err.contains(&format!("nimdb: gave back {free} free pages of {all}")), "{err}");
    assert_eq!(everything(&base), before);
    let (after, left) = pages(&base);
    assert_eq!(left, 0);
    assert!(after <= all - free + 8, "{all} pages, {free} free, {after} after");
}
