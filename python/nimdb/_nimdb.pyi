"""Type stubs for nimdb's native module (``nimdb._nimdb``); ``nimdb`` re-exports it."""

import os
import pathlib
from typing import Any, Callable, ClassVar, Iterable, Literal, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt
from typing import final

__all__ = [
    "AUTO_SOLVE_LIMIT",
    "Answer",
    "BadArgument",
    "BadGame",
    "BadPosition",
    "BadType",
    "Database",
    "DatabaseError",
    "DefinedGame",
    "Estimate",
    "Export",
    "HeapValues",
    "Lookups",
    "MAX_INPUT_HEAP",
    "MAX_SOLVE_TOTAL",
    "Move",
    "NimdbError",
    "NotAnswered",
    "Quotient",
    "SolveInfo",
    "SolveSummary",
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
    "quotient",
    "tree",
]

__version__: str
MAX_INPUT_HEAP: int
"""The largest heap nimdb looks up, solves or computes nim-values for."""
MAX_SOLVE_TOTAL: int
"""The largest ``max_total`` a solve takes."""
AUTO_SOLVE_LIMIT: int
"""The largest universe (in positions) a writable ``query`` solves on the spot."""

_PositionLike = Union[Sequence[int], str]
"""Heap sizes in any order (zeros dropped), or a string such as ``"7 5 3"``."""
_Outcome = Literal["win", "loss"]
_SourceName = Literal["database", "solved", "theory", "quotient", "user-theorem"]

class NimdbError(Exception):
    """An error from nimdb, carrying the library's message. Every error nimdb raises itself
    is one (most of them one of its kinds below); a value of the wrong type for a declared
    argument (``game=3``, ``misere=None``, ``open(None)``) is Python's own TypeError, whose
    note names the argument."""

class BadGame(NimdbError, ValueError):
    """An unknown or malformed game, or one the call does not take."""

class BadPosition(NimdbError, ValueError):
    """Something that is not a position of the game."""

class BadArgument(NimdbError, ValueError):
    """An argument out of its range: a negative count, a bound too large, a budget that is no size."""

class BadType(NimdbError, TypeError):
    """A value of the wrong kind where nimdb reads it itself (positions, lengths, sizes)."""

class NotAnswered(NimdbError, LookupError):
    """No stored solve, misère quotient or theorem answers the position, and none may be computed here."""

class TooCostly(NimdbError):
    """Refused up front, or stopped, because it would pass a budget: memory, disk, the file-size limit, elements, time."""

class DatabaseError(NimdbError):
    """The database file cannot be opened, read or written, or the handle is closed, read-only, or in use by the call that runs this one."""

_Outcome3 = Literal["win", "loss", "draw"]

@final
class Move:
    """One move and the value of the position it leads to (any game)."""

    heap: Optional[int]
    """For a heap game, the size of the heap moved in; None for staircase, welter, raise:C."""
    taken: Optional[int]
    """For a heap game, the tokens taken; None otherwise."""
    description: str
    """The move in words, with the position it leads to."""
    outcome: _Outcome3
    """The outcome for the player to move after it (the opponent)."""
    remoteness: Optional[int]
    """Its remoteness, when known (never for a draw)."""
    @property
    def to(self) -> Tuple[int, ...]:
        """The position after the move, in the game's canonical form."""
    def _repr_html_(self) -> str:
        """HTML for Jupyter: the move, coloured by its outcome as in the explorer."""

@final
class Answer:
    """The answer to one position of any game: what ``nimdb query --json`` prints."""

    game: str
    """The canonical game."""
    misere: bool
    outcome: _Outcome3
    """The outcome for the player to move: a loopy game's positions may be draws."""
    remoteness: Optional[int]
    """Moves to the end under optimal play, when known (never for a draw or a theorem)."""
    nim_value: Optional[int]
    """The nim-value (misère nim-value under misère), when stored or known."""
    best_move: Optional[Move]
    """Fastest win, slowest loss, or a move that keeps the draw; None at a terminal position."""
    moves: list[Move]
    """Every move in move order (empty when there are too many to list)."""
    moves_omitted: int
    """How many moves were left out of ``moves``."""
    source: _SourceName
    """Where the answer came from."""
    theorem: Optional[str]
    """The theorem, when the answer is a theorem's: its name, as ``nimdb query`` prints it;
    the user's citation when ``source`` is "user-theorem" (a ``Theorem`` marked proven)."""
    solve_id: Optional[int]
    """The stored solve used, if any."""
    @property
    def position(self) -> Tuple[int, ...]:
        """The position, in the game's canonical form (a staircase's step 1 first)."""
    @property
    def win(self) -> bool:
        """Whether the player to move wins."""
    def _repr_html_(self) -> str:
        """HTML for Jupyter: the position drawn, outcome, remoteness, source, and the moves
        coloured as in the explorer (at most 60 listed, then "… N more moves")."""

@final
class Lookups:
    """The answers to a batch of positions, one array entry per position, in order."""

    SOURCES: ClassVar[Tuple[str, str, str, str, str]]
    """The names of the ``source`` codes."""
    outcome: npt.NDArray[np.int8]
    """1 when the player to move wins, 0 when they lose, 2 for a draw (a loopy game's:
    ``raise:C``), -1 for no answer."""
    remoteness: npt.NDArray[np.int32]
    """-1 when unknown (and for a draw)."""
    nim_value: npt.NDArray[np.int64]
    """-1 when unknown."""
    source: npt.NDArray[np.uint8]
    """An index into ``SOURCES``; 255 for no answer."""
    errors: list[Tuple[int, str]]
    """``(index, message)`` of each position that got no answer (``strict=False``)."""
    def __len__(self) -> int: ...
    def to_frame(self, positions: Optional[Union[Iterable[_PositionLike], npt.NDArray[np.integer[Any]]]] = None) -> Any:
        """A pandas DataFrame, one row per position (needs pandas)."""

@final
class SolveSummary:
    """Figures from one ``Database.solve`` run."""

    solve_id: int
    status: Literal["complete", "partial"]
    positions: int
    """Positions in the universe."""
    solved_now: int
    """Positions solved in this run."""
    losses_now: int
    tiers_now: int
    seconds: float
    stored_positions: int
    stored_losses: int
    spilled_bytes: int
    """Bytes of lower tiers spilled to mapped files (0 when the solve fit in memory)."""
    peak_window_bytes: int
    """The most bytes of lower tiers held in memory at once."""

@final
class SolveInfo:
    """One stored solve."""

    id: int
    game: str
    misere: bool
    max_total: int
    max_heap: Optional[int]
    max_heaps: Optional[int]
    nim_values: bool
    status: Literal["complete", "partial"]
    positions: int
    losses: int

@final
class Export:
    """Every stored position of a solve, as numpy arrays (one entry per position)."""

    solve_id: int
    game: str
    misere: bool
    heaps: npt.NDArray[np.uint32]
    """Shape (n, width): heaps largest first, zero-padded; for ``staircase``, ``welter`` and
    ``raise:C`` the position in the family's notation (a staircase's step 1 first)."""
    lengths: npt.NDArray[np.uint32]
    """Each row's count of entries (what tells a Welter 0 heap from padding)."""
    win: npt.NDArray[np.bool_]
    """Whether the player to move wins (False for a draw)."""
    draw: npt.NDArray[np.bool_]
    """Whether the position is a draw (only a loopy game's, ``raise:C``, may be)."""
    remoteness: npt.NDArray[np.uint16]
    """Moves to the end under optimal play; 65535 for a draw."""
    nim_value: Optional[npt.NDArray[np.uint16]]
    """Nim-values, or None when the solve has none."""
    def __len__(self) -> int: ...
    def to_frame(self) -> Any:
        """A pandas DataFrame, one row per position, positions as tuples (needs pandas)."""

_ProgressCallback = Callable[[int, int, Optional[str]], object]
"""``progress(done, total, tier)``: positions done and in the universe, the tier just solved."""

@final
class Database:
    """An open nimdb database (see :func:`open`)."""

    @property
    def path(self) -> pathlib.Path: ...
    @property
    def read_only(self) -> bool: ...
    def close(self) -> None:
        """Closes the connection and ends the idle threads of its on-the-spot solves' pool;
        later calls raise DatabaseError, and closing again does nothing (``with
        nimdb.open(...) as db:`` closes at the block's end). From a callback of a call on
        this database (a ``solve`` progress callback) it raises DatabaseError."""
    def __enter__(self) -> "Database": ...
    def __exit__(self, exc_type: object, exc_value: object, traceback: object) -> None: ...
    def solves(self) -> list[SolveInfo]:
        """The stored solves."""
    def query(
        self, game: _GameLike, position: _PositionLike, misere: bool = False, *, cpu_limit: Optional[float] = None
    ) -> Answer:
        """The answer to one position of any game, as ``nimdb query --json`` gives it (past
        the stored solves of a ``define``d game, from its ``Theorem`` marked proven); work
        predicted past ``cpu_limit`` CPU seconds (default 5) raises ``TooCostly`` at once, and
        work past it is stopped; only the answer's own threads count, not the program's
        other threads."""
    def query_spaced(
        self,
        game: _GameLike,
        position: Union[Sequence[int], str],
        misere: bool = False,
        *,
        cpu_limit: Optional[float] = None,
    ) -> Answer:
        """Deprecated: ``query`` answers every game."""
    def query_many(
        self,
        game: _GameLike,
        positions: Union[Iterable[_PositionLike], npt.NDArray[np.integer]],
        misere: bool = False,
        strict: bool = True,
        *,
        lengths: Union[Sequence[int], npt.NDArray[np.integer], None] = None,
        cpu_limit: Optional[float] = None,
    ) -> Lookups:
        """The answers to many positions at ``nimdb query --batch`` speed (GIL released).

        Any game, ``staircase``, ``welter`` and ``raise:C`` too (outcome 2: a draw). A 2-D
        array of Welter positions needs ``lengths`` (a Welter heap may be 0). Each
        position's theory may take ``cpu_limit`` CPU seconds (default 5), as ``query``'s
        answer: predicted past it, or stopped at it, the position raises ``TooCostly``
        (``strict=True``) or gets outcome -1 and its message in ``errors``."""
    def solve(
        self,
        game: _GameLike,
        max_total: Optional[int] = None,
        *,
        max_heap: Optional[int] = None,
        max_heaps: Optional[int] = None,
        misere: bool = False,
        nim_values: bool = False,
        memory_limit: Union[int, str, None] = None,
        window_limit: Union[int, str, None] = None,
        progress: Optional[_ProgressCallback] = None,
    ) -> SolveSummary:
        """Solves a universe into the database; Ctrl-C stops cleanly before the next tier.

        Refused with NimdbError before anything is written when it would not fit the memory
        budget, the disk free beside the database or the file-size limit (ulimit -f)."""
    def quotient(
        self,
        game: str,
        *,
        max_heap: Optional[int] = None,
        max_elements: int = 4096,
        memory_limit: Optional[int] = None,
        seconds: Optional[float] = None,
    ) -> Quotient:
        """The game's misère quotient: the stored one, else computed (and stored if writable);
        ``seconds`` is a time budget (default 10 s for an open-ended call, none with
        ``max_heap``), past which, or when a limit stops a heap, NimdbError says how far it got
        and the verified quotient of the heaps done is stored."""
    def export(
        self,
        game: _GameLike,
        misere: bool = False,
        *,
        solve: Optional[int] = None,
        losses_only: bool = False,
        max_total: Optional[int] = None,
    ) -> Export:
        """Every stored position of a solve as numpy arrays (any game; see ``Export``)."""
    def verify(
        self,
        game: _GameLike,
        misere: bool = False,
        *,
        sample: int = 10_000,
        seed: int = 1,
        full: bool = False,
        theorem: Union[Theorem, Sequence[Theorem], None] = None,
    ) -> VerifyReport:
        """Checks every stored solve of the game under one convention, as ``nimdb verify``
        does (any game; a ``define``d game against its function as it is now), and each
        ``Theorem`` of this convention (the game's own from ``define`` and those given
        here) against every stored position (``VerifyReport.theorems``)."""

@final
class VerifyReport:
    """What ``Database.verify`` found; ``ok`` is ``nimdb verify``'s exit status."""

    game: str
    misere: bool
    ok: bool
    theory: Optional[str]
    theory_text: str
    theorem: bool
    solves: list[int]
    checked: int
    agree: int
    mismatches: int
    no_theorem: int
    first_mismatches: list[Tuple[int, ...]]
    nim_values_checked: int
    nim_value_mismatches: int
    sampled: int
    recomputed: int
    recomputed_mismatches: int
    draws: int
    consistent: bool
    problems: list[str]
    quotient_checked: Optional[int]
    quotient_mismatches: Optional[int]
    theorems: list[TheoremCheck]
    """Each user's theorem or conjecture of this convention, checked on every stored position."""
    json: str
    """The whole report as one JSON object, as ``nimdb verify --json`` prints it."""
    def __bool__(self) -> bool: ...
    def to_dict(self) -> dict[str, Any]:
        """Every field, as ``nimdb verify --json`` prints them."""

@final
class Theorem:
    """A formula the user states of a game: ``formula(position)`` gives its nim-value (an
    int; the misère nim-value under misère) or, with ``gives="outcome"``, its outcome
    ('win', 'loss', 'draw'), under the convention ``misere`` says; ``citation`` names it.
    ``Database.verify`` checks it on every stored position; given to ``define`` with
    ``proven=True`` it also answers positions past the stored solves (source
    "user-theorem"). A conjecture (``proven=False``) is only checked."""

    def __new__(
        cls,
        citation: str,
        formula: Callable[[Tuple[int, ...]], Union[int, str]],
        *,
        gives: Literal["nim-value", "nim_value", "outcome"] = "nim-value",
        misere: bool = False,
        proven: bool = False,
    ) -> "Theorem": ...
    @property
    def citation(self) -> str: ...
    @property
    def formula(self) -> Callable[[Tuple[int, ...]], Union[int, str]]: ...
    @property
    def gives(self) -> Literal["nim-value", "outcome"]: ...
    @property
    def misere(self) -> bool: ...
    @property
    def proven(self) -> bool: ...

@final
class TheoremCheck:
    """One user's theorem checked by ``Database.verify`` against every stored position."""

    citation: str
    gives: Literal["nim-value", "outcome"]
    proven: bool
    checked: int
    agree: int
    counterexamples: int
    first_counterexamples: list[Tuple[Tuple[int, ...], Union[int, str], Union[int, str]]]
    """The smallest (at most 10): (position, the formula's value, the database's)."""
    def __bool__(self) -> bool: ...

@final
class Estimate:
    """What a solve would take, as ``nimdb solve --dry-run`` prints it."""

    universe: str
    tiers: int
    positions: int
    memory_bytes: int
    """Peak bytes of memory if nothing spills."""
    window_bytes: int
    """The part of memory_bytes that is lower tiers, which a solve over budget spills."""
    disk_bytes: int
    """Bytes of database file the solve's tiers take, at most (from an empty file)."""
    log_bytes: int
    """Bytes of write-ahead log the solve holds at its peak, at most, beside the database."""
    spill_past: Optional[int]
    """None when the solve fits the budget, else the bytes of lower tiers it would hold."""

def estimate(
    game: _GameLike,
    max_total: Optional[int] = None,
    *,
    max_heap: Optional[int] = None,
    max_heaps: Optional[int] = None,
    misere: bool = False,
    nim_values: bool = False,
    memory_limit: Union[int, str, None] = None,
) -> Estimate:
    """What solving a universe would take (raises NimdbError if it would be refused)."""

@final
class DefinedGame:
    """A game defined in Python by its moves (``nimdb.define``): pass it wherever a game
    name goes (``solve``, ``query``, ``query_many``, ``export``, ``estimate``)."""

    @property
    def name(self) -> str: ...
    @property
    def layout(self) -> str: ...
    @property
    def loopy(self) -> bool: ...
    @property
    def cap(self) -> Optional[int]: ...
    @property
    def fingerprint(self) -> str:
        """A hash of its moves on a fixed sample of positions (hex)."""
    @property
    def storage_id(self) -> str: ...
    @property
    def theorems(self) -> list[Theorem]:
        """The theorems and conjectures stated of it (``define(…, theorem=…)``)."""

_GameLike = Union[str, DefinedGame]

def define(
    name: str,
    moves: Optional[Callable[[Tuple[int, ...]], Iterable[Union[Sequence[int], Tuple[Sequence[int], str]]]]] = None,
    *,
    moves_many: Optional[Callable[[npt.NDArray[np.uint32]], Tuple[Any, Any]]] = None,
    layout: str = "multiset",
    heaps: Optional[int] = None,
    cap: Optional[int] = None,
    loopy: bool = False,
    theorem: Union[Theorem, Sequence[Theorem], None] = None,
) -> DefinedGame:
    """Defines a game by its moves, in one of nimdb's layouts ("multiset", "row" with
    ``heaps=N``, "staircase", "set"); a loopy game needs ``cap``. ``moves_many`` takes a
    batch of positions (an (n, width) array padded with zeros) and returns ``(children,
    of)``: the positions one move leads to, and the row each is a move from. ``theorem``
    states formulas of it (``Theorem``): checked by ``verify``; one marked proven answers
    positions past the stored solves."""

def play(
    game: _GameLike,
    position: _PositionLike,
    misere: bool = False,
    *,
    db: Database,
    players: Literal["human-computer", "computer-human", "human-human", "computer-computer"] = "human-computer",
    seed: Optional[int] = None,
    cpu_limit: Optional[float] = None,
) -> Literal["first", "second", "draw", "quit", "end-of-input"]:
    """Plays the game in the terminal as ``nimdb play`` does (the library's session and
    computer; lines read with ``input()``, written to ``sys.stdout``); a ``define``d game with
    its function's moves and labels and its stored solve's values. Returns how it ended.
    ``cpu_limit`` bounds the CPU seconds the computer takes to judge a new position (default
    5); work past it raises ``TooCostly``."""

def open(path: Union[str, "os.PathLike[str]"], read_only: bool = True) -> Database:
    """Opens a nimdb database (read-only by default; ``read_only=False`` creates it)."""

@final
class HeapValues:
    """A game's single-heap values for heaps 0..=up_to; sequences are numpy arrays of the
    smallest unsigned integer type that holds them (uint8 for most octal games)."""

    game: str
    up_to: int
    values: npt.NDArray[np.unsignedinteger[Any]]
    """g(0..=up_to): uint8, uint16 or uint32."""
    misere_up_to: Optional[int]
    """The last heap with a misère value, genus and tameness."""
    misere_values: npt.NDArray[np.unsignedinteger[Any]]
    """The misère nim-values of heaps 0..=misere_up_to."""
    genus: npt.NDArray[np.str_]
    """The genus of heaps 0..=misere_up_to, as text such as "1^31"."""
    tame: npt.NDArray[np.bool_]
    """Whether each of heaps 0..=misere_up_to is tame."""
    period: Optional[int]
    preperiod: Optional[int]
    proven: bool
    summary: str
    method: str
    def to_frame(self) -> Any:
        """A pandas DataFrame indexed by heap (needs pandas)."""
    def _repr_html_(self) -> str:
        """HTML for Jupyter: the periodicity and the values, a row a period (at most 600)."""

def heap_values(
    game: str, up_to: int, *, misere_up_to: int = 30, cpu_limit: Optional[float] = None
) -> HeapValues:
    """The single-heap nim-values of a game, with misère values, genus and periodicity;
    with ``cpu_limit``, values predicted past that many CPU seconds (of the calling thread)
    raise ``TooCostly`` at once, and a run past it is stopped (``TooCostly``)."""

@final
class Quotient:
    """A misère quotient (Plambeck–Siegel) of an octal game."""

    @property
    def game(self) -> str: ...
    @property
    def size(self) -> int:
        """|Q|."""
    @property
    def p_count(self) -> int:
        """|P|."""
    @property
    def max_heap(self) -> int: ...
    @property
    def table(self) -> npt.NDArray[np.uint32]:
        """Shape (size, size): the multiplication table."""
    @property
    def p(self) -> npt.NDArray[np.bool_]:
        """Whether each element is in P."""
    @property
    def p_elements(self) -> list[int]: ...
    @property
    def heap_elements(self) -> list[int]:
        """The element of each single heap 0..=max_heap."""
    @property
    def words(self) -> list[str]: ...
    @property
    def relations(self) -> list[str]: ...
    @property
    def period(self) -> Optional[int]: ...
    @property
    def preperiod(self) -> Optional[int]: ...
    @property
    def apparent(self) -> Optional[Tuple[int, int]]: ...
    @property
    def proven(self) -> bool: ...
    @property
    def tame(self) -> bool: ...
    def element(self, heaps: _PositionLike) -> int:
        """The element of a position."""
    def is_p(self, heaps: _PositionLike) -> bool:
        """Whether a position is a P-position (a loss for the player to move) in misère play."""
    def _repr_html_(self) -> str:
        """HTML for Jupyter: |Q|, |P|, generators, relations, and the multiplication table
        with its P-elements marked (past 24 elements, the generators' rows)."""

def quotient(
    game: str,
    *,
    max_heap: Optional[int] = None,
    max_elements: int = 4096,
    memory_limit: Optional[int] = None,
    seconds: Optional[float] = None,
) -> Quotient:
    """The misère quotient of an octal game (GIL released; Ctrl-C stops it); ``seconds`` is
    a time budget (default 10 s for an open-ended call, none with ``max_heap``), past which,
    or when a limit stops a heap, NimdbError says how far it got."""

def tree(
    game: _GameLike,
    position: _PositionLike,
    misere: bool = False,
    *,
    format: Literal["text", "dot"] = "text",
    dag: bool = False,
    alpha_beta: bool = False,
    max_nodes: int = 10_000,
    memory_limit: Union[int, str, None] = None,
) -> str:
    """The game tree below a position with minimax values, as ``nimdb tree`` draws it (text,
    or Graphviz DOT); any acyclic game, a ``define``d one with its function's labels."""
