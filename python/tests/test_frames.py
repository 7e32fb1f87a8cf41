"""to_frame(): pandas DataFrames of exports, batch answers and heap sequences, positions as
tuples and what is unknown missing (pandas is optional: without it, to_frame says so)."""

import subprocess
import sys

import numpy as np
import pytest

import nimdb

pd = pytest.importorskip("pandas")


def test_an_export_as_a_frame(solved):
    db = nimdb.open(solved)
    t = db.export("kayles")
    f = t.to_frame()
    assert len(f) == len(t) and list(f.columns) == ["position", "outcome", "remoteness"]
    for i in range(0, len(t), 97):
        assert f.position[i] == tuple(int(h) for h in t.heaps[i][: t.lengths[i]])
        assert f.outcome[i] == ("win" if t.win[i] else "loss")
        assert f.remoteness[i] == t.remoteness[i]
    assert f.position[0] == () and f.outcome[0] == "loss"
    # Losses of Kayles by total, as a researcher would count them.
    losses = f[f.outcome == "loss"]
    assert len(losses) == int((~t.win).sum())


def test_draws_are_an_outcome_and_their_remoteness_is_missing(tmp_path):
    db = nimdb.open(tmp_path / "r.sqlite", read_only=False)
    db.solve("raise:2", max_heaps=3)
    t = db.export("raise:2")
    f = t.to_frame()
    draws = f[f.outcome == "draw"]
    assert len(draws) == int(t.draw.sum()) > 0
    assert draws.remoteness.isna().all() and not f[f.outcome != "draw"].remoteness.isna().any()


def test_batch_answers_as_a_frame(solved):
    db = nimdb.open(solved)
    positions = [[5, 3], [30, 30, 30], "1 2 3"]
    lookups = db.query_many("dawson", positions, misere=True, strict=False)
    f = lookups.to_frame(positions)
    assert list(f.columns) == ["position", "outcome", "remoteness", "nim_value", "source", "error"]
    assert f.position.tolist() == [(5, 3), (30, 30, 30), "1 2 3"]
    assert f.outcome.tolist()[0] == "loss" and pd.isna(f.outcome[1]) and f.outcome[2] == "win"
    assert pd.isna(f.remoteness[1]) and f.remoteness[0] == lookups.remoteness[0]
    assert f.source[0] == "database" and pd.isna(f.source[1])
    assert pd.isna(f.error[0]) and "is not in any stored solve" in f.error[1]
    # Without positions, no position column; an array's rows lose their zero padding.
    assert "position" not in lookups.to_frame().columns
    array = np.array([[3, 2, 1, 0], [4, 0, 0, 0]])
    g = db.query_many("nim", array).to_frame(array)
    assert g.position.tolist() == [(3, 2, 1), (4,)] and g.outcome.tolist() == ["loss", "win"]
    with pytest.raises(ValueError, match="positions has 1 entries for a batch of 3"):
        lookups.to_frame([[1]])


def test_heap_values_as_a_frame():
    hv = nimdb.heap_values("kayles", 100)
    f = hv.to_frame()
    assert f.index.name == "heap" and len(f) == 101
    assert (f.g.to_numpy() == hv.values).all()
    assert f.misere_value[:31].tolist() == hv.misere_values.tolist() and f.misere_value[31:].isna().all()
    assert f.genus[5] == "4^146" and f.genus[31:].isna().all()
    assert f.tame[:31].tolist() == hv.tame.tolist() and f.tame[31:].isna().all()


def test_without_pandas_to_frame_says_what_to_install():
    script = (
        "import sys; sys.modules['pandas'] = None\n"
        "import nimdb\n"
        "try:\n"
        "    nimdb.heap_values('kayles', 10).to_frame()\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "to_frame() needs pandas: pip install pandas", done.stderr
