"""Pictures of nimdb's answers, drawn with matplotlib (an optional dependency:
``pip install nimdb[plot]``).

Each function returns a :class:`matplotlib.figure.Figure` and, given ``path``, also saves it
there (PNG, SVG or PDF, chosen by the file's suffix). Figures are made without pyplot, so
they work headless and in notebooks alike (a notebook shows a returned Figure).

- :func:`nim_sequence`: the nim-values g(n) against the heap n, with the preperiod shaded
  and the first periods marked.
- :func:`quotient_table`: a misère quotient's multiplication table as a heat map, the
  products that land in P marked.
- :func:`p_positions`: the P-positions (losses for the player to move) of a two-heap slice
  [a, b], or of a three-heap slice [a, b, c] at a fixed c, read from a database (or theory)
  through ``query_many``.
"""

from __future__ import annotations

import os
from typing import Optional, Sequence, Union

import numpy as np

from . import _nimdb

__all__ = ["nim_sequence", "quotient_table", "p_positions"]


def _figure(width: float, height: float):
    try:
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("nimdb.plot needs matplotlib: pip install matplotlib (or nimdb[plot])") from e
    return Figure(figsize=(width, height), layout="constrained")


def _save(fig, path: Union[str, "os.PathLike[str]", None], dpi: int):
    if path is not None:
        fig.savefig(path, dpi=dpi)
    return fig


def nim_sequence(
    values: Union[_nimdb.HeapValues, str],
    up_to: Optional[int] = None,
    *,
    path: Union[str, "os.PathLike[str]", None] = None,
    dpi: int = 120,
):
    """Draws a nim-sequence: g(n) against the heap n, one dot a heap.

    ``values`` is a :class:`nimdb.HeapValues` or a game name (then ``nimdb.heap_values(game,
    up_to)`` is computed; ``up_to`` defaults to 200). When a period is found, the preperiod is
    shaded and a line marks the start of each period after it; the title says the period,
    preperiod and whether it is proven.
    """
    if isinstance(values, str):
        values = _nimdb.heap_values(values, 200 if up_to is None else up_to)
    g = np.asarray(values.values)
    n = np.arange(len(g))
    fig = _figure(10, 4)
    ax = fig.add_subplot()
    ax.plot(n, g, color="0.75", linewidth=0.8, zorder=1)
    ax.scatter(n, g, s=10, color="tab:blue", zorder=2)
    title = f"nim-sequence of {values.game}, heaps 0..{len(g) - 1}"
    if values.period is not None and values.preperiod is not None:
        p, e = values.period, values.preperiod
        ax.axvspan(-0.5, e - 0.5, color="tab:orange", alpha=0.12, label=f"preperiod (heaps 0..{e - 1})")
        starts = list(range(e, len(g), p))
        for i, s in enumerate(starts):
            ax.axvline(s - 0.5, color="tab:red", linewidth=0.8, linestyle="--", label="period starts" if i == 0 else None)
        status = "proven" if values.proven else "apparent"
        title += f": period {p} from heap {e} ({status})"
        ax.legend(loc="upper left", fontsize=8)
    else:
        title += ": no period found"
    ax.set_title(title)
    ax.set_xlabel("heap n")
    ax.set_ylabel("g(n)")
    ax.set_xlim(-0.5, len(g) - 0.5)
    ax.grid(axis="y", alpha=0.3)
    return _save(fig, path, dpi)


def quotient_table(
    q: Union[_nimdb.Quotient, str],
    *,
    path: Union[str, "os.PathLike[str]", None] = None,
    dpi: int = 120,
    labels: Optional[bool] = None,
):
    """Draws a misère quotient's multiplication table as a heat map.

    Cell [a, b] is coloured by the element a·b; cells whose product is a P-element are
    outlined and dotted, and the P-elements' row and column labels are bold. ``q`` is a
    :class:`nimdb.Quotient` or a game name (then ``nimdb.quotient(game)`` is computed).
    Elements are labelled by their least words (a, b, c…) when there are at most 48
    (``labels`` forces either way).
    """
    if isinstance(q, str):
        q = _nimdb.quotient(q)
    table = np.asarray(q.table)
    p = np.asarray(q.p)
    size = table.shape[0]
    side = min(14.0, 3.0 + 0.22 * size)
    fig = _figure(side + 1.5, side)
    ax = fig.add_subplot()
    image = ax.imshow(table, cmap="viridis", interpolation="nearest")
    fig.colorbar(image, ax=ax, label="element a·b", shrink=0.8)
    rows, cols = np.nonzero(p[table])
    ax.scatter(cols, rows, s=max(4.0, 600.0 / size), facecolors="white", edgecolors="black", linewidths=0.6, label="a·b in P")
    show = size <= 48 if labels is None else labels
    if show:
        words = q.words
        ax.set_xticks(range(size), words, rotation=90, fontsize=7)
        ax.set_yticks(range(size), words, fontsize=7)
        for tick_list in (ax.get_xticklabels(), ax.get_yticklabels()):
            for i, tick in enumerate(tick_list):
                if p[i]:
                    tick.set_fontweight("bold")
    ax.set_xlabel("b")
    ax.set_ylabel("a")
    proven = f", period {q.period} from heap {q.preperiod}" if q.proven else f", heaps 1..{q.max_heap}"
    ax.set_title(f"misère quotient of {q.game}: |Q| = {size}, |P| = {q.p_count}{proven}")
    ax.legend(loc="upper right", bbox_to_anchor=(1.0, -0.06), fontsize=8)
    return _save(fig, path, dpi)


def p_positions(
    db: _nimdb.Database,
    game: Union[str, _nimdb.DefinedGame],
    size: int,
    *,
    misere: bool = False,
    fixed: Sequence[int] = (),
    path: Union[str, "os.PathLike[str]", None] = None,
    dpi: int = 120,
):
    """Draws the P-positions of a slice: every position [a, b, *fixed] with 0 <= a, b <= size.

    A black cell is a P-position (a loss for the player to move), a white one an
    N-position, a grey one a position nothing answered. ``fixed`` adds heaps held constant,
    e.g. ``fixed=(5,)`` for the three-heap slice [a, b, 5]. ``game`` is a name or a game from
    :func:`nimdb.define` (the title names it by its name). The answers come from
    ``db.query_many`` (stored solves, a stored misère quotient, theory), so for Wythoff's
    game at ``size=60`` the picture shows its two lines of pairs.
    """
    fixed = [int(h) for h in fixed]
    a, b = np.meshgrid(np.arange(size + 1), np.arange(size + 1), indexing="ij")
    rows = np.column_stack([a.ravel(), b.ravel()] + [np.full(a.size, h) for h in fixed]).astype(np.int64)
    answers = db.query_many(game, rows, misere=misere, strict=False)
    outcome = np.asarray(answers.outcome).reshape(a.shape)
    grid = np.where(outcome == 0, 0.0, np.where(outcome == 1, 1.0, 0.6))
    fig = _figure(7, 6.4)
    ax = fig.add_subplot()
    ax.imshow(grid.T, cmap="gray", vmin=0, vmax=1, origin="lower", interpolation="nearest")
    ax.set_xlabel("a")
    ax.set_ylabel("b")
    heaps = ", ".join(["a", "b"] + [str(h) for h in fixed])
    losses = int((outcome == 0).sum())
    unknown = int((outcome == -1).sum())
    name = game if isinstance(game, str) else getattr(game, "name", str(game))
    title = f"P-positions [{heaps}] of {name}{' (misère)' if misere else ''}, a, b ≤ {size}: {losses} black"
    if unknown:
        title += f", {unknown} unanswered (grey)"
    ax.set_title(title, fontsize=10)
    return _save(fig, path, dpi)
