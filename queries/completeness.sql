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
-- A transparency log's checkpoints (lifecycle 'log_checkpoint'), one log
-- per origin and signing key, are held to each other, those of this load
-- and those stored by earlier ones (a load stores its checkpoints only
-- with the commit of its file, so a load that failed leaves nothing to
-- hold the next to). One row per log with two tree heads or more, or a
-- failed proof, in `status`:
--   split_view    it signed two roots for one size, or a verified
--                 consistency proof leads from another root than the one
--                 it signed for that size (equivocation)
--   inconsistent  a consistency proof on one of its checkpoints does not
--                 verify
--   rollback      a tree smaller than one stored by an earlier load, that
--                 no verified proof shows to be an older state of a larger
--                 one (an old checkpoint seen again is no new tree head)
--   unknown       some tree head has no verified proof from the next
--                 smaller one: consistency not checked
--   consistent    each tree head has a verified proof from the next
--                 smaller one
-- Only receipts that verified (PASS) count as evidence; every receipt of
-- the chain whose signature verified counts as held: a forged one (claim)
-- fills no sequence number and moves no head.
--
-- Parameter: the UTC day (DATE), bound once below: the chains whose last
-- receipt (or, for a chain of which nothing is held, checkpoint) is on
-- that day; NULL reports every chain.
--
-- Severity: high for truncated (signed evidence contradicts the archive:
-- receipts were deleted or rewritten), and for split_view and
-- inconsistent (the log showed two histories); medium for interrupted
-- (the run stopped without its close: a crash, or a tail deleted with
-- it) and rollback (a stale checkpoint, or a log rolled back: nothing
-- proves which); info for the others.
--
-- One row per chain with evidence: finding ('completeness'), severity, finding_key (the
-- chain scope), day, status, format, chain_scope, held (receipts held),
-- first_seq and head_seq (held), claimed_seq (the highest sequence number
-- the evidence names), evidence (what decided: session_close, checkpoint,
-- lifecycle, none), last_at, and event_time (last_at, or the day's
-- midnight without one). A log's row: format c2sp-checkpoint,
-- chain_scope its origin's scope, held its tree heads, first_seq and
-- head_seq (and claimed_seq) their smallest and largest size, evidence
-- log_checkpoints, consistency_proof or consistency_not_checked, no
-- last_at, day the last day of its checkpoints' loads.
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
),
-- Transparency logs' checkpoints (lifecycle 'log_checkpoint': size in
-- lifecycle_seq, root in lifecycle_head), one log per origin
-- (lifecycle_scope) and signing key (issuer_id). Signed: the note
-- verified; a consistency proof that does not verify (consistency_size
-- without consistency_root) leaves it signed.
lg AS (
    SELECT x.lifecycle_scope AS log_scope, x.issuer_id AS signer, x.lifecycle_seq AS size, x.lifecycle_head AS root,
           COALESCE(x.consistency_size, 0) AS from_size, COALESCE(x.consistency_root, '') AS from_root,
           CASE WHEN x.verdict = 'PASS' OR (COALESCE(x.consistency_size, 0) > 0 AND COALESCE(x.consistency_root, '') = '')
                THEN 1 ELSE 0 END AS signed,
           x.day AS day, f.loaded_at AS loaded_at
    FROM receipts x
    JOIN files f ON f.file_sha256 = x.file_sha256
    WHERE x.lifecycle = 'log_checkpoint' AND x.lifecycle_scope IS NOT NULL AND x.issuer_id IS NOT NULL
),
-- Each tree head a log signed, and the load that first stored it. (The
-- signed rows are chosen by aggregates, not WHERE, here and below:
-- ClickHouse's Parquet reader fails on a pushed-down filter on the
-- consistency columns.)
heads AS (
    SELECT log_scope, signer, size, root, MIN(CASE WHEN signed = 1 THEN loaded_at END) AS first_at
    FROM lg
    GROUP BY log_scope, signer, size, root
    HAVING MAX(signed) = 1
),
-- Two roots signed for one size: a split view.
log_split AS (
    SELECT a.log_scope AS log_scope, a.signer AS signer, COUNT(*) AS n
    FROM heads a
    JOIN heads b ON a.log_scope = b.log_scope AND a.signer = b.signer AND a.size = b.size
    WHERE a.root <> b.root
    GROUP BY a.log_scope, a.signer
),
-- Verified consistency proofs from a head the log signed (proven), and
-- those from another root than the one it signed for that size: its
-- newer tree extends a tree it did not show, a split view too.
proofs AS (
    SELECT log_scope, signer, size, root, from_size, from_root
    FROM lg
    GROUP BY log_scope, signer, size, root, from_size, from_root
    HAVING MAX(CASE WHEN signed = 1 AND from_root <> '' THEN 1 ELSE 0 END) = 1
),
proven AS (
    SELECT p.log_scope AS log_scope, p.signer AS signer, p.size AS size, p.root AS root, p.from_size AS from_size, p.from_root AS from_root
    FROM proofs p
    JOIN heads h ON h.log_scope = p.log_scope AND h.signer = p.signer AND h.size = p.from_size AND h.root = p.from_root
),
proof_split AS (
    SELECT p.log_scope AS log_scope, p.signer AS signer, COUNT(*) AS n
    FROM proofs p
    JOIN heads h ON h.log_scope = p.log_scope AND h.signer = p.signer AND h.size = p.from_size
    WHERE h.root <> p.from_root
    GROUP BY p.log_scope, p.signer
),
refuted AS (
    SELECT log_scope, signer, SUM(CASE WHEN signed = 1 AND from_size > 0 AND from_root = '' THEN 1 ELSE 0 END) AS n
    FROM lg
    GROUP BY log_scope, signer
),
-- Each head's predecessor (the log's next smaller size) and whether a
-- larger head was stored by an earlier load than its first.
head_prev AS (
    SELECT h.log_scope AS log_scope, h.signer AS signer, h.size AS size, h.root AS root,
           MAX(CASE WHEN o.size < h.size THEN o.size END) AS prev_size,
           SUM(CASE WHEN o.size > h.size AND o.first_at < h.first_at THEN 1 ELSE 0 END) AS larger_before
    FROM heads h
    JOIN heads o ON o.log_scope = h.log_scope AND o.signer = h.signer
    GROUP BY h.log_scope, h.signer, h.size, h.root
),
-- A head is linked when a verified proof on it leads from a head the
-- log signed at its predecessor's size; it is proven older when a
-- verified proof on a larger head leads from it.
head_link AS (
    SELECT hp.log_scope AS log_scope, hp.signer AS signer, hp.size AS size, hp.root AS root,
           MIN(hp.prev_size) AS prev_size, MIN(hp.larger_before) AS larger_before,
           SUM(CASE WHEN pv.from_size = hp.prev_size THEN 1 ELSE 0 END) AS linked
    FROM head_prev hp
    LEFT JOIN proven pv ON pv.log_scope = hp.log_scope AND pv.signer = hp.signer AND pv.size = hp.size AND pv.root = hp.root
    GROUP BY hp.log_scope, hp.signer, hp.size, hp.root
),
head_judged AS (
    SELECT hl.log_scope AS log_scope, hl.signer AS signer, hl.size AS size,
           MIN(CASE WHEN hl.prev_size IS NOT NULL AND hl.linked = 0 THEN 1 ELSE 0 END) AS unlinked,
           MIN(CASE WHEN hl.larger_before > 0 THEN 1 ELSE 0 END) AS later_smaller,
           COUNT(q.size) AS older
    FROM head_link hl
    LEFT JOIN proven q ON q.log_scope = hl.log_scope AND q.signer = hl.signer AND q.from_size = hl.size AND q.from_root = hl.root
    GROUP BY hl.log_scope, hl.signer, hl.size, hl.root
),
logs AS (
    SELECT hj.log_scope AS log_scope, hj.signer AS signer, COUNT(*) AS heads, MIN(hj.size) AS first_size,
           MAX(hj.size) AS last_size, SUM(hj.unlinked) AS unlinked,
           SUM(CASE WHEN hj.later_smaller > 0 AND hj.older = 0 THEN 1 ELSE 0 END) AS rollbacks
    FROM head_judged hj
    GROUP BY hj.log_scope, hj.signer
),
log_judged AS (
    SELECT l.log_scope AS log_scope, l.signer AS signer, l.heads AS heads, l.first_size AS first_size, l.last_size AS last_size,
           d.day AS day,
           CASE
               WHEN ls.n > 0 OR ps.n > 0 THEN 'split_view'
               WHEN rf.n > 0 THEN 'inconsistent'
               WHEN l.rollbacks > 0 THEN 'rollback'
               WHEN l.unlinked > 0 THEN 'unknown'
               ELSE 'consistent'
           END AS status,
           CASE
               WHEN ls.n > 0 THEN 'log_checkpoints'
               WHEN ps.n > 0 OR rf.n > 0 THEN 'consistency_proof'
               WHEN l.rollbacks > 0 THEN 'log_checkpoints'
               WHEN l.unlinked > 0 THEN 'consistency_not_checked'
               ELSE 'consistency_proof'
           END AS evidence
    FROM logs l
    JOIN (SELECT log_scope, signer, MAX(CASE WHEN signed = 1 THEN day END) AS day FROM lg GROUP BY log_scope, signer) d
      ON d.log_scope = l.log_scope AND d.signer = l.signer
    LEFT JOIN log_split ls ON ls.log_scope = l.log_scope AND ls.signer = l.signer
    LEFT JOIN proof_split ps ON ps.log_scope = l.log_scope AND ps.signer = l.signer
    LEFT JOIN refuted rf ON rf.log_scope = l.log_scope AND rf.signer = l.signer
    WHERE l.heads > 1 OR rf.n > 0 OR ps.n > 0
),
rows_out AS (
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
    UNION ALL
    SELECT 'completeness' AS finding,
           CASE WHEN g.status IN ('split_view', 'inconsistent') THEN 'high' WHEN g.status = 'rollback' THEN 'medium' ELSE 'info' END AS severity,
           'completeness|' || g.log_scope || '|' || g.signer AS finding_key,
           g.day AS day,
           g.status AS status,
           'c2sp-checkpoint' AS format,
           g.log_scope AS chain_scope,
           g.heads AS held,
           g.first_size AS first_seq,
           g.last_size AS head_seq,
           g.last_size AS claimed_seq,
           g.evidence AS evidence,
           NULL AS last_at,
           CAST(g.day AS TIMESTAMP) AS event_time
    FROM log_judged g
    CROSS JOIN params p
    WHERE p.day IS NULL OR g.day = p.day
)
SELECT finding, severity, finding_key, day, status, format, chain_scope, held, first_seq, head_seq, claimed_seq,
       evidence, last_at, event_time
FROM rows_out
ORDER BY day, status, chain_scope
