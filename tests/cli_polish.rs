//! What a new user sees: usage with no arguments, short clap errors that keep the argument
//! named, its allowed values and "did you mean"; JSON errors under `--json`; `info` sorted by
//! id with aligned columns.

mod common;

use common::{nimdb, ok};

#[test]
fn no_arguments_prints_usage() {
    let out = nimdb().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Usage: nimdb [OPTIONS] <COMMAND>"), "{text}");
    assert!(text.contains("serve") && text.contains("export"), "{text}");
}

#[test]
fn argument_errors_keep_the_useful_part_on_one_line() {
    for (args, needles) in [
        (&["solve", "--max-total", "4"][..], &["--game <GAME>"][..]),
        (&["query", "--mizere", "3"], &["'--mizere'", "'--misere'"]),
        (&["export", "--format", "xml"], &["xml", "csv, jsonl"]),
    ] {
        let out = nimdb().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {stderr}");
        assert!(lines[0].starts_with("nimdb: error:"), "{stderr}");
        for n in needles {
            assert!(lines[0].contains(n), "{args:?}: expected {n} in {stderr}");
        }
        assert!(!stderr.contains("Usage:"), "{stderr}");
    }
}

#[test]
fn json_errors_are_json_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.sqlite");
    let out = nimdb().args(["info", "--json", "--db", missing.to_str().unwrap()]).output().unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let v: serde_json::Value = serde_json::from_slice(&out.stderr).expect("JSON on stderr");
    assert!(v["error"].as_str().unwrap().contains("no nimdb database"), "{v}");
}

#[test]
fn info_is_sorted_by_id_with_aligned_columns() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("i.sqlite");
    let db = db.to_str().unwrap();
    // Stored in an order that sorting by game would change.
    ok(&["solve", "--game", "nim", "--max-heaps", "3", "--max-heap", "5", "--db", db]);
    ok(&["solve", "--game", "kayles", "--misere", "--max-total", "12", "--db", db]);
    ok(&["solve", "--game", "subtraction:1,2,3", "--max-total", "9", "--db", db]);
    let out = ok(&["info", "--db", db]);
    let lines: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(lines.len(), 4, "{out}");
    let ids: Vec<&str> = lines[1..].iter().map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(ids, ["1", "2", "3"], "{out}");
    // Every column starts at the same character in every row.
    let starts =
        |l: &str, word: &str| l.chars().collect::<String>().find(word).map(|b| l[..b].chars().count());
    let game_col = starts(lines[0], "game").unwrap();
    for (l, g) in lines[1..].iter().zip(["nim", "kayles", "subtraction:1,2,3"]) {
        assert_eq!(starts(l, g), Some(game_col), "{out}");
    }
    let width = |l: &str| l.chars().count();
    let positions_end = lines[0].find("positions").unwrap() + "positions".len();
    for l in &lines[1..] {
        assert!(width(l) >= positions_end);
        assert_ne!(
            l.chars().nth(positions_end - 1),
            Some(' '),
            "numbers right-aligned under 'positions': {out}"
        );
    }
    let json: serde_json::Value = serde_json::from_str(&ok(&["info", "--json", "--db", db])).unwrap();
    let ids: Vec<i64> = json.as_array().unwrap().iter().map(|s| s["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [1, 2, 3]);
}

/// The commands `nimdb --help` lists, and each one's `--help`.
fn every_commands_help() -> Vec<(String, String)> {
    let top = ok(&["--help"]);
    let commands: Vec<String> = top
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|c| c != "help")
        .collect();
    assert!(commands.len() >= 10, "{top}");
    commands.into_iter().map(|c| (c.clone(), ok(&[&c, "--help"]))).collect()
}

#[test]
fn every_quiet_has_the_short_form_q() {
    let mut with_quiet = 0;
    for (command, help) in every_commands_help() {
        for line in help.lines().map(str::trim_start).filter(|l| l.contains("--quiet")) {
            with_quiet += 1;
            assert!(line.starts_with("-q, --quiet"), "nimdb {command}: {line}");
        }
    }
    assert!(with_quiet >= 2, "only {with_quiet} commands have --quiet");
}

#[test]
fn the_database_default_is_shown_once() {
    let mut with_db = 0;
    for (command, help) in every_commands_help() {
        if !help.contains("--db <DB>") {
            continue;
        }
        with_db += 1;
        // clap prints the default and the variable itself; the text once said the default too.
        assert_eq!(help.matches("nimdb.sqlite").count(), 1, "nimdb {command} --help:\n{help}");
        assert!(help.contains("[env: NIMDB_DB=]"), "nimdb {command} --help:\n{help}");
    }
    assert!(with_db >= 8, "only {with_db} commands have --db");
}

#[test]
fn no_hint_leads_to_a_refusal() {
    // clap's tip "use '-- --dot'" led to "'--dot' is not a heap size".
    for args in [&["tree", "--game", "nim", "--dot", "3"][..], &["query", "--dot", "3", "4"]] {
        let out = nimdb().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("unexpected argument '--dot'"), "{args:?}: {stderr}");
        assert!(!stderr.contains("'-- --dot'"), "{args:?}: {stderr}");
    }
}

#[test]
fn an_unknown_game_is_refused_with_every_family_named() {
    for (args, name) in
        [(&["query", "--game", "chess", "3"][..], "chess"), (&["solve", "--game", "foo:1"], "foo")]
    {
        let out = nimdb().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(name), "{stderr}");
        for family in ["nim", "kayles", "wythoff", "moore:", "staircase", "welter", "raise:"] {
            assert!(stderr.contains(family), "{args:?}: {family} missing from {stderr}");
        }
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    }
}
