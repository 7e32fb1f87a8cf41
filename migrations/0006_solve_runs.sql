-- nimdb schema, version 6: one row per solve run, so that `nimdb info` can show how fast a
-- solve went and how much memory it took.
--
-- A run is one process solving tiers into a solve (`nimdb solve`, or an on-the-spot solve
-- of a query). Its row is written in the transaction of the first tier it commits and
-- updated in the transaction of every later one, so a run killed with SIGKILL keeps an exact
-- record of what it committed; a run that commits no tier leaves no row. Solves stored
-- before this version have no runs.
CREATE TABLE solve_runs (
    id                 INTEGER PRIMARY KEY,
    solve_id           INTEGER NOT NULL REFERENCES solves(id) ON DELETE CASCADE,
    started_at         TEXT    NOT NULL,                -- UTC, when the run started
    updated_at         TEXT    NOT NULL,                -- UTC, its last commit (its end once it ended)
    target_total       INTEGER NOT NULL,                -- the total the run aimed for
    tiers              INTEGER NOT NULL,                -- tiers this run committed
    positions          INTEGER NOT NULL,                -- their positions
    seconds            REAL    NOT NULL,                -- wall-clock time up to its last commit (or end)
    peak_memory_bytes  INTEGER,                         -- the process's peak resident memory (VmHWM); NULL: unknown
    threads            INTEGER NOT NULL,                -- solver threads of the process that wrote the row
    processes          INTEGER NOT NULL DEFAULT 1,      -- processes sharing the work (the ranks of an MPI job)
    nimdb_version      TEXT    NOT NULL,
    outcome            TEXT    NOT NULL CHECK (outcome IN ('running', 'complete', 'interrupted', 'failed'))
    -- running: the run had not ended at its last commit: it is still running, or it was
    -- killed; complete: it stored every tier up to its target; interrupted: stopped on
    -- request (Ctrl-C); failed: stopped by an error. Its committed tiers are kept in every case.
);
CREATE INDEX solve_runs_by_solve ON solve_runs (solve_id, id);

-- solve_summary gains each solve's recorded runs: how many, their positions and seconds (the
-- rate is run_positions / run_seconds) and the greatest peak memory among them.
DROP VIEW solve_summary;
CREATE VIEW solve_summary AS
SELECT s.id, s.game, s.convention, s.max_heap, s.max_heaps, s.target_total, s.solved_total,
       s.status, s.positions, s.losses, s.solve_seconds,
       (SELECT COUNT(*) FROM tiers t WHERE t.solve_id = s.id) AS tiers,
       (SELECT COALESCE(SUM(length(t.payload) + length(t.block_checksums)), 0)
          FROM tiers t WHERE t.solve_id = s.id) AS payload_bytes,
       (SELECT COUNT(*) FROM solve_runs r WHERE r.solve_id = s.id) AS runs,
       (SELECT COALESCE(SUM(r.positions), 0) FROM solve_runs r WHERE r.solve_id = s.id) AS run_positions,
       (SELECT COALESCE(SUM(r.seconds), 0) FROM solve_runs r WHERE r.solve_id = s.id) AS run_seconds,
       (SELECT MAX(r.peak_memory_bytes) FROM solve_runs r WHERE r.solve_id = s.id) AS peak_memory_bytes
FROM solves s;
