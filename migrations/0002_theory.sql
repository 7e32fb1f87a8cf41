-- nimdb schema, version 2: theory tables.

-- heap_values is rebuilt so that misère values may be NULL (they are exact but computed only
-- for small heaps, where the positions a heap reaches stay few), and gains a tame flag.
CREATE TABLE heap_values_v2 (
    game          TEXT    NOT NULL,                  -- canonical game spec
    n             INTEGER NOT NULL,                  -- heap size
    nim_value     INTEGER NOT NULL,                  -- normal-play nim-value g(n)
    misere_value  INTEGER,                           -- misère nim-value of the single heap; NULL: not computed
    genus         TEXT,                              -- Conway's genus, e.g. '0^120'; NULL: not computed
    tame          INTEGER CHECK (tame IN (0, 1)),    -- 1: the heap and all its followers are tame
    PRIMARY KEY (game, n)
) WITHOUT ROWID;
INSERT INTO heap_values_v2 (game, n, nim_value, misere_value, genus)
    SELECT game, n, nim_value, misere_value, genus FROM heap_values;
DROP TABLE heap_values;
ALTER TABLE heap_values_v2 RENAME TO heap_values;

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
    updated_at    TEXT    NOT NULL DEFAULT (datetime('now'))
);
