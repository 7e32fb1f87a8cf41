//! The JSON the explorer's pictures are drawn from: `GET /api/v1/quotient` equals `nimdb
//! quotient --json` (stored or computed within the server's limits), `GET /api/v1/slice`
//! equals `nimdb query --batch` position by position, and both refuse what is over their
//! bounds with a JSON error.
#![cfg(feature = "server")]

mod common;
mod serve_common;

use common::ok;
use serde_json::Value;
use serve_common::Server;

/// `nimdb quotient --json` with these arguments.
fn quotient_cli(db: &str, args: &[&str]) -> Value {
    let mut all = vec!["quotient", "--json", "--quiet", "--db", db];
    all.extend(args);
    serde_json::from_str(&ok(&all)).unwrap()
}

/// `nimdb query --batch` over the slice [a, b, fixed…], a, b ≤ size: outcome[a][b] ("win",
/// "loss", or null where the line is an error).
fn batch_slice(db: &str, game: &str, misere: bool, size: u32, fixed: &[u32]) -> Vec<Vec<Value>> {
    let mut lines = String::new();
    for a in 0..=size {
        for b in 0..=size {
            let mut heaps = vec![a, b];
            heaps.extend(fixed);
            // The empty position is written 0.
            lines += &heaps.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
            lines.push('\n');
        }
    }
    let mut args = vec!["query", "--batch", "--game", game, "--db", db];
    if misere {
        args.push("--misere");
    }
    let out = common::nimdb().args(&args).write_stdin(lines).output().unwrap();
    let answers: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), ((size + 1) * (size + 1)) as usize);
    answers
        .chunks((size + 1) as usize)
        .map(|row| row.iter().map(|a| a.get("outcome").cloned().unwrap_or(Value::Null)).collect())
        .collect()
}

/// The slice the server answers, checked against the batch and its counts.
fn check_slice(server: &Server, db: &str, game: &str, misere: bool, size: u32, fixed: &[u32]) -> Value {
    let convention = if misere { "misere" } else { "normal" };
    let fixed_text = fixed.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    let got = server.get_json(&format!(
        "/api/v1/slice?game={game}&convention={convention}&size={size}&fixed={fixed_text}"
    ));
    let want = batch_slice(db, game, misere, size, fixed);
    let outcomes: Vec<Vec<Value>> = serde_json::from_value(got["outcomes"].clone()).unwrap();
    assert_eq!(outcomes, want, "{game} {convention} slice {size} fixed {fixed:?}");
    let count = |v: &str| want.iter().flatten().filter(|o| o.as_str() == Some(v)).count() as u64;
    assert_eq!(got["losses"], count("loss"));
    assert_eq!(got["unanswered"], want.iter().flatten().filter(|o| o.is_null()).count() as u64);
    assert_eq!(got["size"], size);
    got
}

#[test]
fn quotients_and_slices_equal_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pictures.sqlite");
    let db_str = db.to_str().unwrap();
    ok(&["solve", "--quiet", "--game", "nim", "--max-heaps", "4", "--max-heap", "8", "--db", db_str]);
    let other = dir.path().join("other.sqlite");
    let other_str = other.to_str().unwrap();
    let server = Server::start(&db, &[]);

    // Computed on the spot (nothing stored): the command line's object, not stored.
    let got = server.get_json("/api/v1/quotient?game=kayles");
    let want = quotient_cli(other_str, &["--game", "kayles"]);
    assert_eq!(want["reused"], false);
    assert_eq!(got, want);
    assert_eq!(
        (got["size"].as_u64(), got["p_count"].as_u64(), got["period"].as_u64()),
        (Some(40), Some(9), Some(12))
    );
    assert_eq!(got["table"].as_array().unwrap().len(), 40);
    let got = server.get_json("/api/v1/quotient?game=dawson&max_heap=12");
    assert_eq!(got, quotient_cli(other_str, &["--game", "dawson", "--max-heap", "12"]));
    assert!(
        ok(&["info", "--db", db_str]).lines().all(|l| !l.contains("misère quotient")),
        "the server stored one"
    );

    // Stored (by the command line, while the server runs): read, even past what the
    // server would compute (Dawson's Kayles to heap 25 or 26 outgrows 256 elements on the
    // way); a smaller range is read off it (the database keeps one quotient per game), as
    // the command line reads it.
    let (status, body) = server.get("/api/v1/quotient?game=dawson&max_heap=25");
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("256 elements"), "{body}");
    let stored = quotient_cli(db_str, &["--game", "dawson", "--max-heap", "26"]);
    let got = server.get_json("/api/v1/quotient?game=dawson&max_heap=25");
    assert_eq!((got["reused"].as_bool(), got["size"].as_u64()), (Some(true), Some(144)));
    assert_eq!(got, quotient_cli(db_str, &["--game", "dawson", "--max-heap", "25"]));
    let got = server.get_json("/api/v1/quotient?game=dawson&max_heap=26");
    assert_eq!(got["reused"], true);
    assert_eq!(got, quotient_cli(db_str, &["--game", "dawson", "--max-heap", "26"]));
    assert_eq!(got["size"], stored["size"]);
    quotient_cli(db_str, &["--game", "dawson", "--max-heap", "30"]);
    let (status, body) = server.get("/api/v1/quotient?game=dawson&max_heap=30");
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("has 360 elements") && body.contains("at most 256"), "{body}");

    // Refusals, as JSON.
    for (path, status, words) in [
        ("/api/v1/quotient?game=nim", 422, "grew beyond 256 elements"),
        ("/api/v1/quotient?game=wythoff", 400, "not an octal game"),
        ("/api/v1/quotient?game=kayles&max_heap=301", 400, "1..=300"),
        ("/api/v1/slice?game=nim&size=65", 400, "1..=64"),
        ("/api/v1/slice?game=nim&fixed=1,2,3", 400, "at most 2 heaps"),
        ("/api/v1/slice?game=nim&fixed=65", 400, "each 0..=64"),
        ("/api/v1/slice?game=chess", 400, "unknown game"),
    ] {
        let (got, body) = server.get(path);
        assert_eq!(got, status, "{path}: {body}");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(body["status"], status);
        assert!(body["error"].as_str().unwrap().contains(words), "{path}: {body}");
    }

    // Slices: from theory (Wythoff's pairs, Kayles), from the stored solve, with a heap
    // held fixed, and misère Kayles before (nothing answers) and after its quotient is
    // stored.
    let wythoff = check_slice(&server, db_str, "wythoff", false, 30, &[]);
    let pairs = (0..=30u32)
        .flat_map(|a| (0..=30u32).map(move |b| (a, b)))
        .filter(|&(a, b)| {
            let (lo, hi) = (a.min(b), a.max(b));
            let k = hi - lo;
            lo == (k as f64 * (1.0 + 5f64.sqrt()) / 2.0).floor() as u32
        })
        .count() as u64;
    assert_eq!(wythoff["losses"], pairs);
    check_slice(&server, db_str, "kayles", false, 24, &[]);
    let nim = check_slice(&server, db_str, "nim", false, 8, &[5]);
    let bouton = (0..=8u32).flat_map(|a| (0..=8u32).map(move |b| a ^ b ^ 5)).filter(|&x| x == 0).count();
    assert_eq!(nim["losses"], bouton as u64);
    let before = check_slice(&server, db_str, "kayles", true, 12, &[]);
    assert!(before["unanswered"].as_u64().unwrap() > 0);
    ok(&["quotient", "--quiet", "--game", "kayles", "--db", db_str]);
    let after = check_slice(&server, db_str, "kayles", true, 12, &[]);
    assert_eq!(after["unanswered"], 0);
    assert!(server.stop().0.success());
}
