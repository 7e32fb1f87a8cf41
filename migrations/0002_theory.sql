-- nimdb schema, version 2: what is known about each game's single-heap sequence.

-- One row per game: how far heap_values goes, and what is known about periodicity.
CREATE TABLE heap_sequences (
    game          TEXT    PRIMARY KEY,               -- canonical game spec
    up_to         INTEGER NOT NULL,                  -- nim_value stored for n = 0..=up_to
    misere_up_to  INTEGER,                           -- misere_value stored for n = 0..=misere_up_to
    genus_up_to   INTEGER,                           -- genus and tame stored for n = 0..=genus_up_to
    genus_depth   INTEGER,                           -- genus computed from γ0..=γ(genus_depth)
    period        INTEGER,                           -- smallest period found in g(0..=up_to)
    preperiod     INTEGER,
    proven        INTEGER NOT NULL DEFAULT 0 CHECK (proven IN (0, 1)),
    certificate   TEXT,                              -- the range checked and the theorem used
    method        TEXT,                              -- how the nim-values were computed
    engine        TEXT    NOT NULL DEFAULT '',       -- version of the engine that wrote the rows
    updated_at    TEXT    NOT NULL DEFAULT (datetime('now'))
);
