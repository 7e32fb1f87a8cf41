//! The rare-pair engine against the plain mex and published values, and `nimdb heaps`
//! streaming: the same output as before streaming, Ctrl-C keeps the stored rows and a rerun
//! resumes with identical values.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nimdb::game::GameSpec;
use nimdb::theory::rare::RareEngine;
use nimdb::theory::shape::HeapShape;
use nimdb::theory::sparse::{MethodChoice, SparseSpace, SplitMethod, compute_with, plain_values};
use proptest::prelude::*;

fn shape(game: &str) -> HeapShape {
    HeapShape::of(game.parse::<GameSpec>().unwrap().heap_rules().unwrap())
}

/// OEIS A002188, Sprague–Grundy values of Grundy's game, n = 0..=104.
const A002188: [u32; 105] = [
    0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0, 4, 3, 0, 4, 3, 0, 4, 1, 2, 3, 1, 2, 4, 1,
    2, 4, 1, 2, 4, 1, 5, 4, 1, 5, 4, 1, 5, 4, 1, 0, 2, 1, 0, 2, 1, 5, 2, 1, 3, 2, 1, 3, 2, 4, 3, 2, 4, 3, 2,
    4, 3, 2, 4, 3, 2, 4, 3, 2, 4, 5, 2, 4, 5, 2, 4, 3, 7, 4, 3, 7, 4, 3, 7, 4, 3, 5, 2, 3, 5, 2, 3, 5, 2, 3,
];

#[test]
fn grundy_matches_oeis_and_the_plain_mex() {
    let s = shape("grundy");
    let space = SparseSpace { mask: u32::MAX << 1, domain: false, rare_class: 0 };
    // The engine from heap 0 (no plain probe), in u8 storage.
    let mut e = RareEngine::<u8>::new(&s, space, &[], None).unwrap();
    e.run(104).unwrap();
    let g: Vec<u32> = e.values().iter().map(|&v| v as u32).collect();
    assert_eq!(g, A002188);
    // Past the probe, the automatic choice runs the rare-pair engine.
    let (auto, method, stats) = compute_with(&s, 20_000, &[], MethodChoice::Auto);
    assert!(matches!(method, SplitMethod::Sparse(_)), "{method:?}");
    assert!(stats.rare > 0 && stats.heaps > 0);
    assert_eq!(auto, plain_values(&s, 20_000));
}

#[test]
fn code_0161_matches_the_plain_mex() {
    let s = shape("octal:0.161");
    let (auto, method, stats) = compute_with(&s, 20_000, &[], MethodChoice::Auto);
    assert!(matches!(method, SplitMethod::Sparse(_)), "{method:?}");
    assert_eq!(stats.certified_at, None, "0.161 has no period this early");
    assert_eq!(auto, plain_values(&s, 20_000));
}

/// An octal code: d0 in {0, 4}, then one to five digits, the last nonzero.
fn octal_code() -> impl Strategy<Value = String> {
    (prop::bool::ANY, prop::collection::vec(0u8..8, 0..5), 1u8..8).prop_map(|(four, mut digits, last)| {
        digits.push(last);
        let d: String = digits.iter().map(|d| char::from(b'0' + d)).collect();
        format!("octal:{}.{d}", if four { 4 } else { 0 })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any space gives the exact values (a bad one only makes more rare heaps): the engine
    /// from heap 0 under a random mask equals the plain mex.
    #[test]
    fn any_space_gives_the_plain_values(code in octal_code(), low in 1u32..64, domain in prop::bool::ANY) {
        let Ok(spec) = code.parse::<GameSpec>() else { return Ok(()) };
        let Some(rules) = spec.heap_rules() else { return Ok(()) };
        let s = HeapShape::of(rules);
        prop_assume!(nimdb::theory::rare::applies(&s));
        let same_parity = s.split.iter().all(|k| k & 1 == s.split[0] & 1);
        let domain = domain && same_parity;
        let space = SparseSpace {
            mask: low | (u32::MAX << 6),
            domain,
            rare_class: if domain { (s.split[0] & 1) as u8 } else { 0 },
        };
        let mut e = RareEngine::<u8>::new(&s, space, &[], None).unwrap();
        let want = plain_values(&s, 1500);
        match e.run(1500) {
            Ok(()) => prop_assert_eq!(e.values().iter().map(|&v| v as u32).collect::<Vec<_>>(), want, "{}", code),
            // A value past 255: the same through the widening engine.
            Err(_) => {
                let (g, _, _) = compute_with(&s, 1500, &[], MethodChoice::Sparse);
                prop_assert_eq!(g, want, "{}", code);
            }
        }
    }

    /// Past the probe, the forced sparse method (the rare-pair engine where it applies)
    /// equals the plain mex.
    #[test]
    fn sparse_method_gives_the_plain_values(code in octal_code()) {
        let Ok(spec) = code.parse::<GameSpec>() else { return Ok(()) };
        let Some(rules) = spec.heap_rules() else { return Ok(()) };
        let s = HeapShape::of(rules);
        prop_assume!(!s.split.is_empty() && !s.three_way);
        let (g, _, _) = compute_with(&s, 3000, &[], MethodChoice::Sparse);
        prop_assert_eq!(g, plain_values(&s, 3000), "{}", code);
    }
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/heaps/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// The streaming `heaps` prints what the whole-report `heaps` printed (the fixtures were
/// written before streaming): text and CSV byte for byte, JSON as the same object.
#[test]
fn streaming_output_is_the_old_output() {
    for game in ["kayles", "grundy", "octal:0.161", "dawson", "nim", "subtraction:2,3,7", "lines"] {
        let name = game.replace([':', ','], "_");
        for (format, flag) in [("text", None), ("csv", Some("--csv")), ("json", Some("--json"))] {
            let mut args =
                vec!["heaps", "--no-cache", "--game", game, "--up-to", "300", "--misere-up-to", "12"];
            args.extend(flag);
            let out = common::ok(&args);
            let want = fixture(&format!("{name}_300.{format}"));
            if format == "json" {
                let a: serde_json::Value = serde_json::from_str(&out).unwrap();
                let b: serde_json::Value = serde_json::from_str(&want).unwrap();
                assert_eq!(a, b, "{game} json");
            } else {
                assert_eq!(out, want, "{game} {format}");
            }
        }
    }
    for game in ["grundy", "octal:0.161"] {
        let name = game.replace([':', ','], "_");
        let args =
            ["heaps", "--no-cache", "--game", game, "--up-to", "5000", "--misere-up-to", "5", "--json"];
        let a: serde_json::Value = serde_json::from_str(&common::ok(&args)).unwrap();
        let b: serde_json::Value = serde_json::from_str(&fixture(&format!("{name}_5000.json"))).unwrap();
        assert_eq!(a, b, "{game}");
    }
}

/// A closed pipe ends `heaps` quietly, without a panic.
#[test]
fn closed_pipe_is_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let mut child = Command::new(env!("CARGO_BIN_EXE_nimdb"))
        .args(["heaps", "--game", "kayles", "--up-to", "3000000", "--csv", "--db"])
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert_eq!(first, "n,nim_value,misere_value,genus\n");
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.code().is_none_or(|c| c == 0 || c == 141), "{:?}", out.status);
}

/// SIGINT to a real `nimdb heaps` run: it stops, says how to resume, keeps complete rows,
/// and the rerun gives the values of an uninterrupted run.
#[test]
#[ignore = "long: Grundy's game to heap 400,000, interrupted and resumed; .ci/run runs it with --ignored"]
fn ctrl_c_keeps_rows_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let n = "400000";
    let mut child = Command::new(env!("CARGO_BIN_EXE_nimdb"))
        .args(["heaps", "--game", "grundy", "--up-to", n, "--csv", "--misere-up-to", "5", "--db"])
        .arg(&db)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until two stretches (2 × 65,536 heaps) are written, then interrupt.
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    let mut rows = 0u32;
    let start = Instant::now();
    while rows < 140_000 {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "ended before the interrupt");
        rows += 1;
        assert!(start.elapsed() < Duration::from_secs(600));
    }
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    // Drain what is left and collect the status.
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut reader, &mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(0) {
        // The run finished before the signal was seen: nothing to resume. (Only on a very
        // fast machine; the rows are still checked below.)
        eprintln!("finished before SIGINT");
    } else {
        assert_eq!(out.status.code(), Some(130), "{stderr}");
        assert!(
            stderr.contains("interrupted after heap") && stderr.contains("continues from there"),
            "{stderr}"
        );
        // Every stretch written before the signal is stored, as complete rows from heap 0.
        let conn = rusqlite::Connection::open(&db).unwrap();
        let up_to: u32 = conn
            .query_row("SELECT up_to FROM heap_sequences WHERE game = 'v1:grundy'", [], |r| r.get(0))
            .unwrap();
        let rows: u32 = conn
            .query_row(
                "SELECT count(*) FROM heap_values WHERE game = 'v1:grundy' AND checksum IS NOT NULL",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!((131_072..400_000).contains(&up_to), "{up_to}");
        assert_eq!(rows, up_to + 1);
    }
    // The rerun reads the stored rows and computes on; its values are the uninterrupted ones.
    let resumed = common::ok(&[
        "heaps",
        "--game",
        "grundy",
        "--up-to",
        n,
        "--csv",
        "--misere-up-to",
        "5",
        "--db",
        db.to_str().unwrap(),
    ]);
    let fresh = common::ok(&[
        "heaps",
        "--game",
        "grundy",
        "--up-to",
        n,
        "--csv",
        "--misere-up-to",
        "5",
        "--no-cache",
    ]);
    assert!(resumed == fresh, "the resumed values differ");
    let text = common::ok(&[
        "heaps",
        "--game",
        "grundy",
        "--up-to",
        "200000",
        "--misere-up-to",
        "5",
        "--db",
        db.to_str().unwrap(),
    ]);
    assert!(
        text.contains("nim-values: read from the database (heaps 0..=200000)"),
        "{}",
        text.lines().last().unwrap()
    );
}
