//! `nimdb serve` on an ephemeral loopback port: every endpoint, answers equal to
//! `nimdb query --json` on over a thousand positions of three games, JSON 4xx errors, the
//! read-only guarantee and a clean shutdown.
#![cfg(feature = "server")]

mod common;
mod serve_common;

use std::path::Path;

use serde_json::Value;
use serve_common::{Server, encode};

use common::ok;

/// The three solves served: (game, convention, solve flags).
const SOLVES: &[(&str, &str, &[&str])] = &[
    ("nim", "normal", &["--max-heaps", "4", "--max-heap", "9"]),
    ("kayles", "misere", &["--max-total", "16"]),
    ("dawson", "normal", &["--max-total", "15"]),
];

fn build(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("serve.sqlite");
    for (game, convention, flags) in SOLVES {
        let mut args = vec!["solve", "--game", game, "--db", db.to_str().unwrap()];
        if *convention == "misere" {
            args.push("--misere");
        }
        args.extend_from_slice(flags);
        ok(&args);
    }
    db
}

/// Every stored position of the game's solve, from `nimdb export`.
fn stored(db: &Path, game: &str, convention: &str) -> Vec<Vec<u32>> {
    let mut args = vec!["export", "--game", game, "--format", "jsonl", "--db", db.to_str().unwrap()];
    if convention == "misere" {
        args.push("--misere");
    }
    ok(&args)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            serde_json::from_value(v["position"].clone()).unwrap()
        })
        .collect()
}

fn text(p: &[u32]) -> String {
    p.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

#[test]
fn answers_match_query_json_on_three_games() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path());
    let server = Server::start(&db, &[]);
    let mut compared = 0;
    for (game, convention, _) in SOLVES {
        let positions = stored(&db, game, convention);
        assert!(positions.len() >= 340, "{game}: {} positions", positions.len());
        // Every position by GET, against `query --json` run as its own process (spread
        // over a few threads to keep the test short).
        let chunks: Vec<Vec<Vec<u32>>> =
            positions.chunks(positions.len().div_ceil(4)).map(<[_]>::to_vec).collect();
        let db_str = db.to_str().unwrap().to_string();
        let answers: Vec<Value> = std::thread::scope(|s| {
            let handles: Vec<_> = chunks
                .iter()
                .map(|chunk| {
                    let (server, db_str) = (&server, &db_str);
                    s.spawn(move || {
                        let mut out = Vec::new();
                        for p in chunk {
                            let path = format!(
                                "/api/v1/query?game={}&convention={convention}&position={}",
                                encode(game),
                                encode(&format!("[{}]", text(p)))
                            );
                            let got = server.get_json(&path);
                            let mut args = vec!["query", "--json", "--game", game, "--db", db_str.as_str()];
                            if *convention == "misere" {
                                args.push("--misere");
                            }
                            let heaps = format!("[{}]", text(p));
                            args.push(&heaps);
                            let want: Value = serde_json::from_str(&ok(&args)).unwrap();
                            assert_eq!(got, want, "{game} {convention} {p:?}");
                            out.push(got);
                        }
                        out
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
        });
        compared += answers.len();
        // The same positions in one POST give the same answers, in order.
        let body = serde_json::to_vec(&positions).unwrap();
        let (status, batch) = server.request(
            "POST",
            &format!("/api/v1/query?game={}&convention={convention}", encode(game)),
            &body,
        );
        assert_eq!(status, 200, "{batch}");
        let batch: Vec<Value> = serde_json::from_str(&batch).unwrap();
        assert_eq!(batch, answers, "{game} {convention}: POST differs from GET");
    }
    assert!(compared >= 1000, "compared {compared}");
    let (status, stderr) = server.stop();
    assert!(status.success(), "{status:?} {stderr}");
}

#[test]
fn endpoints_errors_read_only_and_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path());
    let before = std::fs::read(&db).unwrap();
    let server = Server::start(&db, &[]);

    assert_eq!(server.get_json("/healthz")["status"], "ok");
    let (status, page) = server.get("/");
    assert_eq!(status, 200);
    assert!(page.contains("nimdb explorer"));

    // Solves: as `info --json`.
    let solves = server.get_json("/api/v1/solves");
    let info: Value = serde_json::from_str(&ok(&["info", "--json", "--db", db.to_str().unwrap()])).unwrap();
    let ids = |v: &Value| v.as_array().unwrap().iter().map(|s| s["id"].as_i64().unwrap()).collect::<Vec<_>>();
    assert_eq!(ids(&solves).len(), 3);
    assert_eq!(solves, info, "the solves as `info --json` lists them (by id)");

    // Heap values: as `heaps --json`.
    let heaps = server.get_json("/api/v1/heaps?game=kayles&up_to=30");
    let cli: Value =
        serde_json::from_str(&ok(&["heaps", "--game", "kayles", "--up-to", "30", "--json", "--no-cache"]))
            .unwrap();
    assert_eq!(heaps["values"], cli["values"]);
    assert_eq!(heaps["values"].as_array().unwrap().len(), 31);

    // Errors: JSON with a 4xx status.
    let big: Vec<Vec<u32>> = vec![vec![1]; 10_001];
    let huge = vec![b' '; 3 << 20];
    let cases: Vec<(&str, String, Vec<u8>, u16)> = vec![
        ("GET", "/api/v1/query?game=chess&position=3".into(), vec![], 400),
        ("GET", "/api/v1/query?game=nim&position=3,x".into(), vec![], 400),
        ("GET", "/api/v1/query?game=nim".into(), vec![], 400),
        ("GET", "/api/v1/query?game=nim&convention=sideways&position=3".into(), vec![], 400),
        ("GET", "/api/v1/query?game=nim&position=3&colour=blue".into(), vec![], 400),
        ("GET", "/api/v1/query?game=nim&position=%ZZ".into(), vec![], 400),
        // Misère Kayles has no theory: outside the stored solve, nothing answers.
        ("GET", "/api/v1/query?game=kayles&convention=misere&position=30,20".into(), vec![], 404),
        ("GET", "/api/v1/heaps?game=nim&up_to=999999999".into(), vec![], 400),
        ("POST", "/api/v1/query".into(), b"{not json".to_vec(), 400),
        ("POST", "/api/v1/query".into(), br#"{"positions":3}"#.to_vec(), 400),
        ("POST", "/api/v1/query".into(), serde_json::to_vec(&big).unwrap(), 413),
        ("POST", "/api/v1/query".into(), huge, 413),
        ("GET", "/nowhere".into(), vec![], 404),
        ("DELETE", "/api/v1/query".into(), vec![], 405),
    ];
    for (method, path, body, want) in cases {
        let (status, body) = server.request(method, &path, &body);
        assert_eq!(status, want, "{method} {path}: {body}");
        let v: Value =
            serde_json::from_str(&body).unwrap_or_else(|e| panic!("{method} {path}: not JSON ({e}): {body}"));
        assert_eq!(v["status"], want);
        assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{body}");
    }
    // A batch with an uncovered position answers the rest and marks that one.
    let (status, body) = server.request(
        "POST",
        "/api/v1/query",
        br#"{"game":"kayles","convention":"misere","positions":[[3,2],"30 20"]}"#,
    );
    assert_eq!(status, 200, "{body}");
    let v: Vec<Value> = serde_json::from_str(&body).unwrap();
    assert!(v[0]["outcome"].as_str().is_some());
    assert_eq!(v[1]["status"], 404);
    assert_eq!(v[1]["index"], 1);
    // So does a batch with something that is not a position: 400 for that one alone.
    let (status, body) = server.request("POST", "/api/v1/query", b"[[1,-2],[2]]");
    assert_eq!(status, 200, "{body}");
    let v: Vec<Value> = serde_json::from_str(&body).unwrap();
    assert_eq!((v[0]["index"].as_u64(), v[0]["status"].as_u64()), (Some(0), Some(400)), "{body}");
    assert!(v[1]["outcome"].as_str().is_some(), "{body}");

    // Theory answers beyond the solves (normal-play Nim).
    let t = server.get_json("/api/v1/query?game=nim&position=100,90,80");
    assert_eq!(t["source"], "theory");

    let (status, stderr) = server.stop();
    assert!(status.success(), "{status:?}");
    assert!(stderr.contains("stopped"), "{stderr}");
    assert!(std::fs::read(&db).unwrap() == before, "serve changed the database file");
}

#[test]
fn solve_up_to_is_off_by_default_and_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("small.sqlite");
    // Grundy's game: misère Kayles positions are answered by its misère quotient without a solve.
    ok(&["solve", "--game", "grundy", "--misere", "--max-total", "6", "--db", db.to_str().unwrap()]);
    let path = "/api/v1/query?game=grundy&convention=misere&position=5,4";
    let server = Server::start(&db, &[]);
    assert_eq!(server.get(path).0, 404);
    assert!(server.stop().0.success());

    let server = Server::start(&db, &["--solve-up-to", "1000"]);
    let answer = server.get_json(path);
    assert_eq!(answer["source"], "solved");
    // Too big for the bound: still 404.
    assert_eq!(server.get("/api/v1/query?game=grundy&convention=misere&position=30,29").0, 404);
    assert!(server.stop().0.success());
    let (ok_, _, stderr) =
        common::run(&["serve", "--db", db.to_str().unwrap(), "--solve-up-to", "999999999999"]);
    assert!(!ok_ && stderr.contains("too large"), "{stderr}");
}
