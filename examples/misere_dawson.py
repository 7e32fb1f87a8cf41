"""Misère Dawson's Kayles: what the database says against what the misère quotient says.

A notebook-style walk through nimdb's Python package (run it as a script, or paste the
cells into Jupyter):

    pip install numpy matplotlib <the nimdb wheel>   # see docs/library.md, "Python"
    python examples/misere_dawson.py --total 26 --out dawson-out

1. Solve every position of misère Dawson's Kayles (octal 0.07) with at most TOTAL tokens
   into a database (retrograde analysis, tier by tier).
2. Compute the misère quotient (Plambeck–Siegel) of the heaps the database reaches, 1..TOTAL.
3. Compare: the quotient's P-positions are the products that land in P; every stored
   position is checked, per total, with numpy over the quotient's multiplication table.
4. Plot where they agree: P-positions per total from each side, and the two-heap slice.

The two are independent computations (one solves the positions, the other builds a monoid
from the heaps alone), so their agreement on every position is a check of both.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

import nimdb


def main():
    parser = argparse.ArgumentParser(description="misère Dawson's Kayles: database against quotient")
    parser.add_argument("--total", type=int, default=26, help="solve positions of up to this many tokens")
    parser.add_argument("--out", default="dawson-out", help="directory for the database and the pictures")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    # %% 1. Solve into a database (resumes if run again; Ctrl-C stops cleanly).
    db = nimdb.open(out / "dawson.sqlite", read_only=False)

    shown = []

    def progress(done, total, tier):  # after every tier; a tenth at a time is enough here
        if not shown or done == total or done * 10 // total > shown[-1]:
            shown.append(done * 10 // total)
            print(f"\rsolving: {done:,}/{total:,} positions", end="", file=sys.stderr)

    summary = db.solve("dawson", max_total=args.total, misere=True, progress=progress)
    print(file=sys.stderr)
    print(f"solved misère dawson to {args.total} tokens: {summary.positions:,} positions ({summary.seconds:.2f} s this run)")

    # %% 2. The misère quotient of heaps 1..TOTAL (no proven period for Dawson's Kayles: its
    # quotient grows past thousands of elements by heap 34, so we take the heaps we need).
    q = nimdb.quotient("dawson", max_heap=args.total)
    print(f"misère quotient of heaps 1..{q.max_heap}: |Q| = {q.size}, |P| = {q.p_count}, tame: {q.tame}")

    # %% 3. Every stored position: its element is the product of its heaps' elements.
    table = db.export("dawson", misere=True)
    heaps = table.heaps.astype(np.int64)
    heap_element = np.asarray(q.heap_elements, dtype=np.int64)
    element = np.zeros(len(table), dtype=np.int64)  # 0 is the identity, the empty position
    for column in heaps.T:
        element = q.table[element, heap_element[column]]  # heap 0 maps to the identity
    quotient_loss = q.p[element]
    database_loss = ~table.win
    agree = quotient_loss == database_loss
    # A spot check of the vectorized walk against the quotient's own answer.
    for i in np.random.default_rng(0).choice(len(table), 200, replace=False):
        assert q.is_p([int(h) for h in heaps[i] if h]) == quotient_loss[i]

    totals = heaps.sum(axis=1)
    print(f"\n{'total':>5} {'positions':>10} {'P (database)':>13} {'P (quotient)':>13} {'agree':>7}")
    for t in range(args.total + 1):
        at = totals == t
        print(f"{t:>5} {at.sum():>10,} {database_loss[at].sum():>13,} {quotient_loss[at].sum():>13,} {agree[at].mean():>7.1%}")
    print(f"\nagree on {agree.sum():,} of {len(agree):,} positions")

    # %% 4. Pictures: P-positions per total from both sides, and the two-heap slice.
    try:
        from matplotlib.figure import Figure
    except ImportError:
        print("(pip install matplotlib for the pictures)")
        return 0 if agree.all() else 1
    from nimdb import plot

    fig = Figure(figsize=(9, 4), layout="constrained")
    ax = fig.add_subplot()
    t = np.arange(args.total + 1)
    ax.plot(t, [database_loss[totals == x].sum() for x in t], "o-", label="P-positions in the database")
    ax.plot(t, [quotient_loss[totals == x].sum() for x in t], "x--", label="P-positions by the quotient")
    bad = [int((~agree[totals == x]).sum()) for x in t]
    ax.bar(t, bad, color="tab:red", label=f"disagreements ({sum(bad)})")
    ax.set_xlabel("total tokens")
    ax.set_ylabel("positions")
    ax.set_yscale("symlog")
    ax.set_title(f"misère Dawson's Kayles to {args.total} tokens: database and quotient agree on {agree.mean():.0%}")
    ax.legend()
    fig.savefig(out / "agreement.png", dpi=100)
    plot.p_positions(db, "dawson", args.total // 2, misere=True, path=out / "two-heaps.png")
    plot.quotient_table(q, path=out / "quotient.png")
    print(f"pictures: {out / 'agreement.png'}, {out / 'two-heaps.png'}, {out / 'quotient.png'}")
    return 0 if agree.all() else 1


if __name__ == "__main__":
    sys.exit(main())
