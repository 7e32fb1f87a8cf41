//! The API for programs: `moves=false` answers (outcome, remoteness, best move and source,
//! no move list) equal `nimdb query --json` without its moves on a thousand positions of five
//! games and stay under 1 KB; the best-only answer equals the full one on every stored
//! position; a batch answers its good positions and marks each bad one with its index.
#![cfg(feature = "server")]

mod common;
mod serve_common;

use std::path::Path;

use nimdb::answer::Listing;
use nimdb::batch::Session;
use nimdb::game::{Convention, GameSpec, Position};
use nimdb::store::Database;
use serde_json::{Value, json};
use serve_common::{Server, encode};

use common::ok;

/// The solves served: (game, convention, solve flags). Nim, Nim_2 and Wythoff's game have a
/// theorem that spares the best-only search the children that are wins; Kayles has none.
const SOLVES: &[(&str, &str, &[&str])] = &[
    ("nim", "misere", &["--max-heaps", "8", "--max-heap", "7"]),
    ("nim", "normal", &["--max-heaps", "5", "--max-heap", "9"]),
    ("kayles", "misere", &["--max-total", "16"]),
    ("moore:2", "normal", &["--max-heaps", "5", "--max-heap", "6"]),
    ("wythoff", "misere", &["--max-heaps", "3", "--max-heap", "12"]),
];

fn build(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("brief.sqlite");
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

/// xorshift64, so the sample is the same every run.
fn pick<T: Clone>(items: &[T], n: usize, seed: u64) -> Vec<T> {
    let mut state = seed | 1;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            items[(state % items.len() as u64) as usize].clone()
        })
        .collect()
}

/// `query --json --read-only` (never a solve on the spot, as `serve`) as its own process,
/// with `moves` and `moves_omitted` taken out.
fn query_json_without_moves(db: &str, game: &str, convention: &str, p: &[u32]) -> Value {
    let mut args = vec!["query", "--json", "--read-only", "--game", game, "--db", db];
    if convention == "misere" {
        args.push("--misere");
    }
    let heaps = format!("[{}]", text(p));
    args.push(&heaps);
    let mut want: Value = serde_json::from_str(&ok(&args)).unwrap();
    let object = want.as_object_mut().unwrap();
    assert!(object.remove("moves").is_some(), "{game} {p:?}: no moves in {object:?}");
    object.remove("moves_omitted");
    want
}

#[test]
fn moves_false_equals_query_json_without_moves_on_a_thousand_positions() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path());
    let db_str = db.to_str().unwrap().to_string();
    let server = Server::start(&db, &[]);
    // 190 stored positions of each solve, and 50 normal-play Nim positions beyond them that
    // Bouton's rule answers.
    let mut cases: Vec<(&str, &str, Vec<u32>)> = Vec::new();
    for (i, (game, convention, _)) in SOLVES.iter().enumerate() {
        let positions = stored(&db, game, convention);
        for p in pick(&positions, 190, 0x9E37_79B9_7F4A_7C15 ^ i as u64) {
            cases.push((game, convention, p));
        }
    }
    // Five heaps of 100 to 2,099: too large for `query` to solve on the spot.
    for p in pick(&(100..2100u32).collect::<Vec<_>>(), 250, 7).chunks(5) {
        let mut p = p.to_vec();
        p.sort_unstable_by(|a, b| b.cmp(a));
        cases.push(("nim", "normal", p));
    }
    assert_eq!(cases.len(), 1000);
    let chunks: Vec<_> = cases.chunks(cases.len().div_ceil(4)).collect();
    let answers: Vec<Value> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                let (server, db_str) = (&server, db_str.as_str());
                s.spawn(move || {
                    let mut out = Vec::new();
                    for (game, convention, p) in chunk.iter() {
                        let path = format!(
                            "/api/v1/query?game={}&convention={convention}&position={}&moves=false",
                            encode(game),
                            encode(&format!("[{}]", text(p)))
                        );
                        let (status, body) = server.get(&path);
                        assert_eq!(status, 200, "GET {path}: {body}");
                        assert!(body.len() < 1024, "GET {path}: {} bytes", body.len());
                        let got: Value = serde_json::from_str(&body).unwrap();
                        let want = query_json_without_moves(db_str, game, convention, p);
                        assert_eq!(got, want, "{game} {convention} {p:?}");
                        out.push(got);
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(answers.len(), 1000);
    let from_db = answers.iter().filter(|a| a["source"] == "database").count();
    let from_theory = answers.iter().filter(|a| a["source"] == "theory").count();
    assert!(from_db >= 900 && from_theory >= 40, "{from_db} from the database, {from_theory} from theory");
    assert!(answers.iter().any(|a| a["outcome"] == "loss" && !a["best_move"].is_null()));

    // The same positions in one POST per game with `"moves": false` answer the same, in order.
    let mut at = 0;
    for (game, convention, _) in SOLVES.iter().chain([&("nim", "normal", &[][..])]) {
        let positions: Vec<&Vec<u32>> = cases[at..]
            .iter()
            .take_while(|(g, c, _)| g == game && c == convention)
            .map(|(_, _, p)| p)
            .collect();
        let body = serde_json::to_vec(
            &json!({ "game": game, "convention": convention, "moves": false, "positions": positions }),
        )
        .unwrap();
        let (status, batch) = server.request("POST", "/api/v1/query", &body);
        assert_eq!(status, 200, "{batch}");
        let batch: Vec<Value> = serde_json::from_str(&batch).unwrap();
        assert_eq!(
            batch[..],
            answers[at..at + positions.len()],
            "{game} {convention}: POST differs from GET"
        );
        at += positions.len();
    }
    assert_eq!(at, 1000);

    // `moves=true` (the default) still lists them.
    let full = server.get_json("/api/v1/query?game=nim&convention=misere&position=7,5,3&moves=true");
    assert_eq!(full["moves"].as_array().map(Vec::len), Some(15));
    let (status, stderr) = server.stop();
    assert!(status.success(), "{status:?} {stderr}");
}

#[test]
fn best_only_equals_the_full_answer_on_every_stored_position() {
    let dir = tempfile::tempdir().unwrap();
    let db = build(dir.path());
    let database = Database::open_read_only(&db).unwrap();
    let mut session = Session::new(&database);
    let mut compared = 0;
    for (game, convention, _) in SOLVES {
        let spec: GameSpec = game.parse().unwrap();
        let convention = Convention::from_misere(*convention == "misere");
        for heaps in stored(&db, game, if convention == Convention::Misere { "misere" } else { "normal" }) {
            let p = Position::new(heaps);
            let game = spec.clone().into();
            let full = session.answer(&game, convention, &p.cells(), Listing::All).unwrap();
            let best = session.answer(&game, convention, &p.cells(), Listing::BestOnly).unwrap();
            assert!(best.moves.is_empty() && best.moves_omitted == 0, "{game} {p}");
            let (a, b) =
                (serde_json::to_value(full.brief()).unwrap(), serde_json::to_value(best.brief()).unwrap());
            assert_eq!(a, b, "{game} {convention} {p}");
            compared += 1;
        }
    }
    assert!(compared > 5000, "compared {compared}");
}

#[test]
fn a_batch_answers_good_positions_and_marks_each_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("batch.sqlite");
    ok(&["solve", "--game", "kayles", "--misere", "--max-total", "12", "--db", db.to_str().unwrap()]);
    let server = Server::start(&db, &[]);
    for moves in [true, false] {
        let body = json!({
            "game": "kayles",
            "convention": "misere",
            "moves": moves,
            "positions": [[3, 2], [1, -2], "4 4", "x", [30, 20], {"heaps": 3}, [5]],
        });
        let (status, text) = server.request("POST", "/api/v1/query", &serde_json::to_vec(&body).unwrap());
        assert_eq!(status, 200, "{text}");
        let v: Vec<Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(v.len(), 7, "{text}");
        for (i, answered) in [(0, vec![3, 2]), (2, vec![4, 4]), (6, vec![5])] {
            let want = query_json_without_moves(db.to_str().unwrap(), "kayles", "misere", &answered);
            let mut got = v[i].clone();
            assert_eq!(got.as_object_mut().unwrap().remove("moves").is_some(), moves, "{i}: {got}");
            assert_eq!(got, want, "item {i}");
        }
        // Not positions: 400 each, with the index and the value as sent.
        for (i, given) in [(1, json!([1, -2])), (3, json!("x")), (5, json!({"heaps": 3}))] {
            assert_eq!(v[i]["index"], i, "{}", v[i]);
            assert_eq!(v[i]["status"], 400, "{}", v[i]);
            assert_eq!(v[i]["position"], given, "{}", v[i]);
            let error = v[i]["error"].as_str().unwrap();
            assert!(error.starts_with(&format!("position {i}: ")) && !error.contains('\n'), "{error}");
        }
        // Outside the stored solve, and misère Kayles has no theory: 404 with its index.
        assert_eq!(v[4]["index"], 4);
        assert_eq!(v[4]["status"], 404);
        assert_eq!(v[4]["position"], json!([30, 20]));
    }
    // A bare array takes `moves` from the query string.
    let (status, text) =
        server.request("POST", "/api/v1/query?game=kayles&convention=misere&moves=false", b"[[3,2]]");
    assert_eq!(status, 200, "{text}");
    let v: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(v[0].get("moves").is_none() && v[0]["best_move"].is_object(), "{text}");
    // Bad `moves` values and unknown parameters or fields are the request's error, in one line.
    for (path, body) in [
        ("/api/v1/query?game=kayles&position=3&moves=no", &b""[..]),
        ("/api/v1/query?moves=maybe", &b"[[3]]"[..]),
        ("/api/v1/query", &br#"{"moves":"false","positions":[[3]]}"#[..]),
        ("/api/v1/query?colour=blue", &b"[[3]]"[..]),
        ("/api/v1/query", &br#"{"move":false,"positions":[[3]]}"#[..]),
    ] {
        let method = if body.is_empty() { "GET" } else { "POST" };
        let (status, text) = server.request(method, path, body);
        assert_eq!(status, 400, "{method} {path}: {text}");
        let v: Value = serde_json::from_str(&text).unwrap();
        let error = v["error"].as_str().unwrap();
        assert!(!error.is_empty() && !error.contains('\n'), "{error}");
    }
    assert!(server.stop().0.success());
}
