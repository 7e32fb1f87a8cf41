//! `nimdb explain`: seed 001's binary-column tables, the XOR reasoning, misère Nim and errors.

mod common;

use common::{err, ok};

/// Each line with its runs of spaces collapsed.
fn lines(text: &str) -> Vec<String> {
    text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
}

/// The whole text as one line of words (paragraphs are wrapped).
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `needle` appears as consecutive lines of `haystack`.
fn has_rows(haystack: &[String], needle: &[&str]) -> bool {
    haystack.windows(needle.len()).any(|w| w.iter().zip(needle).all(|(a, b)| a == b))
}

#[test]
fn seed_001_first_table() {
    let out = ok(&["explain", "3", "4", "7"]);
    let rows = lines(&out);
    assert!(
        has_rows(
            &rows,
            &[
                "Tokens in heap Binary representation Safe/Unsafe?",
                "Column values",
                "8 4 2 1",
                "3 0 0 1 1",
                "4 0 1 0 0",
                "7 0 1 1 1",
                "Column sums 0 2 2 2 Safe",
            ]
        ),
        "{out}"
    );
    let text = flat(&out);
    assert!(text.contains("Every move makes it unsafe"), "{out}");
    assert!(text.contains("Computer's move: take 1 from the 7-heap, leaving heaps 3 4 6"), "{out}");
}

#[test]
fn seed_001_second_table() {
    let out = ok(&["explain", "5,1,6"]);
    let rows = lines(&out);
    assert!(
        has_rows(
            &rows,
            &[
                "8 4 2 1",
                "5 0 1 0 1",
                "1 0 0 0 1",
                "6 0 1 1 0",
                "Column sums 0 2 1 2 Unsafe (2's column is odd)"
            ]
        ),
        "{out}"
    );
    let text = flat(&out);
    assert!(text.contains("6 XOR 2 = 4 < 6, so take 2 from the 6-heap, leaving 4"), "{out}");
    assert!(text.contains("Winning move: take 2 from the 6-heap, leaving heaps 5 1 4"), "{out}");
}

#[test]
fn xor_reasoning_names_the_heap_and_the_odd_columns() {
    let out = ok(&["explain", "[7,3,2]"]);
    assert!(
        lines(&out).contains(&"Column sums 0 1 3 2 Unsafe (4's and 2's columns are odd)".to_string()),
        "{out}"
    );
    let text = flat(&out);
    assert!(text.contains("The XOR of all heaps (the sum of the odd columns' values) is 6."), "{out}");
    assert!(text.contains("7 XOR 6 = 1 < 7, so take 6 from the 7-heap, leaving 1"), "{out}");
}

#[test]
fn misere_endgame_rule() {
    let out = ok(&["explain", "--misere", "1", "1", "1"]);
    assert!(
        lines(&out)
            .contains(&"Column sums 0 0 0 3 Safe (misère endgame: 3 1-heaps, an odd number)".to_string())
    );
    assert!(flat(&out).contains("the safe positions are those with an odd number of 1-heaps"), "{out}");
    // Normal play calls the same position unsafe.
    assert!(ok(&["explain", "1", "1", "1"]).contains("Unsafe (1's column is odd)"));
    // One heap above 1: leave an odd number of 1-heaps (normal Nim would take all 5).
    let text = flat(&ok(&["explain", "--misere", "5", "1", "1"]));
    assert!(text.contains("Winning move: take 4 from the 5-heap, leaving heaps 1 1 1"), "{text}");
    let text = flat(&ok(&["explain", "5", "1", "1"]));
    assert!(text.contains("Winning move: take 5 from the 5-heap, leaving heaps 1 1"), "{text}");
    // Two heaps above 1: the same as normal play.
    let text = flat(&ok(&["explain", "--misere", "5", "1", "6"]));
    assert!(text.contains("Winning move: take 2 from the 6-heap, leaving heaps 5 1 4"), "{text}");
}

#[test]
fn refuses_other_games_and_bad_heaps() {
    assert!(err(&["explain", "--game", "kayles", "3"]).contains("Nim only"));
    assert!(err(&["explain", "-g", "subtraction:1,2,3", "3"]).contains("Nim only"));
    assert!(err(&["explain", "3", "-4"]).contains("negative"));
    assert!(err(&["explain", "-4"]).contains("negative"));
    assert!(err(&["explain", "3", "x"]).contains("'x'"));
    assert!(err(&["explain"]).contains("at least one heap"));
    assert!(ok(&["explain", "--game", "nim", "3", "4", "7"]).contains("Safe"));
}

/// Finding: `explain --game raise:2` suggested `nimdb tree --game raise:2 HEAPS`, which is
/// refused (a loopy game's tree is infinite). The command suggested for a game explain does
/// not cover must take that game: it is run here on a position of the game.
#[test]
fn the_command_suggested_for_another_game_takes_it() {
    // Run as typed (no --db), in a directory of its own.
    let dir = tempfile::tempdir().unwrap();
    for (game, position) in [("raise:2", "2 1"), ("welter", "3 1"), ("kayles", "4 2")] {
        let e = err(&["explain", "--game", game, "1"]);
        let start = e.find("try nimdb ").unwrap_or_else(|| panic!("{game}: {e}")) + "try nimdb ".len();
        let suggested: Vec<&str> = e[start..].split_whitespace().collect();
        assert_eq!(suggested.last(), Some(&"HEAPS"), "{game}: {e}");
        let mut args: Vec<&str> = suggested[..suggested.len() - 1].to_vec();
        args.extend(position.split(' '));
        let out = common::nimdb().current_dir(dir.path()).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && !out.stdout.is_empty(), "{game}: nimdb {args:?}: {stderr}");
    }
}
