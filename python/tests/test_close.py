"""Database.close (and `with nimdb.open(...) as db:`) releases the connection and the pool of
threads that solves positions on the spot, at once rather than when the object is
garbage-collected; a closed handle raises DatabaseError, and closing twice is harmless."""

import gc
import os

import pytest

import nimdb


def answer_threads() -> int:
    """The threads of this process that belong to a Database's solve pool (by their name)."""
    n = 0
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/comm") as f:
                n += f.read().startswith("nimdb-answer")
        except FileNotFoundError:  # the thread ended meanwhile
            pass
    return n


def test_close_ends_the_pool_s_threads_and_the_handle(tmp_path):
    gc.collect()  # other tests' Database objects, and their pools, gone
    before = answer_threads()
    total_before = len(os.listdir("/proc/self/task"))
    path = tmp_path / "t.sqlite"
    with nimdb.open(path, read_only=False) as db:
        # Misère Kayles [7, 5] has no theorem: solved on the spot, on the handle's own pool.
        assert db.query("kayles", [7, 5], misere=True).source == "solved"
        started = answer_threads()
        assert started > before, "the solve on the spot started no pool: the test proves nothing"
    # The pool's threads were joined by close: none is left, none ends later.
    assert answer_threads() == before
    assert len(os.listdir("/proc/self/task")) <= total_before
    with pytest.raises(nimdb.DatabaseError, match=r"t\.sqlite is closed"):
        db.query("kayles", [7, 5], misere=True)
    with pytest.raises(nimdb.DatabaseError, match="closed"):
        db.query_many("nim", [[1, 2]])
    with pytest.raises(nimdb.DatabaseError, match="closed"):
        nimdb.play("nim", [1, 2], db=db)
    db.close()  # twice: nothing happens
    db.close()
    # The file is whole and another handle reads what the first one solved.
    with nimdb.open(path) as again:
        assert again.query("kayles", [7, 5], misere=True).source == "database"


def test_with_closes_on_an_exception_too(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with nimdb.open(tmp_path / "t.sqlite", read_only=False) as db:
            db.query("kayles", [6, 4], misere=True)
            1 / 0
    with pytest.raises(nimdb.DatabaseError, match="closed"):
        db.solves()
