"""Families with their own position space from Python: the same answers as the command line."""

import json

import pytest

import nimdb
from conftest import cli


@pytest.mark.parametrize(
    "game, misere, bounds, positions",
    [
        ("staircase", False, {"max_total": 20, "max_heaps": 5}, ["3 0 2 1", "0 4", "1 1 1 1 1"]),
        ("welter", True, {"max_total": 16}, ["7 4 1 0", "5 3", "0"]),
        ("raise:3", False, {"max_heaps": 3}, ["1 1", "2 1", "3 3 2"]),
    ],
)
def test_query_of_a_family_equals_the_command_line(tmp_path, nimdb_bin, game, misere, bounds, positions):
    path = tmp_path / "s.sqlite"
    db = nimdb.open(path, read_only=False)
    summary = db.solve(game, misere=misere, **bounds)
    assert summary.status == "complete" and summary.stored_positions == summary.positions
    for text in positions:
        a = db.query(game, text, misere=misere)
        args = ["query", "--json", "--game", game, "--db", str(path), *text.split()]
        if misere:
            args.append("--misere")
        want = json.loads(cli(nimdb_bin, *args).stdout)
        assert a.outcome == want["outcome"] and a.remoteness == want["remoteness"], text
        assert a.source == want["source"] == "database"
        assert a.theorem is None and "theorem" not in want
        assert list(a.position) == want["position"]
        assert [m.description for m in a.moves] == [m["description"] for m in want.get("moves", [])]
        if a.best_move is not None:
            assert list(a.best_move.to) == want["best_move"]["to"]
    db.close()


def test_draws_and_theory(tmp_path):
    db = nimdb.open(tmp_path / "s.sqlite", read_only=False)
    draw = db.query("raise:2", [1, 1])
    assert draw.outcome == "draw" and draw.remoteness is None and draw.best_move.outcome == "draw"
    theory = db.query("staircase", [30, 0, 20, 5])
    assert (theory.source, theory.outcome, theory.nim_value) == ("theory", "win", 10)
    # The theorem is named, as the command line names it (it was missing in Python).
    assert theory.theorem == "Staircase Nim: the odd steps are Nim"
    assert db.query("raise:2", [1, 1]).theorem == "Smith's generalized Sprague–Grundy values"
    assert theory.moves_omitted == 0 and len(theory.moves) == 55
    huge = db.query("welter", [200000, 0])
    assert huge.moves == [] and huge.moves_omitted == 199999 and list(huge.best_move.to) == [1, 0]
    db.close()


def test_bad_input_raises(tmp_path):
    db = nimdb.open(tmp_path / "s.sqlite", read_only=False)
    with pytest.raises(nimdb.NimdbError, match="distinct"):
        db.query("welter", [3, 3])
    # One query for every game; the old name still answers, with a DeprecationWarning.
    assert db.query("staircase", [1, 2]).theorem == "Staircase Nim: the odd steps are Nim"
    with pytest.warns(DeprecationWarning, match="Database.query answers every game"):
        assert db.query_spaced("staircase", [1, 2]).outcome == db.query("staircase", [1, 2]).outcome
    assert nimdb.SpacedAnswer is nimdb.Answer and nimdb.SpacedMove is nimdb.Move
    with pytest.raises(nimdb.NimdbError, match="number of heaps"):
        db.solve("raise:3", max_total=9)
    db.close()
