"""pandas DataFrames of nimdb's arrays (``Export.to_frame``, ``Lookups.to_frame``,
``HeapValues.to_frame``). pandas is optional: it is imported only when a frame is asked for.

Positions are tuples of ints (a heap game's heaps largest first; a family's entries in its
own notation); what is unknown is a missing value (pandas' nullable types), not -1 or 65535.
"""

import importlib
from typing import Any, Optional, Sequence

import numpy as np

OUTCOMES = ["win", "loss", "draw"]


def _pandas() -> Any:
    try:
        # Imported by name: pandas is optional, and its type stubs may not be installed.
        return importlib.import_module("pandas")
    except ImportError as e:
        raise ImportError("to_frame() needs pandas: pip install pandas") from e


def _outcome(pd: Any, codes: np.ndarray) -> Any:
    """Outcome codes (1 win, 0 loss, 2 draw, -1 none) as a categorical of words."""
    index = np.full(len(codes), -1, dtype=np.int8)
    index[codes == 1] = 0
    index[codes == 0] = 1
    index[codes == 2] = 2
    return pd.Categorical.from_codes(index, categories=OUTCOMES)


def _nullable(pd: Any, values: np.ndarray, missing: np.ndarray, dtype: str) -> Any:
    data = np.where(missing, 0, values).astype(dtype.lower())
    return pd.arrays.IntegerArray(data, missing.copy())


def positions(heaps: np.ndarray, lengths: np.ndarray) -> list:
    """Each row of `heaps` cut at its length, as a tuple of ints."""
    return [tuple(row[:n]) for row, n in zip(heaps.tolist(), lengths.tolist())]


def export_frame(t: Any) -> Any:
    """One row per stored position: position (a tuple), outcome, remoteness (missing for a
    draw) and, when the solve has them, nim_value."""
    pd = _pandas()
    draw = np.asarray(t.draw)
    codes = np.where(draw, 2, np.where(np.asarray(t.win), 1, 0))
    columns = {
        "position": positions(np.asarray(t.heaps), np.asarray(t.lengths)),
        "outcome": _outcome(pd, codes),
        "remoteness": _nullable(pd, np.asarray(t.remoteness), draw, "UInt16"),
    }
    if t.nim_value is not None:
        columns["nim_value"] = np.asarray(t.nim_value)
    return pd.DataFrame(columns)


def lookups_frame(batch: Any, positions_given: Optional[Sequence[Any]] = None) -> Any:
    """One row per position of a batch: outcome (missing with no answer), remoteness and
    nim_value (missing when unknown), source, and the error of a position without an answer.
    With `positions_given` (what was passed to query_many), a first column `position`: each
    as a tuple of ints as given (a string kept as it is; a 2-D array's row without its
    trailing zeros)."""
    pd = _pandas()
    n = len(batch)
    outcome = np.asarray(batch.outcome)
    remoteness = np.asarray(batch.remoteness)
    nim_value = np.asarray(batch.nim_value)
    source = np.asarray(batch.source).astype(np.int16)
    source[source == 255] = -1
    errors: list = [None] * n
    for i, message in batch.errors:
        errors[i] = message
    columns: dict = {}
    if positions_given is not None:
        if isinstance(positions_given, np.ndarray):
            # A zero-padded row: its trailing zeros are padding.
            rows = [tuple(np.trim_zeros(row, "b").tolist()) for row in positions_given]
        else:
            rows = [row if isinstance(row, str) else tuple(int(h) for h in row) for row in positions_given]
        if len(rows) != n:
            raise ValueError(f"positions has {len(rows)} entries for a batch of {n}")
        columns["position"] = rows
    columns["outcome"] = _outcome(pd, outcome)
    columns["remoteness"] = _nullable(pd, remoteness, remoteness < 0, "Int32")
    columns["nim_value"] = _nullable(pd, nim_value, nim_value < 0, "Int64")
    columns["source"] = pd.Categorical.from_codes(source, categories=list(batch.SOURCES))
    columns["error"] = pd.array(errors, dtype="string")
    return pd.DataFrame(columns)


def heap_values_frame(hv: Any) -> Any:
    """One row per heap n = 0..=up_to (the index, named "heap"): g (the nim-value), and the
    misère value, genus and tameness, missing past misere_up_to."""
    pd = _pandas()
    values = np.asarray(hv.values)
    n = len(values)
    m = 0 if hv.misere_up_to is None else hv.misere_up_to + 1
    missing = np.ones(n, dtype=bool)
    missing[:m] = False
    misere = np.zeros(n, dtype=np.asarray(hv.misere_values).dtype)
    misere[:m] = np.asarray(hv.misere_values)[:m]
    tame = np.zeros(n, dtype=bool)
    tame[:m] = np.asarray(hv.tame)[:m]
    genus_words = [str(g) for g in np.asarray(hv.genus)[:m]]
    categories = sorted(set(genus_words))
    code_of = {g: i for i, g in enumerate(categories)}
    codes = np.full(n, -1, dtype=np.int32)
    codes[:m] = [code_of[g] for g in genus_words]
    kind = {1: "UInt8", 2: "UInt16", 4: "UInt32"}[misere.dtype.itemsize]
    return pd.DataFrame(
        {
            "g": values,
            "misere_value": _nullable(pd, misere, missing, kind),
            "genus": pd.Categorical.from_codes(codes, categories=categories),
            "tame": pd.arrays.BooleanArray(tame, missing),
        },
        index=pd.RangeIndex(n, name="heap"),
    )
