-- history_superseded: the keys of the history that a run's receipt holds
-- before it, by the receipts' order: a predecessor named ('l') or a
-- nonce used ('n') whose first receipt in the run stands before every
-- receipt of the history naming or using it (receipt_order: issue time,
-- then the line's SHA-256). judgments.sql makes the run's receipt the
-- first namer or the original; the history's receipts are then its forks
-- or replays, as one run over both would judge them, but their verdicts,
-- published by their runs, are not revised by this one. `verify
-- finalize` counts these rows on stderr.
--
-- Parameter: none. Tables: shard_records and history_keys, as for
-- judgments.sql.
--
-- One row per key: kind ('l' or 'n') and k (the hex key).
-- Order: kind, k.
WITH run_firsts AS (
    SELECT 'l' AS kind, r.link_key AS k, MIN(r.receipt_order) AS first_order
    FROM shard_records r
    WHERE r.link_key IS NOT NULL AND NOT r.claim
    GROUP BY r.link_key
    UNION ALL
    SELECT 'n' AS kind, r.nonce_key AS k, MIN(r.receipt_order) AS first_order
    FROM shard_records r
    WHERE r.nonce_key IS NOT NULL
    GROUP BY r.nonce_key
),
history_firsts AS (
    SELECT h.kind AS kind, lower(hex(h.k)) AS k, MIN(COALESCE(lower(hex(h.receipt_order)), '')) AS first_order
    FROM history_keys h
    WHERE h.kind IN ('l', 'n') AND h.k IN (SELECT unhex(f.k) FROM run_firsts f)
    GROUP BY h.kind, lower(hex(h.k))
)
SELECT f.kind AS kind, f.k AS k
FROM run_firsts f
JOIN history_firsts h ON h.kind = f.kind AND h.k = f.k
WHERE f.first_order < h.first_order
ORDER BY kind, k
