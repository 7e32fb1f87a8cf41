"""Games defined in Python (`nimdb.define`): solved by nimdb's own solvers, stored under
their name and a fingerprint of their moves, and answered by every Python call that takes
a game. Each is checked against the built-in game with the same rules, or against an
independent search written here."""

import numpy as np
import pytest

import nimdb


def nim_moves(p):
    """Nim: take any number from one heap."""
    return [p[:i] + (k,) + p[i + 1 :] for i, h in enumerate(p) for k in range(h)]


def raise_moves(cap):
    """Nim with raising: lower a heap, or add one to a nonempty heap below the cap."""

    def moves(p):
        out = nim_moves(p)
        out += [p[:i] + (h + 1,) + p[i + 1 :] for i, h in enumerate(p) if 0 < h < cap]
        return out

    return moves


def edges_moves(edges):
    """Hypergraph Nim on a row: lower every heap of one edge (edges 0-based)."""

    def moves(p):
        row = list(p) + [0] * (3 - len(p))
        out = []
        for e in edges:
            if all(row[i] > 0 for i in e):
                # Every way of lowering each heap of the edge.
                combos = [[]]
                for i in e:
                    combos = [c + [(i, v)] for c in combos for v in range(row[i])]
                for c in combos:
                    r = list(row)
                    for i, v in c:
                        r[i] = v
                    out.append(tuple(r))
        return out

    return moves


def rows_of(export):
    return [tuple(int(x) for x in row[:n]) for row, n in zip(export.heaps, export.lengths)]


def table(export):
    """Each exported position's (win, draw, remoteness), by position (two games' solves
    may order their tiers differently)."""
    return {
        p: (bool(w), bool(d), int(r))
        for p, w, d, r in zip(rows_of(export), export.win, export.draw, export.remoteness)
    }


@pytest.mark.parametrize("misere", [False, True])
def test_python_nim_equals_the_native_nim_on_every_position(tmp_path, misere):
    db = nimdb.open(tmp_path / "d.sqlite", read_only=False)
    mine = nimdb.define("my-nim", nim_moves)
    assert (mine.name, mine.layout, mine.loopy) == ("my-nim", "multiset", False)
    ours = db.solve(mine, max_total=12, misere=misere)
    native = db.solve("nim", max_total=12, misere=misere)
    assert ours.positions == native.positions and ours.status == "complete"
    a, b = db.export(mine, misere=misere), db.export("nim", misere=misere)
    assert table(a) == table(b) and len(table(a)) == ours.positions
    # Every answer face takes it: one query with its moves, a batch, the estimate.
    answer = db.query(mine, [3, 2, 1], misere=misere)
    assert (answer.outcome, answer.remoteness) == (db.query("nim", [3, 2, 1], misere=misere).outcome, answer.remoteness)
    assert answer.source == "database" and len(answer.moves) == 6
    batch = db.query_many(mine, [[3, 2, 1], [5, 4], [7]], misere=misere)
    native_batch = db.query_many("nim", [[3, 2, 1], [5, 4], [7]], misere=misere)
    assert (batch.outcome == native_batch.outcome).all() and (batch.remoteness == native_batch.remoteness).all()
    assert nimdb.estimate(mine, 12).positions == ours.positions


@pytest.mark.parametrize("misere", [False, True])
def test_a_python_row_game_equals_the_native_hypergraph_nim(tmp_path, misere):
    db = nimdb.open(tmp_path / "h.sqlite", read_only=False)
    mine = nimdb.define("my-hyper", edges_moves([(0, 1), (1, 2)]), layout="row", heaps=3)
    db.solve(mine, max_heap=5, misere=misere)
    db.solve("hyper:3:1+2,2+3", max_heap=5, misere=misere)
    a, b = db.export(mine, misere=misere), db.export("hyper:3:1+2,2+3", misere=misere)
    assert table(a) == table(b) and len(table(a)) == 216


def independent_loopy_search(moves, positions, misere):
    """Outcomes of a loopy game by rounds (a loss: every move to a win, or no move under
    normal play; a win: a move to a loss), the rest draws. Independent of nimdb."""
    kids = {p: set(moves(p)) for p in positions}
    value = {}
    changed = True
    while changed:
        changed = False
        for p in positions:
            if p in value:
                continue
            ks = [tuple(sorted((h for h in k if h), reverse=True)) for k in kids[p]]
            if not ks:
                value[p] = "win" if misere else "loss"
            elif any(value.get(k) == "loss" for k in ks):
                value[p] = "win"
            elif all(value.get(k) == "win" for k in ks):
                value[p] = "loss"
            else:
                continue
            changed = True
    return {p: value.get(p, "draw") for p in positions}


@pytest.mark.parametrize("misere", [False, True])
def test_a_python_loopy_game_gets_its_draws_right(tmp_path, misere):
    db = nimdb.open(tmp_path / "l.sqlite", read_only=False)
    mine = nimdb.define("my-raise", raise_moves(2), cap=2, loopy=True)
    db.solve(mine, max_heaps=4, misere=misere)
    db.solve("raise:2", max_heaps=4, misere=misere)
    a, b = db.export(mine, misere=misere), db.export("raise:2", misere=misere)
    assert table(a) == table(b)
    assert a.draw.any() and a.win.any()
    want = independent_loopy_search(raise_moves(2), rows_of(a), misere)
    got = {p: ("draw" if d else "win" if w else "loss") for p, w, d in zip(rows_of(a), a.win, a.draw)}
    assert got == want


def test_user_code_that_fails_raises_naming_the_position_and_stores_nothing(tmp_path):
    db = nimdb.open(tmp_path / "e.sqlite", read_only=False)

    def breaks_at_big_heaps(p):
        if p and p[0] >= 9:
            raise ValueError("no heaps of 9")
        return nim_moves(p)

    game = nimdb.define("breaks", breaks_at_big_heaps)
    with pytest.raises(nimdb.NimdbError, match=r"breaks's moves\(9\) raised: ValueError: no heaps of 9") as info:
        db.solve(game, max_total=10)
    assert isinstance(info.value.__cause__, ValueError)
    # Moves that leave the layout, that add tokens to an acyclic game, or that are not
    # positions: named, nothing stored.
    cases = [
        (lambda p: [(-1,)] if p else [], r"each count must be from 0"),
        (lambda p: [p + (1,)] if sum(p) < 3 else [], r"does not go to an earlier tier .* declare loopy=True"),
        (lambda p: ["x"] if p else [], r"is not a position"),
    ]
    for i, (moves, message) in enumerate(cases):
        with pytest.raises(nimdb.NimdbError, match=message):
            db.solve(nimdb.define(f"bad-{i}", moves), max_total=6)
    assert db.solves() == []
    with pytest.raises(nimdb.NimdbError, match="needs cap"):
        nimdb.define("loops", nim_moves, loopy=True)
    with pytest.raises(nimdb.NimdbError, match="not a name"):
        nimdb.define("Bad Name", nim_moves)
    with pytest.raises(TypeError, match="callable"):
        nimdb.define("x", 3)


def test_rules_that_change_or_clash_with_a_stored_name_are_refused(tmp_path):
    db = nimdb.open(tmp_path / "c.sqlite", read_only=False)
    calls = {"n": 0}

    def drifting(p):
        calls["n"] += 1
        return nim_moves(p) if calls["n"] <= 23 else []

    game = nimdb.define("drifting", drifting)  # 23 positions in its sample
    with pytest.raises(nimdb.NimdbError, match="changed since nimdb.define"):
        db.solve(game, max_total=8)
    # Moves that change while the space is read are caught as well.
    calls["n"] = -10**9

    def drifts_later(p):
        calls["n"] += 1
        return nim_moves(p) if calls["n"] < -10**9 + 60 else nim_moves(p)[:1]

    with pytest.raises(nimdb.NimdbError, match="changed since nimdb.define"):
        db.solve(nimdb.define("drifts-later", drifts_later), max_total=8)
    assert db.solves() == []
    db.solve(nimdb.define("mine", nim_moves), max_total=8)
    other = nimdb.define("mine", lambda p: nim_moves(p)[:1])
    assert other.fingerprint != nimdb.define("mine", nim_moves).fingerprint
    for call in (lambda: db.solve(other, max_total=8), lambda: db.query(other, [1]), lambda: db.export(other)):
        with pytest.raises(nimdb.NimdbError, match=r"solve #1 of a game named mine with other rules"):
            call()
    assert len(db.solves()) == 1


def test_the_command_line_reads_a_defined_game_s_solve_by_its_name(tmp_path, nimdb_bin):
    import json

    from conftest import cli

    path = tmp_path / "cli.sqlite"
    db = nimdb.open(path, read_only=False)
    game = nimdb.define("my-row", edges_moves([(0, 1), (1, 2)]), layout="row", heaps=3)
    db.solve(game, max_heap=4, misere=True)
    mine = db.export(game, misere=True)
    # query --batch answers every stored position as Python's export has it.
    lines = "\n".join(" ".join(map(str, p)) or "[]" for p in rows_of(mine)) + "\n"
    done = cli(nimdb_bin, "query", "--batch", "--game", "defined:my-row", "--misere", "--db", str(path), stdin=lines)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["outcome"] == "win" for a in answers] == list(mine.win)
    assert [a["remoteness"] for a in answers] == [int(r) for r in mine.remoteness]
    # One query: outcome and remoteness from the database, and the moves said to be Python's.
    p = rows_of(mine)[-1]
    one = cli(nimdb_bin, "query", "--game", "defined:my-row", "--misere", "--db", str(path), *map(str, p))
    answer = db.query(game, p, misere=True)
    assert f"{answer.outcome} for the player to move, remoteness {answer.remoteness}" in one.stdout
    assert "defined in Python" in one.stdout
    # Export: the same rows.
    csv = cli(nimdb_bin, "export", "--game", "defined:my-row", "--misere", "--db", str(path)).stdout.splitlines()
    assert len(csv) == len(mine.win) + 1
    # What needs the moves is refused in one line, and an unknown name is said to be unknown.
    for args in (["solve", "--max-heap", "3"], ["tree", "1", "1"], ["verify"]):
        refused = cli(nimdb_bin, args[0], "--game", "defined:my-row", *args[1:], "--db", str(path), check=False)
        assert refused.returncode == 2 and "only query, export and serve read" in refused.stderr, refused.stderr
    unknown = cli(nimdb_bin, "query", "--game", "defined:nothing", "1", "--db", str(path), check=False)
    assert unknown.returncode == 1 and "no solve of a game named nothing" in unknown.stderr


def test_serve_answers_a_defined_game_s_stored_positions_by_its_name(tmp_path, nimdb_bin):
    import json
    import subprocess
    import urllib.error
    import urllib.request

    path = tmp_path / "serve.sqlite"
    db = nimdb.open(path, read_only=False)
    game = nimdb.define("served-row", edges_moves([(0, 1), (1, 2)]), layout="row", heaps=3)
    db.solve(game, max_heap=3)
    db.close()
    server = subprocess.Popen(
        [nimdb_bin, "serve", "--db", str(path), "--addr", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True
    )
    try:
        url = server.stdout.readline().split()[-1]
        for p in [(0, 2, 1), (3, 3), (1, 0, 3)]:
            with urllib.request.urlopen(f"{url}/api/v1/query?game=defined:served-row&position={','.join(map(str, p))}") as r:
                got = json.load(r)
            want = nimdb.open(path).query(game, p)
            assert (got["outcome"], got["remoteness"], got["source"]) == (want.outcome, want.remoteness, "database")
            assert tuple(got["position"]) == tuple(want.position)
        try:
            urllib.request.urlopen(f"{url}/api/v1/query?game=defined:other&position=1")
            raise AssertionError("an unknown defined game was answered")
        except urllib.error.HTTPError as e:
            assert e.code == 404 and "no stored solve of defined:other" in e.read().decode()
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.parametrize("misere", [False, True])
def test_verify_recomputes_a_defined_game_from_its_function(tmp_path, misere):
    path = tmp_path / "v.sqlite"
    db = nimdb.open(path, read_only=False)
    mine = nimdb.define("mine", nim_moves)
    db.solve(mine, max_total=12, misere=misere)
    db.solve("nim", max_total=12, misere=misere)
    report = db.verify(mine, misere=misere)
    native = db.verify("nim", misere=misere, sample=10**6)
    assert report.ok and bool(report)
    assert report.consistent and report.problems == []
    # Every stored position recomputed from its children, as many as the native solve's.
    assert report.sampled == db.solves()[0].positions == native.sampled > 0
    assert report.theory is None and report.checked == 0
    assert native.theory == ("misere-nim" if misere else "bouton") and native.agree == native.checked
    assert report.to_dict()["game"] == report.game == mine.storage_id.split("@")[0].replace("v1:", "")


def test_verify_finds_stored_positions_the_function_no_longer_gives(tmp_path):
    """A function that changes its moves past the fingerprint's sample (more than 6
    tokens) after the solve: verify reports the positions that no longer follow from their
    children, and is not ok."""
    changed = {"on": False}

    def moves(p):
        out = nim_moves(p)
        if changed["on"] and sum(p) == 8:
            out = [q for q in out if sum(q) != 0]  # no longer may a single heap of 8 be taken
        return out

    db = nimdb.open(tmp_path / "c.sqlite", read_only=False)
    game = nimdb.define("drifting", moves)
    db.solve(game, max_total=10)
    assert db.verify(game).ok
    changed["on"] = True
    report = db.verify(game)
    assert not report.ok and not report.consistent
    assert any("do not follow from their children" in p for p in report.problems)
    assert (8,) in report.first_mismatches


def test_verify_refusals(tmp_path):
    db = nimdb.open(tmp_path / "r.sqlite", read_only=False)
    with pytest.raises(nimdb.NotAnswered, match="no stored solve"):
        db.verify(nimdb.define("never", nim_moves))
    db.solve(nimdb.define("clash", nim_moves), max_total=6)
    with pytest.raises(nimdb.BadGame, match="other rules"):
        db.verify(nimdb.define("clash", raise_moves(2), cap=2, loopy=True))

    def fails(p):
        if sum(p) == 5:
            raise RuntimeError("boom")
        return nim_moves(p)

    db.solve(nimdb.define("fails", nim_moves), max_total=6)
    with pytest.raises(nimdb.NimdbError, match="boom"):
        db.verify(nimdb.define("fails", fails))


def test_verify_agrees_with_the_command_line_on_built_in_games(tmp_path, nimdb_bin):
    import json
    import subprocess

    path = tmp_path / "b.sqlite"
    db = nimdb.open(path, read_only=False)
    for game, misere, args in [("kayles", True, {"max_total": 16}), ("raise:2", False, {"max_heaps": 6})]:
        db.solve(game, misere=misere, **args)
        report = db.verify(game, misere=misere, full=True)
        cmd = [nimdb_bin, "verify", "--game", game, "--db", str(path), "--json", "--full"]
        if misere:
            cmd.append("--misere")
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        assert report.to_dict() == json.loads(out)
        assert report.ok


def labelled_nim(p):
    return [(q, f"{sum(p) - sum(q)} from heap {i + 1}") for i, h in enumerate(p) for q in [p[:i] + (k,) + p[i + 1 :] for k in range(h)]]


def test_tree_of_a_defined_game_has_the_built_in_game_s_values(nimdb_bin):
    import subprocess

    mine = nimdb.define("treenim", labelled_nim, layout="row", heaps=3)
    for misere in [False, True]:
        ours = nimdb.tree(mine, [2, 1, 1], misere=misere)
        native = nimdb.tree("nim", [2, 1, 1], misere=misere)
        cmd = [nimdb_bin, "tree", "--game", "nim", "2", "1", "1"] + (["--misere"] if misere else [])
        assert native == subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        # The function's labels, and the same minimax value at the root (the row keeps
        # (2, 1, 0) and (2, 0, 1) apart, so the trees' sizes differ).
        assert "from heap 1 →" in ours
        root = lambda text: text.split("\n\n")[1].splitlines()[0]
        assert root(ours).split()[-2:] == root(native).split()[-2:]
        dot = nimdb.tree(mine, [2, 1, 1], misere=misere, format="dot", dag=True, alpha_beta=True)
        assert dot.startswith("digraph")


def test_tree_refusals():
    mine = nimdb.define("treebig", nim_moves)
    with pytest.raises(nimdb.TooCostly, match="raise max_nodes"):
        nimdb.tree(mine, [9, 9, 9])
    with pytest.raises(nimdb.BadGame, match="loopy"):
        nimdb.tree(nimdb.define("treeloop", raise_moves(2), cap=2, loopy=True), [1])
    with pytest.raises(nimdb.BadArgument, match="format"):
        nimdb.tree("nim", [1], format="svg")
    # memory_limit as Database.solve takes it: bytes or a size.
    assert nimdb.tree("nim", [2, 1], memory_limit="64M") == nimdb.tree("nim", [2, 1], memory_limit=64 << 20)
    with pytest.raises(nimdb.BadType, match="memory_limit"):
        nimdb.tree("nim", [1], memory_limit=[1])

    def fails(p):
        raise ValueError("no moves today")

    with pytest.raises(nimdb.NimdbError, match="no moves today"):
        nimdb.tree(nimdb.define("treefails", fails), [2])


def nim_many(positions):
    """Nim's moves for a batch of positions at once, in numpy: for each heap column j, every
    row and every value k below its heap there (the order nim_moves gives them)."""
    n, width = positions.shape
    kids, of = [], []
    for j in range(width):
        counts = positions[:, j].astype(np.int64)
        rows = np.repeat(np.arange(n), counts)
        k = np.arange(rows.size) - np.repeat(np.cumsum(counts) - counts, counts)
        c = positions[rows].astype(np.int64)
        c[:, j] = k
        kids.append(c)
        of.append(rows)
    # Grouped by row, each row's moves heap by heap (a stable sort keeps nim_moves' order).
    order = np.argsort(np.concatenate(of), kind="stable")
    return np.concatenate(kids)[order], np.concatenate(of)[order]


@pytest.mark.parametrize("misere", [False, True])
def test_moves_many_in_numpy_equals_the_native_nim(tmp_path, misere):
    db = nimdb.open(tmp_path / "m.sqlite", read_only=False)
    many = nimdb.define("batched", moves_many=nim_many)
    one = nimdb.define("batched", nim_moves)
    # The same moves in the same order: the same fingerprint, so one game.
    assert many.storage_id == one.storage_id
    db.solve(many, max_total=14, misere=misere)
    db.solve("nim", max_total=14, misere=misere)
    assert table(db.export(many, misere=misere)) == table(db.export("nim", misere=misere))
    assert db.verify(many, misere=misere).ok
    answer = db.query(many, [5, 3, 1], misere=misere)
    assert {m.to for m in answer.moves} == {m.to for m in db.query("nim", [5, 3, 1], misere=misere).moves}
    # Given both, moves names them; they are checked to agree.
    both = nimdb.define("batched", moves=lambda p: [(q, "mine") for q in nim_moves(p)], moves_many=nim_many)
    assert all("mine" in m.description for m in db.query(both, [5, 3, 1], misere=misere).moves)


def test_moves_many_that_goes_wrong_raises_naming_the_position_and_stores_nothing(tmp_path):
    path = tmp_path / "bad.sqlite"
    db = nimdb.open(path, read_only=False)

    def breaks_at(total, give):
        def moves_many(positions):
            if (positions.sum(axis=1) == total).any():
                return give(positions)
            return nim_many(positions)

        return moves_many

    cases = [
        (lambda p: 1 / 0, r"moves_many on a batch of \d+ positions, \(\) to \(.*\), raised: ZeroDivisionError"),
        (lambda p: "nope", "no pair"),
        (lambda p: (np.zeros((1, 2)), np.zeros(1)), "not whole numbers"),
        (lambda p: (np.zeros((1, 2), dtype=int), np.array([len(p) + 5])), "not a row of the"),
        (lambda p: (np.zeros((2, 2), dtype=int), np.array([0])), "children must be a 2-D array"),
        (lambda p: (np.array([[-1]]), np.array([0])), "each count must be from 0"),
        (lambda p: (np.array([[40]]), np.array([0])), "leaves the space"),
    ]
    for i, (give, words) in enumerate(cases):
        game = nimdb.define(f"bad{i}", moves_many=breaks_at(9, give))
        with pytest.raises(nimdb.NimdbError, match=words):
            db.solve(game, max_total=10)
    assert db.solves() == []
    with pytest.raises(nimdb.BadArgument, match="disagree at"):
        nimdb.define("two", moves=nim_moves, moves_many=lambda p: (np.zeros((0, 1), dtype=int), np.zeros(0, dtype=int)))
    with pytest.raises(nimdb.BadArgument, match="moves_many takes"):
        nimdb.define("aset", moves_many=nim_many, layout="set")
    with pytest.raises(TypeError, match="needs the moves"):
        nimdb.define("none")
