"""`nimdb.play`: the command line's terminal game (the library's `nimdb::play` session,
advisor and console), played from Python for a game defined in Python: its moves and labels
from the function, its values from the stored solve. Driven in a real terminal (tmux, as
tests/play_tmux.rs drives `nimdb play`) and through a pipe."""

import os
import shutil
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

import nimdb

PATIENCE = 30.0

GREEDY = '''
import sys
import nimdb


def greedy_moves(p):
    """Greedy Nim: take any number of tokens from a largest heap."""
    top = max(p, default=0)
    i = p.index(top) if p else 0
    return [(p[:i] + (k,) + p[i + 1 :], f"take {top - k} from a largest heap ({top})") for k in range(top)]


game = nimdb.define("greedy-nim", greedy_moves)
'''


def greedy_moves(p):
    top = max(p, default=0)
    i = p.index(top) if p else 0
    return [(p[:i] + (k,) + p[i + 1 :], f"take {top - k} from a largest heap ({top})") for k in range(top)]


class Tmux:
    """A detached 120×40 tmux session on a private server, killed when done."""

    def __init__(self, command):
        self.socket = f"nimdbpy-{os.getpid()}-{uuid.uuid4().hex[:6]}"
        self.run("new-session", "-d", "-s", "py", "-x", "120", "-y", "40", command)

    def run(self, *args):
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=True)

    def type_line(self, text):
        self.run("send-keys", "-t", "py", "-l", text)
        self.run("send-keys", "-t", "py", "Enter")

    def keys(self, *keys):
        self.run("send-keys", "-t", "py", *keys)

    def history(self):
        return self.run("capture-pane", "-p", "-J", "-S", "-", "-t", "py").stdout

    def wait_for(self, what, done):
        began = time.monotonic()
        while True:
            h = self.history()
            if done(h):
                return h
            if time.monotonic() - began > PATIENCE:
                pytest.fail(f"timed out waiting for {what}; the screen:\n{h}")
            time.sleep(0.05)

    def kill(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


@pytest.fixture
def tmux_available():
    if shutil.which("tmux") is None:
        pytest.fail("this test cannot run here: tmux is not installed (apt-get install tmux)")


def solved_greedy(tmp_path, max_total=14):
    path = tmp_path / "greedy.sqlite"
    db = nimdb.open(path, read_only=False)
    game = nimdb.define("greedy-nim", greedy_moves)
    db.solve(game, max_total=max_total)
    return path, db, game


def test_a_defined_game_in_a_real_terminal(tmp_path, tmux_available):
    path, db, game = solved_greedy(tmp_path)
    script = tmp_path / "play.py"
    script.write_text(GREEDY + f"ending = nimdb.play(game, [5, 3], db=nimdb.open({str(path)!r}), seed=7)\nprint('ENDED', ending)\n")
    tmux = Tmux(f"'{sys.executable}' '{script}'; echo EXITED $?; sleep 60")
    try:
        count = lambda needle, n: (lambda h: h.count(needle) >= n)  # noqa: E731
        screen = tmux.wait_for("the first prompt", count("Your move>", 1))
        assert "nimdb play: defined:greedy-nim from (5, 3) (normal play: whoever makes the last move wins)." in screen
        assert "Rules: greedy-nim: a game defined in Python (multiset, acyclic); its moves are the function's." in screen
        assert "  1: ||||| (5)\n  2: |||   (3)\nYour move>" in screen
        # The moves, numbered, with the function's labels.
        tmux.type_line("moves")
        tmux.wait_for("the moves", lambda h: "  1. take 5 from a largest heap (5) → (3)" in h)
        # Follow the hints to the end: each names the stored solve's best move.
        position, hints, replies = (5, 3), 0, 0
        first = db.query(game, list(position))
        assert (first.outcome, first.source) == ("win", "database")
        while True:
            best = db.query(game, list(position))
            tmux.type_line("hint")
            hints += 1
            tmux.wait_for("a hint", count("You can win in", hints))
            moves = "move" if best.remoteness == 1 else "moves"
            assert f"You can win in {best.remoteness} {moves}: {best.best_move.description}" in tmux.history()
            # A move typed as the position it leads to, as the game shows it: "to (3, 3)".
            tmux.type_line(f"to {best.best_move.to}")
            position = best.best_move.to
            if not db.query(game, list(position)).moves:
                break
            reply = db.query(game, list(position)).best_move
            replies += 1
            tmux.wait_for("the computer's reply", count("\nComputer: ", replies))
            assert f"Computer: {reply.description}" in tmux.history()
            position = reply.to
        screen = tmux.wait_for("the end", lambda h: "EXITED 0" in h)
        assert "Game over: you made the last move, and under normal play the last move wins. You win." in screen
        assert "ENDED first" in screen
        assert screen.count("\nYou: ") + screen.count("\nComputer: ") == first.remoteness
    finally:
        tmux.kill()


def test_ctrl_c_at_the_prompt_raises_keyboard_interrupt(tmp_path, tmux_available):
    path, _, _ = solved_greedy(tmp_path, 8)
    script = tmp_path / "play.py"
    script.write_text(
        GREEDY
        + textwrap.dedent(f"""
        try:
            nimdb.play(game, [4, 2], db=nimdb.open({str(path)!r}))
        except KeyboardInterrupt:
            print("INTERRUPTED")
        """)
    )
    tmux = Tmux(f"'{sys.executable}' '{script}'; echo EXITED $?; sleep 60")
    try:
        tmux.wait_for("the prompt", lambda h: "Your move>" in h)
        tmux.keys("C-c")
        screen = tmux.wait_for("the end", lambda h: "EXITED 0" in h)
        assert "INTERRUPTED" in screen
    finally:
        tmux.kill()


def run_piped(tmp_path, body, stdin=""):
    script = tmp_path / "piped.py"
    script.write_text(GREEDY + textwrap.dedent(body))
    return subprocess.run([sys.executable, str(script)], input=stdin, capture_output=True, text=True, timeout=120)


def test_through_a_pipe_lines_are_echoed_and_end_of_input_stops(tmp_path):
    path, db, game = solved_greedy(tmp_path, 10)
    out = run_piped(
        tmp_path,
        f"print('ENDED', nimdb.play(game, '4 2', db=nimdb.open({str(path)!r}), players='human-human'))\n",
        "4\nbanana\nto (2, 2)\n",
    )
    assert out.returncode == 0, out.stderr
    text = out.stdout
    # The introduction's example is a move as it can be typed.
    assert "A move is its number in 'moves' or the position it leads to, e.g. '1' or 'to (2)'" in text
    assert "Player 1> 4\nPlayer 1: take 1 from a largest heap (4) → (3, 2)" in text
    assert "Player 2> banana\nI don't understand 'banana'" in text
    assert "Player 2> to (2, 2)\nPlayer 2: take 1 from a largest heap (3) → (2, 2)" in text
    assert "End of input: the game stops at (2, 2) with no winner." in text
    assert text.rstrip().endswith("ENDED end-of-input")


def test_play_refusals_and_an_exception_in_the_moves(tmp_path):
    path, db, game = solved_greedy(tmp_path, 10)
    with pytest.raises(nimdb.NotAnswered, match=r"\(20, 3\) is not covered by any stored solve of defined:greedy-nim.*Database.solve"):
        nimdb.play(game, [20, 3], db=db)
    with pytest.raises(nimdb.BadArgument, match="unknown players 'robots'"):
        nimdb.play(game, [4, 2], db=db, players="robots")
    with pytest.raises(nimdb.BadPosition, match="the starting position has no heaps"):
        nimdb.play(game, [], db=db)
    # The function raising mid-game (at a position past the fingerprint's sample of at
    # most 6 tokens) stops the game, naming the position.
    out = run_piped(
        tmp_path,
        f"""
        def fragile(p):
            if p == (4, 3):
                raise RuntimeError("no moves today")
            return greedy_moves(p)
        fragile_game = nimdb.define("greedy-nim", fragile)
        nimdb.play(fragile_game, [5, 3], db=nimdb.open({str(path)!r}), players="human-human")
        """,
        "to 4 3\n",
    )
    assert out.returncode == 1
    assert "Player 1: take 1 from a largest heap (5) → (4, 3)" in out.stdout
    assert "greedy-nim's moves(4, 3) raised: RuntimeError: no moves today" in out.stderr, out.stderr
    assert "Player 2>" not in out.stdout


def test_the_computer_plays_from_a_proven_theorem_past_the_stored_solve(tmp_path):
    # Nim defined in Python, solved to 6 tokens; from (9, 7, 4) the computer plays both
    # sides by Bouton's theorem (stated as the user's, proven) until the stored solve
    # takes over, and the first player wins as the theorem says.
    path = tmp_path / "nim.sqlite"
    db = nimdb.open(path, read_only=False)
    body = f"""
    from functools import reduce
    from operator import xor
    def nim_moves(p):
        return [p[:i] + (k,) + p[i + 1:] for i, h in enumerate(p) for k in range(h)]
    bouton = nimdb.Theorem("Bouton 1901", lambda p: reduce(xor, p, 0), proven=True)
    nim = nimdb.define("my-nim", nim_moves, theorem=bouton)
    db = nimdb.open({str(path)!r}, read_only=False)
    db.solve(nim, max_total=6)
    print("ENDED", nimdb.play(nim, [9, 7, 4], db=db, players="computer-computer", seed=1))
    """
    out = run_piped(tmp_path, body)
    assert out.returncode == 0, out.stderr
    assert out.stdout.rstrip().endswith("ENDED first"), out.stdout
    assert "Game over: Computer 1 made the last move" in out.stdout


def test_play_judges_each_position_within_its_cpu_limit(tmp_path):
    # Finding: play judged positions with no CPU limit (only the query's 5 s prediction,
    # and no watch), holding the GIL all the while. cpu_limit now bounds each new
    # position's judgement as Database.query's bounds an answer.
    db = nimdb.open(str(tmp_path / "p.sqlite"), read_only=False)
    welter = [3000 + 7 * i for i in range(30)]  # a theorem's move list, about 0.15 CPU s
    with pytest.raises(nimdb.TooCostly, match=r"stopped at the CPU limit of 0\.01 s; raise cpu_limit"):
        nimdb.play("welter", welter, db=db, players="human-human", cpu_limit=0.01)
    # A game no other test asks (its values, once computed, are kept in the process: with
    # octal:0.74, which test_errors computes to 30,000, the start was answered at once and
    # a computer-computer game from 30,000 ran for minutes). Human players, so that a start
    # answered by mistake ends at the end of input instead of playing on.
    with pytest.raises(nimdb.TooCostly, match=r"more than the 0\.2 s"):
        nimdb.play("octal:0.765", [30000], db=db, players="human-human", cpu_limit=0.2)
    with pytest.raises(nimdb.BadArgument, match="cpu_limit must be a number of seconds"):
        nimdb.play("welter", [3], db=db, cpu_limit=0)
    # The database was made by open; the refused starts stored nothing in it.
    assert db.solves() == []
