-- nimdb schema, version 3: misère quotients (Plambeck–Siegel) of octal games.

-- One row per game and heap range: the quotient of the closure of heaps 1..max_heap, or a
-- record that the computation was left open (status 'open', with the reason in note).
CREATE TABLE quotients (
    game        TEXT    NOT NULL,                          -- canonical game spec
    max_heap    INTEGER NOT NULL,                          -- N: heaps 1..=N
    status      TEXT    NOT NULL CHECK (status IN ('solved', 'open')),
    size        INTEGER,                                   -- |Q|
    p_count     INTEGER,                                   -- |P|
    period      INTEGER,                                   -- certified period of the heap images
    preperiod   INTEGER,
    proven      INTEGER NOT NULL DEFAULT 0 CHECK (proven IN (0, 1)),
    tame        INTEGER,
    note        TEXT,                                      -- why a computation was left open
    data        TEXT,                                      -- the quotient as JSON
    checksum    INTEGER,                                   -- CRC-32 of data
    engine      TEXT    NOT NULL DEFAULT '',
    updated_at  TEXT    NOT NULL DEFAULT (datetime('now')),
    PRIMARY KEY (game, max_heap)
);
