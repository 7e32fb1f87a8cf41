"""nimdb from Python: perfect play for Nim-family games.

A thin layer over the nimdb library (the same code as the ``nimdb`` command line)::

    import nimdb

    db = nimdb.open("games.sqlite", read_only=False)
    db.solve("kayles", max_total=20, misere=True)
    a = db.query("kayles", [7, 5, 3], misere=True)
    a.outcome, a.remoteness, a.best_move.description

    batch = db.query_many("kayles", positions, misere=True)   # numpy arrays
    table = db.export("kayles", misere=True)                  # numpy arrays
    nimdb.heap_values("dawson", 200).period                  # 34
    nimdb.quotient("kayles").size                             # misère quotient: 40

    # Your own game, by its moves, solved by the same solvers:
    game = nimdb.define("my-nim", lambda p: [p[:i] + (k,) + p[i + 1:] for i, h in enumerate(p) for k in range(h)])
    db.solve(game, max_total=12)

Errors are :class:`NimdbError` with the library's messages, one of its kinds: bad input is
:class:`BadGame`, :class:`BadPosition` or :class:`BadArgument` (each also a ``ValueError``) or
:class:`BadType` (a ``TypeError``); a position nothing answers is :class:`NotAnswered` (a
``LookupError``); a refusal by budget :class:`TooCostly`; the file :class:`DatabaseError`. Long calls release the GIL
and stop cleanly on Ctrl-C. Pictures (matplotlib) are in :mod:`nimdb.plot`. In Jupyter, answers,
moves, nim-sequences and quotients display as HTML, and ``nimdb.Position(game, heaps)`` draws a
position (SVG), as the explorer (``nimdb serve``) does.
"""

from ._nimdb import (
    AUTO_SOLVE_LIMIT,
    MAX_INPUT_HEAP,
    MAX_SOLVE_TOTAL,
    Answer,
    BadArgument,
    BadGame,
    BadPosition,
    BadType,
    Database,
    DefinedGame,
    DatabaseError,
    Estimate,
    Export,
    HeapValues,
    Lookups,
    Move,
    NimdbError,
    NotAnswered,
    Quotient,
    SolveInfo,
    SolveSummary,
    Theorem,
    TheoremCheck,
    TooCostly,
    VerifyReport,
    __version__,
    define,
    estimate,
    heap_values,
    open,
    play,
    quotient,
    tree,
)
from ._display import Position
from . import plot


def theorem(citation, *, gives="nim-value", misere=False, proven=False):
    """A decorator: ``@nimdb.theorem("my conjecture", gives="outcome")`` above a formula
    ``def f(position): ...`` makes it a :class:`Theorem` with those arguments."""

    def make(formula):
        return Theorem(citation, formula, gives=gives, misere=misere, proven=proven)

    return make


# Deprecated names: one Answer and one Move serve every game since nimdb 0.4.
SpacedAnswer = Answer
SpacedMove = Move

__all__ = [
    "AUTO_SOLVE_LIMIT",
    "MAX_INPUT_HEAP",
    "MAX_SOLVE_TOTAL",
    "Answer",
    "BadArgument",
    "BadGame",
    "BadPosition",
    "BadType",
    "Database",
    "DefinedGame",
    "DatabaseError",
    "Estimate",
    "Export",
    "HeapValues",
    "Lookups",
    "Move",
    "NimdbError",
    "NotAnswered",
    "Position",
    "Quotient",
    "SolveInfo",
    "SolveSummary",
    "SpacedAnswer",
    "SpacedMove",
    "Theorem",
    "TheoremCheck",
    "TooCostly",
    "VerifyReport",
    "__version__",
    "define",
    "estimate",
    "heap_values",
    "open",
    "play",
    "plot",
    "quotient",
    "theorem",
    "tree",
]
