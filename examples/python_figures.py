"""Draws the guide's pictures of the Python package (docs/python-*.png) with nimdb.plot.

    pip install numpy matplotlib <the nimdb wheel>
    python examples/python_figures.py [--out docs]

- docs/python-nim-sequence.png: Dawson's Kayles, heaps 0..200 (period 34 from heap 53).
- docs/python-kayles-sequence.png: Kayles, heaps 0..1000 (period 12 from heap 71: the first
  period bracketed, 78 periods in all).
- docs/python-quotient-table.png: the misère quotient of Kayles as its P-structure.
- docs/python-p-positions.png: Wythoff's P-positions, a, b ≤ 60 (answered from theory).
"""

import argparse
import tempfile
from pathlib import Path

import nimdb
from nimdb import plot


def main() -> None:
    parser = argparse.ArgumentParser(description="draw docs/python-*.png")
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs"))
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    plot.nim_sequence("dawson", 200, path=out / "python-nim-sequence.png", dpi=90)
    plot.nim_sequence("kayles", 1000, path=out / "python-kayles-sequence.png", dpi=90)
    plot.quotient_table("kayles", path=out / "python-quotient-table.png", dpi=90)
    with tempfile.TemporaryDirectory() as tmp:
        db = nimdb.open(Path(tmp) / "w.sqlite", read_only=False)
        plot.p_positions(db, "wythoff", 60, path=out / "python-p-positions.png", dpi=90)
        db.close()
    for name in ("nim-sequence", "kayles-sequence", "quotient-table", "p-positions"):
        print(out / f"python-{name}.png")


if __name__ == "__main__":
    main()
