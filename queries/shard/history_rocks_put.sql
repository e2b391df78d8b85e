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
-- scope, receipt_order: a run's history_append.sql rows, or the files
-- of the runs a store is rebuilt from, all at once), and history_rocks
-- (verify parts: key String, scope Nullable(String), receipt_order
-- Nullable(String), PRIMARY KEY key). A store put before the history
-- kept receipt_order on every row (its owners' and scopes' NULL) is
-- rebuilt from the Parquet history.
--
-- Rows: each key under kind || k with its scope and its least
-- receipt_order, and each owner's chain scope under 's' || scope with
-- the least receipt_order of the scope's owners, the run's and the
-- store's (whether the history holds a receipt of that chain scope
-- before a run's first; NULL, before every receipt, when one has none).
-- A run's append rows hold a key the history held already only when
-- the run's receipt_order stands before the history's, and a scope's
-- order is the least of the store's and the run's, so a put overwrites
-- a key with the same value or an earlier order, and putting a run
-- twice changes nothing; a run put into the store counts as history for
-- every run judged against it, its own included.
INSERT INTO history_rocks (key, scope, receipt_order)
SELECT concat(h.kind, h.k) AS key, min(h.scope) AS scope, min(h.receipt_order) AS receipt_order
FROM history_run h
GROUP BY h.kind, h.k
UNION ALL
SELECT concat('s', s.scope) AS key, NULL AS scope,
       CASE WHEN count(*) = count(s.receipt_order) THEN min(s.receipt_order) END AS receipt_order
FROM (
    SELECT h.scope AS scope, h.receipt_order AS receipt_order
    FROM history_run h
    WHERE h.kind = 'o' AND h.scope IS NOT NULL
    UNION ALL
    SELECT substring(p.key, 2) AS scope, p.receipt_order AS receipt_order
    FROM history_rocks p
    WHERE p.key IN (SELECT concat('s', r.scope) FROM history_run r WHERE r.kind = 'o' AND r.scope IS NOT NULL)
) s
GROUP BY s.scope
