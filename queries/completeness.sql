-- completeness: whether the archive holds the whole of each chain. A valid
-- signature and an intact link say nothing of receipts deleted after the
-- last one held, of a session removed whole, or of a chain rewritten by
-- the key's holder; the signed lifecycle records producers write
-- (pipelock's session_open, heartbeat, session_close) and checkpoints that
-- name a chain's head (rows of lifecycle 'checkpoint') do. A pipelock
-- flight recorder checkpoint signs only the recorder entry hash of its
-- head: its row names the chain (lifecycle_scope) and that entry
-- (lifecycle_head), and the receipt held whose recorder_entry it is gives
-- the head's sequence number and chain_hash; no receipt held there is a
-- head beyond the receipts held. One verdict per chain (chain_scope), in
-- `status`:
--   truncated    a verified checkpoint names a head beyond the receipts
--                held, a head hash no receipt held has (rewritten), or a
--                position whose predecessors are missing; two verified
--                checkpoints name different heads at one position
--                (rewritten between them); or a verified session_close
--                counts more receipts than are held
--   complete     a verified close or checkpoint covers the last receipt
--                held, and every receipt from the first held up to it is
--   open         lifecycle records, no close, and the last receipt within
--                the heartbeat interval its session_open declares of the
--                latest load (files.loaded_at: --at when given)
--   interrupted  lifecycle records, no close, and older than that
--   unknown      no lifecycle record and no checkpoint: not listed, so
--                that an archive without such evidence reports nothing
-- Only receipts that verified (PASS) count as evidence; every receipt of
-- the chain whose signature verified counts as held: a forged one (claim)
-- fills no sequence number and moves no head.
--
-- Parameter: the UTC day (DATE), bound once below: the chains whose last
-- receipt (or, for a chain of which nothing is held, checkpoint) is on
-- that day; NULL reports every chain.
--
-- Severity: high for truncated (signed evidence contradicts the archive:
-- receipts were deleted or rewritten), medium for interrupted (the run
-- stopped without its close: a crash, or a tail deleted with it), info for
-- the others.
--
-- One row per chain with evidence: finding ('completeness'), severity, finding_key (the
-- chain scope), day, status, format, chain_scope, held (receipts held),
-- first_seq and head_seq (held), claimed_seq (the highest sequence number
-- the evidence names), evidence (what decided: session_close, checkpoint,
-- lifecycle, none), last_at, and event_time (last_at, or the day's
-- midnight without one).
-- Order: day, status, chain_scope.
WITH params AS (SELECT CAST(? AS DATE) AS day),
at_load AS (SELECT MAX(loaded_at) AS at_ts FROM files),
r AS (
    SELECT chain_scope, format, step, chain_hash, verdict, lifecycle, lifecycle_seq, lifecycle_count,
           heartbeat_seconds, lifecycle_head, issued_at, day, file_sha256, line, recorder_entry
    FROM receipts
    WHERE chain_scope IS NOT NULL AND step IS NOT NULL AND COALESCE(claim, FALSE) = FALSE
      -- Without a single lifecycle record or checkpoint every chain is
      -- unknown: the engine then judges none (one scan of one column).
      AND EXISTS (SELECT 1 FROM receipts e WHERE e.lifecycle IS NOT NULL)
),
chain_rows AS (SELECT * FROM r WHERE lifecycle IS NULL OR lifecycle <> 'checkpoint'),
steps AS (SELECT chain_scope, step FROM chain_rows GROUP BY chain_scope, step),
hashes AS (SELECT chain_scope, chain_hash FROM chain_rows GROUP BY chain_scope, chain_hash),
held AS (
    SELECT chain_scope, MIN(format) AS format, COUNT(DISTINCT step) AS held, MIN(step) AS first_seq,
           MAX(step) AS head_seq, MAX(issued_at) AS last_at, MAX(day) AS day
    FROM chain_rows
    GROUP BY chain_scope
),
closes AS (
    SELECT h.chain_scope AS chain_scope, MAX(x.lifecycle_count) AS close_count
    FROM held h
    JOIN chain_rows x ON x.chain_scope = h.chain_scope AND x.step = h.head_seq
    WHERE x.lifecycle = 'session_close' AND x.verdict = 'PASS'
    GROUP BY h.chain_scope
),
life AS (
    SELECT chain_scope, MAX(heartbeat_seconds) AS heartbeat_seconds
    FROM chain_rows
    WHERE lifecycle IS NOT NULL AND verdict = 'PASS'
    GROUP BY chain_scope
),
rcp AS (
    SELECT file_sha256, line, lifecycle_scope AS chain_scope, lifecycle_head AS entry, day
    FROM receipts
    WHERE lifecycle = 'checkpoint' AND chain_scope IS NULL AND lifecycle_scope IS NOT NULL AND verdict = 'PASS'
      AND COALESCE(claim, FALSE) = FALSE
),
cp AS (
    SELECT file_sha256, line, chain_scope, lifecycle_seq AS seq, lifecycle_head AS head, day
    FROM r
    WHERE lifecycle = 'checkpoint' AND verdict = 'PASS'
    UNION ALL
    SELECT k.file_sha256, k.line, k.chain_scope, MIN(x.step), MIN(x.chain_hash), k.day
    FROM rcp k
    LEFT JOIN chain_rows x ON x.chain_scope = k.chain_scope AND x.recorder_entry = k.entry
    GROUP BY k.file_sha256, k.line, k.chain_scope, k.day
),
-- Two verified checkpoints of a chain naming different heads at the same
-- position: the chain was rewritten between them (each load's checkpoints
-- are stored with its commit, so a later night's is held to an earlier's).
cp_conflict AS (
    SELECT a.chain_scope AS chain_scope, COUNT(*) AS conflicts
    FROM cp a
    JOIN cp b ON a.chain_scope = b.chain_scope AND a.seq = b.seq
    WHERE a.head <> b.head
    GROUP BY a.chain_scope
),
cp_present AS (
    SELECT cp.file_sha256 AS file_sha256, cp.line AS line, SUM(CASE WHEN s.step <= cp.seq THEN 1 ELSE 0 END) AS present
    FROM cp
    LEFT JOIN steps s ON s.chain_scope = cp.chain_scope
    GROUP BY cp.file_sha256, cp.line
),
cp_head AS (
    SELECT cp.file_sha256 AS file_sha256, cp.line AS line, COUNT(hs.chain_hash) AS head_held
    FROM cp
    LEFT JOIN hashes hs ON hs.chain_scope = cp.chain_scope AND hs.chain_hash = cp.head
    GROUP BY cp.file_sha256, cp.line
),
cp_judged AS (
    SELECT cp.chain_scope AS chain_scope,
           MAX(cp.seq) AS claimed_seq,
           MAX(cp.day) AS day,
           SUM(CASE WHEN h.chain_scope IS NULL OR cp.seq > h.head_seq OR ch.head_held = 0
                         OR pr.present < cp.seq - h.first_seq + 1 THEN 1 ELSE 0 END) AS contradicted,
           SUM(CASE WHEN cp.seq = h.head_seq THEN 1 ELSE 0 END) AS covers_head
    FROM cp
    JOIN cp_present pr ON pr.file_sha256 = cp.file_sha256 AND pr.line = cp.line
    JOIN cp_head ch ON ch.file_sha256 = cp.file_sha256 AND ch.line = cp.line
    LEFT JOIN held h ON h.chain_scope = cp.chain_scope
    GROUP BY cp.chain_scope
),
chains AS (
    SELECT chain_scope FROM held
    UNION DISTINCT
    SELECT chain_scope FROM cp_judged
),
judged AS (
    SELECT c.chain_scope AS chain_scope,
           COALESCE(h.day, j.day) AS day,
           h.format AS format,
           COALESCE(h.held, 0) AS held,
           h.first_seq AS first_seq,
           h.head_seq AS head_seq,
           CASE WHEN j.claimed_seq IS NOT NULL AND (h.head_seq IS NULL OR j.claimed_seq > h.head_seq)
                THEN j.claimed_seq ELSE h.head_seq END AS claimed_seq,
           h.last_at AS last_at,
           CASE
               WHEN j.contradicted > 0 OR cc.conflicts > 0 THEN 'truncated'
               WHEN cl.close_count > h.held THEN 'truncated'
               WHEN cl.chain_scope IS NOT NULL AND h.held = h.head_seq - h.first_seq + 1 THEN 'complete'
               WHEN j.covers_head > 0 AND h.held = h.head_seq - h.first_seq + 1 THEN 'complete'
               WHEN l.chain_scope IS NOT NULL AND l.heartbeat_seconds > 0 AND a.at_ts IS NOT NULL
                    AND EXTRACT(EPOCH FROM a.at_ts) - EXTRACT(EPOCH FROM h.last_at) <= l.heartbeat_seconds THEN 'open'
               WHEN l.chain_scope IS NOT NULL THEN 'interrupted'
               ELSE 'unknown'
           END AS status,
           CASE
               WHEN j.contradicted > 0 OR cc.conflicts > 0 THEN 'checkpoint'
               WHEN cl.chain_scope IS NOT NULL THEN 'session_close'
               WHEN j.covers_head > 0 THEN 'checkpoint'
               WHEN l.chain_scope IS NOT NULL THEN 'lifecycle'
               ELSE 'none'
           END AS evidence
    FROM chains c
    LEFT JOIN held h ON h.chain_scope = c.chain_scope
    LEFT JOIN cp_judged j ON j.chain_scope = c.chain_scope
    LEFT JOIN cp_conflict cc ON cc.chain_scope = c.chain_scope
    LEFT JOIN closes cl ON cl.chain_scope = c.chain_scope
    LEFT JOIN life l ON l.chain_scope = c.chain_scope
    CROSS JOIN at_load a
)
SELECT 'completeness' AS finding,
       CASE j.status WHEN 'truncated' THEN 'high' WHEN 'interrupted' THEN 'medium' ELSE 'info' END AS severity,
       'completeness|' || j.chain_scope AS finding_key,
       j.day AS day,
       j.status AS status,
       j.format AS format,
       j.chain_scope AS chain_scope,
       j.held AS held,
       j.first_seq AS first_seq,
       j.head_seq AS head_seq,
       j.claimed_seq AS claimed_seq,
       j.evidence AS evidence,
       j.last_at AS last_at,
       COALESCE(j.last_at, CAST(j.day AS TIMESTAMP)) AS event_time
FROM judged j
CROSS JOIN params p
WHERE j.day IS NOT NULL
  AND j.status <> 'unknown'
  AND (p.day IS NULL OR j.day = p.day)
ORDER BY j.day, j.status, j.chain_scope
