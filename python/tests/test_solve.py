"""Solves from Python: progress, Ctrl-C that stops cleanly and resumes, the GIL released."""

import os
import signal
import threading
import time

import pytest

import nimdb


def test_progress_reports_every_tier(tmp_path):
    db = nimdb.open(tmp_path / "p.sqlite", read_only=False)
    calls = []
    summary = db.solve("dawson", 18, misere=True, progress=lambda done, total, tier: calls.append((done, total, tier)))
    assert calls[0] == (0, summary.positions, None)
    assert calls[-1][0] == calls[-1][1] == summary.positions
    assert len(calls) == summary.tiers_now + 1
    assert all(a[0] <= b[0] for a, b in zip(calls, calls[1:]))
    assert all(isinstance(tier, str) for _, _, tier in calls[1:])
    again = db.solve("dawson", 18, misere=True)
    assert again.solved_now == 0 and again.status == "complete"


def test_ctrl_c_stops_cleanly_and_the_same_call_resumes(tmp_path):
    db = nimdb.open(tmp_path / "c.sqlite", read_only=False)
    seen = []

    def progress(done, total, tier):
        seen.append((done, total))
        if len(seen) == 30:
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C: Python's handler sets its flag

    # Python's own Ctrl-C handler, whatever this process inherited (a shell's background job
    # starts with SIGINT ignored, and Python then installs no handler).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            db.solve("kayles", 30, progress=progress)
    finally:
        signal.signal(signal.SIGINT, previous)
    (partial,) = db.solves()
    assert partial.status == "partial"
    stored = partial.positions
    done, total = seen[-1]
    assert 0 < stored == done < total
    resumed = db.solve("kayles", 30)
    assert resumed.status == "complete"
    assert resumed.solved_now == resumed.positions - stored
    # The resumed solve answers as a solve in one go does.
    fresh = nimdb.open(tmp_path / "fresh.sqlite", read_only=False)
    fresh.solve("kayles", 30)
    a, b = db.export("kayles"), fresh.export("kayles")
    assert (a.heaps == b.heaps).all() and (a.remoteness == b.remoteness).all()


def test_an_exception_in_the_callback_stops_the_solve(tmp_path):
    db = nimdb.open(tmp_path / "e.sqlite", read_only=False)

    def progress(done, total, tier):
        if done > 100:
            raise ValueError("enough")

    with pytest.raises(ValueError, match="enough"):
        db.solve("nim", 25, misere=True, progress=progress)
    assert db.solves()[0].status == "partial"


def test_the_gil_is_released_during_a_solve(tmp_path):
    db = nimdb.open(tmp_path / "g.sqlite", read_only=False)
    span = {}

    def work():
        span["start"] = time.perf_counter()
        db.solve("kayles", 48)
        span["end"] = time.perf_counter()

    thread = threading.Thread(target=work)
    ticks = []
    thread.start()
    while thread.is_alive():
        ticks.append(time.perf_counter())
    thread.join()
    during = [t for t in ticks if span["start"] + 0.05 < t < span["end"] - 0.05]
    assert span["end"] - span["start"] > 0.2, "the solve was too quick to tell"
    # Holding the GIL, the solve would leave this thread no turn at all while it runs.
    assert len(during) > 1000


def test_callbacks_may_not_reenter_their_database(tmp_path):
    db = nimdb.open(tmp_path / "r.sqlite", read_only=False)
    errors = []

    def progress(done, total, tier):
        try:
            db.query("nim", [1])
        except nimdb.NimdbError as e:
            errors.append(str(e))

    db.solve("nim", 6, progress=progress)
    assert errors and "in use by the call this callback runs in" in errors[0]


def test_estimate_equals_the_cli_dry_run(nimdb_bin, tmp_path):
    est = nimdb.estimate("kayles", 34)
    from conftest import cli

    dry = cli(nimdb_bin, "solve", "--game", "kayles", "--max-total", "34", "--dry-run", "--db", str(tmp_path / "d.sqlite"))
    lines = dict(line.split(":", 1) for line in dry.stdout.splitlines() if ":" in line)
    assert int(lines["positions"]) == est.positions and int(lines["tiers"]) == est.tiers
    assert lines["universe"].strip() == est.universe == "total ≤ 34"
    assert est.spill_past is None and est.window_bytes < est.memory_bytes
    assert nimdb.estimate("kayles", 34, memory_limit=est.memory_bytes - 1).spill_past is not None
    with pytest.raises(nimdb.NimdbError, match="even with its lower tiers spilled to disk"):
        nimdb.estimate("kayles", 34, memory_limit="1M")
    assert not (tmp_path / "d.sqlite").exists()


def test_a_solve_that_spills_stores_the_same_tiers(tmp_path):
    spilled_db = nimdb.open(tmp_path / "s.sqlite", read_only=False)
    spilled = spilled_db.solve("dawson", 30, misere=True, window_limit="4K")
    assert spilled.spilled_bytes > 0 and spilled.peak_window_bytes <= 64 * 1024
    assert not [p for p in tmp_path.iterdir() if ".spill-" in p.name], "spill files are removed"
    whole_db = nimdb.open(tmp_path / "w.sqlite", read_only=False)
    whole = whole_db.solve("dawson", 30, misere=True)
    assert whole.spilled_bytes == 0
    a, b = spilled_db.export("dawson", misere=True), whole_db.export("dawson", misere=True)
    assert (a.heaps == b.heaps).all() and (a.remoteness == b.remoteness).all()


# Run in a child process: the file-size limit stays there.
_FSIZE_CHILD = """
import os, resource, sys
import nimdb

path = sys.argv[1]
db = nimdb.open(path, read_only=False)
# Room for 64 KB more: a misère Kayles solve to 50 tokens stores about 1.5 MB.
limit = os.path.getsize(path) + 64 * 1024
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    db.solve("kayles", 50, misere=True)
    print("solved")
except nimdb.NimdbError as e:
    print("refused:", e)
db.close()
"""


def test_a_solve_over_the_file_size_limit_is_refused_before_it_writes(tmp_path):
    """As `nimdb solve`: the file-size limit (ulimit -f, RLIMIT_FSIZE) and the disk free are
    checked before anything is written, so the solve raises NimdbError and leaves the file as
    it was (SQLite would otherwise fail part-way, with the file already grown)."""
    import subprocess
    import sys

    path = tmp_path / "f.sqlite"
    nimdb.open(path, read_only=False).close()

    def files():
        return {p.name: p.read_bytes() for p in tmp_path.iterdir() if not p.name.endswith("-shm")}

    before = files()
    run = subprocess.run([sys.executable, "-c", _FSIZE_CHILD, str(path)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("refused:"), run.stdout + run.stderr
    assert "file-size limit (ulimit -f)" in run.stdout and "nothing was written" in run.stdout, run.stdout
    assert files() == before, "the refused solve changed the database"
    assert nimdb.open(path).solves() == []


# One solve path for every game: `estimate` and `solve` take every family, with the
# command line's bounds, estimates and refusals.
@pytest.mark.parametrize(
    "game, bounds, flags",
    [
        ("staircase", {"max_total": 12, "max_heaps": 4}, ["--max-total", "12", "--max-heaps", "4"]),
        ("welter", {"max_total": 14}, ["--max-total", "14"]),
        ("raise:2", {"max_heaps": 4}, ["--max-heaps", "4"]),
        ("hyper:3:circular:2", {"max_heap": 6}, ["--max-heap", "6"]),
    ],
)
def test_every_family_estimates_and_solves_as_the_cli_does(nimdb_bin, tmp_path, game, bounds, flags):
    from conftest import cli

    est = nimdb.estimate(game, **bounds)
    dry = cli(nimdb_bin, "solve", "--game", game, *flags, "--dry-run", "--db", str(tmp_path / "d.sqlite"))
    lines = dict(line.split(":", 1) for line in dry.stdout.splitlines() if ":" in line)
    assert int(lines["positions"]) == est.positions and int(lines["tiers"]) == est.tiers
    assert lines["universe"].strip() == est.universe
    db = nimdb.open(tmp_path / "s.sqlite", read_only=False)
    summary = db.solve(game, **bounds)
    assert summary.status == "complete" and summary.positions == est.positions
    # A bound the family does not take, nim-values and a window limit are refused, naming
    # the keyword, and write nothing.
    with pytest.raises(nimdb.NimdbError, match="nim_values is not available"):
        db.solve(game, nim_values=True, **bounds)
    with pytest.raises(nimdb.NimdbError, match="window_limit is not taken"):
        db.solve(game, window_limit="1K", **bounds)
    assert [s.id for s in db.solves()] == [summary.solve_id]


def test_export_of_another_game_s_solve_is_refused(tmp_path):
    db = nimdb.open(tmp_path / "x.sqlite", read_only=False)
    kayles = db.solve("kayles", 8).solve_id
    with pytest.raises(nimdb.NimdbError, match=r"is a solve of kayles, not of nim"):
        db.export("nim", solve=kayles)
    assert len(db.export("kayles", solve=kayles).win) == db.solves()[0].positions
