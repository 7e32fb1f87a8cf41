"""A theorem the user states of a game (`nimdb.Theorem`): checked by `Database.verify`
against every stored position, with its first counterexamples; used to answer positions
past the stored solves only when the user marks it proven, each such answer naming it."""

from functools import reduce
from operator import xor

import pytest

import nimdb


def nim_moves(p):
    """Nim: take any number from one heap, labelled."""
    return [(p[:i] + (k,) + p[i + 1 :], f"take {h - k} from the {h}-heap") for i, h in enumerate(p) for k in range(h)]


def nim_sum(p):
    return reduce(xor, p, 0)


def misere_nim(p):
    """Bouton's misère rule: with every heap at most 1 the player to move loses iff the
    number of heaps is odd; otherwise iff the nim-sum is 0."""
    if all(h <= 1 for h in p):
        return "loss" if len(p) % 2 == 1 else "win"
    return "loss" if nim_sum(p) == 0 else "win"


def smallest_first(p):
    return (sum(p), len(p), p)


def positions(export):
    return [tuple(int(x) for x in row[:n]) for row, n in zip(export.heaps, export.lengths)]


BOUTON = "Bouton 1901, Nim's nim-value is the nim-sum"


def test_a_proven_theorem_passes_verify_and_answers_past_the_solve(tmp_path):
    db = nimdb.open(tmp_path / "t.sqlite", read_only=False)
    bouton = nimdb.Theorem(BOUTON, nim_sum, proven=True)
    game = nimdb.define("my-nim", nim_moves, theorem=bouton)
    assert game.fingerprint == nimdb.define("my-nim", nim_moves).fingerprint, "a theorem is not a rule"
    assert [t.citation for t in game.theorems] == [BOUTON]
    stored = db.solve(game, max_total=12).positions
    report = db.verify(game)
    assert report.ok
    [check] = report.theorems
    assert (check.citation, check.gives, check.proven) == (BOUTON, "nim-value", True)
    assert check.checked == check.agree == stored and check.counterexamples == 0
    assert report.to_dict()["stated"][0]["checked"] == stored
    # Inside the solve the database answers; past it, the user's theorem, by name.
    assert db.query(game, [3, 2, 1]).source == "database"
    a = db.query(game, [20, 13, 7])
    assert (a.source, a.theorem, a.remoteness, a.solve_id) == ("user-theorem", BOUTON, None, None)
    assert (a.outcome, a.nim_value) == ("win", 20 ^ 13 ^ 7)
    assert a.outcome == db.query("nim", [20, 13, 7]).outcome  # nimdb's own Bouton agrees
    assert len(a.moves) == 20 + 13 + 7 and a.moves[0].description.startswith("take 20 from the 20-heap")
    assert a.best_move.outcome == "loss" and nim_sum(a.best_move.to) == 0
    assert all((m.outcome == "loss") == (nim_sum(m.to) == 0) for m in a.moves)
    batch = db.query_many(game, [[3, 2, 1], [20, 13, 7], [30, 30]])
    sources = [nimdb.Lookups.SOURCES[s] for s in batch.source]
    assert sources == ["database", "user-theorem", "user-theorem"]
    assert list(batch.nim_value) == [-1, 20 ^ 13 ^ 7, 0] and list(batch.outcome) == [0, 1, 0]
    # Under the other convention it states nothing: nothing answers past the solve.
    db.solve(game, max_total=6, misere=True)
    with pytest.raises(nimdb.NotAnswered):
        db.query(game, [20, 13, 7], misere=True)


def test_a_conjecture_is_checked_never_used_and_its_first_counterexamples_listed(tmp_path):
    db = nimdb.open(tmp_path / "c.sqlite", read_only=False)
    parity = nimdb.Theorem("my conjecture: the nim-value is the total's parity", lambda p: sum(p) % 2)
    game = nimdb.define("my-nim", nim_moves, theorem=parity)
    db.solve(game, max_total=10)
    report = db.verify(game)
    assert report.ok, "a conjecture's counterexamples are findings, not failures"
    [check] = report.theorems
    assert not check.proven and not check
    # The counterexamples, found here independently of nimdb's check.
    stored = positions(db.export(game))
    wrong = sorted((p for p in stored if sum(p) % 2 != nim_sum(p)), key=smallest_first)
    assert check.checked == len(stored) and check.counterexamples == len(wrong) > 10
    assert check.first_counterexamples == [(p, sum(p) % 2, nim_sum(p)) for p in wrong[:10]]
    assert check.first_counterexamples[0] == ((2,), 0, 2)
    # Never used to answer: past the solve nothing does.
    with pytest.raises(nimdb.NotAnswered):
        db.query(game, [20, 13, 7])
    # The same formula marked proven is contradicted: the report fails.
    wrong_theorem = nimdb.Theorem("a wrong theorem", lambda p: sum(p) % 2, proven=True)
    report = db.verify(game, theorem=wrong_theorem)
    assert not report.ok and [t.counterexamples for t in report.theorems] == [len(wrong)] * 2


def test_a_misere_outcome_theorem_and_the_decorator(tmp_path):
    db = nimdb.open(tmp_path / "m.sqlite", read_only=False)

    @nimdb.theorem("Bouton's misère rule", gives="outcome", misere=True, proven=True)
    def misere_rule(p):
        return misere_nim(p)

    assert (misere_rule.gives, misere_rule.misere, misere_rule.proven) == ("outcome", True, True)
    game = nimdb.define("my-nim", nim_moves, theorem=[misere_rule])
    stored = db.solve(game, max_total=12, misere=True).positions
    report = db.verify(game, misere=True)
    assert report.ok and report.theorems[0].checked == stored and report.theorems[0].counterexamples == 0
    # Normal play is stated nothing of: its report lists no theorem.
    db.solve(game, max_total=8)
    assert db.verify(game).theorems == []
    for heaps in ([1, 1, 1], [20, 13, 7], [9, 9], [1, 1, 1, 1]):
        a = db.query(game, heaps, misere=True)
        assert a.source == "user-theorem" or sum(heaps) <= 12
        assert a.outcome == db.query("nim", heaps, misere=True).outcome
    a = db.query(game, [40, 2], misere=True)
    assert (a.source, a.theorem, a.nim_value) == ("user-theorem", "Bouton's misère rule", None)


def test_verify_checks_a_formula_on_a_built_in_game(tmp_path):
    db = nimdb.open(tmp_path / "b.sqlite", read_only=False)
    # Hypergraph Nim: nim-values computed from its moves; the singletons are Nim.
    stored = db.solve("hyper:3:singletons", max_heap=6).positions
    report = db.verify("hyper:3:singletons", theorem=nimdb.Theorem("Bouton", nim_sum))
    [check] = report.theorems
    assert report.ok and check.checked == stored > 50 and check.counterexamples == 0
    # Exact 2-Nim on 3 heaps (2k > n): the nim-value is not the nim-sum; counterexamples
    # are listed, smallest first, with the value computed by mex.
    db.solve("hyper:3:exact:2", max_heap=5)
    [check] = db.verify("hyper:3:exact:2", theorem=nimdb.Theorem("not a theorem", nim_sum)).theorems
    assert check.counterexamples > 0 and check.first_counterexamples[0][0] == (1,)
    assert check.first_counterexamples[0][1:] == (1, 0), "one heap alone has no move in exact 2-Nim"
    # A heap game: outcomes from the stored solve; nim-values only when stored.
    db.solve("nim", max_total=10)
    outcome = nimdb.Theorem("Bouton", lambda p: "loss" if nim_sum(p) == 0 else "win", gives="outcome")
    assert db.verify("nim", theorem=outcome).theorems[0].counterexamples == 0
    with pytest.raises(nimdb.NimdbError, match="stores no nim-values"):
        db.verify("nim", theorem=nimdb.Theorem("Bouton", nim_sum))
    db.solve("kayles", max_total=10, nim_values=True)
    [check] = db.verify("kayles", theorem=nimdb.Theorem("not Kayles", nim_sum)).theorems
    # Kayles's heap of 4 has nim-value 1 (0, 1, 2, 3, 1, …): the smallest counterexample.
    assert check.first_counterexamples[0] == ((4,), 4, 1)


def test_a_formula_that_fails_raises_naming_the_position(tmp_path):
    db = nimdb.open(tmp_path / "f.sqlite", read_only=False)
    broken = nimdb.Theorem("broken", lambda p: 1 // (3 - p[0]) if p and p[0] <= 3 else 0, proven=True)
    game = nimdb.define("my-nim", nim_moves, theorem=broken)
    db.solve(game, max_total=6)
    with pytest.raises(nimdb.NimdbError, match=r'theorem "broken" at \(3\) raised') as e:
        db.verify(game)
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    with pytest.raises(nimdb.NimdbError, match=r'theorem "broken" at \(3, 3, 1, 1\) raised'):
        db.query(game, [3, 3, 1, 1])  # past the solve: the theorem is asked, and raises
    words = nimdb.Theorem("words", lambda p: "lost", gives="outcome")
    with pytest.raises(nimdb.NimdbError, match=r"at \(\) gave 'lost', not an outcome"):
        db.verify(game, theorem=words)
    floats = nimdb.Theorem("floats", lambda p: 0.5)
    with pytest.raises(nimdb.NimdbError, match=r"gave 0.5, not a nim-value"):
        db.verify(game, theorem=floats)


def test_theorem_refusals():
    with pytest.raises(nimdb.BadArgument, match="nim-value\" or \"outcome"):
        nimdb.Theorem("x", nim_sum, gives="grundy")
    with pytest.raises(nimdb.BadArgument, match="citation"):
        nimdb.Theorem("  ", nim_sum)
    with pytest.raises(TypeError, match="callable"):
        nimdb.Theorem("x", 3)
    with pytest.raises(nimdb.BadType, match="nimdb.Theorem"):
        nimdb.define("my-nim", nim_moves, theorem="Bouton")

    def raising(p):
        return [q for q, _ in nim_moves(p)] + [tuple(h + 1 for h in p)] if p and max(p) < 2 else [q for q, _ in nim_moves(p)]

    with pytest.raises(nimdb.BadArgument, match="loopy"):
        nimdb.define("r", raising, loopy=True, cap=2, theorem=nimdb.Theorem("x", nim_sum))
