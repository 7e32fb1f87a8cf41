"""The researcher's notebook (docs/notebooks/researcher.ipynb), executed: every cell runs
without an error, its numbers are the ones computed here independently of nimdb, its
figures are written, and the outputs committed with it are the ones it prints today.

Needs nbclient and ipykernel (`pip install nbclient ipykernel`; CI installs them)."""

import json
import re
from functools import lru_cache
from pathlib import Path

import pytest

import nimdb

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = REPO / "docs" / "notebooks" / "researcher.ipynb"
FIGURES = ["notebook-kayles-sequence.png", "notebook-kayles-p-positions.png", "notebook-greedy-p-positions.png"]


def partitions(total, largest):
    """Every multiset of positive heaps with sum `total` and no heap above `largest`,
    largest first."""
    if total == 0:
        yield ()
        return
    for first in range(min(total, largest), 0, -1):
        for rest in partitions(total - first, first):
            yield (first,) + rest


def greedy_children(p):
    i = p.index(max(p))
    return [tuple(sorted((h for h in p[:i] + (k,) + p[i + 1 :] if h), reverse=True)) for k in range(p[i])]


@lru_cache(maxsize=None)
def greedy_wins(p, misere):
    """Greedy Nim by plain recursion: independent of nimdb."""
    if not p:
        return misere
    return any(not greedy_wins(c, misere) for c in greedy_children(p))


def ties(p):
    return sum(1 for h in p if h == p[0]) if p else 0


def greedy_p_rule(p, misere):
    """The rule the notebook confirms (conjecture 2 and its misère form), checked against
    the recursion below on every position of at most 16 tokens."""
    if misere and all(h <= 1 for h in p):
        return len(p) % 2 == 1
    return ties(p) % 2 == 0


def test_the_rule_the_notebook_confirms_agrees_with_a_plain_search():
    for total in range(17):
        for p in partitions(total, total):
            for misere in (False, True):
                assert greedy_p_rule(p, misere) == (not greedy_wins(p, misere)), (p, misere)


def expected_findings():
    """What the notebook must find about Greedy Nim, computed here without nimdb. (Kayles'
    figures are checked as constants: Guy and Smith's period 12 from heap 71, and the
    certified misère quotient's |Q| = 40, |P| = 9 of docs/quotients.md.)"""
    universe = [p for total in range(37) for p in partitions(total, total)]
    p_normal = [greedy_p_rule(p, False) for p in universe]
    p_misere = [greedy_p_rule(p, True) for p in universe]

    def nim_sum(p):
        x = 0
        for h in p:
            x ^= h
        return x

    wrong = [p for p, lose in zip(universe, p_normal) if (nim_sum(p) == 0) != lose]
    first = min(wrong, key=lambda p: (sum(p), len(p), p))
    return {
        "universe": len(universe),
        "p_normal": sum(p_normal),
        "p_misere": sum(p_misere),
        "wrong_1": len(wrong),
        "first": first,
    }


def at_most_three_heaps(max_total):
    """The positions of at most 3 heaps and at most `max_total` tokens: a >= b >= c >= 0
    (a 0 is no heap)."""
    return sum(1 for a in range(max_total + 1) for b in range(a + 1) for c in range(b + 1) if a + b + c <= max_total)


def slice_p_count(size, fixed):
    """The P-positions [a, b, fixed], 0 <= a, b <= size, by the confirmed rule."""
    count = 0
    for a in range(size + 1):
        for b in range(size + 1):
            p = tuple(sorted((h for h in (a, b, fixed) if h), reverse=True))
            count += greedy_p_rule(p, False)
    return count


def outputs_of(notebook):
    """Each code cell's printed text (its streams: what the notebook prints itself, the
    same whatever the versions of pandas or matplotlib), and which cells show an image."""
    texts, images = [], []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        text = []
        for out in cell.outputs:
            if out.output_type == "stream":
                text.append(out.text)
            elif "data" in out and "image/png" in out["data"]:
                images.append(len(texts))
            elif out.output_type == "error":
                text.append(f"error: {out.ename}: {out.evalue}")
        texts.append("".join(text))
    return texts, images


def test_the_researchers_notebook_runs_and_finds_what_it_says(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason="the notebook test needs nbformat: pip install nbclient ipykernel")
    nbclient = pytest.importorskip("nbclient", reason="the notebook test needs nbclient: pip install nbclient ipykernel")
    pytest.importorskip("ipykernel", reason="the notebook test needs ipykernel: pip install nbclient ipykernel")
    pytest.importorskip("matplotlib", reason="the notebook draws with matplotlib")
    pytest.importorskip("pandas", reason="the notebook uses pandas")

    committed = nbformat.read(NOTEBOOK, as_version=4)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    monkeypatch.setenv("NIMDB_NOTEBOOK_FIGURES", str(tmp_path))
    # Raises CellExecutionError, naming the cell, when any cell fails.
    nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    ).execute()
    texts, images = outputs_of(notebook)

    # The findings, as the last cell prints them.
    found = json.loads(texts[-1])
    want = expected_findings()
    assert found["kayles_period"] == [12, 71]
    assert found["kayles_quotient"] == [40, 9]
    assert found["kayles_quotient_disagreements"] == 0
    assert found["kayles_misere_positions"] == sum(1 for t in range(21) for _ in partitions(t, t))
    three = at_most_three_heaps(75)
    assert found["greedy_positions"] == [want["universe"], want["universe"], three]
    assert found["conjecture_1"] == {
        "positions": want["universe"],
        "p_positions": want["p_normal"],
        "wrong": want["wrong_1"],
        "first": list(want["first"]),
    }
    assert found["conjecture_1"]["first"] == [2, 2, 1]
    assert found["conjecture_2"] == {"positions": want["universe"], "wrong": 0, "wide_positions": three, "wide_wrong": 0}
    assert found["misere_conjecture"] == {"positions": want["universe"], "p_positions": want["p_misere"], "wrong": 0}

    # The pictures: shown in the notebook, written as PNG files, titled with their counts.
    assert len(images) == 3
    for name in FIGURES:
        data = (tmp_path / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, name
        assert (REPO / "docs" / name).is_file(), f"docs/{name} is not committed"
    everything = "".join(texts)
    assert f"P-positions [a, b, 12] of greedy-nim, a, b ≤ 30: {slice_p_count(30, 12)} black" in everything
    assert re.search(r"P-positions \[a, b, 4\] of kayles \(misère\), a, b ≤ 60: \d+ black\n", everything)
    assert "unanswered" not in everything

    # The committed notebook holds today's outputs (when this fails, run it again as
    # docs/notebooks/README.md says and commit it with its figures).
    assert outputs_of(committed) == (texts, images)


def test_a_defined_games_solve_is_exported_by_its_id(tmp_path):
    """Found writing the notebook: `export(game, solve=ID)` of a defined game said the
    solve was of "a game this build of nimdb does not know"."""
    db = nimdb.open(tmp_path / "g.sqlite", read_only=False)
    game = nimdb.define("greedy", lambda p: [c for c in greedy_children(p)] if p else [])
    small = db.solve(game, max_total=6, max_heaps=2)
    db.solve(game, max_total=8)
    rows = db.export(game, solve=small.solve_id)
    assert len(rows) == small.positions == sum(1 for t in range(7) for p in partitions(t, t) if len(p) <= 2)
    assert len(db.export(game)) == sum(1 for t in range(9) for _ in partitions(t, t))
    other = db.solve("nim", max_total=4)
    with pytest.raises(nimdb.NimdbError, match=r"solve #3 is a solve of nim"):
        db.export(game, solve=other.solve_id)
