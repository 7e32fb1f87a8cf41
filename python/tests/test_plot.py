"""nimdb.plot draws what it says (checked on the figure's data) and writes valid PNG and SVG
files. Needs matplotlib (.ci/run installs it)."""

import math
import struct
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import nimdb
from nimdb import plot


def assert_png(path, min_side=200):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    assert width >= min_side and height >= min_side
    assert data.endswith(b"IEND\xaeB`\x82")


def assert_svg(path):
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    assert len(list(root.iter())) > 50


def test_nim_sequence_marks_the_period(tmp_path):
    values = nimdb.heap_values("dawson", 200)
    fig = plot.nim_sequence(values, path=tmp_path / "seq.png")
    plot.nim_sequence(values, path=tmp_path / "seq.svg")
    assert_png(tmp_path / "seq.png")
    assert_svg(tmp_path / "seq.svg")
    ax = fig.axes[0]
    dots = ax.collections[0].get_offsets()
    assert [int(y) for y in dots[:, 1]] == list(values.values)
    starts = sorted(line.get_xdata()[0] + 0.5 for line in ax.lines[1:])
    assert starts == list(range(53, 201, 34))
    assert "period 34 from heap 53 (proven)" in ax.get_title()


def test_quotient_table_is_the_p_structure(tmp_path):
    q = nimdb.quotient("kayles")
    fig = plot.quotient_table(q, path=tmp_path / "q.png")
    plot.quotient_table(q, path=tmp_path / "q.svg")
    assert_png(tmp_path / "q.png")
    assert_svg(tmp_path / "q.svg")
    ax = fig.axes[0]
    # Black where the product is in P: the structure, not an arbitrary element index.
    assert (np.asarray(ax.images[0].get_array()) == q.p[q.table]).all()
    assert len(fig.axes) == 1  # no colour bar of element indices
    assert f"|Q| = {q.size}, |P| = {q.p_count}" in ax.get_title()
    # Exponents typeset (mathtext), never "ab^2"; the P-elements' labels red.
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[:6] == ["$1$", "$a$", "$b$", "$ab$", "$c$", "$ab^{2}$"]
    assert all("^" not in w or "^{" in w for w in labels)
    red = {i for i, t in enumerate(ax.get_yticklabels()) if t.get_color() == plot.LOSS}
    assert red == set(q.p_elements)
    # The legend is outside the axes.
    assert ax.get_legend() is None and fig.legends


def test_a_small_quotient_names_each_product():
    q = nimdb.quotient("octal:0.75")
    assert q.size <= 16
    ax = plot.quotient_table(q).axes[0]
    cells = [t.get_text() for t in ax.texts]
    assert len(cells) == q.size**2
    assert cells[: q.size] == [plot.word_tex(q.words[int(c)]) for c in q.table[0]]


def test_a_large_quotient_is_drawn_to_a_limit_with_a_note():
    q = nimdb.quotient("dawson", max_heap=26)
    assert q.size == 144
    fig = plot.quotient_table(q)
    ax = fig.axes[0]
    assert np.asarray(ax.images[0].get_array()).shape == (40, 40)
    assert len(ax.get_xticklabels()) == 40
    assert "the first 40 of 144 elements (in order of least word); limit=None draws all 144" in ax.get_title()
    whole = plot.quotient_table(q, limit=None).axes[0]
    assert np.asarray(whole.images[0].get_array()).shape == (144, 144)
    gens = plot.quotient_table(q, rows="generators", limit=None).axes[0]
    letters = [w for w in q.words if len(w) == 1 and w != "1"]
    assert [t.get_text() for t in gens.get_yticklabels()] == ["$1$"] + [f"${w}$" for w in letters]


def test_long_sequences_keep_their_period_marks_readable():
    values = nimdb.heap_values("kayles", 1000)
    assert (values.period, values.preperiod) == (12, 71)
    fig = plot.nim_sequence(values)
    ax = fig.axes[0]
    dashed = [line for line in ax.lines if line.get_linestyle() == "--"]
    # 78 period starts in 1,000 heaps: the first period is bracketed, not 78 lines.
    assert [line.get_xdata()[0] + 0.5 for line in dashed] == [71, 83]
    assert any(t.get_text() == "period 12" for t in ax.texts)
    assert ax.get_legend() is None and fig.legends  # the legend is off the data
    assert "first period (of 78)" in [t.get_text() for t in fig.legends[0].get_texts()]
    for ticks in (ax.get_xticks(), ax.get_yticks()):
        assert all(float(t).is_integer() for t in ticks)
    # A HeapValues cut to a shorter length.
    assert len(plot.nim_sequence(values, 100).axes[0].collections[0].get_offsets()) == 101


def test_p_positions_of_wythoff_are_its_pairs(tmp_path):
    db = nimdb.open(tmp_path / "w.sqlite", read_only=False)
    fig = plot.p_positions(db, "wythoff", 60, path=tmp_path / "w.png")
    plot.p_positions(db, "wythoff", 60, path=tmp_path / "w.svg")
    assert_png(tmp_path / "w.png")
    assert_svg(tmp_path / "w.svg")
    grid = np.asarray(fig.axes[0].images[0].get_array()).T  # grid[a, b]
    phi = (1 + math.sqrt(5)) / 2
    pairs = set()
    for k in range(61):
        a, b = math.floor(k * phi), math.floor(k * phi * phi)
        pairs |= {(a, b), (b, a)}
    black = {(a, b) for a in range(61) for b in range(61) if grid[a, b] == 0}
    assert black == {(a, b) for a, b in pairs if a <= 60 and b <= 60}


def test_three_heap_slice_from_a_database(solved, tmp_path):
    db = nimdb.open(solved)
    fig = plot.p_positions(db, "nim", 6, misere=True, fixed=(3,), path=tmp_path / "n.png")
    assert_png(tmp_path / "n.png")
    grid = np.asarray(fig.axes[0].images[0].get_array()).T
    for a in range(7):
        for b in range(7):
            heaps = [h for h in (a, b, 3) if h]
            loss = (a ^ b ^ 3 == 0) if max(heaps) >= 2 else (len(heaps) % 2 == 1)
            assert (grid[a, b] == 0) == loss, (a, b)


def test_small_slices_have_integer_ticks(tmp_path):
    db = nimdb.open(tmp_path / "n.sqlite", read_only=False)
    for size in (3, 20):  # matplotlib's own ticks were 0.5 apart at 3 and 2.5 apart at 20
        ax = plot.p_positions(db, "nim", size).axes[0]
        for ticks in (ax.get_xticks(), ax.get_yticks()):
            assert all(float(t).is_integer() for t in ticks), ticks
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("heap a", "heap b")


def test_a_staircase_slice_is_labelled_by_steps(tmp_path):
    db = nimdb.open(tmp_path / "s.sqlite", read_only=False)
    fig = plot.p_positions(db, "staircase", 8, fixed=(2,))
    ax = fig.axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("coins on step 1", "coins on step 2")
    assert "a, b" not in ax.get_title()
    grid = np.asarray(ax.images[0].get_array()).T
    # Normal-play Staircase Nim: a loss when the odd steps' coins nim-sum to 0 (steps 1, 3).
    black = {(a, b) for a in range(9) for b in range(9) if grid[a, b] == 0}
    assert black == {(2, b) for b in range(9)}


def test_a_loopy_slice_shows_its_draws(tmp_path):
    db = nimdb.open(tmp_path / "r.sqlite", read_only=False)
    ax = plot.p_positions(db, "raise:3", 3).axes[0]
    grid = np.asarray(ax.images[0].get_array()).T
    lookups = db.query_many("raise:3", [[a, b] for a in range(4) for b in range(4)], strict=False)
    assert ((grid.ravel() == 2) == (lookups.outcome == 2)).all()
    assert (grid == 2).any() and "draws (blue)" in ax.get_title()


def test_an_unanswered_slice_says_why_and_what_to_run(tmp_path):
    db = nimdb.open(tmp_path / "d.sqlite", read_only=False)
    db.close()
    db = nimdb.open(tmp_path / "d.sqlite")
    fig = plot.p_positions(db, "dawson", 30, misere=True)
    ax = fig.axes[0]
    assert "961 unanswered" in ax.get_title()
    notes = " ".join(t.get_text() for t in ax.texts + fig.texts)
    assert "961 positions have no answer" in notes
    assert "db.quotient('dawson', max_heap=30)" in notes and "read_only=False" in notes


def test_bad_arguments_are_refused(tmp_path):
    db = nimdb.open(tmp_path / "b.sqlite", read_only=False)
    bad = [
        (nimdb.BadArgument, lambda: plot.p_positions(db, "nim", -3)),
        (nimdb.BadArgument, lambda: plot.p_positions(db, "nim", 0)),
        (nimdb.BadArgument, lambda: plot.p_positions(db, "nim", 10**6)),
        (nimdb.BadType, lambda: plot.p_positions(db, "nim", 2.5)),
        (nimdb.BadType, lambda: plot.p_positions(db, "nim", True)),
        (nimdb.BadArgument, lambda: plot.p_positions(db, "nim", 5, fixed=(-1,))),
        (nimdb.BadType, lambda: plot.p_positions(db, "nim", 5, fixed="3")),
        (nimdb.BadType, lambda: plot.p_positions(db, "nim", 5, misere=None)),
        (nimdb.BadType, lambda: plot.p_positions("x.sqlite", "nim", 5)),
        (nimdb.BadType, lambda: plot.p_positions(db, 3, 5)),
        (nimdb.BadGame, lambda: plot.p_positions(db, "chess", 5)),
        (nimdb.BadArgument, lambda: plot.p_positions(db, "nim", 5, dpi=0)),
        (nimdb.BadArgument, lambda: plot.p_positions(db, "nim", 5, path=tmp_path / "x.txt")),
        (nimdb.BadArgument, lambda: plot.nim_sequence("kayles", -1)),
        (nimdb.BadArgument, lambda: plot.nim_sequence(nimdb.heap_values("kayles", 10), 11)),
        (nimdb.BadType, lambda: plot.nim_sequence(123)),
        (nimdb.BadGame, lambda: plot.nim_sequence("chess")),
        (nimdb.BadType, lambda: plot.quotient_table(3)),
        (nimdb.BadArgument, lambda: plot.quotient_table(nimdb.quotient("kayles"), limit=0)),
        (nimdb.BadArgument, lambda: plot.quotient_table(nimdb.quotient("kayles"), rows="some")),
    ]
    for kind, call in bad:
        with pytest.raises(kind):
            call()
    assert not (tmp_path / "x.txt").exists()
