"""nimdb.plot draws what it says (checked on the figure's data) and writes valid PNG and SVG
files. Needs matplotlib (.ci/run installs it)."""

import math
import struct
import xml.etree.ElementTree as ET

import numpy as np

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


def test_quotient_table_is_the_table_with_p_marked(tmp_path):
    q = nimdb.quotient("kayles")
    fig = plot.quotient_table(q, path=tmp_path / "q.png")
    plot.quotient_table(q, path=tmp_path / "q.svg")
    assert_png(tmp_path / "q.png")
    assert_svg(tmp_path / "q.svg")
    ax = fig.axes[0]
    assert (np.asarray(ax.images[0].get_array()) == q.table).all()
    marked = {(int(y), int(x)) for x, y in ax.collections[0].get_offsets()}
    assert marked == {(a, b) for a in range(q.size) for b in range(q.size) if q.p[q.table[a, b]]}
    assert f"|Q| = {q.size}, |P| = {q.p_count}" in ax.get_title()


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
