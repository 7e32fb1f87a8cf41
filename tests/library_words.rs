//! Library errors speak of positions, games and files; only the binary's one-line errors
//! name the command that helps. A batch line's error and an HTTP error are the library's
//! words: they say what is missing, and name no `nimdb` command.

mod common;

use common::{nimdb, ok};

/// A database with a small misère Dawson's Kayles solve: [40,30,20] lies beyond it, and no
/// theorem or stored quotient decides it.
fn seeded() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.sqlite").to_str().unwrap().to_string();
    ok(&["solve", "--quiet", "--game", "dawson", "--misere", "--max-total", "10", "--db", &db]);
    (dir, db)
}

/// What is missing, in words: the smallest solve that would hold it.
fn says_what_is_missing(e: &str) {
    assert!(e.contains("[40,30,20] is not in any stored solve of dawson under misère play"), "{e}");
    assert!(e.contains("a solve of total ≤ 90 would hold it"), "{e}");
    assert!(e.contains("a stored misère quotient of the game would answer positions of any size"), "{e}");
    assert!(!e.contains("nimdb "), "no command in library words: {e}");
    assert!(!e.contains("--"), "no flag in library words: {e}");
}

#[test]
fn a_batch_error_line_names_no_command() {
    let (_dir, db) = seeded();
    let out = nimdb()
        .args(["query", "--batch", "--game", "dawson", "--misere", "--db", &db])
        .write_stdin("3 2\n40 30 20\n")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0]["source"], "database");
    assert_eq!(lines[1]["line"], 2);
    says_what_is_missing(lines[1]["error"].as_str().unwrap());
}

#[test]
fn the_command_line_adds_the_command() {
    let (_dir, db) = seeded();
    let out = nimdb()
        .args(["query", "--game", "dawson", "--misere", "--db", &db, "40", "30", "20"])
        .output()
        .unwrap();
    common::assert_one_line_error(&out, "run: nimdb solve --game dawson --misere --max-total 90");
}

#[cfg(feature = "server")]
mod serve_common;

#[cfg(feature = "server")]
#[test]
fn an_http_404_names_no_command() {
    let (_dir, db) = seeded();
    let server = serve_common::Server::start(std::path::Path::new(&db), &[]);
    let (status, body) = server.get("/api/v1/query?game=dawson&convention=misere&position=40,30,20");
    assert_eq!(status, 404, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    says_what_is_missing(v["error"].as_str().unwrap_or_else(|| panic!("{body}")));
}
