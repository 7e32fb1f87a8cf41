-- nimdb schema, version 8: the misère atlas, one row per octal code.

-- Each code 0.d1..dD (last digit nonzero) charted by `nimdb atlas`: a certified finite
-- quotient, or a partial one with the heap it reached and what stopped it. A code is charted
-- again only when its row is partial and a rerun raises the limit named in `reason`.
CREATE TABLE atlas (
    code        TEXT    NOT NULL PRIMARY KEY,              -- the octal code, as 0.77
    digits      INTEGER NOT NULL,                          -- digits after the point
    status      TEXT    NOT NULL CHECK (status IN ('certified', 'partial')),
    size        INTEGER NOT NULL,                          -- |Q| (partial: of heaps 1..heap)
    p_count     INTEGER NOT NULL,                          -- |P|
    period      INTEGER,                                   -- certified: period of the heap images
    preperiod   INTEGER,                                   -- certified: its least preperiod
    tame        INTEGER CHECK (tame IN (0, 1)),            -- certified: tame (1) or wild (0)
    heap        INTEGER NOT NULL,                          -- certified: the heap the certificate needs;
                                                           -- partial: the largest heap reached
    reason      TEXT,                                      -- partial: what stopped it
    seconds     REAL    NOT NULL,                          -- time spent (CPU seconds in nimdb atlas)
    run         INTEGER NOT NULL,                          -- the atlas run that charted it
    entry       TEXT    NOT NULL,                          -- the whole entry as JSON
    engine      TEXT    NOT NULL,
    checksum    INTEGER NOT NULL,                          -- CRC-32, see docs/FORMAT.md
    updated_at  TEXT    NOT NULL DEFAULT (datetime('now'))
);
