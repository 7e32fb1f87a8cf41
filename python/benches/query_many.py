"""query_many against `nimdb query --batch` on the same 1,000,000 positions.

    python python/benches/query_many.py [--nimdb target/release/nimdb] [--positions 1000000]

Solves misère Kayles to 40 tokens (215,308 positions) into a temporary database with the
command line, draws the positions at random (with repeats) from it, then times the command
line's batch (text in, JSON lines out to /dev/null) and query_many (a list of lists in,
numpy arrays out; and a zero-padded 2-D numpy array in). Each is run three times; the best
time counts. The figure is in docs/library.md ("Batch speed").
"""

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import nimdb


def best_of(runs, f):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    repo = Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nimdb", default=str(repo / "target" / "release" / "nimdb"))
    parser.add_argument("--positions", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite"
        game = ["--game", "kayles", "--misere", "--db", str(path)]
        subprocess.run([args.nimdb, "solve", "--max-total", "40", "-q", *game], check=True)
        db = nimdb.open(path)
        stored = db.export("kayles", misere=True)
        rows = stored.heaps[np.random.default_rng(21).integers(0, len(stored), args.positions)]
        lists = [[int(h) for h in row if h] for row in rows]
        text = "".join((" ".join(map(str, p)) or "[]") + "\n" for p in lists).encode()
        batch_file = Path(tmp) / "positions.txt"
        batch_file.write_bytes(text)

        def cli_batch():
            with open(batch_file, "rb") as stdin:
                subprocess.run([args.nimdb, "query", "--batch", *game], stdin=stdin, stdout=subprocess.DEVNULL, check=True)

        cli = best_of(args.runs, cli_batch)
        from_lists = best_of(args.runs, lambda: db.query_many("kayles", lists, misere=True))
        from_array = best_of(args.runs, lambda: db.query_many("kayles", rows, misere=True))
        n = args.positions
        print(f"positions: {n:,} (misère Kayles, database to 40 tokens, {len(stored):,} stored)")
        print(f"nimdb query --batch:        {cli:.2f} s  {n / cli / 1e6:.2f} M positions/s")
        print(f"query_many (list of lists): {from_lists:.2f} s  {n / from_lists / 1e6:.2f} M positions/s  {cli / from_lists:.0%} of the batch's rate")
        print(f"query_many (numpy array):   {from_array:.2f} s  {n / from_array / 1e6:.2f} M positions/s  {cli / from_array:.0%} of the batch's rate")


if __name__ == "__main__":
    main()
