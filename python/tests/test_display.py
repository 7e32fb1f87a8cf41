"""Rich display in Jupyter: answers, moves, positions, nim-sequences and quotients render as
self-contained, well-formed HTML/SVG (parsed here as XML: every tag closed, every & and <
escaped), with the explorer's colours, and bounded in size however large the object."""

import re
import xml.etree.ElementTree as ET

import pytest

import nimdb
from nimdb import _display

WIN, LOSS, DRAW = "#2e7d32", "#c62828", "#1565c0"


def parse(markup):
    """The markup as XML (fails on an unescaped & or <, or an unclosed tag), and no script."""
    assert "<script" not in markup.lower() and "javascript:" not in markup.lower()
    assert "http://" not in markup.replace('xmlns="http://www.w3.org/2000/svg"', "")
    return ET.fromstring(markup)


def texts(root):
    return " ".join(t.strip() for t in root.itertext() if t.strip())


def move_items(root):
    return [li for li in root.iter("li") if "border-left" in li.get("style", "")]


def test_an_answer_shows_its_position_outcome_and_coloured_moves(tmp_path):
    db = nimdb.open(tmp_path / "d.sqlite", read_only=False)
    a = db.query("kayles", [7, 5, 3], misere=True)
    markup = a._repr_html_()
    root = parse(markup)
    words = texts(root)
    assert "kayles (misère) [7, 5, 3]" in words and "win for the player to move" in words
    assert f"remoteness {a.remoteness}" in words
    strong = next(root.iter("strong"))
    assert strong.text == "win" and WIN in strong.get("style")
    # The position drawn: a row of marks a heap, labelled by its size.
    svg = next(el for el in root.iter() if el.tag.endswith("svg"))
    labels = [t.text for t in svg.iter() if t.tag.endswith("text")]
    assert labels == ["7", "5", "3"]
    assert sum(1 for r in svg.iter() if r.tag.endswith("rect") and r.get("rx")) == 15
    # Every move listed, coloured for its mover: green leaves the opponent lost.
    items = move_items(root)
    assert len(items) == len(a.moves)
    for li in items:
        description = li[0].text
        m = next(m for m in a.moves if m.description == description)
        colour = {"loss": WIN, "win": LOSS}[m.outcome]
        assert colour in li.get("style") and colour in li[1].get("style")
    # The explorer's order: winning moves first, fastest first; the best move in bold.
    assert "wins" in items[0][1].text and "bold" in items[0].get("style")
    assert items[0][0].text == a.best_move.description


def test_a_draw_and_a_theorem_and_a_staircase(tmp_path):
    db = nimdb.open(tmp_path / "d.sqlite", read_only=False)
    draw = db.query("raise:2", [1, 1])
    root = parse(draw._repr_html_())
    assert next(root.iter("strong")).get("style") == f"color:{DRAW}"
    assert "remoteness unknown" in texts(root)
    assert any(DRAW in li.get("style") and li[1].text == "draws" for li in move_items(root))
    svg = next(el for el in root.iter() if el.tag.endswith("svg"))
    assert "cap 2" in texts(svg)  # a loopy heap's cap, drawn as a dashed line
    stairs = db.query("staircase", [30, 0, 20, 5])
    root = parse(stairs._repr_html_())
    assert "from theory (Staircase Nim: the odd steps are Nim)" in texts(root)
    svg = next(el for el in root.iter() if el.tag.endswith("svg"))
    labels = [t.text for t in svg.iter() if t.tag.endswith("text")]
    # The top step first, as the explorer draws a staircase; bars to scale past 30 coins.
    assert labels == ["step 4: 5", "step 3: 20", "step 2: 0", "step 1: 30"]


def test_a_position_draws_and_checks_its_heaps():
    svg = nimdb.Position("staircase", [3, 0, 2])._repr_svg_()
    root = parse(svg)
    assert [t.text for t in root.iter() if t.tag.endswith("text")] == ["step 3: 2", "step 2: 0", "step 1: 3"]
    assert repr(nimdb.Position("nim", (7, 5))) == "Position('nim', [7, 5])"
    with pytest.raises(nimdb.BadPosition, match="-1"):
        nimdb.Position("nim", [3, -1])
    with pytest.raises(nimdb.BadType):
        nimdb.Position("nim", "7 5 3")
    with pytest.raises(nimdb.BadType):
        nimdb.Position(3, [1])


def test_huge_positions_and_answers_stay_small(tmp_path):
    # A million heaps: 40 rows drawn, the rest counted.
    svg = nimdb.Position("nim", [1] * 10**6)._repr_svg_()
    parse(svg)
    assert len(svg) < 20_000 and "… 999,960 more heaps" in svg
    # A heap of 2^40 is a bar to scale, not 2^40 marks.
    assert len(nimdb.Position("nim", [2**40, 3])._repr_svg_()) < 2_000
    db = nimdb.open(tmp_path / "d.sqlite", read_only=False)
    a = db.query("nim", [100_000, 99_999])
    total = len(a.moves) + a.moves_omitted
    assert total >= 100_000
    markup = a._repr_html_()
    parse(markup)
    assert len(markup) < 40_000
    assert f"… {total - _display.MAX_MOVES:,} more moves" in markup or (
        not a.moves and f"… {total - 1:,} more moves" in markup
    )


def test_text_is_escaped(tmp_path):
    def moves(p):
        return [(p[:i] + (k,) + p[i + 1 :], f"<script>x</script> & to {k}") for i, h in enumerate(p) for k in range(h)]

    game = nimdb.define("esc", moves)
    db = nimdb.open(tmp_path / "e.sqlite", read_only=False)
    db.solve(game, max_total=4)
    a = db.query(game, [3])
    markup = a._repr_html_()
    root = parse(markup)
    assert "<script>x</script> & to 0" in texts(root)
    parse(nimdb.Position(game, [2])._repr_svg_())


def test_a_move_renders_alone(tmp_path):
    db = nimdb.open(tmp_path / "d.sqlite", read_only=False)
    m = db.query("nim", [3, 1]).best_move
    root = parse(m._repr_html_())
    li = next(root.iter("li"))
    assert WIN in li.get("style") and "wins" in li[1].text


def test_heap_values_show_a_row_a_period_and_stay_bounded():
    hv = nimdb.heap_values("dawson", 200)
    root = parse(hv._repr_html_())
    rows = list(root.iter("tr"))
    starts = [int(r[0].text) for r in rows]
    # Rows of 34 line up with the period from heap 53 (53 = 19 + 34).
    assert starts[:3] == [0, 19, 53] and all(b - a == 34 for a, b in zip(starts[1:], starts[2:]))
    cells = [int(td.text) for r in rows for td in r.iter("td")]
    assert cells == [int(v) for v in hv.values]
    assert "period 34" in texts(root)
    big = nimdb.heap_values("kayles", 10**6)
    markup = big._repr_html_()
    parse(markup)
    assert len(markup) < 40_000
    assert f"… {10**6 + 1 - _display.MAX_VALUES:,} more values" in markup


def test_quotients_show_their_p_structure():
    q = nimdb.quotient("kayles")  # |Q| = 40: past 24, the generators' rows
    markup = q._repr_html_()
    root = parse(markup)
    words = texts(root)
    assert "|Q| = 40, |P| = 9" in words
    assert "ab<sup>2</sup>" in markup and "^" not in markup
    rows = list(root.iter("tr"))
    gens = [w for w in q.words if re.fullmatch("[a-z]", w)]
    assert [r[0].text for r in rows[1:]] == ["1"] + gens
    # A dark cell is a product in P.
    for r, a in zip(rows[1:], [0] + [q.words.index(g) for g in gens]):
        for b, td in enumerate(list(r)[1:]):
            assert ("background:#222" in td.get("style")) == bool(q.p[q.table[a, b]])
    small = nimdb.quotient("octal:0.75")
    root = parse(small._repr_html_())
    assert len(list(root.iter("tr"))) == small.size + 1
    big = nimdb.quotient("dawson", max_heap=26)
    assert big.size == 144
    markup = big._repr_html_()
    parse(markup)
    assert len(markup) < 60_000 and "… 96 more columns" in markup
    # Nim's quotient to its default bound: 1,026 elements, 10 generators, a bounded page.
    nim = nimdb.quotient("nim")
    markup = nim._repr_html_()
    parse(markup)
    assert nim.size > 1000 and len(markup) < 60_000 and f"… {nim.size - 48:,} more columns" in markup
