-- nimdb schema, version 1: stored solves and their tier payloads.
-- 'NIMD' marks the file as a nimdb database.
PRAGMA application_id = 1313426756;

-- One row per solve: a game, a convention and the caps of its universe. The universe grows
-- by raising target_total; every tier already stored is reused.
CREATE TABLE solves (
    id              INTEGER PRIMARY KEY,
    game            TEXT    NOT NULL,               -- canonical game spec, e.g. 'kayles'
    convention      TEXT    NOT NULL CHECK (convention IN ('normal', 'misere')),
    max_heap        INTEGER,                         -- NULL: heaps capped only by the total
    max_heaps       INTEGER,                         -- NULL: heap count capped only by the total
    nim_values      INTEGER NOT NULL DEFAULT 0,      -- 1: records also hold nim-values
    target_total    INTEGER NOT NULL,                -- the total the last solve run aimed for
    solved_total    INTEGER NOT NULL DEFAULT -1,     -- every tier with total <= this is stored
    status          TEXT    NOT NULL CHECK (status IN ('partial', 'complete')),
    positions       INTEGER NOT NULL DEFAULT 0,
    losses          INTEGER NOT NULL DEFAULT 0,
    solve_seconds   REAL    NOT NULL DEFAULT 0,
    solver_version  TEXT    NOT NULL,
    created_at      TEXT    NOT NULL DEFAULT (datetime('now')),
    updated_at      TEXT    NOT NULL DEFAULT (datetime('now'))
);
-- One solve per key; NULL caps compare equal here (a plain UNIQUE would let them repeat).
CREATE UNIQUE INDEX solves_key
    ON solves (game, convention, IFNULL(max_heap, -1), IFNULL(max_heaps, -1), nim_values);

-- One row per solved tier (total, heaps). The payload holds one fixed-width record per
-- position, in rank order: remoteness (little-endian, remoteness_bytes wide; the outcome
-- follows from its parity and the convention), then the nim-value if the solve has them.
-- Records are grouped in blocks of block_records; block_checksums holds one CRC-32
-- (little-endian u32) per block, so a lookup verifies just the block it reads.
CREATE TABLE tiers (
    id               INTEGER PRIMARY KEY,
    solve_id         INTEGER NOT NULL REFERENCES solves(id) ON DELETE CASCADE,
    total            INTEGER NOT NULL,
    heaps            INTEGER NOT NULL,
    positions        INTEGER NOT NULL,
    losses           INTEGER NOT NULL,
    max_remoteness   INTEGER NOT NULL,
    remoteness_bytes INTEGER NOT NULL CHECK (remoteness_bytes IN (1, 2)),
    nim_value_bytes  INTEGER NOT NULL CHECK (nim_value_bytes IN (0, 1, 2)),
    block_records    INTEGER NOT NULL,
    checksum         INTEGER NOT NULL,               -- CRC-32 of the whole payload
    solve_seconds    REAL    NOT NULL,
    block_checksums  BLOB    NOT NULL,
    payload          BLOB    NOT NULL,
    UNIQUE (solve_id, total, heaps)
);

-- Single-heap values, computed from each heap's own moves (theory, not the database).
-- Misère values and genus are exact but computed only for small heaps (NULL beyond).
CREATE TABLE heap_values (
    game          TEXT    NOT NULL,                  -- canonical game spec
    n             INTEGER NOT NULL,                  -- heap size
    nim_value     INTEGER NOT NULL,                  -- normal-play nim-value g(n)
    misere_value  INTEGER,                           -- misère nim-value of the single heap
    genus         TEXT,                              -- Conway's genus, e.g. '0^120'
    tame          INTEGER CHECK (tame IN (0, 1)),    -- 1: the heap and all its followers are tame
    PRIMARY KEY (game, n)
) WITHOUT ROWID;

-- Views for researchers using the sqlite3 shell.
CREATE VIEW solve_summary AS
SELECT s.id, s.game, s.convention, s.max_heap, s.max_heaps, s.target_total, s.solved_total,
       s.status, s.positions, s.losses, s.solve_seconds,
       (SELECT COUNT(*) FROM tiers t WHERE t.solve_id = s.id) AS tiers,
       (SELECT COALESCE(SUM(length(t.payload) + length(t.block_checksums)), 0)
          FROM tiers t WHERE t.solve_id = s.id) AS payload_bytes
FROM solves s;

CREATE VIEW tier_counts AS
SELECT s.game, s.convention, t.total, t.heaps, t.positions, t.losses,
       t.positions - t.losses AS wins, t.max_remoteness,
       t.remoteness_bytes + t.nim_value_bytes AS record_bytes
FROM tiers t JOIN solves s ON s.id = t.solve_id;
