//! `nimdb query --batch` and `nimdb serve` answer misère positions of octal games from a
//! stored misère quotient exactly as `nimdb query` does (`source: "quotient"`, remoteness
//! unknown), for heaps up to u64; they read the stored quotient and never compute one, and
//! they see a quotient stored while they run.
#![cfg(feature = "server")]

mod common;
mod serve_common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use common::{nimdb, ok};
use serde_json::Value;

/// 200 misère Kayles positions no solve on the spot would cover: one heap of at least 70
/// (the smallest universe then has more than 5,000,000 positions), others of any size,
/// some beyond the database's heaps (up to u64::MAX).
fn positions() -> Vec<String> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        state >> 11
    };
    (0..200)
        .map(|i| {
            let mut heaps = vec![70 + next() % 1_000_000];
            for _ in 0..next() % 5 {
                heaps.push(match next() % 4 {
                    0 => 1 + next() % 12,
                    1 => 1 + next() % 300,
                    2 => 1 + next() % 1_000_000,
                    _ => (next() << 11) | (next() % 2048),
                });
            }
            if i % 10 == 0 {
                heaps.push(u64::MAX);
            }
            heaps.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
        })
        .collect()
}

/// What `nimdb query --json` answers.
fn query(db: &str, game: &str, position: &str) -> Value {
    let mut args = vec!["query", "--json", "--misere", "--game", game, "--db", db];
    args.extend(position.split(' '));
    serde_json::from_str(&ok(&args)).unwrap()
}

/// Runs `nimdb query --misere --batch` over `lines`: (success, one JSON object a line).
fn batch(db: &str, game: &str, moves: bool, lines: &[String]) -> (bool, Vec<Value>) {
    let mut args = vec!["query", "--misere", "--batch", "--game", game, "--db", db];
    if moves {
        args.push("--moves");
    }
    let out = nimdb().args(&args).write_stdin(lines.join("\n") + "\n").output().unwrap();
    let objects =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    (out.status.success(), objects)
}

/// `v` without its `line` key.
fn without_line(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("line");
    v
}

#[test]
fn batch_answers_from_the_stored_quotient_as_query_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("q.sqlite");
    let db = db.to_str().unwrap();
    ok(&["solve", "--game", "kayles", "--misere", "--max-total", "12", "--quiet", "--db", db]);
    // No quotient stored: batch mode never computes one, and says how to store it.
    let (success, out) = batch(db, "kayles", false, &["100 90 80 7".into()]);
    assert!(!success);
    let e = out[0]["error"].as_str().unwrap();
    assert!(e.contains("a stored misère quotient of the game would answer positions of any size"), "{e}");
    assert!(!e.contains("nimdb "), "library words, no command: {e}");

    ok(&["quotient", "--game", "kayles", "--db", db]);
    let lines = positions();
    let (success, full) = batch(db, "kayles", true, &lines);
    assert!(success, "{full:?}");
    let (success, short) = batch(db, "kayles", false, &lines);
    assert!(success);
    assert_eq!((full.len(), short.len()), (lines.len(), lines.len()));
    let mut beyond = 0;
    for (i, line) in lines.iter().enumerate() {
        let want = query(db, "kayles", line);
        assert_eq!(want["source"], "quotient", "{line}");
        assert!(want["remoteness"].is_null());
        assert_eq!(full[i]["line"], i + 1);
        assert_eq!(without_line(full[i].clone()), want, "line {}: {line}", i + 1);
        for key in ["position", "outcome", "remoteness", "nim_value", "source", "solve_id"] {
            assert_eq!(short[i][key], want[key], "line {}: {line}: {key}", i + 1);
        }
        beyond += usize::from(line.split(' ').any(|h| h.parse::<u64>().unwrap() > 1_000_000));
        // From a win, the move leads to a loss, by the quotient again.
        if want["outcome"] == "win" {
            let to: Vec<String> =
                want["best_move"]["to"].as_array().unwrap().iter().map(|h| h.to_string()).collect();
            assert_eq!(query(db, "kayles", &to.join(" "))["outcome"], "loss", "{line}");
        }
    }
    assert!(beyond >= 40, "only {beyond} positions with heaps beyond the database's");
}

#[test]
fn batch_sees_a_quotient_stored_while_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.sqlite");
    let db = db.to_str().unwrap();
    ok(&["solve", "--game", "kayles", "--misere", "--max-total", "8", "--quiet", "--db", db]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_nimdb"))
        .args(["query", "--game", "kayles", "--misere", "--batch", "--db", db])
        .env_remove("NIMDB_DB")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut ask = |line: &str| -> Value {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let mut out = String::new();
        stdout.read_line(&mut out).unwrap();
        serde_json::from_str(&out).unwrap()
    };
    assert!(ask("100 90 80 7")["error"].is_string());
    ok(&["quotient", "--game", "kayles", "--db", db]);
    let answer = ask("100 90 80 7");
    assert_eq!(answer["source"], "quotient", "{answer}");
    assert_eq!(without_line(answer), {
        let mut v = query(db, "kayles", "100 90 80 7");
        for key in ["game", "convention", "best_move", "moves", "moves_omitted"] {
            v.as_object_mut().unwrap().remove(key);
        }
        v
    });
    drop(stdin);
    assert!(!child.wait().unwrap().success(), "the first line failed, so the status is 1");
}

#[test]
fn serve_answers_from_the_stored_quotient_as_query_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.sqlite");
    let db_str = db.to_str().unwrap().to_string();
    ok(&["solve", "--game", "kayles", "--misere", "--max-total", "8", "--quiet", "--db", &db_str]);
    let server = serve_common::Server::start(&db, &[]);
    let path = "/api/v1/query?game=kayles&convention=misere&position=100,90,80,7";
    let (status, body) = server.get(path);
    assert_eq!(status, 404, "{body}");
    assert!(
        body.contains("a stored misère quotient of the game would answer positions of any size"),
        "{body}"
    );
    assert!(!body.contains("nimdb "), "library words, no command: {body}");

    // Stored while the server runs: the next request sees it.
    ok(&["quotient", "--game", "kayles", "--db", &db_str]);
    let got = server.get_json(path);
    assert_eq!(got, query(&db_str, "kayles", "100 90 80 7"));
    assert_eq!((got["source"].as_str(), got["remoteness"].as_null()), (Some("quotient"), Some(())));

    // Every position of the batch, as text and as arrays of numbers, GET and POST.
    let lines = positions();
    let texts: Vec<Value> = lines.iter().map(|l| Value::String(l.clone())).collect();
    let arrays: Vec<Value> = lines
        .iter()
        .map(|l| Value::Array(l.split(' ').map(|h| Value::from(h.parse::<u64>().unwrap())).collect()))
        .collect();
    let post = |body: &Vec<Value>| -> Vec<Value> {
        let (status, out) = server.request(
            "POST",
            "/api/v1/query?game=kayles&convention=misere",
            serde_json::to_string(body).unwrap().as_bytes(),
        );
        assert_eq!(status, 200, "{out}");
        serde_json::from_str::<Value>(&out).unwrap().as_array().unwrap().clone()
    };
    let (by_text, by_array) = (post(&texts), post(&arrays));
    for (i, line) in lines.iter().enumerate() {
        let want = query(&db_str, "kayles", line);
        assert_eq!(by_text[i], want, "{line}");
        assert_eq!(by_array[i], want, "{line}");
        if i % 10 == 0 {
            let got = server.get_json(&format!(
                "/api/v1/query?game=kayles&convention=misere&position={}",
                line.replace(' ', ",")
            ));
            assert_eq!(got, want, "{line}");
        }
    }
    assert!(server.stop().0.success());
}

#[test]
fn serve_solving_on_the_spot_still_never_computes_a_quotient() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("u.sqlite");
    let db_str = db.to_str().unwrap().to_string();
    ok(&["solve", "--game", "kayles", "--misere", "--max-total", "8", "--quiet", "--db", &db_str]);
    let server = serve_common::Server::start(&db, &["--solve-up-to", "1000"]);
    // Too big to solve within the bound, and no quotient stored: refused, not computed.
    let (status, body) = server.get("/api/v1/query?game=kayles&convention=misere&position=100,90,80,7");
    assert_eq!(status, 404, "{body}");
    // A small universe is still solved on the spot.
    let small = server.get_json("/api/v1/query?game=kayles&convention=misere&position=9,1");
    assert_eq!(small["source"], "solved");
    assert!(server.stop().0.success());
    let stored = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT count(*) FROM quotients", [], |r| r.get::<_, i64>(0))
        .unwrap();
    assert_eq!(stored, 0);
}
