-- history_append: the rows a finalized run adds to the compact history
-- that queries/shard/judgments.sql reads as history_keys, so that the
-- next runs judge their receipts against this one's without its records.
-- Run it after the run's judgments and finalize succeeded, on the same
-- engine and over the same tables (`verify parts --history-keys DIR`),
-- and write its rows as Parquet into a new directory of DIR named after
-- the run (written hidden, then renamed: docs/scale-out.md); never
-- rewrite an earlier run's files.
--
-- Parameter: none. Tables: shard_records (the run's records) and
-- history_keys (the history before it), as for judgments.sql.
--
-- Rows: what the judgments read of an earlier receipt and nothing more,
-- each key once over the whole history:
--   kind 'o'  a chain hash some receipt has (its owner), with the chain
--             scope of the run's first receipt to have it and
--             receipt_order, the least of the run's receipts having it
--             (24 zero bytes for a genesis, which stands before every
--             receipt of its chain): whether a link resolves, breaks or
--             forks an earlier chain, whether a receipt is one of the
--             history delivered again, and (scope, order) whether its
--             chain scope holds a receipt before the run's first
--             (absent rather than outside);
--   kind 'c'  a chain hash only receipts whose signature did not verify
--             have, with its scope and order as for 'o': a predecessor
--             present, and no more (judgments.sql);
--   kind 'l'  a predecessor some receipt whose signature verified names
--             (fork_prior), with receipt_order, the least of the run's
--             receipts naming it;
--   kind 'n'  a nonce some receipt uses (prior_replay, prior_duplicate),
--             with receipt_order, the least of the run's receipts
--             using it.
-- k and scope are the 16 bytes of the records' hex keys (unhex);
-- receipt_order the 24 bytes of the records' (unhex: issue time, then
-- the line's SHA-256), on every row: a later run's receipt that stands
-- before it is the original, the first namer or its chain's first, the
-- history's its replay, fork or later receipt (judgments.sql). bucket is the key's first hex
-- digit, by which an engine may partition the files (16 buckets). A key
-- the history holds already is left out unless the run's receipt_order
-- stands before the history's least for it (the judgments read the
-- least), so a run appended twice adds nothing the second time, and a
-- duplicated file changes no judgment (the judgments read the history
-- as sets).
-- Order: kind, k: each file's row groups are sorted by key.
WITH owners AS (
    SELECT r.chain_key AS k, MIN(r.ord) AS owner_ord, MIN(CASE WHEN r.claim THEN 1 ELSE 0 END) AS claims_only,
           MIN(CASE WHEN r.link_key IS NULL THEN '000000000000000000000000000000000000000000000000' ELSE r.receipt_order END) AS owner_order
    FROM shard_records r
    WHERE r.chain_key IS NOT NULL
    GROUP BY r.chain_key
),
day_keys AS (
    SELECT CASE WHEN o.claims_only = 1 THEN 'c' ELSE 'o' END AS kind, o.k AS k, r.scope_key AS scope,
           o.owner_order AS receipt_order
    FROM owners o
    JOIN shard_records r ON r.chain_key = o.k AND r.ord = o.owner_ord
    UNION ALL
    SELECT 'l' AS kind, r.link_key AS k, NULL AS scope, MIN(r.receipt_order) AS receipt_order
    FROM shard_records r
    WHERE r.link_key IS NOT NULL AND NOT r.claim
    GROUP BY r.link_key
    UNION ALL
    SELECT 'n' AS kind, r.nonce_key AS k, NULL AS scope, MIN(r.receipt_order) AS receipt_order
    FROM shard_records r
    WHERE r.nonce_key IS NOT NULL
    GROUP BY r.nonce_key
),
-- The history's least receipt_order of each key it holds ('' for none:
-- before every receipt).
held AS (
    SELECT h.kind AS kind, lower(hex(h.k)) AS k, MIN(COALESCE(lower(hex(h.receipt_order)), '')) AS first_order
    FROM history_keys h
    WHERE h.k IN (SELECT unhex(d.k) FROM day_keys d)
    GROUP BY h.kind, lower(hex(h.k))
)
SELECT d.kind AS kind, unhex(d.k) AS k, unhex(d.scope) AS scope, unhex(d.receipt_order) AS receipt_order, substr(d.k, 1, 1) AS bucket
FROM day_keys d
LEFT JOIN held x ON x.kind = d.kind AND x.k = d.k
WHERE x.k IS NULL OR d.receipt_order < x.first_order
ORDER BY kind, k
