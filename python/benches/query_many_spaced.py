"""query_many on Staircase Nim positions, as whole processes to set beside `nimdb query --batch`.

    python python/benches/query_many_spaced.py prepare DIR [--nimdb target/release/nimdb]
    python python/benches/query_many_spaced.py lists DIR    # one timed process: a list from text
    python python/benches/query_many_spaced.py array DIR    # one timed process: a 2-D array
    nimdb query --batch --game staircase --db DIR/staircase.sqlite < DIR/positions.txt > /dev/null

`prepare` solves Staircase Nim to a weighted total of 70 with at most 10 steps (5,315,665
positions) with the command line and draws 200,000 positions at random (with repeats) from
its export, written as text lines ("[a,b,c]", one a line) and as a zero-padded 2-D array.
`lists` and `array` each open the database, read the positions and answer them all with
`Database.query_many`. Time the three last commands as whole processes, paired (CPU
seconds); the figures are in python/README.md.
"""

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np

import nimdb


def prepare(directory: Path, nimdb_bin: str, positions: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "staircase.sqlite"
    if not path.exists():
        solve = ["solve", "--game", "staircase", "--max-total", "70", "--max-heaps", "10", "-q"]
        subprocess.run([nimdb_bin, *solve, "--db", str(path)], check=True)
    stored = nimdb.open(path).export("staircase")
    drawn = np.random.default_rng(22).integers(0, len(stored), positions)
    rows, lengths = stored.heaps[drawn], stored.lengths[drawn]
    np.save(directory / "rows.npy", rows)
    with open(directory / "positions.txt", "w") as out:
        for row, n in zip(rows, lengths):
            out.write("[" + ",".join(map(str, row[:n])) + "]\n")
    print(f"{len(stored):,} positions stored; {positions:,} drawn into {directory}")


def answer(directory: Path, form: str) -> None:
    db = nimdb.open(directory / "staircase.sqlite")
    if form == "lists":
        with open(directory / "positions.txt") as text:
            positions = [[int(c) for c in line.strip()[1:-1].split(",") if c] for line in text]
    else:
        positions = np.load(directory / "rows.npy")
    answers = db.query_many("staircase", positions)
    if len(answers) != len(positions) or (answers.outcome < 0).any():
        sys.exit("not every position was answered")


def main() -> None:
    repo = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=["prepare", "lists", "array"])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--nimdb", default=str(repo / "target" / "release" / "nimdb"))
    parser.add_argument("--positions", type=int, default=200_000)
    args = parser.parse_args()
    if args.step == "prepare":
        prepare(args.directory, args.nimdb, args.positions)
    else:
        answer(args.directory, args.step)


if __name__ == "__main__":
    main()
