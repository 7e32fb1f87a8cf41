//! `nimdb solve --dry-run` bounds the database file from above, within twice the real one
//! for these heap games (each tier's row is counted as SQLite lays it out, its waste at most).

mod common;

use common::ok;

fn parse_size(line: &str) -> f64 {
    // "disk:        ~6.9 MB of database at most (…)" or "~871.8 KB …".
    let after = line.split('~').nth(1).expect("a ~size");
    let mut words = after.split_whitespace();
    let n: f64 = words.next().unwrap().parse().unwrap();
    match words.next().unwrap() {
        "MB" => n * (1 << 20) as f64,
        "KB" => n * 1024.0,
        u => panic!("unit {u}"),
    }
}

#[test]
fn dry_run_disk_estimate_bounds_the_file_within_twice_it() {
    for spec in [
        &["--game", "kayles", "--misere", "--max-total", "40"][..],
        &["--game", "nim", "--misere", "--max-heaps", "8", "--max-heap", "12"],
        &["--game", "lines", "--max-total", "30", "--nim-values"],
        &["--game", "nim", "--max-heaps", "4", "--max-heap", "8"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("d.sqlite");
        let db = db.to_str().unwrap();
        let mut args = vec!["solve", "--db", db];
        args.extend_from_slice(spec);
        let mut dry = args.clone();
        dry.push("--dry-run");
        let out = ok(&dry);
        let estimate = parse_size(out.lines().find(|l| l.starts_with("disk:")).unwrap());
        args.push("--quiet");
        ok(&args);
        let real = std::fs::metadata(db).unwrap().len() as f64;
        let ratio = estimate / real;
        assert!((1.0..=2.0).contains(&ratio), "{spec:?}: estimate {estimate} vs file {real} ({ratio:.2})");
    }
}
