-- nimdb schema, version 5: checksums bound to what they check.
--
-- A tier's block and payload CRC-32s now start with the tier's identity (the solve key, the
-- tier and the record layout; see docs/FORMAT.md), so a payload moved to another tier or
-- solve fails them. A quotient row's CRC-32 covers every column, not only its data.
-- checksum_scheme says how a row's checksums were made:
--   0: plain CRC-32s, written before version 5 (left only where they failed at the upgrade);
--   1: bound when the row was written;
--   2: bound by the upgrade to version 5, after the row passed its plain checksums.
-- The upgrade (run by nimdb with this migration) recomputes every row's checksums and
-- records what it did in checksum_upgrades, which `nimdb info` shows.
ALTER TABLE tiers ADD COLUMN checksum_scheme INTEGER NOT NULL DEFAULT 0;
ALTER TABLE quotients ADD COLUMN checksum_scheme INTEGER NOT NULL DEFAULT 0;

CREATE TABLE checksum_upgrades (
    id                 INTEGER PRIMARY KEY,
    upgraded_at        TEXT    NOT NULL DEFAULT (datetime('now')),
    from_version       INTEGER NOT NULL,                -- the schema version upgraded from
    to_version         INTEGER NOT NULL,
    tiers_rebound      INTEGER NOT NULL,                -- tiers whose checksums were recomputed
    tiers_failed       INTEGER NOT NULL,                -- tiers that failed their old checksums
    quotients_rebound  INTEGER NOT NULL,
    quotients_failed   INTEGER NOT NULL,
    engine             TEXT    NOT NULL                 -- the nimdb version that upgraded
);
