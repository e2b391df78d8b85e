-- judgments: the cross-file judgments of a sharded verification, the
-- second implementation of the chain and nonce rule of verify/stream (the
-- test that compares a sharded run with one `verify receipts` ties the
-- two). `verify finalize` runs it on DuckDB and folds its rows into the
-- final verdicts; on a distributed engine, run it over exactly the parts
-- `verify parts` names (never a glob) and give finalize its rows
-- (--judgments), which must judge every record with a link or a nonce
-- exactly once.
--
-- Parameter: none. Tables:
--   shard_records    every shard's records-NNNNN.parquet (`verify
--                    receipts --emit DIR`): ord, the record's place in the whole
--                    run (shard * 2^40 + its ordinal in the shard), and
--                    the hex keys of its chain hash (chain_key), the
--                    predecessor it names (link_key), its chain scope
--                    (scope_key) and its issuer and nonce (nonce_key),
--                    with the receipt's order (receipt_order: issue time,
--                    then its line's SHA-256, streamrun.Order in hex;
--                    set with any of those keys), NULL where it has none, and claim: true for a
--                    receipt whose signature did not verify, which has
--                    no nonce_key;
--   history_keys     the compact history of runs finalized before, or
--                    an empty table: the
--                    rows queries/shard/history_append.sql appended
--                    after each of them, kind ('o' a chain owner, with
--                    its chain scope; 'c' one whose signature did not
--                    verify; 'l' a predecessor named; 'n' a nonce used), k (the key, 16 bytes), scope (16
--                    bytes, owners only) and receipt_order (the bytes
--                    of shard_records' hex: of kinds 'l' and 'n' the
--                    least of the receipts naming or using k, of 'o'
--                    and 'c' the least of the receipts having k, 24
--                    zero bytes for a genesis; NULL counts as before
--                    every receipt). `verify parts --history-keys`
--                    names its files (or makes the same rows from
--                    earlier runs' map directories, --history). It is
--                    read only for the keys the run's records name:
--                    each probe filters it by the run's keys before any
--                    grouping or join (no join reads it whole), so
--                    memory follows the run, not the history; no ord of the history is read, so runs
--                    are numbered as each likes.
--
-- Engines: portable SQL but for unhex(VARCHAR) -> binary and hex(binary)
-- -> VARCHAR (DuckDB, ClickHouse; PostgreSQL with decode/encode
-- wrappers, docs/scale-out.md).
--
-- Order: of the receipts sharing a chain hash, naming one predecessor or
-- using one nonce, the first is the one with the least receipt_order
-- (issue time, then its line's SHA-256), then the least ord: what the
-- receipts carry decides, whatever the order of the files.
--
-- Rule: a receipt naming a predecessor links to it when some receipt has
-- that chain hash (the first of the input, else one of the
-- history) and both share a chain scope; otherwise it is a break (another
-- chain), or, when no receipt has it, absent if an earlier receipt of its
-- chain scope is in the input (a genesis, one naming no predecessor,
-- else by receipt_order, then ord: the first of a chain scope in the
-- input is the only one that may name a predecessor from before the
-- input, whatever the order of the files) or a receipt of it in the
-- history stands before that first (a gap: by receipt_order, a genesis
-- before every receipt; the history's earlier delivery of that first
-- receipt aside), and outside if none is (a chain that starts before
-- the input). Of the receipts naming one predecessor,
-- the first links and every later one is a fork; all are forks
-- (fork_prior) when a receipt of the history naming it stands at or
-- before the run's first (by receipt_order). The first receipt to use
-- an issuer's nonce is unique, or prior_replay when a receipt of the
-- history using it stands at or before it; every later one is a replay.
-- A receipt of the history that stands after the run's first is its
-- replay or fork, as one run over both would judge it; its run's
-- verdicts were published already and are not revised here.
--
-- Claims: a receipt whose signature did not verify (claim) counts only
-- as a predecessor present, since its chain hash is what a genuine
-- successor's signed link names; it begins no chain (scope_firsts, and
-- no 'o' row of the history), is never the first to name a predecessor
-- and uses no nonce, so that what it claims moves no genuine receipt's
-- judgment. Its own link is judged by the others alone (claim_base): a
-- fork when a receipt that counts names the same predecessor, before or
-- after it; its first_ord is itself. Finalize reports the position it
-- claims.
--
-- Deliveries: a receipt whose chain hash a first receipt of the input
-- has is that receipt delivered again (the same signed bytes): a
-- delivery judgment (duplicate, first_ord the earlier one; prior_duplicate
-- when the history has it), a nonce that is no replay (duplicate,
-- prior_duplicate), a link judged as the first naming receipt's when it
-- is that receipt again, and no fork_prior when the history holds it.
--
-- One row per judgment: ord, kind (chain, delivery or nonce), outcome,
-- first_ord (the first receipt of the input to name the predecessor, use
-- the nonce or have the chain hash).
-- Order: ord, kind.
WITH owner_ranks AS (
    SELECT r.chain_key AS k, r.ord AS ord,
           ROW_NUMBER() OVER (PARTITION BY r.chain_key ORDER BY r.receipt_order, r.ord) AS rank
    FROM shard_records r
    WHERE r.chain_key IS NOT NULL
),
owners AS (
    SELECT o.k AS k, o.ord AS owner_ord
    FROM owner_ranks o
    WHERE o.rank = 1
),
owner_scopes AS (
    SELECT o.k AS k, r.scope_key AS scope_key
    FROM owners o
    JOIN shard_records r ON r.chain_key = o.k AND r.ord = o.owner_ord
),
-- The run's keys, by which the history is read: the predecessors named,
-- the receipts' own chain hashes (a receipt the history holds delivered
-- again), the chain scopes and the nonces.
day_links AS (
    SELECT DISTINCT r.link_key AS k
    FROM shard_records r
    WHERE r.link_key IS NOT NULL
),
day_chain_keys AS (
    SELECT DISTINCT u.k AS k
    FROM (
        SELECT r.link_key AS k FROM shard_records r WHERE r.link_key IS NOT NULL
        UNION ALL
        SELECT r.chain_key AS k FROM shard_records r WHERE r.chain_key IS NOT NULL
    ) u
),
day_scopes AS (
    SELECT DISTINCT r.scope_key AS k
    FROM shard_records r
    WHERE r.chain_key IS NOT NULL OR r.link_key IS NOT NULL
),
day_nonces AS (
    SELECT DISTINCT r.nonce_key AS k
    FROM shard_records r
    WHERE r.nonce_key IS NOT NULL
),
-- The history's hits, hex again: the owners of the run's chain keys with
-- their scopes (one row a key: a chain hash is one receipt's, so one
-- scope's) and, for an owner, the least order of its deliveries
-- (first_order, NULL for a claim's), the predecessors it names already,
-- the scopes holding a receipt with a chain hash with the least order of
-- those receipts.
history_scopes AS (
    SELECT lower(hex(h.k)) AS k, lower(hex(h.scope)) AS scope_key,
           MIN(CASE WHEN h.kind = 'o' THEN COALESCE(lower(hex(h.receipt_order)), '') END) AS first_order
    FROM history_keys h
    WHERE h.kind IN ('o', 'c') AND h.k IN (SELECT unhex(d.k) FROM day_chain_keys d)
    GROUP BY lower(hex(h.k)), lower(hex(h.scope))
),
history_named AS (
    SELECT lower(hex(h.k)) AS k, MIN(COALESCE(lower(hex(h.receipt_order)), '')) AS first_order
    FROM history_keys h
    WHERE h.kind = 'l' AND h.k IN (SELECT unhex(d.k) FROM day_links d)
    GROUP BY lower(hex(h.k))
),
history_chain_scopes AS (
    SELECT lower(hex(h.scope)) AS k, MIN(COALESCE(lower(hex(h.receipt_order)), '')) AS first_order
    FROM history_keys h
    WHERE h.kind = 'o' AND h.scope IN (SELECT unhex(d.k) FROM day_scopes d)
    GROUP BY lower(hex(h.scope))
),
scope_ranks AS (
    SELECT r.scope_key AS k, r.ord AS ord, r.receipt_order AS receipt_order,
           CASE WHEN r.link_key IS NULL THEN 1 ELSE 0 END AS genesis,
           ROW_NUMBER() OVER (PARTITION BY r.scope_key
               ORDER BY CASE WHEN r.link_key IS NULL THEN 0 ELSE 1 END, r.receipt_order, r.ord) AS rank
    FROM shard_records r
    WHERE (r.chain_key IS NOT NULL OR r.link_key IS NOT NULL) AND NOT r.claim
),
scope_firsts AS (
    SELECT s.k AS k, s.ord AS first_ord, s.receipt_order AS first_order, s.genesis AS genesis
    FROM scope_ranks s
    WHERE s.rank = 1
),
namer_ranks AS (
    SELECT r.link_key AS k, r.ord AS ord, r.receipt_order AS receipt_order,
           ROW_NUMBER() OVER (PARTITION BY r.link_key ORDER BY r.receipt_order, r.ord) AS rank
    FROM shard_records r
    WHERE r.link_key IS NOT NULL AND NOT r.claim
),
first_namers AS (
    SELECT n.k AS k, n.ord AS first_ord, n.receipt_order AS first_order
    FROM namer_ranks n
    WHERE n.rank = 1
),
nonce_ranks AS (
    SELECT r.nonce_key AS k, r.ord AS ord, r.receipt_order AS receipt_order,
           ROW_NUMBER() OVER (PARTITION BY r.nonce_key ORDER BY r.receipt_order, r.ord) AS rank
    FROM shard_records r
    WHERE r.nonce_key IS NOT NULL
),
first_users AS (
    SELECT n.k AS k, n.ord AS first_ord, n.receipt_order AS first_order
    FROM nonce_ranks n
    WHERE n.rank = 1
),
history_nonces AS (
    SELECT lower(hex(h.k)) AS k, MIN(COALESCE(lower(hex(h.receipt_order)), '')) AS first_order
    FROM history_keys h
    WHERE h.kind = 'n' AND h.k IN (SELECT unhex(d.k) FROM day_nonces d)
    GROUP BY lower(hex(h.k))
),
-- Each naming receipt's judgment as if it were no receipt delivered again.
chain_base AS (
    SELECT n.ord AS ord, n.chain_key AS chain_key, f.first_ord AS first_ord,
        CASE
            WHEN os.scope_key IS NULL AND hs.scope_key IS NULL THEN
                CASE WHEN sf.first_ord <> n.ord
                       OR (hcs.first_order < n.receipt_order AND (ho.first_order IS NULL OR hcs.first_order < ho.first_order))
                     THEN 'absent' ELSE 'outside' END
            WHEN COALESCE(os.scope_key, hs.scope_key) <> n.scope_key THEN 'break'
            WHEN hn.k IS NOT NULL AND ho.k IS NULL AND hn.first_order <= f.first_order THEN 'fork_prior'
            WHEN n.ord <> f.first_ord THEN 'fork'
            ELSE 'linked'
        END AS outcome
    FROM shard_records n
    JOIN first_namers f ON f.k = n.link_key
    LEFT JOIN owner_scopes os ON os.k = n.link_key
    LEFT JOIN history_scopes hs ON hs.k = n.link_key
    LEFT JOIN history_named hn ON hn.k = n.link_key
    LEFT JOIN history_scopes ho ON ho.k = n.chain_key
    LEFT JOIN scope_firsts sf ON sf.k = n.scope_key
    LEFT JOIN history_chain_scopes hcs ON hcs.k = n.scope_key
    WHERE NOT n.claim
),
-- Each claim's judgment, by the receipts that count alone.
claim_base AS (
    SELECT n.ord AS ord,
        CASE
            WHEN os.scope_key IS NULL AND hs.scope_key IS NULL THEN
                CASE WHEN sf.genesis = 1 OR sf.first_order < n.receipt_order OR hcs.first_order < n.receipt_order THEN 'absent' ELSE 'outside' END
            WHEN COALESCE(os.scope_key, hs.scope_key) <> n.scope_key THEN 'break'
            WHEN hn.k IS NOT NULL AND ho.k IS NULL AND (f.k IS NULL OR hn.first_order <= f.first_order) THEN 'fork_prior'
            WHEN f.k IS NOT NULL THEN 'fork'
            ELSE 'linked'
        END AS outcome
    FROM shard_records n
    LEFT JOIN first_namers f ON f.k = n.link_key
    LEFT JOIN owner_scopes os ON os.k = n.link_key
    LEFT JOIN history_scopes hs ON hs.k = n.link_key
    LEFT JOIN history_named hn ON hn.k = n.link_key
    LEFT JOIN history_scopes ho ON ho.k = n.chain_key
    LEFT JOIN scope_firsts sf ON sf.k = n.scope_key
    LEFT JOIN history_chain_scopes hcs ON hcs.k = n.scope_key
    WHERE n.link_key IS NOT NULL AND n.claim
)
SELECT j.ord AS ord, j.kind AS kind, j.outcome AS outcome, j.first_ord AS first_ord
FROM (
SELECT c.ord AS ord, 'chain' AS kind,
    CASE
        WHEN c.ord <> c.first_ord AND c.chain_key = fc.chain_key THEN fc.outcome
        ELSE c.outcome
    END AS outcome,
    c.first_ord AS first_ord
FROM chain_base c
JOIN chain_base fc ON fc.ord = c.first_ord
UNION ALL
SELECT c.ord AS ord, 'chain' AS kind, c.outcome AS outcome, c.ord AS first_ord
FROM claim_base c
UNION ALL
SELECT r.ord AS ord, 'delivery' AS kind, 'duplicate' AS outcome, o.owner_ord AS first_ord
FROM shard_records r
JOIN owners o ON o.k = r.chain_key
WHERE r.ord <> o.owner_ord
UNION ALL
SELECT o.owner_ord AS ord, 'delivery' AS kind, 'prior_duplicate' AS outcome, o.owner_ord AS first_ord
FROM owners o
JOIN history_scopes ho ON ho.k = o.k
UNION ALL
SELECT u.ord AS ord, 'nonce' AS kind,
    CASE
        WHEN u.ord <> f.first_ord AND u.chain_key = fu.chain_key THEN 'duplicate'
        WHEN u.ord <> f.first_ord THEN 'replay'
        WHEN hn.k IS NOT NULL AND hn.first_order <= f.first_order AND ho.k IS NOT NULL THEN 'prior_duplicate'
        WHEN hn.k IS NOT NULL AND hn.first_order <= f.first_order THEN 'prior_replay'
        ELSE 'unique'
    END AS outcome,
    f.first_ord AS first_ord
FROM shard_records u
JOIN first_users f ON f.k = u.nonce_key
JOIN shard_records fu ON fu.ord = f.first_ord
LEFT JOIN history_nonces hn ON hn.k = u.nonce_key
LEFT JOIN history_scopes ho ON ho.k = u.chain_key
) j
ORDER BY ord, kind
