"""Pictures of nimdb's answers, drawn with matplotlib (an optional dependency:
``pip install nimdb[plot]``), fit for a paper: integer ticks, legends outside the data,
exponents typeset.

Each function returns a :class:`matplotlib.figure.Figure` and, given ``path``, also saves it
there (PNG, SVG or PDF, chosen by the file's suffix). Figures are made without pyplot, so
they work headless and in notebooks alike (a notebook shows a returned Figure). Every
argument is checked first: a bad one raises :class:`nimdb.BadArgument` (a value out of
range) or :class:`nimdb.BadType` (a value of the wrong kind), never an empty figure.

- :func:`nim_sequence`: the nim-values g(n) against the heap n, with the preperiod shaded
  and the period marked (every period start when there are at most 12, else the first
  period bracketed).
- :func:`quotient_table`: a misère quotient's P-structure: its multiplication table, a
  black cell where the product is a P-element, the elements labelled by their least words.
- :func:`p_positions`: the P-positions (losses for the player to move) of a two-heap slice
  [a, b], or of a slice [a, b, *fixed], read from a database (or theory) through
  ``query_many``; a slice nothing answers says why and what to run.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Union

import numpy as np

from . import _nimdb

if TYPE_CHECKING:  # matplotlib is optional at run time
    from matplotlib.figure import Figure

__all__ = ["nim_sequence", "quotient_table", "p_positions"]

MAX_PERIOD_LINES = 12
"""Period starts drawn one line each; past this many, only the first period is bracketed."""
MAX_SLICE = 2000
"""The largest ``size`` of a P-position slice (its (size + 1)² positions are looked up)."""
WIN, LOSS, DRAW = "#2e7d32", "#c62828", "#1565c0"

_Path = Union[str, "os.PathLike[str]", None]


def _whole(value: Any, name: str, low: int, high: Optional[int] = None) -> int:
    """`value` as an int in low..=high, else BadType / BadArgument naming `name`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise _nimdb.BadType(f"{name} must be a whole number, not {type(value).__name__} ({value!r})")
    v = int(value)
    if v < low or (high is not None and v > high):
        bound = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise _nimdb.BadArgument(f"{name} must be {bound}, not {v}")
    return v


def _check_output(path: _Path, dpi: Any) -> int:
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise _nimdb.BadType(f"path must be a file name or None, not {type(path).__name__}")
    if path is not None:
        suffix = os.path.splitext(os.fspath(path))[1].lower()
        if suffix not in (".png", ".svg", ".pdf"):
            raise _nimdb.BadArgument(f"path must end in .png, .svg or .pdf, not {os.fspath(path)!r}")
    return _whole(dpi, "dpi", 10, 2400)


def _figure(width: float, height: float) -> "Figure":
    try:
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("nimdb.plot needs matplotlib: pip install matplotlib (or nimdb[plot])") from e
    return Figure(figsize=(width, height), layout="constrained")


def _integer_ticks(*axes: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    for axis in axes:
        axis.set_major_locator(MaxNLocator(integer=True))


def _save(fig: "Figure", path: _Path, dpi: int) -> "Figure":
    if path is not None:
        fig.savefig(path, dpi=dpi)
    return fig


def nim_sequence(
    values: Union[_nimdb.HeapValues, str],
    up_to: Optional[int] = None,
    *,
    path: _Path = None,
    dpi: int = 120,
) -> "Figure":
    """Draws a nim-sequence: g(n) against the heap n, one dot a heap.

    ``values`` is a :class:`nimdb.HeapValues` or a game name (then ``nimdb.heap_values(game,
    up_to)`` is computed; ``up_to`` defaults to 200); given a HeapValues, ``up_to`` draws
    heaps 0..=up_to of it. When a period is found, the preperiod is shaded and a dashed line
    marks each period start, when there are at most 12; past that (Kayles' 78 periods in
    1,000 heaps) the first period alone is bracketed and labelled, so the marks stay
    readable at any length. The legend sits below the axes, off the data; the title says
    the period, preperiod and whether it is proven.
    """
    if up_to is not None:
        up_to = _whole(up_to, "up_to", 0)
    dpi = _check_output(path, dpi)
    if isinstance(values, str):
        values = _nimdb.heap_values(values, 200 if up_to is None else up_to)
    elif not isinstance(values, _nimdb.HeapValues):
        raise _nimdb.BadType(f"values must be a HeapValues or a game name, not {type(values).__name__}")
    g = np.asarray(values.values)
    if up_to is not None:
        if up_to > len(g) - 1:
            raise _nimdb.BadArgument(f"up_to ({up_to}) is past the values given (heaps 0..{len(g) - 1})")
        g = g[: up_to + 1]
    n = np.arange(len(g))
    many = len(g) > 3000
    fig = _figure(10, 4)
    ax = fig.add_subplot()
    if not many:
        ax.plot(n, g, color="0.75", linewidth=0.8, zorder=1)
    ax.scatter(n, g, s=1.5 if many else 10, color="tab:blue", zorder=2, rasterized=many, label="g(n)")
    title = f"nim-sequence of {values.game}, heaps 0..{len(g) - 1}"
    if values.period is not None and values.preperiod is not None:
        p, e = values.period, values.preperiod
        if e > 0:
            ax.axvspan(-0.5, min(e, len(g)) - 0.5, color="tab:orange", alpha=0.12, label=f"preperiod (heaps 0..{e - 1})")
        starts = list(range(e, len(g), p))
        if len(starts) <= MAX_PERIOD_LINES:
            for i, s in enumerate(starts):
                ax.axvline(s - 0.5, color="tab:red", linewidth=0.8, linestyle="--", label="period starts" if i == 0 else None)
        else:
            top = float(g.max()) + 1 if len(g) else 1.0
            for i, s in enumerate(starts[:2]):
                ax.axvline(s - 0.5, color="tab:red", linewidth=0.8, linestyle="--", label=f"first period (of {len(starts)})" if i == 0 else None)
            ax.annotate(
                "",
                xy=(e - 0.5, top),
                xytext=(e + p - 0.5, top),
                arrowprops={"arrowstyle": "<->", "color": "tab:red", "linewidth": 0.8},
            )
            ax.annotate(
                f"period {p}",
                xy=(e + p - 0.5, top),
                xytext=(4, 0),
                textcoords="offset points",
                color="tab:red",
                fontsize=8,
                va="center",
            )
            ax.set_ylim(-0.5, top + 1)
        status = "proven" if values.proven else "apparent"
        title += f": period {p} from heap {e} ({status})"
    else:
        title += ": no period found"
    handles, _ = ax.get_legend_handles_labels()
    if len(handles) > 1:
        fig.legend(loc="outside lower center", ncols=len(handles), fontsize=8, frameon=False)
    ax.set_title(title)
    ax.set_xlabel("heap n")
    ax.set_ylabel("g(n)")
    ax.set_xlim(-0.5, len(g) - 0.5)
    _integer_ticks(ax.xaxis, ax.yaxis)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path, dpi)


def word_tex(word: str, bold: bool = False) -> str:
    """A least word typeset by mathtext: "ab^2" → ``$ab^{2}$``; the identity "1" → ``$1$``."""
    body = re.sub(r"\^(\d+)", r"^{\1}", word)
    return f"$\\mathbf{{{body}}}$" if bold else f"${body}$"


def quotient_table(
    q: Union[_nimdb.Quotient, str],
    *,
    path: _Path = None,
    dpi: int = 120,
    labels: Optional[bool] = None,
    limit: Optional[int] = 40,
    rows: str = "all",
) -> "Figure":
    """Draws a misère quotient's P-structure: its multiplication table, cell [a, b] black
    when the product a·b is a P-element (a loss for the player to move), white otherwise.

    Rows and columns are the elements by their least words, exponents typeset ("ab²"), the
    P-elements' labels in red; with at most 16 elements each cell also names its product.
    ``q`` is a :class:`nimdb.Quotient` or a game name (then ``nimdb.quotient(game)`` is
    computed). ``limit`` bounds the elements drawn on each axis (the first ones, in order of
    least word): a larger quotient (Dawson's to heap 26 has 144) is drawn to the limit and
    the figure says so; ``limit=None`` draws all. ``rows="generators"`` keeps the rows of
    1 and the generators only (a, b, c…), the structure's skeleton. Labels are drawn when
    at most 48 elements are shown (``labels`` forces either way).
    """
    if isinstance(q, str):
        q = _nimdb.quotient(q)
    elif not isinstance(q, _nimdb.Quotient):
        raise _nimdb.BadType(f"q must be a Quotient or a game name, not {type(q).__name__}")
    if limit is not None:
        limit = _whole(limit, "limit", 1)
    if rows not in ("all", "generators"):
        raise _nimdb.BadArgument(f"rows must be 'all' or 'generators', not {rows!r}")
    if labels is not None and not isinstance(labels, bool):
        raise _nimdb.BadType(f"labels must be True, False or None, not {labels!r}")
    dpi = _check_output(path, dpi)
    table = np.asarray(q.table)
    p = np.asarray(q.p)
    words: List[str] = list(q.words)
    size = table.shape[0]
    shown = size if limit is None else min(size, limit)
    cols = list(range(shown))
    if rows == "generators":
        row_ids = [0] + [i for i, w in enumerate(words) if re.fullmatch(r"[a-z]", w)]
    else:
        row_ids = cols
    sub = table[np.ix_(row_ids, cols)]
    marked = p[sub]
    cell = min(0.32, 13.0 / max(len(cols), 1))
    width = max(6.5, 1.2 + cell * len(cols))
    # The generators' rows are few: each is as tall as a readable label, not a square cell.
    row_h = max(cell, 0.22) if rows == "generators" else cell
    height = max(3.5, 1.8 + row_h * len(row_ids))
    fig = _figure(width, height)
    ax = fig.add_subplot()
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    ax.imshow(
        marked.astype(np.uint8),
        cmap=ListedColormap(["white", "black"]),
        vmin=0,
        vmax=1,
        interpolation="nearest",
        aspect="auto" if rows == "generators" else "equal",
    )
    ax.set_xticks(np.arange(len(cols) + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(len(row_ids) + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="0.8", linewidth=0.4)
    ax.tick_params(which="minor", length=0)
    show_x = len(cols) <= 48 if labels is None else labels
    show_y = len(row_ids) <= 48 if labels is None else labels
    show = show_x or show_y
    for shown_here, ids, axis in ((show_x, cols, "x"), (show_y, row_ids, "y")):
        if not shown_here:
            getattr(ax, f"set_{axis}ticks")([])
            continue
        n_ids = len(ids) if rows == "generators" else len(cols)
        size_pt = 9 if n_ids <= 16 else 8 if n_ids <= 32 else 7
        texts = [word_tex(words[i]) for i in ids]
        if axis == "x":
            ax.set_xticks(range(len(ids)), texts, rotation=90, fontsize=size_pt)
            ticks = ax.get_xticklabels()
        else:
            ax.set_yticks(range(len(ids)), texts, fontsize=size_pt)
            ticks = ax.get_yticklabels()
        for tick, i in zip(ticks, ids):
            if p[i]:
                tick.set_color(LOSS)
    if show_x and show_y and len(cols) <= 16:
        for r, a in enumerate(row_ids):
            for c in cols:
                product = int(table[a, c])
                ax.text(c, r, word_tex(words[product]), ha="center", va="center", fontsize=8, color="white" if p[product] else "black")
    ax.set_xlabel("b")
    ax.set_ylabel("a (generators)" if rows == "generators" else "a")
    proven = f", period {q.period} from heap {q.preperiod}" if q.proven else f", heaps 1..{q.max_heap}"
    title = f"misère quotient of {q.game}: |Q| = {size}, |P| = {q.p_count}{proven}"
    if shown < size:
        title += f"\nthe first {shown} of {size} elements (in order of least word); limit=None draws all {size}"
    ax.set_title(title, fontsize=10)
    legend = [Patch(facecolor="black", edgecolor="0.5", label="a·b in P (a loss for the player to move)")]
    if show:
        legend.append(Patch(facecolor="white", edgecolor=LOSS, label="red label: a P-element"))
    fig.legend(handles=legend, loc="outside lower center", ncols=2, fontsize=8, frameon=False)
    return _save(fig, path, dpi)


def _name(game: Any) -> str:
    return game if isinstance(game, str) else getattr(game, "name", str(game))


def _staircase(game: Any) -> bool:
    if isinstance(game, str):
        return game.lower() in ("staircase", "staircase-nim")
    return getattr(game, "layout", None) == "staircase"


def _remedy(game: Any, size: int, fixed: List[int], misere: bool, staircase: bool) -> str:
    """What to run so that a slice gets answers."""
    name = repr(_name(game)) if isinstance(game, str) else "game"
    flag = ", misere=True" if misere else ""
    if staircase:
        total = 3 * size + sum((i + 3) * h for i, h in enumerate(fixed))
        solve = f"db.solve({name}, max_total={total}, max_heaps={2 + len(fixed)}{flag})"
    else:
        solve = f"db.solve({name}, max_total={2 * size + sum(fixed)}{flag})"
    family = isinstance(game, str) and re.match(r"(staircase|welter|raise:|hyper:)", game.lower())
    if misere and isinstance(game, str) and not family:
        heap = max([size] + fixed)
        return f"run db.quotient({name}, max_heap={heap}) (an octal game) or {solve} on a database opened with read_only=False"
    return f"run {solve} on a database opened with read_only=False"


def p_positions(
    db: _nimdb.Database,
    game: Union[str, _nimdb.DefinedGame],
    size: int,
    *,
    misere: bool = False,
    fixed: Sequence[int] = (),
    path: _Path = None,
    dpi: int = 120,
    cpu_limit: Optional[float] = None,
) -> "Figure":
    """Draws the P-positions of a slice: every position [a, b, *fixed] with 0 <= a, b <= size.

    A black cell is a P-position (a loss for the player to move), a white one an
    N-position, a blue one a draw (a loopy game's), a grey one a position nothing answered;
    a slice with unanswered positions says why (the largest one's reason) and what to run
    (``db.quotient`` for a misère octal game, or ``db.solve``). ``fixed`` adds heaps held
    constant, e.g. ``fixed=(5,)`` for the three-heap slice [a, b, 5]; for a staircase the
    axes are the coins on steps 1 and 2 and ``fixed`` the steps above. ``game`` is a name or
    a game from :func:`nimdb.define`. The answers come from ``db.query_many`` (stored
    solves, a stored misère quotient, theory), so for Wythoff's game at ``size=60`` the
    picture shows its two lines of pairs. ``size`` is from 1 to 2,000. ``cpu_limit`` is
    the CPU seconds each position's theory answer may take (``query_many``'s; default 5):
    a position past it is drawn unanswered, the reason naming the limit.
    """
    if not isinstance(db, _nimdb.Database):
        raise _nimdb.BadType(f"db must be a Database (nimdb.open), not {type(db).__name__}")
    if not isinstance(game, (str, _nimdb.DefinedGame)):
        raise _nimdb.BadType(f"game must be a name or a defined game, not {type(game).__name__}")
    size = _whole(size, "size", 1, MAX_SLICE)
    if not isinstance(misere, bool):
        raise _nimdb.BadType(f"misere must be True or False, not {misere!r}")
    if isinstance(fixed, (str, bytes)) or not hasattr(fixed, "__iter__"):
        raise _nimdb.BadType(f"fixed must be a sequence of heaps, not {type(fixed).__name__}")
    fixed = [_whole(h, "a fixed heap", 0, _nimdb.MAX_INPUT_HEAP) for h in fixed]
    dpi = _check_output(path, dpi)
    staircase = _staircase(game)
    a, b = np.meshgrid(np.arange(size + 1), np.arange(size + 1), indexing="ij")
    rows = np.column_stack([a.ravel(), b.ravel()] + [np.full(a.size, h) for h in fixed]).astype(np.int64)
    answers = db.query_many(game, rows, misere=misere, strict=False, cpu_limit=cpu_limit)
    outcome = np.asarray(answers.outcome).reshape(a.shape)
    # 0 P-position (black), 1 N-position (white), 2 draw (blue), 3 unanswered (grey).
    grid = np.select([outcome == 0, outcome == 1, outcome == 2], [0, 1, 2], default=3).astype(np.uint8)
    from matplotlib.colors import ListedColormap

    fig = _figure(7, 6.6)
    ax = fig.add_subplot()
    cmap = ListedColormap(["black", "white", "#90caf9", "0.6"])
    ax.imshow(grid.T, cmap=cmap, vmin=-0.5, vmax=3.5, origin="lower", interpolation="nearest")
    _integer_ticks(ax.xaxis, ax.yaxis)
    if staircase:
        ax.set_xlabel("coins on step 1")
        ax.set_ylabel("coins on step 2")
        heaps = ", ".join(["step 1", "step 2"] + [f"step {i + 3} = {h}" for i, h in enumerate(fixed)])
        bound = "at most"
    else:
        ax.set_xlabel("heap a")
        ax.set_ylabel("heap b")
        heaps = ", ".join(["a", "b"] + [str(h) for h in fixed])
        bound = "a, b ≤"
    losses = int((outcome == 0).sum())
    draws = int((outcome == 2).sum())
    unknown = int((outcome == -1).sum())
    name = _name(game)
    if staircase:
        title = f"P-positions [{heaps}] of {name}{' (misère)' if misere else ''}, steps 1, 2 {bound} {size}: {losses} black"
    else:
        title = f"P-positions [{heaps}] of {name}{' (misère)' if misere else ''}, {bound} {size}: {losses} black"
    if draws:
        title += f", {draws} draws (blue)"
    if unknown:
        title += f", {unknown} unanswered (grey)"
    ax.set_title(title, fontsize=10)
    if unknown:
        # The largest position's reason, to its first clause: the gist, short.
        reason = answers.errors[-1][1] if answers.errors else "no stored solve, quotient or theorem answers them"
        reason = re.sub(r"^position \d+: ", "", reason).split("; ")[0]
        if len(reason) > 160:
            reason = reason[:159] + "…"
        remedy = _remedy(game, size, fixed, misere, staircase)
        import textwrap

        note = textwrap.fill(f"{unknown} positions have no answer (e.g. {reason})", 90) + "\n" + textwrap.fill(f"To answer them, {remedy}.", 90)
        if unknown == outcome.size:
            ax.text(0.5, 0.5, note, transform=ax.transAxes, ha="center", va="center", fontsize=8, wrap=True,
                    bbox={"facecolor": "white", "edgecolor": "0.4", "boxstyle": "round"})
        else:
            fig.text(0.5, 0.0, note, ha="center", va="bottom", fontsize=7, color="0.2")
    return _save(fig, path, dpi)
