"""Rich display in Jupyter: self-contained HTML and SVG (no script, no external file) for
positions, answers, moves, nim-sequences and misère quotients.

Every string is escaped (``html.escape``) and bounded in size however large the object:
at most :data:`MAX_HEAPS` heaps drawn, :data:`MAX_MOVES` moves listed, :data:`MAX_VALUES`
values and :data:`MAX_TABLE` quotient elements shown, the rest counted ("… N more"). The
colours are the explorer's (``nimdb serve``): green a win, red a loss, blue a draw; a move
is coloured for the player who makes it (green: it leaves the opponent lost).
"""

from __future__ import annotations

import html
import itertools
import re
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["Position", "position_svg", "answer_html", "move_html", "heap_values_html", "quotient_html"]

MAX_HEAPS = 40
"""Heaps (or steps) drawn in a position; the rest are counted."""
MAX_MARKS = 30
"""A heap of at most this many tokens is drawn as marks; a larger one as a bar to scale."""
MAX_MOVES = 60
"""Moves listed in an answer; the rest are counted."""
MAX_VALUES = 600
"""Values of a nim-sequence shown; the rest are counted."""
MAX_TABLE = 24
"""A quotient of more elements shows its generators' rows of the table, not the whole table."""
MAX_COLUMNS = 48
"""Columns of a quotient's table shown; the rest are counted."""

WIN, LOSS, DRAW, UNKNOWN = "#2e7d32", "#c62828", "#1565c0", "#757575"
COLOURS = {"win": WIN, "loss": LOSS, "draw": DRAW}
MARK = "#5d4037"
FONT = "font-family:system-ui,sans-serif;font-size:13px"


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _more(n: int, what: str) -> str:
    return f"… {n:,} more {what}"


def layout_of(game: Any) -> str:
    """How a game's positions are drawn: "staircase" (coins on steps, step 1 first),
    "raise" (heaps under a cap), or "heaps"."""
    name = game if isinstance(game, str) else getattr(game, "name", "")
    layout = getattr(game, "layout", None)
    if layout == "staircase" or name in ("staircase", "staircase-nim"):
        return "staircase"
    if isinstance(name, str) and name.startswith("raise:"):
        return "raise"
    return "heaps"


def _cap(game: Any) -> Optional[int]:
    name = game if isinstance(game, str) else ""
    m = re.fullmatch(r"raise:(\d+)", name)
    if m:
        return int(m.group(1))
    cap = getattr(game, "cap", None)
    return int(cap) if cap is not None else None


def position_svg(game: Any, position: Sequence[int], outcome: Optional[str] = None) -> str:
    """The position drawn as the explorer draws it: one row of marks a heap, its size on the
    left (a staircase: one row a step, the top step first, labelled by step). A heap of more
    than MAX_MARKS tokens is a bar scaled to the largest; past MAX_HEAPS rows, "… N more"."""
    count = len(position)
    rows = [(i, int(h)) for i, h in enumerate(itertools.islice(position, MAX_HEAPS))]
    more = count - len(rows)
    kind = layout_of(game)
    if kind == "staircase":
        rows.reverse()
    cap = _cap(game) if kind == "raise" else None
    largest = max([h for _, h in rows] + [cap or 0, 1])
    label_w = 76 if kind == "staircase" else 8 + 8 * max(1, len(str(largest)))
    mark_w, gap, row_h = 7, 3, 20
    bar_w = min(largest, MAX_MARKS) * (mark_w + gap)
    width = max(label_w + 12 + bar_w + 60, 200 if (more or cap) else 0, 240 if not rows else 0)
    height = 8 + row_h * max(1, len(rows)) + (row_h if more else 0) + (row_h if cap else 0)
    frame = COLOURS.get(outcome or "", "#bbb")
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" style="{FONT}">',
        f'<rect x="0.5" y="0.5" width="{width - 1}" height="{height - 1}" fill="#fafaf7" stroke="{frame}"/>',
    ]
    if not rows:
        out.append(f'<text x="8" y="{row_h - 4}" fill="#555">no heaps: the empty position</text>')
    y = 4
    for index, size in rows:
        label = f"step {index + 1}: {size}" if kind == "staircase" else f"{size}"
        out.append(f'<text x="{label_w}" y="{y + 14}" text-anchor="end" fill="#555">{_e(label)}</text>')
        x0 = label_w + 12
        if largest <= MAX_MARKS:
            for k in range(size):
                out.append(f'<rect x="{x0 + k * (mark_w + gap)}" y="{y + 2}" width="{mark_w}" height="16" rx="2" fill="{MARK}"/>')
        elif size:
            w = max(1.0, bar_w * size / largest)
            out.append(f'<rect x="{x0}" y="{y + 4}" width="{w:.1f}" height="12" fill="{MARK}"/>')
        y += row_h
    if cap:
        x = label_w + 12 + (cap * (mark_w + gap) - gap / 2 if largest <= MAX_MARKS else bar_w * cap / largest)
        out.append(f'<line x1="{x:.1f}" y1="2" x2="{x:.1f}" y2="{y}" stroke="{DRAW}" stroke-dasharray="3,2"/>')
        out.append(f'<text x="{x:.1f}" y="{y + 14}" text-anchor="middle" fill="{DRAW}">cap {cap}</text>')
        y += row_h
    if more:
        out.append(f'<text x="8" y="{y + 14}" fill="#555">{_e(_more(more, "steps" if kind == "staircase" else "heaps"))}</text>')
    out.append("</svg>")
    return "".join(out)


class Position:
    """A position of a game, drawn in Jupyter (``_repr_svg_``) as the explorer draws it.

    ``nimdb.Position("kayles", [7, 5, 3])``, ``Position("staircase", [3, 0, 2])`` (step 1
    first), ``Position("raise:4", [2, 4])`` (the cap drawn). ``game`` is a name or a game
    from :func:`nimdb.define` (its layout says how to draw it); the position is not
    checked against the game's rules, only that its heaps are whole numbers ≥ 0.
    """

    __slots__ = ("game", "heaps")

    def __init__(self, game: Any, position: Iterable[int]) -> None:
        from . import _nimdb

        if not isinstance(game, (str, _nimdb.DefinedGame)):
            raise _nimdb.BadType(f"game must be a name or a defined game, not {type(game).__name__}")
        if isinstance(position, str):
            raise _nimdb.BadType("position must be a sequence of heaps, not a string")
        heaps = []
        for h in position:
            if isinstance(h, (bool, float)) or not hasattr(h, "__index__") or int(h) < 0:
                raise _nimdb.BadPosition(f"heap {h!r} is not a whole number ≥ 0")
            heaps.append(int(h))
        self.game = game
        self.heaps: Tuple[int, ...] = tuple(heaps)

    def __repr__(self) -> str:
        name = self.game if isinstance(self.game, str) else getattr(self.game, "name", "?")
        return f"Position({name!r}, {list(self.heaps)!r})"

    def _repr_svg_(self) -> str:
        return position_svg(self.game, self.heaps)


def _mover(outcome: str) -> Tuple[str, str]:
    """A move's word and colour for the player who makes it (its outcome is the opponent's)."""
    if outcome == "loss":
        return "wins", WIN
    if outcome == "draw":
        return "draws", DRAW
    if outcome == "win":
        return "loses", LOSS
    return outcome, UNKNOWN


def _move_item(m: Any, best: bool = False) -> str:
    word, colour = _mover(m.outcome)
    left = "" if m.remoteness is None else f" · {m.remoteness} left"
    weight = "font-weight:bold;" if best else ""
    return (
        f'<li style="display:flex;justify-content:space-between;gap:1em;padding:.2em .6em;margin:2px 0;'
        f'border-left:5px solid {colour};background:#f5f5f5;{weight}">'
        f"<span>{_e(m.description)}</span>"
        f'<span style="color:{colour};white-space:nowrap">{_e(word + left)}</span></li>'
    )


def move_html(m: Any) -> str:
    """One move, coloured as in the explorer."""
    return f'<ul style="list-style:none;margin:0;padding:0;{FONT}">{_move_item(m)}</ul>'


def _sorted_moves(moves: Sequence[Any]) -> List[Any]:
    """The explorer's order: winning moves (fastest first), drawing, losing (slowest first)."""

    def key(im: Tuple[int, Any]) -> Tuple[int, float, int]:
        i, m = im
        if m.outcome == "loss":
            return (0, m.remoteness if m.remoteness is not None else 1e9, i)
        if m.outcome == "draw":
            return (1, 0, i)
        return (2, -(m.remoteness if m.remoteness is not None else -1), i)

    return [m for _, m in sorted(enumerate(moves), key=key)]


def answer_html(a: Any) -> str:
    """An answer: its position drawn, the outcome in its colour, remoteness, nim-value and
    source, then the moves coloured (at most MAX_MOVES listed)."""
    colour = COLOURS.get(a.outcome, UNKNOWN)
    misere = " (misère)" if a.misere else ""
    shown = list(a.position[:MAX_HEAPS])
    text = ", ".join(str(h) for h in shown) + (", …" if len(a.position) > MAX_HEAPS else "")
    source = {
        "theory": f"from theory ({a.theorem})" if a.theorem else "from theory",
        "quotient": "from the misère quotient",
        "user-theorem": f"from the user's theorem ({a.theorem})",
        "database": f"from solve #{a.solve_id}",
        "solved": f"solved on the spot (solve #{a.solve_id})",
    }.get(a.source, a.source)
    facts = [f"remoteness <b>{'unknown' if a.remoteness is None else a.remoteness}</b>"]
    if a.nim_value is not None:
        facts.append(f"nim-value <b>{a.nim_value}</b>")
    facts.append(_e(source))
    parts = [
        f'<div class="nimdb-answer" style="{FONT}">',
        f"<div><b>{_e(a.game)}</b>{misere} [{_e(text)}]: "
        f'<strong style="color:{colour}">{_e(a.outcome)}</strong> for the player to move</div>',
        f'<div style="color:#444">{" · ".join(facts)}</div>',
        position_svg(a.game, a.position, a.outcome),
    ]
    moves = list(a.moves)
    total = len(moves) + int(a.moves_omitted)
    parts.append(f"<div>moves ({total:,}{', best in bold' if a.best_move is not None else ''})</div>")
    items = []
    best_to = a.best_move.to if a.best_move is not None else None
    listed = _sorted_moves(moves)[:MAX_MOVES]
    for m in listed:
        items.append(_move_item(m, best=best_to is not None and m.to == best_to))
    if not moves:
        if a.best_move is not None:
            items.append(_move_item(a.best_move, best=True))
        elif total == 0:
            items.append('<li style="padding:.2em .6em">no moves: the game is over</li>')
    rest = total - len(listed) - (1 if not moves and a.best_move is not None else 0)
    if rest > 0:
        items.append(f'<li style="padding:.2em .6em;color:#555">{_e(_more(rest, "moves"))}</li>')
    parts.append(f'<ul style="list-style:none;margin:0;padding:0">{"".join(items)}</ul>')
    parts.append("</div>")
    return "".join(parts)


def heap_values_html(hv: Any) -> str:
    """A nim-sequence: its periodicity in words and g(n) in rows (a row a period when the
    period is at most 40, else 20 a row), the preperiod shaded; at most MAX_VALUES values."""
    values = np.asarray(hv.values)
    n = len(values)
    period, pre = hv.period, hv.preperiod
    width = period if period is not None and 1 <= period <= 40 else 20
    shown = min(n, MAX_VALUES)
    head = (
        f"<div><b>nim-values of {_e(hv.game)}</b>, heaps 0..{hv.up_to:,}: {_e(hv.summary)}</div>"
        f'<div style="color:#444">{_e(hv.method)}</div>'
    )
    # Rows start at the preperiod's end, so each row below it is one period.
    start = pre % width if period is not None and width == period and pre is not None else 0
    rows = []
    row_starts = ([0] if start else []) + list(range(start, shown, width))
    for i, s in enumerate(row_starts):
        e = min(shown, row_starts[i + 1] if i + 1 < len(row_starts) else s + width)
        cells = []
        for k in range(s, e):
            shade = "background:#fde9d4;" if pre is not None and k < pre else ""
            cells.append(f'<td style="{shade}padding:0 3px">{int(values[k])}</td>')
        rows.append(f'<tr><th style="color:#777;text-align:right;padding:0 6px 0 0">{s}</th>{"".join(cells)}</tr>')
    note = ""
    if n > shown:
        note = f'<div style="color:#555">{_e(_more(n - shown, "values"))} (heaps {shown:,}..{n - 1:,})</div>'
    legend = ""
    if pre:
        legend = f'<div style="color:#777">shaded: the preperiod, heaps 0..{pre - 1}; a row a period ({period}) after it</div>'
    table = (
        '<table style="border-collapse:collapse;font-variant-numeric:tabular-nums;text-align:right">'
        + "".join(rows)
        + "</table>"
    )
    return f'<div class="nimdb-heap-values" style="{FONT}">{head}{table}{note}{legend}</div>'


def word_html(word: str) -> str:
    """A least word with its exponents as superscripts: "ab^2" → ab<sup>2</sup>."""
    return re.sub(r"\^(\d+)", r"<sup>\1</sup>", _e(word))


def quotient_html(q: Any) -> str:
    """A misère quotient: |Q|, |P|, its generators with the heaps they come from, the
    relations, and the multiplication table with the P-elements marked. Past MAX_TABLE
    elements, only the generators' rows (and at most MAX_COLUMNS columns) are shown."""
    words = list(q.words)
    size = len(words)
    p = np.asarray(q.p)
    table = np.asarray(q.table)
    status = (
        f"period {q.period} from heap {q.preperiod} (proven)" if q.proven else f"heaps 1..{q.max_heap}, not proven periodic"
    )
    head = (
        f"<div><b>misère quotient of {_e(q.game)}</b>: |Q| = {size}, |P| = {q.p_count}, {_e(status)}"
        f"{', tame' if q.tame else ''}</div>"
    )
    p_words = ", ".join(word_html(words[i]) for i in q.p_elements[:MAX_COLUMNS])
    if len(q.p_elements) > MAX_COLUMNS:
        p_words += ", " + _e(_more(len(q.p_elements) - MAX_COLUMNS, "P-elements"))
    heaps = list(q.heap_elements)
    gens = [i for i, w in enumerate(words) if re.fullmatch(r"[a-z]", w)]
    first_heap: Dict[int, int] = {}
    for h, el in enumerate(heaps):
        first_heap.setdefault(el, h)
    gen_text = ", ".join(f"{word_html(words[g])} = heap {first_heap[g]}" for g in gens[:MAX_COLUMNS] if g in first_heap)
    if len(gens) > MAX_COLUMNS:
        gen_text += ", " + _e(_more(len(gens) - MAX_COLUMNS, "generators"))
    relations = list(q.relations)
    rel_text = "; ".join(word_html(r) for r in relations[:MAX_COLUMNS])
    if len(relations) > MAX_COLUMNS:
        rel_text += "; " + _e(_more(len(relations) - MAX_COLUMNS, "relations"))
    lines = [
        f"<div>P = {{{p_words}}}</div>",
        f"<div>generators: {gen_text}</div>" if gen_text else "",
        f'<div style="color:#444">relations: {rel_text}</div>' if rel_text else "",
    ]
    whole = size <= MAX_TABLE
    row_ids = list(range(size)) if whole else ([0] + gens)[:MAX_COLUMNS]
    cols = list(range(min(size, MAX_COLUMNS)))

    def cell(a: int, b: int) -> str:
        c = int(table[a, b])
        style = "background:#222;color:#fff" if p[c] else ""
        return f'<td style="{style};padding:0 .3em">{word_html(words[c])}</td>'

    def label(i: int, tag: str) -> str:
        weight = "font-weight:bold;text-decoration:underline" if p[i] else ""
        return f'<{tag} style="{weight};padding:0 .3em">{word_html(words[i])}</{tag}>'

    rows = ["<tr><th>·</th>" + "".join(label(b, "th") for b in cols) + "</tr>"]
    for a in row_ids:
        rows.append("<tr>" + label(a, "th") + "".join(cell(a, b) for b in cols) + "</tr>")
    note = (
        "dark: a product in P; underlined: a P-element"
        if whole
        else f"the rows of 1 and the {len(gens)} generators (of {size} elements); dark: a product in P; underlined: a P-element"
    )
    if size > len(cols):
        note += "; " + _more(size - len(cols), "columns")
    if not whole and len(gens) + 1 > len(row_ids):
        note += "; " + _more(len(gens) + 1 - len(row_ids), "rows")
    table_html = (
        '<div style="overflow-x:auto"><table style="border-collapse:collapse;text-align:center;font-variant-numeric:tabular-nums">'
        + "".join(rows)
        + "</table></div>"
    )
    return (
        f'<div class="nimdb-quotient" style="{FONT}">{head}{"".join(lines)}{table_html}'
        f'<div style="color:#777">{_e(note)}</div></div>'
    )
