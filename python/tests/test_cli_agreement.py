"""Answers from Python equal the command line's: `query --json` on 1,000 positions of each of
three games (misère Nim, Kayles, misère Dawson's Kayles), and `query --batch` for query_many."""

import json
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import nimdb
from conftest import GAMES, cli, cli_json

POSITIONS_PER_GAME = 1000


def move_dict(m: "nimdb.Move") -> dict:
    d = {"to": list(m.to)}
    # A heap game's move names its heap and tokens; JSON leaves them out for the others.
    if m.heap is not None:
        d["heap"] = m.heap
    if m.taken is not None:
        d["taken"] = m.taken
    d.update({"description": m.description, "outcome": m.outcome, "remoteness": m.remoteness})
    return d


def answer_dict(a: "nimdb.Answer") -> dict:
    """The typed answer, field by field, in the shape `query --json` prints."""
    d = {
        "game": a.game,
        "convention": "misere" if a.misere else "normal",
        "position": list(a.position),
        "outcome": a.outcome,
        "remoteness": a.remoteness,
        "nim_value": a.nim_value,
        "best_move": None if a.best_move is None else move_dict(a.best_move),
        "moves": [move_dict(m) for m in a.moves],
        "source": a.source,
        "solve_id": a.solve_id,
    }
    if a.moves_omitted:
        d["moves_omitted"] = a.moves_omitted
    if a.theorem is not None:
        d["theorem"] = a.theorem
    return d


# The theorem's name, as `nimdb query` prints it and `Answer.theorem` holds it, by the rule
# `query --json` names it by.
THEOREM_NAMES = {
    "bouton": "Bouton's theorem",
    "moore": "Moore's theorem",
    "wythoff": "Wythoff's pairs",
    "oddsteps": "Staircase Nim: the odd steps are Nim",
    "welter": "Welter's function, Sato's form",
    "smith": "Smith's generalized Sprague–Grundy values",
    "exactnim": "exact k-Nim's longest play, Boros–Gurvich–Ho–Makino–Mursić 2018",
}


def named_theorem(answer: dict) -> dict:
    """`query --json`'s answer with its theorem given by name."""
    if "theorem" in answer:
        answer["theorem"] = THEOREM_NAMES[answer["theorem"]["rule"]]
    return answer


def sample(db: "nimdb.Database", game: str, misere: bool) -> list:
    """1,000 positions: stored ones drawn at random, and (for Nim, which Bouton's rule answers
    at any size) some beyond every database."""
    stored = db.export(game, misere=misere)
    rng = np.random.default_rng(21)
    beyond = 100 if game == "nim" else 0
    rows = stored.heaps[rng.choice(len(stored), POSITIONS_PER_GAME - beyond, replace=False)]
    positions = [[int(h) for h in row if h] for row in rows]
    for _ in range(beyond):
        positions.append([int(h) for h in rng.integers(1, 10**15, size=int(rng.integers(1, 5)))])
    return positions


@pytest.mark.parametrize("game,misere,total", GAMES)
def test_query_equals_cli_query_json(solved, nimdb_bin, game, misere, total):
    db = nimdb.open(solved)
    positions = sample(db, game, misere)
    flags = ["query", "--json", "--db", str(solved), "--game", game] + (["--misere"] if misere else [])

    def from_cli(heaps):
        return named_theorem(json.loads(cli(nimdb_bin, *flags, " ".join(map(str, heaps)) or "[]").stdout))

    with ThreadPoolExecutor(max_workers=4) as pool:
        expected = list(pool.map(from_cli, positions))
    sources = set()
    for heaps, want in zip(positions, expected):
        got = answer_dict(db.query(game, heaps, misere=misere))
        assert got == want, f"{game} {heaps}"
        sources.add(got["source"])
    assert "database" in sources
    if game == "nim":
        assert "theory" in sources


@pytest.mark.parametrize("game,misere,total", GAMES)
def test_query_many_equals_cli_batch(solved, nimdb_bin, game, misere, total):
    db = nimdb.open(solved)
    positions = sample(db, game, misere)
    flags = ["query", "--batch", "--db", str(solved), "--game", game] + (["--misere"] if misere else [])
    lines = cli(nimdb_bin, *flags, stdin="".join((" ".join(map(str, p)) or "[]") + "\n" for p in positions)).stdout
    expected = [json.loads(line) for line in lines.splitlines()]
    got = db.query_many(game, positions, misere=misere)
    assert len(got) == len(expected) == POSITIONS_PER_GAME
    for i, want in enumerate(expected):
        assert got.outcome[i] == (1 if want["outcome"] == "win" else 0), i
        assert got.remoteness[i] == (-1 if want["remoteness"] is None else want["remoteness"]), i
        assert got.nim_value[i] == (-1 if want["nim_value"] is None else want["nim_value"]), i
        assert nimdb.Lookups.SOURCES[got.source[i]] == want["source"], i
    # The same positions as a zero-padded 2-D array give the same answers.
    width = max(len(p) for p in positions if max(p, default=0) < 2**63)
    small = [p for p in positions if max(p, default=0) < 2**63 and len(p) <= width]
    array = np.zeros((len(small), width), dtype=np.int64)
    for i, p in enumerate(small):
        array[i, : len(p)] = p
    from_array = db.query_many(game, array, misere=misere)
    from_lists = db.query_many(game, small, misere=misere)
    assert (from_array.outcome == from_lists.outcome).all()
    assert (from_array.remoteness == from_lists.remoteness).all()


def test_export_equals_cli_export(solved, nimdb_bin):
    db = nimdb.open(solved)
    exported = db.export("kayles")
    csv = cli(nimdb_bin, "export", "--db", str(solved), "--game", "kayles").stdout.splitlines()
    assert csv[0] == "position,outcome,remoteness"
    assert len(csv) - 1 == len(exported) == exported.heaps.shape[0]
    for row, line in zip(range(len(exported)), csv[1:]):
        heaps, outcome, remoteness = line.split(",")
        assert [int(h) for h in exported.heaps[row] if h] == [int(h) for h in heaps.split()]
        assert bool(exported.win[row]) == (outcome == "win")
        assert int(exported.remoteness[row]) == int(remoteness)
    losses = db.export("kayles", losses_only=True, max_total=12)
    assert not losses.win.any() and len(losses) > 0
    assert (losses.heaps.sum(axis=1) <= 12).all()
    assert exported.nim_value is None


def test_heap_values_equal_cli_heaps(nimdb_bin, tmp_path):
    got = nimdb.heap_values("kayles", 200)
    want = json.loads(cli(nimdb_bin, "heaps", "--json", "--no-cache", "--game", "kayles", "--up-to", "200").stdout)
    assert list(got.values) == want["values"]
    assert (got.period, got.preperiod, got.proven) == (want["period"], want["preperiod"], want["proven"])
    assert (got.period, got.preperiod, got.proven) == (12, 71, True)
    # The misère values, genus and tameness of heaps 0..=misere_up_to (the command line
    # writes null past it).
    m = got.misere_up_to
    assert m == 30 and want["misere_values"][m + 1] is None and want["misere_values"][m] is not None
    assert got.misere_values.tolist() == want["misere_values"][: m + 1]
    assert got.genus.tolist() == want["genus"][: m + 1]
    assert got.tame.tolist() == want["tame"][: m + 1]
    assert got.summary == want["summary"]


def test_quotient_equals_cli_quotient(nimdb_bin, tmp_path):
    got = nimdb.quotient("kayles")
    want = json.loads(
        cli(nimdb_bin, "quotient", "--json", "--game", "kayles", "--db", str(tmp_path / "q.sqlite")).stdout
    )
    assert got.size == want["size"] and got.p_count == want["p_count"]
    assert got.table.tolist() == want["table"]
    assert got.p_elements == want["p_elements"]
    assert [int(i) for i in np.flatnonzero(got.p)] == want["p_elements"]
    assert got.heap_elements == want["heap_elements"]
    assert (got.period, got.preperiod) == (want["period"], want["preperiod"])
    assert got.proven and got.tame == want["tame"]
    # Its P-positions agree with a stored solve of misère Kayles where both answer.
    db_path = tmp_path / "k.sqlite"
    db = nimdb.open(db_path, read_only=False)
    db.solve("kayles", max_total=16, misere=True)
    table = db.export("kayles", misere=True)
    for row, win in zip(table.heaps, table.win):
        assert got.is_p([int(h) for h in row if h]) == (not win)


def test_export_with_nim_values_equals_cli_export(nimdb_bin, tmp_path):
    path = tmp_path / "nv.sqlite"
    db = nimdb.open(path, read_only=False)
    db.solve("kayles", 14, nim_values=True)
    exported = db.export("kayles")
    csv = cli(nimdb_bin, "export", "--db", str(path), "--game", "kayles").stdout.splitlines()
    assert csv[0] == "position,outcome,remoteness,nim_value"
    assert [int(line.split(",")[3]) for line in csv[1:]] == exported.nim_value.tolist()
    # Normal play: a loss exactly where the nim-value is 0.
    assert ((exported.nim_value == 0) == ~exported.win).all()


def test_a_stored_quotient_answers_query_many_as_the_cli(nimdb_bin, tmp_path):
    path = tmp_path / "q.sqlite"
    db = nimdb.open(path, read_only=False)
    db.solve("kayles", 10, misere=True)
    huge = [[10**12, 5], [10**15 + 3, 10**9, 7], [2**63, 1], [12, 11, 10, 9]]
    before = db.query_many("kayles", huge, misere=True, strict=False)
    assert list(before.outcome) == [-1] * len(huge)  # nothing stored answers them yet
    q = db.quotient("kayles")
    assert q.proven and q.size == 40
    lookups = db.query_many("kayles", huge, misere=True)
    assert {nimdb.Lookups.SOURCES[s] for s in lookups.source} == {"quotient"}
    flags = ["query", "--batch", "--db", str(path), "--game", "kayles", "--misere"]
    lines = cli(nimdb_bin, *flags, stdin="".join(" ".join(map(str, p)) + "\n" for p in huge)).stdout
    want = [json.loads(line) for line in lines.splitlines()]
    assert [1 if w["outcome"] == "win" else 0 for w in want] == list(lookups.outcome)
    assert [w["source"] for w in want] == ["quotient"] * len(huge)
    assert [int(not q.is_p(p)) for p in huge] == list(lookups.outcome)
    # Read back, not recomputed, by a read-only connection; and a read-only database that has
    # none computes one without writing.
    again = nimdb.open(path).quotient("kayles")
    assert (again.table == q.table).all() and again.heap_elements == q.heap_elements
    other = tmp_path / "other.sqlite"
    nimdb.open(other, read_only=False).solve("nim", 4)
    size = other.stat().st_size
    assert nimdb.open(other).quotient("dawson", max_heap=12).size > 1
    assert other.stat().st_size == size
    assert "dawson" not in cli(nimdb_bin, "info", "--db", str(other)).stdout


def test_read_only_theorem_answers_equal_cli_query_json(tmp_path, nimdb_bin):
    # Finding: a read-only Database.query('nim', [7, 5, 3]) on a database without that solve
    # raised "no theorem gives its value". Past what a query solves on the spot it answers as
    # `nimdb --read-only query --json` does, every field the same (the theorem's name too);
    # within it (where the command line would solve, and refuses to when read-only), as
    # `query --batch` does.
    path = tmp_path / "empty.sqlite"
    nimdb.open(path, read_only=False).close()
    db = nimdb.open(path)
    for game, heaps, misere in [
        ("nim", [10**6, 5], False),
        ("nim", [2**40, 3], False),
        ("nim", [10**6, 999, 5], True),
        ("kayles", [700, 500, 300], False),
        ("wythoff", [3000, 5000], False),
    ]:
        flags = ["--read-only", "query", "--json", "--db", str(path), "--game", game] + (["--misere"] if misere else [])
        want = named_theorem(json.loads(cli(nimdb_bin, *flags, " ".join(map(str, heaps))).stdout))
        got = answer_dict(db.query(game, heaps, misere=misere))
        assert got == want, (game, heaps, misere)
        assert got["source"] == "theory"
    for game, heaps in [("nim", [7, 5, 3]), ("kayles", [7, 5, 3])]:
        line = cli(nimdb_bin, "--read-only", "query", "--batch", "--db", str(path), "--game", game, stdin=" ".join(map(str, heaps)) + "\n").stdout
        want = json.loads(line)
        got = answer_dict(db.query(game, heaps))
        assert {k: got[k] for k in ("position", "outcome", "remoteness", "nim_value", "source", "solve_id")} == {
            k: want[k] for k in ("position", "outcome", "remoteness", "nim_value", "source", "solve_id")
        }
    assert db.query("nim", [7, 5, 3]).theorem == "Bouton's theorem"


def test_a_database_keeps_one_quotient_per_game_and_reads_smaller_ranges_off_it(tmp_path, nimdb_bin):
    # Database.quotient keeps quotients as `nimdb quotient` does: one per game, the furthest
    # (or a proven one); a smaller range is read off it, equal to computing that range, and
    # a larger one goes on from it.
    path = tmp_path / "one.sqlite"
    db = nimdb.open(path, read_only=False)
    first = db.quotient("dawson", max_heap=20)
    assert db.quotient("dawson", max_heap=24).max_heap == 24
    rows = [line for line in cli(nimdb_bin, "info", "--db", str(path)).stdout.splitlines() if "dawson" in line]
    assert len(rows) == 1 and "1..24" in rows[0], rows
    for n, want in ((20, first), (9, nimdb.quotient("dawson", max_heap=9))):
        got = nimdb.open(path).quotient("dawson", max_heap=n)
        assert (got.table == want.table).all() and got.heap_elements == want.heap_elements
        assert got.size == want.size and got.p_count == want.p_count
    # The command line reads the same ranges from it.
    out = cli_json(nimdb_bin, "quotient", "--game", "dawson", "--max-heap", "20", "--json", "--db", str(path))
    assert out["reused"] and out["heap_elements"] == first.heap_elements
