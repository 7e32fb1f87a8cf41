//! `nimdb play`: scripted games through stdin, and the same session logic driven through
//! the library.
//!
//! The computer is deterministic (it plays the query's best move), so a test can simulate a
//! whole game in advance with its own reference database, write the human's lines, run the
//! binary once, and check every computer move and the verdict it printed. Independent
//! checks come from the forward minimax search (`nimdb::tree::MinimaxSearch`).

use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use nimdb::game::Outcome;
use nimdb::game::{Convention, GameSpec, HeapResult, Move, Position, all_moves};
use nimdb::index::Universe;
use nimdb::play::{Advisor, Console, Ending, Players, Seat, Session, computer_choice, hint_text, play};
use nimdb::query::{AUTO_SOLVE_LIMIT, query};
use nimdb::solve::Silent;
use nimdb::store::Database;
use nimdb::tree::MinimaxSearch;

/// Runs `nimdb play` with `stdin`; returns (success, stdout, stderr).
fn run(args: &[&str], stdin: impl Into<Vec<u8>>) -> (bool, String, String) {
    let out = cargo_bin_cmd!("nimdb").arg("play").args(args).write_stdin(stdin.into()).output().unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// Runs a game that must end cleanly; returns stdout.
fn ok(args: &[&str], stdin: &str) -> String {
    let (success, stdout, stderr) = run(args, stdin);
    assert!(success, "nimdb play {args:?} failed: {stderr}\n{stdout}");
    assert!(stderr.is_empty(), "{stderr}");
    stdout
}

/// A startup error: one line on stderr, nothing on stdout, failing exit status.
fn err(args: &[&str]) -> String {
    let (success, stdout, stderr) = run(args, "");
    assert!(!success, "nimdb play {args:?} should fail:\n{stdout}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.starts_with("nimdb: error: "), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    stderr
}

fn db_arg(dir: &Path) -> String {
    dir.join("play.sqlite").to_string_lossy().into_owned()
}

/// The game's flags: `--game G` and `--misere` when misère.
fn game_args(game: &str, convention: Convention) -> Vec<String> {
    let mut args = vec!["--game".to_string(), game.to_string()];
    if convention == Convention::Misere {
        args.push("--misere".to_string());
    }
    args
}

/// Lines of `out` that start with `prefix`, without it.
fn lines_after<'a>(out: &'a str, prefix: &str) -> Vec<&'a str> {
    out.lines().filter_map(|l| l.strip_prefix(prefix)).collect()
}

/// The test's own oracle: queries a separate database with the library.
struct Reference {
    db: Database,
    game: GameSpec,
    convention: Convention,
}

impl Reference {
    fn new(dir: &Path, game: &str, convention: Convention) -> Self {
        let db = Database::open(&dir.join("reference.sqlite")).unwrap();
        Reference { db, game: game.parse().unwrap(), convention }
    }

    /// (best move, its description, outcome, remoteness) for the player to move.
    fn best(&mut self, position: &Position) -> (Move, String, Outcome, Option<u32>) {
        let game = self.game.clone().into();
        let a = query(&mut self.db, &game, self.convention, &position.cells(), AUTO_SOLVE_LIMIT).unwrap();
        let best = a.best_move.unwrap();
        let mv = all_moves(self.game.rules(), position)
            .into_iter()
            .find(|m| m.describe(position) == best.description)
            .unwrap();
        (mv, best.description, a.outcome, a.remoteness)
    }
}

/// A random way to type `mv`, drawn from every form the parser accepts.
fn typed(mv: &Move, rng: &mut StdRng) -> String {
    let changes: Vec<String> = mv.changes().iter().map(|c| typed_change(c.heap, c.result, rng)).collect();
    changes.join("; ")
}

/// A random way to type one heap's change.
fn typed_change(h: u32, result: HeapResult, rng: &mut StdRng) -> String {
    let k = h - result.tokens();
    let forms = match *result.parts() {
        [a] => vec![format!("{h} {a}"), format!("{h} -> {a}"), format!("take {k} from {h}")],
        [] => {
            vec![format!("{h} 0"), format!("take all from {h}"), format!("take {k} from the {h}-heap")]
        }
        [a, b] if k == 0 => {
            vec![format!("{h} -> {b} {a}"), format!("split {h} into {a} and {b}")]
        }
        [a, b] => {
            vec![format!("{h} -> {a} {b}"), format!("take {k} from {h} leaving {b} and {a}")]
        }
        [a, b, c] => vec![format!("{h} -> {a} {b} {c}")],
        _ => unreachable!(),
    };
    forms[rng.random_range(..forms.len())].clone()
}

/// Simulates computer-human from `start` with a human playing random legal moves; returns
/// the human's lines and the computer's move descriptions, in order.
fn script_against_random_human(
    reference: &mut Reference,
    start: &Position,
    rng: &mut StdRng,
) -> (String, Vec<String>) {
    let mut position = start.clone();
    let (mut lines, mut computer) = (String::new(), Vec::new());
    loop {
        if all_moves(reference.game.rules(), &position).is_empty() {
            break;
        }
        let (mv, description, ..) = reference.best(&position);
        computer.push(description);
        position = mv.apply(&position);
        let moves = all_moves(reference.game.rules(), &position);
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.random_range(..moves.len())].clone();
        lines += &typed(&mv, rng);
        lines += "\n";
        position = mv.apply(&position);
    }
    (lines, computer)
}

/// Every game family, both conventions where the brief asks for them, with starts.
const FAMILIES: &[(&str, Convention, &[&str])] = &[
    ("nim", Convention::Normal, &["5 4 3", "7 2", "6 5 1", "4 4 3 1"]),
    ("nim", Convention::Misere, &["4 3 2 1", "5 5 1", "3 1 1", "6 2"]),
    ("subtraction:1,2,3", Convention::Misere, &["6", "11", "7 3"]),
    ("kayles", Convention::Normal, &["7 3", "9", "5 4"]),
    ("lines", Convention::Misere, &["6 2", "8", "4 3 1"]),
    ("grundy", Convention::Normal, &["9", "8 5", "10 4"]),
    ("dawson", Convention::Misere, &["7 4", "10"]),
];

#[test]
fn the_computer_never_loses_a_won_position_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_arg(dir.path());
    let mut runs = 0;
    for &(game, convention, starts) in FAMILIES {
        let mut reference = Reference::new(dir.path(), game, convention);
        let spec: GameSpec = game.parse().unwrap();
        let mut minimax = MinimaxSearch::new(spec.rules(), convention);
        let mut wins = 0;
        for start in starts {
            let start: Position = start.parse().unwrap();
            if !minimax.is_win(&start) {
                continue;
            }
            wins += 1;
            for seed in 0..3 {
                let mut rng = StdRng::seed_from_u64(seed);
                let (lines, computer) = script_against_random_human(&mut reference, &start, &mut rng);
                let mut args = game_args(game, convention);
                let start_text = start.to_string();
                args.extend(
                    ["--players", "computer-human", "--seed", "1", "--db", &db, &start_text]
                        .map(String::from),
                );
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let out = ok(&args, &lines);
                assert_eq!(lines_after(&out, "Computer: "), computer, "{game} {convention} {start}\n{out}");
                assert!(out.contains("The computer wins."), "{game} {convention} {start}\n{out}");
                let rule = match convention {
                    Convention::Normal => {
                        "the computer made the last move, and under normal play the last move wins"
                    }
                    Convention::Misere => "you made the last move, and under misère play the last move loses",
                };
                assert!(out.contains(&format!("Game over: {rule}. The computer wins.")), "{out}");
                assert!(!out.contains("not a legal move") && !out.contains("does not allow"), "{out}");
                runs += 1;
            }
        }
        assert!(wins > 0, "no winning start for {game} {convention}");
    }
    assert!(runs >= 40, "only {runs} runs");
}

#[test]
fn seed_004_the_computer_takes_one_from_six_and_wins() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_arg(dir.path());
    let args = ["-g", "subtraction:1,2,3", "--misere", "--players", "computer-human", "--db", &db, "6"];
    // Whatever the human takes from 5, the computer leaves 1 and the human must take it.
    for reply in ["take 1 from 5", "5 3", "5 -> 2"] {
        let out = ok(&args, &format!("{reply}\ntake 1 from 1\n"));
        let computer = lines_after(&out, "Computer: ");
        assert_eq!(computer[0], "take 1 from the 6-heap → [5]", "{out}");
        assert!(computer[1].ends_with("→ [1]"), "{out}");
        assert!(out.contains("You: take all 1 from the 1-heap → []"), "{out}");
        assert!(out.contains("Game over: you made the last move, and under misère play the last move loses. The computer wins."), "{out}");
    }
}

#[test]
fn a_human_following_hint_never_loses_a_won_position() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_arg(dir.path());
    for &(game, convention, starts) in FAMILIES {
        let mut reference = Reference::new(dir.path(), game, convention);
        for start in starts {
            let start: Position = start.parse().unwrap();
            let (_, _, outcome, start_remoteness) = reference.best(&start);
            if outcome != Outcome::Win {
                continue;
            }
            // Simulate: the human types `hint`, then the best move; the computer replies.
            let mut position = start.clone();
            let (mut lines, mut hints, mut plies) = (String::new(), Vec::new(), 0);
            let mut rng = StdRng::seed_from_u64(plies);
            while !all_moves(reference.game.rules(), &position).is_empty() {
                let (mv, description, outcome, remoteness) = reference.best(&position);
                if plies % 2 == 0 {
                    assert_eq!(outcome, Outcome::Win);
                    let r = remoteness.unwrap();
                    let moves = if r == 1 { "move" } else { "moves" };
                    hints.push(format!("You can win in {r} {moves}: {description}"));
                    lines += &format!("hint\n{}\n", typed(&mv, &mut rng));
                }
                position = mv.apply(&position);
                plies += 1;
            }
            let mut args = game_args(game, convention);
            let start_text = start.to_string();
            args.extend(["--db", &db, &start_text].map(String::from));
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = ok(&args, &lines);
            for hint in &hints {
                assert!(out.contains(hint.as_str()), "missing {hint:?} in\n{out}");
            }
            assert!(out.contains(". You win."), "{game} {convention} {start}\n{out}");
            let moves = lines_after(&out, "You: ").len() + lines_after(&out, "Computer: ").len();
            assert_eq!(Some(moves as u32), start_remoteness, "perfect play lasts the remoteness\n{out}");
        }
    }
}

#[test]
fn illegal_moves_are_rejected_and_the_prompt_returns() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_arg(dir.path());
    let script = "9 9\ntake 5 from 2\n3 -> 1 1\nbanana\n5 5\n\n\u{1b}[A\ntake\n5 -> 4\r\n";
    let out = ok(&["--game", "nim", "--db", &db, "5", "3", "2"], script);
    for message in [
        "there is no 9-heap; the heaps are [5,3,2]",
        "cannot take 5 from the 2-heap: it has only 2",
        "nim does not allow 3 -> 1 1; from the 3-heap you may play 3 -> 2, 3 -> 1, 3 -> 0",
        "I don't understand 'banana'",
        "a move must make the 5-heap smaller",
        "write 'take 2 from 7' or 'take all from 7'",
        "You: take 1 from the 5-heap → [4,3,2]",
    ] {
        assert!(out.contains(message), "missing {message:?} in\n{out}");
    }
    // One prompt per line read, and one more that meets the end of the input.
    assert_eq!(out.matches("Your move> ").count(), script.lines().count() + 1, "{out}");
    assert!(out.ends_with("End of input: the game stops at [3,2,1] with no winner.\n"), "{out}");

    // Bytes that are not UTF-8 are an unknown word, not a crash.
    let (success, out, _) = run(&["--game", "kayles", "--db", &db, "4"], b"\xff\xfe\nquit\n".to_vec());
    assert!(success);
    assert!(out.contains("I don't understand"), "{out}");
    assert!(out.contains("You quit; the game stops at [4] with no winner."), "{out}");

    // Splitting games: the parts must add up, and Grundy's game only splits unequally.
    let out = ok(&["--game", "grundy", "--db", &db, "6"], "6 -> 3 3\n6 -> 2 3\ntake 1 from 6\n6 -> 4 2\n");
    assert!(out.contains("grundy does not allow 6 -> 3 3"), "{out}");
    assert!(out.contains("grundy does not allow 6 -> 2 3"), "{out}");
    assert!(out.contains("grundy does not allow 6 -> 5"), "{out}");
    assert!(out.contains("You: split the 6-heap into 2 and 4 → [4,2]"), "{out}");
}

/// Finding: a line was read whole, however long: a 500 MB line without a newline held
/// 2.4 GB and was echoed back whole, and `to` with twenty million counts echoed them all
/// in its refusal. A line is now read up to 64 KiB; the rest of a longer one is skipped
/// unread into memory, refused in one message, and the prompt returns.
#[test]
fn an_endless_line_is_refused_without_holding_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_arg(dir.path());
    for (game, start) in [("staircase", ["1", "2"]), ("nim", ["3", "2"])] {
        let mut script = vec![b'1'; 20 << 20];
        script.extend_from_slice(b"\nto ");
        script.extend(std::iter::repeat_n(b"1 ".as_slice(), 30_000).flatten());
        script.extend_from_slice(b"\nquit\n");
        let args = [&["--game", game, "--db", &db, "--seed", "1"][..], &start[..]].concat();
        let (success, out, stderr) = run(&args, script);
        assert!(success, "{stderr}");
        assert!(out.len() < 20_000, "{game}: {} bytes of output, the line echoed back", out.len());
        assert_eq!(out.matches("the line is longer than 64 KiB").count(), 1, "{game}: {out}");
        assert!(out.contains("You quit; the game stops at"), "{game}: {out}");
    }
}

#[test]
fn undo_restores_the_position_and_the_turn() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_arg(dir.path());
    let out = ok(&["--game", "nim", "--seed", "3", "--db", &db, "5", "4", "3"], "undo\n5 4\nundo\n");
    assert!(out.contains("Nothing to undo: no human move has been made yet."), "{out}");
    let computer = lines_after(&out, "Computer: ");
    assert_eq!(computer.len(), 1, "{out}");
    let (_, after_undo) = out.split_once("Took back 2 moves: the computer's ").expect(&out);
    assert!(after_undo.contains("and your take 1 from the 5-heap."), "{out}");
    let board = "  1: ||||| (5)\n  2: ||||  (4)\n  3: |||   (3)\nYour move> ";
    assert!(after_undo.contains(board), "the restored heaps\n{out}");

    // computer-human: the computer's first move stays; the human's turn comes back.
    let out =
        ok(&["--game", "nim", "--players", "computer-human", "--db", &db, "5", "4", "3"], "5 2\nundo\n");
    let first = lines_after(&out, "Computer: ")[0].to_string();
    assert_eq!(first, "take 2 from the 3-heap → [5,4,1]");
    let (_, after_undo) = out.split_once("Took back 2 moves").expect(&out);
    assert!(after_undo.contains("  1: ||||| (5)\n  2: ||||  (4)\n  3: |     (1)\nYour move> "), "{out}");

    // human-human: one move back, and the other player is to move again.
    let out = ok(&["--game", "nim", "--players", "human-human", "--db", &db, "3", "2"], "3 1\nundo\n");
    assert!(out.contains("Took back 1 move: Player 1's take 2 from the 3-heap."), "{out}");
    assert!(
        out.ends_with(
            "  1: ||| (3)\n  2: ||  (2)\nPlayer 1> \nEnd of input: the game stops at [3,2] with no winner.\n"
        ),
        "{out}"
    );
}

#[test]
fn hints_from_a_lost_position_name_the_longest_resistance() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_arg(dir.path());
    let mut reference = Reference::new(dir.path(), "nim", Convention::Normal);
    let start: Position = "7 4 3".parse().unwrap();
    let (_, description, outcome, remoteness) = reference.best(&start);
    assert_eq!(outcome, Outcome::Loss);
    let out = ok(&["--game", "nim", "--db", &db, "3", "4", "7"], "hint\n");
    let want = format!(
        "You are losing against perfect play (the opponent wins in {} moves); the move that holds out longest: {description}",
        remoteness.unwrap()
    );
    assert!(out.contains(&want), "{out}");
}

#[test]
fn computer_computer_plays_perfectly_without_input() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_arg(dir.path());
    for &(game, convention, starts) in FAMILIES {
        let mut reference = Reference::new(dir.path(), game, convention);
        let start: Position = starts[0].parse().unwrap();
        let (_, _, outcome, remoteness) = reference.best(&start);
        let mut args = game_args(game, convention);
        let start_text = start.to_string();
        args.extend(
            ["--players", "computer-computer", "--seed", "9", "--db", &db, &start_text].map(String::from),
        );
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ok(&args, "");
        let moves = lines_after(&out, "Computer 1: ").len() + lines_after(&out, "Computer 2: ").len();
        assert_eq!(Some(moves as u32), remoteness, "{out}");
        let winner = if outcome == Outcome::Win { "Computer 1" } else { "Computer 2" };
        assert!(out.contains(&format!(". {winner} wins.")), "{game} {convention} {start}\n{out}");
        assert!(!out.contains("> "), "no prompts\n{out}");
        // The same seed says the same thing.
        assert_eq!(ok(&args, ""), out);
    }
}

#[test]
fn the_winner_message_comes_from_the_winners_set() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_arg(dir.path());
    let mut seen = std::collections::HashSet::new();
    for seed in 0..12 {
        let seed = seed.to_string();
        let out = ok(&["--game", "nim", "--seed", &seed, "--db", &db, "2"], "2 0\n");
        let last = out.lines().last().unwrap().to_string();
        assert!(nimdb::play::messages::HUMAN_WINS.contains(&last.as_str()), "{out}");
        seen.insert(last);
        let out = ok(
            &["--game", "nim", "--seed", &seed, "--players", "human-human", "--db", &db, "2"],
            "2 1\n1 0\n",
        );
        let last = out.lines().last().unwrap();
        assert!(last.contains("Player 2"), "{out}");
    }
    assert!(seen.len() > 1, "the seed picks among the messages");
}

#[test]
fn end_of_input_and_quit_end_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_arg(dir.path());
    let out = ok(&["--game", "nim", "--db", &db, "3", "4", "5"], "");
    assert!(out.ends_with("Your move> \nEnd of input: the game stops at [5,4,3] with no winner.\n"), "{out}");
    let out = ok(&["--game", "nim", "--db", &db, "3", "4", "5"], "help\nquit\n5 0\n");
    assert!(out.contains("hint   the best move"), "{out}");
    assert!(out.contains("5 4  or  5 -> 4  or  take 1 from 5"), "help shows moves legal here\n{out}");
    assert!(out.ends_with("You quit; the game stops at [5,4,3] with no winner.\n"), "{out}");
}

#[test]
fn bad_startup_input_is_one_line_and_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let db = db_arg(dir.path());
    let e = err(&["--game", "nim", "--players", "robots", "--db", &db, "3"]);
    assert!(e.contains("unknown --players value 'robots'"), "{e}");
    assert!(err(&["--game", "nim", "--db", &db, "3", "-1"]).contains("negative"));
    assert!(err(&["--game", "nim", "--db", &db, "3", "x"]).contains("'x'"));
    assert!(err(&["--game", "nim", "--db", &db]).contains("give the starting position"));
    assert!(err(&["--game", "nim", "--db", &db, "0", "0"]).contains("no heaps"));
    assert!(err(&["--game", "grundy", "--db", &db, "2", "1", "1"]).contains("over before it starts"));
    // Too large to solve on the spot (and no theory, no misère quotient): the query's error,
    // before the game. (Misère Kayles is answered by its quotient now.)
    let e = err(&["--game", "dawson", "--misere", "--db", &db, "300", "300"]);
    assert!(e.contains("not covered") && e.contains("nimdb solve"), "{e}");
    // clap refuses a bad game spec itself, with a failing status.
    let (success, _, stderr) = run(&["--game", "chess", "--db", &db, "3"], "");
    assert!(
        !success && stderr.contains("invalid value 'chess'") && stderr.contains("unknown game"),
        "{stderr}"
    );
}

/// The library path: the same session logic as the CLI, over many more positions.
mod library {
    use super::*;

    /// Every position with exactly `total` tokens, heaps at most `most`.
    fn partitions(total: u32, most: u32) -> Vec<Vec<u32>> {
        if total == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for first in (1..=total.min(most)).rev() {
            for mut rest in partitions(total - first, first) {
                rest.insert(0, first);
                out.push(rest);
            }
        }
        out
    }

    /// An advisor over a database that already holds every position of up to `total` tokens.
    fn advisor(dir: &Path, game: &GameSpec, convention: Convention, total: u32) -> Advisor {
        let mut db = Database::open(&dir.join(format!("{game}-{convention}.sqlite"))).unwrap();
        let universe = Universe { max_total: total, max_heap: None, max_heaps: None };
        nimdb::driver::solve_into(&mut db, game, convention, universe, false, &Silent).unwrap();
        Advisor::new(db, game.clone(), convention)
    }

    /// Plays `session` to the end: computer seats by the advisor, human seats by `human`.
    fn finish(
        session: &mut Session,
        advisor: &mut Advisor,
        minimax: &mut MinimaxSearch<'_, nimdb::game::Rules>,
        mut human: impl FnMut(&Session, &mut Advisor) -> Vec<u32>,
    ) -> Seat {
        let heaps = |p: &[u32]| Position::from_sorted(p.to_vec());
        while !session.is_over() {
            let to = if session.controller_to_move() == nimdb::play::Controller::Computer {
                let answer = advisor.answer(session.position()).unwrap();
                let mover_wins = minimax.is_win(&heaps(session.position()));
                let choice = computer_choice(answer).unwrap();
                // From a win the computer always leaves a loss (checked independently).
                assert!(
                    !mover_wins || !minimax.is_win(&heaps(&choice.to)),
                    "{:?} → {:?}",
                    session.position(),
                    choice.to
                );
                choice.to.clone()
            } else {
                human(session, advisor)
            };
            session.play(&to).unwrap();
        }
        session.winner().unwrap()
    }

    const GAMES: &[(&str, Convention)] = &[
        ("nim", Convention::Normal),
        ("nim", Convention::Misere),
        ("subtraction:1,2,3", Convention::Misere),
        ("kayles", Convention::Normal),
        ("kayles", Convention::Misere),
        ("lines", Convention::Misere),
        ("grundy", Convention::Normal),
        ("dawson", Convention::Normal),
    ];

    #[test]
    fn the_computer_wins_every_won_start_against_random_humans() {
        let dir = tempfile::tempdir().unwrap();
        let total = 9;
        let mut games = 0;
        for &(game, convention) in GAMES {
            let spec: GameSpec = game.parse().unwrap();
            let mut advisor = advisor(dir.path(), &spec, convention, total);
            let mut minimax = MinimaxSearch::new(spec.rules(), convention);
            for n in 1..=total {
                for heaps in partitions(n, n) {
                    let start = Position::new(heaps);
                    if all_moves(spec.rules(), &start).is_empty() || !minimax.is_win(&start) {
                        continue;
                    }
                    for seed in 0..3 {
                        let mut rng = StdRng::seed_from_u64(seed);
                        let mut session =
                            Session::new(spec.clone(), convention, Players::ComputerHuman, start.clone())
                                .unwrap();
                        let winner = finish(&mut session, &mut advisor, &mut minimax, |s, _| {
                            let moves = s.legal_moves();
                            moves[rng.random_range(..moves.len())].to.clone()
                        });
                        assert_eq!(
                            winner,
                            Seat::First,
                            "{game} {convention} {start}: {:?}",
                            session.played()
                        );
                        games += 1;
                    }
                }
            }
        }
        assert!(games > 500, "{games}");
    }

    #[test]
    fn a_human_playing_the_hint_wins_every_won_start_as_fast_as_possible() {
        let dir = tempfile::tempdir().unwrap();
        let total = 9;
        for &(game, convention) in GAMES {
            let spec: GameSpec = game.parse().unwrap();
            let mut advisor = advisor(dir.path(), &spec, convention, total);
            let mut minimax = MinimaxSearch::new(spec.rules(), convention);
            for n in 1..=total {
                for heaps in partitions(n, n) {
                    let start = Position::new(heaps);
                    if all_moves(spec.rules(), &start).is_empty() || !minimax.is_win(&start) {
                        continue;
                    }
                    let remoteness = advisor.answer(start.heaps()).unwrap().remoteness;
                    let mut session =
                        Session::new(spec.clone(), convention, Players::HumanComputer, start.clone())
                            .unwrap();
                    let winner = finish(&mut session, &mut advisor, &mut minimax, |s, advisor| {
                        let answer = advisor.answer(s.position()).unwrap();
                        let best = answer.best_move.as_ref().unwrap();
                        // The hint names exactly the move the human then plays.
                        assert!(hint_text(answer).contains(&best.description));
                        best.to.clone()
                    });
                    assert_eq!(winner, Seat::First, "{game} {convention} {start}");
                    assert_eq!(
                        Some(session.played().len() as u32),
                        remoteness,
                        "{game} {convention} {start}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_console_loop_runs_over_in_memory_input() {
        let dir = tempfile::tempdir().unwrap();
        let spec: GameSpec = "nim".parse().unwrap();
        let mut advisor = advisor(dir.path(), &spec, Convention::Normal, 6);
        let mut session = Session::new(
            spec,
            Convention::Normal,
            Players::HumanComputer,
            "3 2".parse::<Position>().unwrap(),
        )
        .unwrap();
        let input: &[u8] = b"hint\n3 2\n2 1\n1 0\n";
        let mut console = Console::new(input, Vec::new(), true);
        let mut rng = StdRng::seed_from_u64(1);
        let ending = play(&mut session, &mut advisor, &mut rng, &mut console).unwrap();
        let out = String::from_utf8(console.into_output()).unwrap();
        assert_eq!(ending, Ending::Finished { winner: Seat::First }, "{out}");
        assert!(
            out.contains("Your move> hint\nYou can win in 5 moves: take 1 from the 3-heap → [2,2]"),
            "{out}"
        );
        assert!(out.contains("Your move> 3 2\nYou: take 1 from the 3-heap → [2,2]\nComputer: "), "{out}");
        assert!(out.contains(". You win.\n"), "{out}");
    }
}
