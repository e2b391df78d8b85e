-- history_rocks_put: the compact history's rows put into its RocksDB
-- store, the keyed form of the history that ClickHouse probes key by key
-- (`verify parts --engine clickhouse --history-rocks DIR`), so that a
-- run's judgments cost what its keys cost, whatever the history holds.
-- Run it on ClickHouse after history_append.sql's rows of a finalized
-- run were written into the Parquet history (which stays the record:
-- the store is rebuilt from it by putting every run's files), in the
-- session whose history_rocks is the store, opened for writing.
--
-- Parameter: none. Tables: history_run, the rows to put (kind, k,
-- scope: a run's history_append.sql rows, or the files of the runs a
-- store is rebuilt from), and history_rocks (verify parts: key String,
-- scope Nullable(String), PRIMARY KEY key).
--
-- Rows: each row under the key kind || k with its scope, and each
-- owner's chain scope under 's' || scope (whether the history holds a
-- receipt of that chain scope). A put overwrites a key with the same
-- value (a chain hash is one receipt's, so one scope's), so putting a
-- run twice changes nothing; a run put into the store counts as earlier
-- for every run judged against it, its own included.
INSERT INTO history_rocks (key, scope)
SELECT concat(h.kind, h.k) AS key, h.scope AS scope
FROM history_run h
UNION ALL
SELECT DISTINCT concat('s', h.scope) AS key, NULL AS scope
FROM history_run h
WHERE h.kind = 'o' AND h.scope IS NOT NULL
