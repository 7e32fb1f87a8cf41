"""Ctrl-C stops every long call (with the GIL released), raises KeyboardInterrupt, leaves
nothing half-written, and the next call works. Each runs in its own process, so the SIGINT
reaches nothing else.

No test asserts on wall time: each call below runs for minutes when nothing stops it (a
game that splits heaps three ways costs about n⁴ to reach heap n; Grundy's game n² without
a shortcut), so a process that ends within the hang guard (`HANG_GUARD` seconds) with
KeyboardInterrupt was stopped by the Ctrl-C, and one that was not is reported as hung."""

import subprocess
import sys
import textwrap

import pytest

import nimdb

HANG_GUARD = 90

SCRIPT = textwrap.dedent(
    """
    import os, signal, threading, time
    import nimdb

    # Python's own Ctrl-C handler, whatever this process inherited (a shell's background job
    # starts with SIGINT ignored, and Python then installs no handler).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    {setup}
    threading.Timer({delay}, lambda: (print("signal", flush=True), os.kill(os.getpid(), signal.SIGINT))).start()
    print("call", flush=True)
    try:
        {call}
        print("finished")
    except KeyboardInterrupt:
        print("interrupted")
    {after}
    print(nimdb.heap_values("kayles", 200).period)  # the next call works
    """
)


def run(call: str, setup: str = "", after: str = "", delay: float = 0.5) -> list:
    """The lines the script printed: the call, the signal, how the call ended, and after."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT.format(call=call, setup=setup, after=after, delay=delay)],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{call} did not stop on Ctrl-C: {e.stdout!r}")
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def assert_interrupted(lines: list, *after: str):
    # The call began, the signal came while it ran, and the call ended by KeyboardInterrupt.
    assert lines == ["call", "signal", "interrupted", *after, "12"], lines


def test_ctrl_c_stops_a_quotient():
    # 0.35's open-ended quotient runs for minutes; Ctrl-C is heard within its walks.
    assert_interrupted(run('nimdb.quotient("octal:0.35", max_elements=8192)'))


def test_ctrl_c_stops_a_quotient_late_in_a_heap():
    # Misère Dawson's Kayles to heap 40 spends a minute and a half on heap 34 before it finds
    # the quotient past 4096 elements; a Ctrl-C there stops it too.
    assert_interrupted(run('nimdb.quotient("dawson", max_heap=40)', delay=9))


def test_ctrl_c_stops_heap_values_between_stretches():
    # Grundy's game has no shortcut: two million heaps take seconds; stops between stretches.
    assert_interrupted(run('nimdb.heap_values("grundy", 2_000_000)'))


def test_ctrl_c_stops_heap_values_of_a_hexadecimal_game():
    # Finding: a hexadecimal game's values are one plain mex to heap N, before the first
    # stretch; 3,000 heaps of 0.[F] take minutes, and Ctrl-C was not heard until the end.
    assert_interrupted(run('nimdb.heap_values("hex:0.[F]", 3000)'))


def test_ctrl_c_stops_a_theory_answer_and_writes_nothing(tmp_path):
    # Finding: query('hex:0.[F]', [1335]) computed the heap's nim-values for 69 s, deaf to
    # Ctrl-C. The database (writable) is left as it was: no solve, nothing stored. (Under
    # the default cpu_limit of 5 s it is refused up front, by its predicted cost: an hour's
    # limit lets it run until the Ctrl-C.)
    path = tmp_path / "q.sqlite"
    nimdb.open(path, read_only=False).close()
    lines = run(
        'db.query("hex:0.[F]", [1335], cpu_limit=3600)',
        setup=f"db = nimdb.open({str(path)!r}, read_only=False)",
        after='print(db.solves(), db.query("nim", [3, 2, 1]).outcome)',
    )
    assert_interrupted(lines, "[] loss")


def test_ctrl_c_stops_a_batch(solved):
    # Finding: query_many on 10,000 Grundy heaps ran to its end (its theory answers compute
    # the values of the largest heap first). Now stopped between and within positions.
    lines = run(
        "db.query_many('grundy', [[n] for n in range(40_000, 50_000)])",
        setup=f"db = nimdb.open({str(solved)!r})",
        after="print(db.query_many('nim', [[3, 2, 1]]).outcome[0])",
    )
    assert_interrupted(lines, "0")


def test_ctrl_c_stops_a_database_quotient_and_keeps_only_verified_heaps(tmp_path):
    # Database.quotient keeps the verified quotient of the heaps done before the Ctrl-C.
    path = tmp_path / "q.sqlite"
    lines = run(
        'db.quotient("octal:0.35", max_elements=8192)',
        setup=f"db = nimdb.open({str(path)!r}, read_only=False)",
        after='q = db.quotient("octal:0.35", max_heap=2); print(q.max_heap)',
    )
    assert_interrupted(lines, "2")


def test_a_handler_of_the_programs_own_still_runs():
    # A program's own SIGINT handler is called (at the polls between stretches), as before,
    # and what it raises stops the call.
    script = textwrap.dedent(
        """
        import os, signal, threading
        import nimdb

        class Stop(Exception):
            pass

        def handler(signum, frame):
            raise Stop()

        signal.signal(signal.SIGINT, handler)
        threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        try:
            nimdb.heap_values("grundy", 2_000_000)
            print("finished")
        except Stop:
            print("stopped by the handler")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.stdout.splitlines() == ["stopped by the handler"], (done.stdout, done.stderr)


def test_closing_the_database_from_a_progress_callback_raises(tmp_path):
    # Finding: db.close() inside a solve's progress callback waited for the solve, which
    # waited for the callback (0 CPU, deaf to Ctrl-C). It raises NimdbError instead, and the
    # solve goes on.
    db = nimdb.open(tmp_path / "c.sqlite", read_only=False)
    raised = []

    def progress(done, total, tier):
        try:
            db.close()
        except nimdb.NimdbError as e:
            raised.append(str(e))

    summary = db.solve("nim", max_total=8, progress=progress)
    assert summary.status == "complete"
    assert raised and all("in use by the call this callback runs in" in m for m in raised)
    db.close()
    with pytest.raises(nimdb.NimdbError, match="closed"):
        db.solves()


def test_a_quotient_takes_a_time_budget_and_says_how_far_it_got(tmp_path):
    # Finding: nimdb.quotient('dawson') ran 107 s before it said it would not finish. With
    # seconds=, it stops at the budget and says how far it got and what to ask instead.
    with pytest.raises(nimdb.NimdbError, match=r"within the time budget \(1(\.0)? s\): heaps 1\.\.=\d+ were done") as e:
        nimdb.quotient("dawson", seconds=1)
    heap = int(str(e.value).split("max_heap=")[1].split()[0])
    assert nimdb.quotient("dawson", max_heap=heap).max_heap == heap
    # A writable database keeps the verified quotient of the heaps done.
    db = nimdb.open(tmp_path / "t.sqlite", read_only=False)
    with pytest.raises(nimdb.NimdbError, match="time budget"):
        db.quotient("dawson", seconds=1)
    assert db.quotient("dawson", max_heap=10).max_heap == 10
    # What finishes within the budget is the quotient itself.
    assert nimdb.quotient("kayles", seconds=600).size == 40
    assert nimdb.quotient("kayles").size == 40
    for bad in (0, -1, float("nan")):
        with pytest.raises(nimdb.NimdbError, match="seconds must be a positive number"):
            nimdb.quotient("kayles", seconds=bad)


def test_an_open_ended_quotient_has_a_default_budget_and_a_limit_keeps_the_heaps_done(tmp_path):
    # Finding: nimdb.quotient('dawson') (open-ended, no budget given) ran 107 s before it
    # said it would not finish. It now stops at the default budget of an open-ended call
    # (10 s; every certified code of the four-digit atlas took at most 0.08 CPU s).
    with pytest.raises(nimdb.NimdbError, match=r"\(10 s, the default of an open-ended call\): heaps 1\.\.=\d+ were done"):
        nimdb.quotient("dawson")
    # A limit that stops a heap says how far it got too, and a writable database keeps it.
    with pytest.raises(
        nimdb.NimdbError,
        match=r"grew beyond 600 elements at heap 33 \(a higher element limit lets it grow further\); heaps 1\.\.=32 were done, "
        r"a quotient of 552 elements \(max_heap=32 gives",
    ):
        nimdb.quotient("dawson", max_elements=600)
    db = nimdb.open(tmp_path / "q.sqlite", read_only=False)
    with pytest.raises(nimdb.NimdbError, match="heaps 1..=32 were done"):
        db.quotient("dawson", max_elements=600)
    kept = nimdb.open(tmp_path / "q.sqlite").quotient("dawson", max_heap=32, seconds=0.001)
    assert (kept.max_heap, kept.size) == (32, 552)
