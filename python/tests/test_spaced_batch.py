"""Batches and exports of the families with their own position space (staircase, welter,
raise:C): `query_many` answers as `nimdb query --batch` does, `export` gives the rows of
`nimdb export --format csv`, draws included."""

import json

import numpy as np
import pytest

import nimdb
from conftest import cli

# (game, misère, the solve's bounds): each solved once into one database.
SOLVES = [
    ("staircase", False, {"max_total": 14, "max_heaps": 5}),
    ("staircase", True, {"max_total": 14, "max_heaps": 5}),
    ("welter", False, {"max_total": 14}),
    ("welter", True, {"max_total": 14}),
    ("raise:3", False, {"max_heaps": 4}),
    ("raise:3", True, {"max_heaps": 4}),
]

# Positions beyond every solve above: a theorem answers some (normal play), none others.
BEYOND = {
    "staircase": ["30 0 20 5", "9 9 9 9 9 9"],
    "welter": ["20 9 3 0", "13 11 7 5"],
    "raise:3": ["3 3 3 3 2", "2 2 1 1 1"],
}

OUTCOME_WORDS = {1: "win", 0: "loss", 2: "draw"}


@pytest.fixture(scope="module")
def spaced_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("spaced") / "spaced.sqlite"
    db = nimdb.open(path, read_only=False)
    for game, misere, bounds in SOLVES:
        summary = db.solve(game, misere=misere, **bounds)
        assert summary.status == "complete" and summary.stored_positions == summary.positions > 30
    db.solve("nim", max_total=6)
    db.close()
    return path


def flag(misere):
    return ["--misere"] if misere else []


def rows(table):
    """The exported positions as lists, each cut at its length."""
    return [[int(c) for c in row[:n]] for row, n in zip(table.heaps, table.lengths)]


def batch_lines(nimdb_bin, path, game, misere, positions):
    """`nimdb query --batch` on positions written "[a,b,c]" (so an empty one is a line too)."""
    text = "".join("[" + ",".join(map(str, p)) + "]\n" for p in positions)
    done = cli(nimdb_bin, "query", "--batch", "--game", game, "--db", str(path), *flag(misere), stdin=text, check=False)
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["line"] for line in lines] == list(range(1, len(positions) + 1)), done.stderr
    return lines


def assert_same_as_batch(lookups, lines):
    errors = dict(lookups.errors)
    assert len(lookups) == len(lines)
    for i, want in enumerate(lines):
        if "error" in want:
            assert lookups.outcome[i] == -1 and lookups.source[i] == 255, (i, want)
            assert errors[i] == want["error"], i
            continue
        assert i not in errors, (i, errors.get(i))
        got = (
            OUTCOME_WORDS[int(lookups.outcome[i])],
            None if lookups.remoteness[i] < 0 else int(lookups.remoteness[i]),
            None if lookups.nim_value[i] < 0 else int(lookups.nim_value[i]),
            nimdb.Lookups.SOURCES[lookups.source[i]],
        )
        assert got == (want["outcome"], want["remoteness"], want["nim_value"], want["source"]), (i, want)


@pytest.mark.parametrize("game, misere, bounds", SOLVES)
def test_query_many_equals_query_batch(spaced_db, nimdb_bin, game, misere, bounds):
    db = nimdb.open(spaced_db)
    table = db.export(game, misere=misere)
    positions = rows(table) + [[int(c) for c in p.split()] for p in BEYOND[game]]
    lines = batch_lines(nimdb_bin, spaced_db, game, misere, positions)
    lookups = db.query_many(game, positions, misere=misere, strict=False)
    assert_same_as_batch(lookups, lines)
    stored = len(table)
    assert all(nimdb.Lookups.SOURCES[s] == "database" for s in lookups.source[:stored])
    assert list(lookups.outcome[:stored]) == [2 if d else int(w) for w, d in zip(table.win, table.draw)]
    want_r = [-1 if d else int(r) for r, d in zip(table.remoteness, table.draw)]
    assert list(lookups.remoteness[:stored]) == want_r
    # The same positions as strings, and as a 2-D array cut by lengths, answer the same.
    as_text = db.query_many(game, [" ".join(map(str, p)) for p in positions[:stored]], misere=misere)
    as_array = db.query_many(game, table.heaps, misere=misere, lengths=table.lengths)
    for other in (as_text, as_array):
        assert np.array_equal(other.outcome, lookups.outcome[:stored])
        assert np.array_equal(other.remoteness, lookups.remoteness[:stored])
    # Without lengths, zero padding means nothing for staircase and raise:C.
    if game != "welter":
        padded = db.query_many(game, table.heaps, misere=misere)
        assert np.array_equal(padded.outcome, lookups.outcome[:stored])
    db.close()


def test_theorems_and_failures_in_a_batch(spaced_db, nimdb_bin):
    db = nimdb.open(spaced_db)
    # Staircase normal play beyond the solve: the odd steps' nim-sum (30 ^ 20 = 10).
    a = db.query_many("staircase", ["30 0 20 5", [5, 7, 5]])
    assert list(a.outcome) == [1, 0] and list(a.nim_value) == [10, 0] and list(a.remoteness) == [-1, -1]
    assert [nimdb.Lookups.SOURCES[s] for s in a.source] == ["theory", "theory"]
    # Misère Welter beyond the solve: no theorem, so no answer.
    with pytest.raises(nimdb.NimdbError, match=r"^position 1: welter position \[20 9 3 0\] \(misere\) is not stored"):
        db.query_many("welter", [[3, 1], [20, 9, 3, 0]], misere=True)
    loose = db.query_many("welter", [[3, 1], [20, 9, 3, 0], [3, 3], [2]], misere=True, strict=False)
    assert list(loose.outcome) == [int(loose.outcome[0]), -1, -1, int(loose.outcome[3])]
    assert [i for i, _ in loose.errors] == [1, 2]
    assert "distinct" in loose.errors[1][1] and loose.errors[1][1].startswith("bad position: ")
    lines = batch_lines(nimdb_bin, spaced_db, "welter", True, [[3, 1], [20, 9, 3, 0], [3, 3], [2]])
    assert_same_as_batch(loose, lines)
    # A family's refusal, strict: named by index.
    with pytest.raises(nimdb.NimdbError, match=r"^position 1: bad position: a heap of 4: raise:3 caps"):
        db.query_many("raise:3", [[1], [4, 1]])
    db.close()


def test_draws(spaced_db, nimdb_bin):
    db = nimdb.open(spaced_db)
    table = db.export("raise:3")
    assert table.draw.any() and not table.draw.all()
    assert not table.win[table.draw].any() and (table.remoteness[table.draw] == 65535).all()
    assert (table.remoteness[~table.draw] < 65535).all()
    assert table.nim_value is None and table.heaps.dtype == np.uint32 and table.lengths.dtype == np.uint32
    draws = [p for p, d in zip(rows(table), table.draw) if d]
    many = db.query_many("raise:3", draws)
    assert (many.outcome == 2).all() and (many.remoteness == -1).all()
    one = db.query("raise:3", draws[0])
    assert one.outcome == "draw" and one.source == "database"
    db.close()


def csv_rows(nimdb_bin, path, game, *args):
    out = cli(nimdb_bin, "export", "--game", game, "--format", "csv", "--db", str(path), *args).stdout
    header, *lines = out.splitlines()
    assert header == "position,outcome,remoteness"
    parsed = []
    for line in lines:
        position, outcome, remoteness = line.split(",")
        parsed.append(([int(c) for c in position.split()], outcome, int(remoteness) if remoteness else None))
    return parsed


def export_rows(table):
    outcome = ["draw" if d else "win" if w else "loss" for w, d in zip(table.win, table.draw)]
    remoteness = [None if d else int(r) for r, d in zip(table.remoteness, table.draw)]
    return list(zip(rows(table), outcome, remoteness))


@pytest.mark.parametrize("game, misere, bounds", SOLVES)
def test_export_equals_the_command_line(spaced_db, nimdb_bin, game, misere, bounds):
    db = nimdb.open(spaced_db)
    table = db.export(game, misere=misere)
    assert table.game == game and table.misere == misere
    assert table.heaps.shape == (len(table), int(table.lengths.max()))
    got = export_rows(table)
    assert got == csv_rows(nimdb_bin, spaced_db, game, *flag(misere))
    assert (table.draw.any()) == (game == "raise:3")
    # Padding after each row's length is zeros.
    width = table.heaps.shape[1]
    assert not (table.heaps * (np.arange(width) >= table.lengths[:, None])).any()
    # The filters, as the command line's.
    losses = db.export(game, misere=misere, losses_only=True, max_total=6)
    want = csv_rows(nimdb_bin, spaced_db, game, *flag(misere), "--losses-only", "--max-total", "6")
    assert export_rows(losses) == want and len(want) < len(got)
    assert all(outcome == "loss" for _, outcome, _ in want)
    assert want or game == "raise:3", "the filtered export should hold some losses"
    db.close()


def test_welter_rows_hold_a_zero_heap(spaced_db):
    db = nimdb.open(spaced_db)
    table = db.export("welter")
    positions = rows(table)
    assert [0] in positions and [2, 0] in positions and [2] in positions
    i = positions.index([2, 0])
    assert table.lengths[i] == 2 and list(table.heaps[i, :2]) == [2, 0]
    with pytest.raises(nimdb.NimdbError, match=r"heap of 0.*lengths=") as refused:
        db.query_many("welter", table.heaps)
    assert "\n" not in str(refused.value)
    with pytest.raises(nimdb.NimdbError, match="lengths=.*list of positions"):
        db.query_many("welter", np.array([[3, 1]], dtype=np.int32))
    # With lengths, the 0 heap counts: [1, 0] (no move) and [1] are different positions.
    two = db.query_many("welter", np.array([[1, 0], [1, 0]]), lengths=[2, 1])
    want = [db.query("welter", p).outcome for p in ([1, 0], [1])]
    assert [OUTCOME_WORDS[int(o)] for o in two.outcome] == want == ["loss", "win"]
    db.close()


def test_bad_batches_and_solve_ids(spaced_db, nimdb_bin):
    db = nimdb.open(spaced_db)
    ids = {(s.game, s.misere): s.id for s in db.solves()}
    with pytest.raises(nimdb.NimdbError, match=r"lengths has 1 entries for 2 rows"):
        db.query_many("staircase", np.zeros((2, 3), dtype=np.int64), lengths=[1])
    with pytest.raises(nimdb.NimdbError, match=r"lengths\[0\] is 4, more than the 3 columns"):
        db.query_many("staircase", np.zeros((1, 3), dtype=np.int64), lengths=np.array([4], dtype=np.uint32))
    with pytest.raises(nimdb.NimdbError, match="lengths goes with a 2-D numpy"):
        db.query_many("staircase", [[1, 2]], lengths=[2])
    with pytest.raises(nimdb.NimdbError, match="position 0: bad position: '-1' is not a count"):
        db.query_many("staircase", np.array([[1, -2]]))
    with pytest.raises(nimdb.NimdbError, match="position 1: bad position: '-1' is not a count"):
        db.query_many("staircase", [[1], [2, -1]], strict=False)
    with pytest.raises(nimdb.NimdbError, match="position 0: a position is a sequence of counts"):
        db.query_many("raise:3", [3.5])
    with pytest.raises(nimdb.NimdbError, match="bad position: '2x' is not a count"):
        db.query_many("welter", ["3 2x"])
    # A solve of another family (or a heap game's) is refused in one line, as the CLI does.
    for game, other in [("staircase", ("nim", False)), ("welter", ("staircase", False)), ("nim", ("welter", False))]:
        solve = ids[other]
        with pytest.raises(nimdb.NimdbError, match=rf"^solve #{solve} is a solve of {other[0]}") as refused:
            db.export(game, solve=solve)
        assert "\n" not in str(refused.value)
        done = cli(nimdb_bin, "export", "--game", game, "--solve", str(solve), "--db", str(spaced_db), check=False)
        assert done.returncode != 0 and f"solve #{solve} is a solve of {other[0]}" in done.stderr
    # solve=ID of the game itself exports it.
    assert len(db.export("welter", solve=ids[("welter", True)])) == len(db.export("welter", misere=True))
    empty = nimdb.open(spaced_db.parent / "empty.sqlite", read_only=False)
    with pytest.raises(nimdb.NimdbError, match=r"no stored solve of raise:2 \(misère\)"):
        empty.export("raise:2", misere=True)
    empty.close()
    db.close()


def test_heap_exports_have_lengths_and_no_draws(spaced_db):
    db = nimdb.open(spaced_db)
    table = db.export("nim")
    assert not table.draw.any() and table.draw.shape == table.win.shape
    assert list(table.lengths) == [int((row > 0).sum()) for row in table.heaps]
    again = db.query_many("nim", table.heaps, lengths=table.lengths)
    assert np.array_equal(again.outcome, table.win.astype(np.int8))
    db.close()
