"""Shared fixtures: the `nimdb` command line to compare with, and small solved databases."""

import json
import os
import subprocess
from pathlib import Path

import pytest

import nimdb

REPO = Path(__file__).resolve().parents[2]

# The three games the answers are compared on: (game, misère, max_total).
GAMES = [("nim", True, 20), ("kayles", False, 20), ("dawson", True, 22)]


@pytest.fixture(scope="session")
def nimdb_bin() -> str:
    """The command line built from the same source (NIMDB_BIN, else target/release/nimdb)."""
    path = os.environ.get("NIMDB_BIN") or str(REPO / "target" / "release" / "nimdb")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no nimdb binary at {path}: run `cargo build --release` or set NIMDB_BIN")
    return path


@pytest.fixture(scope="session")
def solved(tmp_path_factory) -> Path:
    """A database holding a solve of each of GAMES, made through the Python package."""
    path = tmp_path_factory.mktemp("solved") / "games.sqlite"
    db = nimdb.open(path, read_only=False)
    for game, misere, total in GAMES:
        summary = db.solve(game, max_total=total, misere=misere)
        assert summary.status == "complete"
        assert summary.stored_positions == summary.positions > 1000
    db.close()
    return path


def cli(nimdb_bin: str, *args: str, stdin: str = None, check: bool = True) -> subprocess.CompletedProcess:
    """Runs the command line; its stdout and stderr as text."""
    done = subprocess.run([nimdb_bin, *args], input=stdin, capture_output=True, text=True, timeout=300)
    if check and done.returncode != 0:
        raise AssertionError(f"nimdb {' '.join(args)} failed: {done.stderr}")
    return done


def cli_json(nimdb_bin: str, *args: str):
    return json.loads(cli(nimdb_bin, *args).stdout)
