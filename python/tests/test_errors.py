"""Bad input raises nimdb.NimdbError with the library's message; nothing crashes."""

import sys

import numpy as np
import pytest

import nimdb


def test_bad_games_and_positions_raise(solved):
    db = nimdb.open(solved)
    with pytest.raises(nimdb.NimdbError, match="unknown game"):
        db.query("chess", [1, 2])
    with pytest.raises(nimdb.NimdbError, match=r"cannot be negative \(-1\)"):
        db.query("nim", [3, -1])
    with pytest.raises(nimdb.NimdbError, match="'x' is not a heap size"):
        db.query("nim", [3, "x"])
    with pytest.raises(nimdb.NimdbError, match="heap 18446744073709551616"):
        db.query("nim", [2**64])
    with pytest.raises(nimdb.NimdbError, match="not NoneType"):
        db.query("nim", None)
    with pytest.raises(nimdb.NimdbError, match="bad heap list"):
        db.query("nim", "7 five 3")
    with pytest.raises(nimdb.NimdbError, match="octal"):
        nimdb.quotient("grundy")
    with pytest.raises(nimdb.NimdbError, match="too large"):
        nimdb.heap_values("grundy", 10**12)


def test_query_many_names_the_bad_position(solved):
    db = nimdb.open(solved)
    with pytest.raises(nimdb.NimdbError, match="position 2: bad heap list"):
        db.query_many("nim", [[1], [2], [3, -4]])
    with pytest.raises(nimdb.NimdbError, match="position 1: bad heap list: heap sizes cannot be negative"):
        db.query_many("nim", np.array([[1, 2], [-3, 4]]))
    # An uncovered position: raised with strict, recorded without.
    uncovered = [[5, 3], [30, 30, 30], [1]]
    with pytest.raises(nimdb.NimdbError, match=r"position 1: \[30,30,30\] is not in any stored solve"):
        db.query_many("dawson", uncovered, misere=True)
    lookups = db.query_many("dawson", uncovered, misere=True, strict=False)
    assert list(lookups.outcome) == [0, -1, 1]
    assert [i for i, _ in lookups.errors] == [1]
    assert "a solve of total ≤ 90 would hold it" in lookups.errors[0][1]
    assert "nimdb " not in lookups.errors[0][1]


def test_uncovered_query_in_a_read_only_database_raises(solved):
    db = nimdb.open(solved)
    # Past the stored misère Dawson's Kayles (total 22), small enough to solve on the spot, and
    # no theorem or stored quotient answers it.
    with pytest.raises(nimdb.NimdbError, match="read-only"):
        db.query("dawson", [12, 12], misere=True)
    # Normal-play Kayles past its stored total is a sum of heaps: Sprague–Grundy answers it,
    # as query_many does.
    assert db.query("kayles", [12, 12]).source == "theory"


def test_writable_database_solves_small_queries_on_the_spot(tmp_path):
    db = nimdb.open(tmp_path / "new.sqlite", read_only=False)
    answer = db.query("kayles", [6, 5])
    assert answer.source == "solved" and answer.outcome in ("win", "loss")
    assert db.query("kayles", [6, 5]).source == "database"


def test_database_errors(tmp_path, solved):
    with pytest.raises(nimdb.NimdbError, match="no nimdb database"):
        nimdb.open(tmp_path / "missing.sqlite")
    not_a_db = tmp_path / "text.sqlite"
    not_a_db.write_text("hello, this is not a database\n" * 100)
    with pytest.raises(nimdb.NimdbError):
        nimdb.open(not_a_db)
    db = nimdb.open(solved)
    with pytest.raises(nimdb.NimdbError, match="read-only"):
        db.solve("nim", max_total=5)
    with pytest.raises(nimdb.NimdbError, match="no stored solve of grundy"):
        db.export("grundy")
    db.close()
    with pytest.raises(nimdb.NimdbError, match="closed"):
        db.query("nim", [1, 2])
    writable = nimdb.open(tmp_path / "w.sqlite", read_only=False)
    with pytest.raises(nimdb.NimdbError, match="max_heaps cannot be used with"):
        writable.solve("kayles", max_heap=5, max_heaps=3)
    with pytest.raises(nimdb.NimdbError, match="give max_total"):
        writable.solve("nim")
    with pytest.raises(nimdb.NimdbError, match="too large"):
        writable.solve("nim", max_total=10**6)
    with pytest.raises(nimdb.NimdbError, match="needs about .* of memory, more than the 1.0 MB allowed"):
        writable.solve("nim", max_total=60, memory_limit="1M")
    assert writable.solves() == []


def test_a_read_only_query_answers_from_theory_as_query_many_does(tmp_path):
    # Finding: a read-only Database.query('nim', [7, 5, 3]) on a database without that
    # solve raised "no theorem gives its value", while query_many and serve answered it
    # from Bouton's theorem. It answers as they do, and writes nothing.
    path = tmp_path / "empty.sqlite"
    nimdb.open(path, read_only=False).close()
    before = path.read_bytes()
    db = nimdb.open(path)
    for game, heaps, misere in [("nim", [7, 5, 3], False), ("nim", [7, 5, 3], True), ("kayles", [7, 5, 3], False)]:
        a = db.query(game, heaps, misere=misere)
        many = db.query_many(game, [heaps], misere=misere)
        assert a.source == "theory", (game, heaps, a)
        assert (a.outcome == "win") == (many.outcome[0] == 1), (game, heaps)
    # Misère Kayles has no theorem here: still refused, in words.
    with pytest.raises(nimdb.NimdbError, match="read-only"):
        db.query("kayles", [7, 5, 3], misere=True)
    db.close()
    assert path.read_bytes() == before


def test_one_hierarchy_of_errors(solved):
    # Finding: NimdbError was not a ValueError, so `except ValueError` missed bad input.
    # Each kind is a NimdbError and the built-in exception Python code expects.
    for kind, builtin in [
        (nimdb.BadGame, ValueError),
        (nimdb.BadPosition, ValueError),
        (nimdb.BadArgument, ValueError),
        (nimdb.BadType, TypeError),
        (nimdb.NotAnswered, LookupError),
    ]:
        assert issubclass(kind, nimdb.NimdbError) and issubclass(kind, builtin), kind
    assert issubclass(nimdb.TooCostly, nimdb.NimdbError) and issubclass(nimdb.DatabaseError, nimdb.NimdbError)
    db = nimdb.open(solved)
    with pytest.raises(nimdb.BadGame, match="unknown game"):
        db.query("chess", [1, 2])
    # 'welter:3' is refused as a game, and the message lists the families.
    with pytest.raises(ValueError, match="staircase, welter, raise:3"):
        db.query("welter:3", [1])
    with pytest.raises(nimdb.BadGame, match="not an octal game"):
        nimdb.quotient("grundy")
    with pytest.raises(nimdb.BadPosition, match=r"cannot be negative \(-1\)"):
        db.query("nim", [3, -1])
    with pytest.raises(nimdb.BadType, match="not NoneType"):
        db.query("nim", None)
    with pytest.raises(nimdb.NotAnswered, match="read-only"):
        db.query("dawson", [12, 12], misere=True)
    with pytest.raises(nimdb.TooCostly, match="more than the 1.0 MB allowed"):
        nimdb.estimate("nim", 60, memory_limit="1M")
    with pytest.raises(nimdb.DatabaseError, match="no nimdb database"):
        nimdb.open(solved.parent / "missing.sqlite")
    db.close()
    with pytest.raises(nimdb.DatabaseError, match="closed"):
        db.solves()


def test_negative_counts_are_value_errors_that_name_the_argument():
    # Finding: heap_values(-1) and quotient(max_heap=-1) raised OverflowError ("can't convert
    # negative int to unsigned"), naming nothing.
    with pytest.raises(nimdb.BadArgument, match=r"up_to cannot be negative \(-1\)"):
        nimdb.heap_values("nim", -1)
    with pytest.raises(ValueError, match=r"misere_up_to cannot be negative \(-2\)"):
        nimdb.heap_values("nim", 5, misere_up_to=-2)
    with pytest.raises(ValueError, match=r"max_heap cannot be negative \(-1\)"):
        nimdb.quotient("kayles", max_heap=-1)
    with pytest.raises(ValueError, match=r"max_elements cannot be negative \(-5\)"):
        nimdb.quotient("kayles", max_elements=-5)
    with pytest.raises(ValueError, match=r"memory_limit cannot be negative \(-5\)"):
        nimdb.quotient("kayles", memory_limit=-5)
    with pytest.raises(nimdb.BadArgument, match="up_to: a heap of 1000000000000 is too large"):
        nimdb.heap_values("grundy", 10**12)


def test_query_many_refuses_a_string_and_a_3d_array(solved):
    db = nimdb.open(solved)
    # Finding: query_many('nim', '7 5 3') read each character as a position ("position 1
    # ... it is empty").
    with pytest.raises(nimdb.BadType, match=r'not one string: query_many\(game, \["7 5 3"\]\)'):
        db.query_many("nim", "7 5 3")
    assert list(db.query_many("nim", ["7 5 3"]).outcome) == [1]
    # Finding: a 3-D array got "heap array([0, 0]) is not a whole number".
    with pytest.raises(nimdb.BadPosition, match=r"one position a row \(2-D\), not 3 dimensions \(shape \[2, 2, 2\]\)"):
        db.query_many("nim", np.zeros((2, 2, 2), dtype=np.int64))
    with pytest.raises(nimdb.NotAnswered, match=r"position 0: \[30,30,30\] is not in any stored solve"):
        db.query_many("dawson", [[30, 30, 30]], misere=True)
    with pytest.raises(nimdb.BadPosition, match="position 1: bad heap list"):
        db.query_many("nim", [[1], [2, -3]])


def test_wrong_types_of_declared_arguments_are_type_errors_naming_the_argument(solved):
    # Python's own conversion of a declared argument: a TypeError whose note names it.
    db = nimdb.open(solved)
    for call, name in [
        (lambda: db.query(3, [1]), "game"),
        (lambda: db.query(None, [1]), "game"),
        (lambda: db.query("nim", [1], misere=None), "misere"),
        (lambda: nimdb.open(None), "path"),
    ]:
        with pytest.raises(TypeError) as e:
            call()
        if sys.version_info >= (3, 11):  # notes (PEP 678) came with Python 3.11
            # A game is read by nimdb (a name or a game from nimdb.define), which names it.
            said = [str(e.value)] + list(getattr(e.value, "__notes__", []))
            assert any(name in note for note in said), (name, e.value)


def test_a_theory_answer_past_the_cpu_limit_is_refused_naming_its_cost(tmp_path):
    # Issue 34, round five: octal:0.74's nim-values to heap 100,000 (the plain method,
    # about 11 CPU s) were predicted to cost nothing and ran; they are refused at once.
    db = nimdb.open(tmp_path / "t.sqlite", read_only=False)
    with pytest.raises(nimdb.TooCostly, match=r"option reads by the plain method.*raise cpu_limit"):
        db.query("octal:0.74", [100000])
    with pytest.raises(nimdb.TooCostly, match=r"more than the 0.2 s"):
        db.query("octal:0.74", [30000], cpu_limit=0.2)
    with pytest.raises(nimdb.BadArgument, match="cpu_limit"):
        db.query("nim", [3], cpu_limit=0)
    assert db.query("octal:0.74", [30000]).source == "theory"
    # A solve on the spot stops at the limit, keeping its tiers.
    with pytest.raises(nimdb.TooCostly, match="stopped at the CPU limit of 0.3 s"):
        db.query("hex:0.F", [29, 29], misere=True, cpu_limit=0.3)
