//! `nimdb play` in a real terminal: tmux runs the binary in a detached 120×40 pane, the
//! test types keys into it and reads the screen back. Ignored by default (it needs tmux);
//! `.ci/run` installs tmux and runs it with `--ignored`, where a missing tmux is a failure.
//!
//! The server runs on a private socket (`tmux -L nimdbtest-<pid>`), so the test never
//! touches another tmux server, and it is killed when the test ends, even on failure.

mod common;

use std::process::{Command, Output};
use std::thread::sleep;
use std::time::{Duration, Instant};

use nimdb::game::{Convention, GameSpec, Move, Position, all_moves};
use nimdb::play::messages::HUMAN_WINS;
use nimdb::query::{AUTO_SOLVE_LIMIT, query};
use nimdb::store::Database;

/// How long to wait for the screen to show something.
const PATIENCE: Duration = Duration::from_secs(30);

/// A detached tmux session on its own server.
struct Tmux {
    socket: String,
    session: &'static str,
}

impl Tmux {
    fn available() -> bool {
        Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success())
    }

    /// Starts `shell_command` in a new detached 120×40 session.
    fn start(shell_command: &str) -> Tmux {
        let tmux = Tmux { socket: format!("nimdbtest-{}", std::process::id()), session: "nimdbtest" };
        let out =
            tmux.run(&["new-session", "-d", "-s", tmux.session, "-x", "120", "-y", "40", shell_command]);
        assert!(out.status.success(), "tmux new-session failed: {}", String::from_utf8_lossy(&out.stderr));
        tmux
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().unwrap()
    }

    /// Types `text` literally, then Enter.
    fn type_line(&self, text: &str) {
        assert!(self.run(&["send-keys", "-t", self.session, "-l", text]).status.success());
        assert!(self.run(&["send-keys", "-t", self.session, "Enter"]).status.success());
    }

    /// The visible screen, wrapped lines joined.
    fn screen(&self) -> String {
        String::from_utf8(self.run(&["capture-pane", "-p", "-J", "-t", self.session]).stdout).unwrap()
    }

    /// Everything the pane has shown, scrollback included.
    fn history(&self) -> String {
        String::from_utf8(self.run(&["capture-pane", "-p", "-J", "-S", "-", "-t", self.session]).stdout)
            .unwrap()
    }

    /// Waits until the pane's history satisfies `done`, and returns it.
    fn wait_for(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let began = Instant::now();
        loop {
            let history = self.history();
            if done(&history) {
                return history;
            }
            assert!(
                began.elapsed() < PATIENCE,
                "timed out waiting for {what}; the screen:\n{}",
                self.screen()
            );
            sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

/// How a human types `mv`: `take K from H`, `take all from H` or `H -> A B`.
fn typed(mv: &Move) -> String {
    let c = mv.single_change().expect("a heap game's move changes one heap");
    match c.result.parts().len() {
        1 => format!("take {} from {}", c.taken(), c.heap),
        0 => format!("take all from {}", c.heap),
        _ => mv.to_string(),
    }
}

#[test]
#[ignore = "needs tmux (.ci/run installs it and runs it with --ignored)"]
fn a_game_of_nim_in_a_real_terminal() {
    if !Tmux::available() {
        common::missing("tmux is not installed (apt-get install tmux)");
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("play.sqlite");
    let binary = env!("CARGO_BIN_EXE_nimdb");
    let command = format!(
        "'{binary}' play --game nim --seed 7 --db '{}' 3 4 5; echo EXITED $?; sleep 60",
        db.to_string_lossy()
    );
    let tmux = Tmux::start(&command);

    // The test's own oracle, on its own database.
    let game: GameSpec = "nim".parse().unwrap();
    let mut reference = Database::open(&dir.path().join("reference.sqlite")).unwrap();
    let mut best = |p: &Position| {
        let answer =
            query(&mut reference, &game.clone().into(), Convention::Normal, &p.cells(), AUTO_SOLVE_LIMIT)
                .unwrap();
        let best = answer.best_move.unwrap();
        let mv = all_moves(game.rules(), p).into_iter().find(|m| m.describe(p) == best.description).unwrap();
        (mv, best.description, answer.remoteness.unwrap())
    };
    let count = |needle: &'static str, n: usize| move |h: &str| h.matches(needle).count() >= n;

    let screen = tmux.wait_for("the first prompt", count("Your move>", 1));
    assert!(screen.contains("  1: ||||| (5)\n  2: ||||  (4)\n  3: |||   (3)\nYour move>"), "{screen}");

    // A hint, an unparsable line, the hinted move, and undo.
    let start: Position = "5 4 3".parse().unwrap();
    let (mv, description, remoteness) = best(&start);
    tmux.type_line("hint");
    let hint = format!("You can win in {remoteness} moves: {description}");
    tmux.wait_for("the hint", |h| h.contains(&hint));
    tmux.type_line("banana");
    tmux.wait_for("the complaint", |h| h.contains("I don't understand 'banana'"));
    tmux.type_line(&typed(&mv));
    let after = mv.apply(&start);
    let (reply, reply_words, _) = best(&after);
    tmux.wait_for("the computer's reply", |h| h.contains(&format!("Computer: {reply_words}")));
    tmux.type_line("undo");
    tmux.wait_for("the undo", |h| {
        h.rsplit_once("Took back 2 moves").is_some_and(|(_, after)| after.contains("Your move>"))
    });
    let screen = tmux.screen();
    let (_, restored) = screen.rsplit_once("Took back 2 moves").unwrap();
    assert!(
        restored.contains(&format!("the computer's {} and your {}.", reply.words(), mv.words())),
        "{screen}"
    );
    assert!(restored.contains("  1: ||||| (5)\n  2: ||||  (4)\n  3: |||   (3)\nYour move>"), "{screen}");

    // Now follow the hints to the end; the computer resists as long as it can.
    let mut position = start;
    let mut computer_moves = 1;
    let mut hints = 1;
    while !all_moves(game.rules(), &position).is_empty() {
        let (mv, description, _) = best(&position);
        tmux.type_line("hint");
        hints += 1;
        tmux.wait_for("a hint", count("You can win in", hints));
        assert!(tmux.history().contains(&description), "the hint names {description}");
        tmux.type_line(&typed(&mv));
        position = mv.apply(&position);
        if all_moves(game.rules(), &position).is_empty() {
            break;
        }
        let (reply, _, _) = best(&position);
        position = reply.apply(&position);
        computer_moves += 1;
        tmux.wait_for("the computer's move", count("\nComputer: ", computer_moves));
    }
    tmux.wait_for("the end of the game", |h| h.contains("EXITED 0"));
    let screen = tmux.screen();
    assert!(screen.contains("  (no heaps left)"), "{screen}");
    assert!(
        screen.contains(
            "Game over: you made the last move, and under normal play the last move wins. You win."
        ),
        "{screen}"
    );
    let message = screen.lines().skip_while(|l| !l.starts_with("Game over:")).nth(1).unwrap();
    assert!(HUMAN_WINS.contains(&message), "{message:?} is a human-wins message\n{screen}");
    // Eleven moves in all, as the first hint said.
    let history = tmux.history();
    let played = history.matches("\nYou: ").count() + history.matches("\nComputer: ").count();
    assert_eq!(played as u32, remoteness + 2, "the 11-move game plus the two moves taken back");
}
