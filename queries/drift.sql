-- drift: a tool's fingerprint that changed or appeared, one row per
-- finding, its kind in `kind`:
--   session_change          within one session (issuer, agent, session_id) a
--                           tool_name's fingerprint differs from the one the
--                           session used for that name just before; one row
--                           per receipt that changed it ("silent capability
--                           drift" in the Asqav tool-fingerprint note)
--   first_seen              a (tool_name, tool_fingerprint) pair whose first
--                           day in the whole database is the day, when
--                           earlier days exist; the first day of history is
--                           the baseline, not a finding
--   unexpected_fingerprint  a pair used on the day that no expected schema
--                           has (expected_tools); only when expected_tools
--                           is not empty
--
-- Parameter: the UTC day (DATE), bound once below; NULL reports every day.
-- Receipts: every loaded receipt with a tool_name and a tool_fingerprint,
-- whatever its verdict. History (earlier days, the session's earlier
-- receipts) is the whole database.
--
-- Severity, per row (see README, "Severity"):
--   high    the fingerprint is no expected server's (expected drift or
--           unknown), whatever the kind: a tool ran with a schema nobody
--           declared (a changed, swapped or poisoned server).
--   medium  no expected schemas were loaded (not_run): a change the report
--           cannot judge; give --schemas, or accept it in a baseline.
--   low     a first_seen pair an expected server has (an agent began using a
--           declared tool), or a session moving back to an expected
--           fingerprint from one that is not (the high row is the move away).
--   info    a session moving between two expected servers' fingerprints of
--           one name: the name collides, and the session used both servers.
--
-- Columns: finding ('drift'); severity, as above; finding_key (the row's
-- identity: kind, day, tool, fingerprint, and for session_change the
-- previous fingerprint and the receipt's file and line; the runner shows
-- its SHA-256 as finding_id); previous_fingerprint (session_change only);
-- expected: match | drift (name expected, schema not) | unknown (name not
-- expected) | not_run (no expected schemas); expected_server: an expected
-- server with this fingerprint (the first by name), NULL if none;
-- previous_expected: expected for previous_fingerprint; receipts,
-- first_seen, last_seen: of the pair on the day (1 and the receipt's time
-- for session_change); agent_id, session_id, action_id, source, line: the
-- (first) receipt that shows it; event_time: first_seen, or the day's
-- midnight without one.
-- Order: day, kind, tool_name, tool_fingerprint, first_seen, source, line.
WITH params AS (SELECT CAST(? AS DATE) AS day),
history AS (
    SELECT MIN(r.day) AS first_day
    FROM receipts r
    WHERE r.tool_name IS NOT NULL
      AND r.tool_fingerprint IS NOT NULL
      AND r.day IS NOT NULL
),
expected_pairs AS (
    SELECT tool_name, fingerprint, MIN(server) AS server
    FROM expected_tools
    GROUP BY tool_name, fingerprint
),
expected_names AS (
    SELECT tool_name FROM expected_tools GROUP BY tool_name
),
schemas_given AS (
    SELECT COUNT(*) AS n FROM expected_tools
),
-- session_change: only sessions with a receipt on the day can change on
-- it, and only (session, tool) pairs with more than one fingerprint ...
day_sessions AS (
    SELECT DISTINCT r.session_id AS session_id
    FROM receipts r
    CROSS JOIN params p
    WHERE r.session_id IS NOT NULL
      AND r.tool_name IS NOT NULL
      AND r.tool_fingerprint IS NOT NULL
      AND (p.day IS NULL OR r.day = p.day)
),
session_receipts AS (
    SELECT r.day AS day, r.tool_name AS tool_name, r.tool_fingerprint AS tool_fingerprint, r.issuer_id AS issuer_id, r.agent_id AS agent_id,
           r.session_id AS session_id, r.step AS step, r.action_id AS action_id, r.source AS source, r.file_sha256 AS file_sha256, r.line AS line,
           r.issued_at AS issued_at
    FROM day_sessions s
    JOIN receipts r ON r.session_id = s.session_id
    WHERE r.tool_name IS NOT NULL
      AND r.tool_fingerprint IS NOT NULL
      AND r.day IS NOT NULL
),
session_tools AS (
    SELECT issuer_id, agent_id, session_id, tool_name
    FROM session_receipts
    GROUP BY issuer_id, agent_id, session_id, tool_name
    HAVING MIN(tool_fingerprint) <> MAX(tool_fingerprint)
),
-- ... whose receipts are walked in order of issue.
in_session AS (
    SELECT r.day AS day, r.tool_name AS tool_name, r.tool_fingerprint AS tool_fingerprint, r.agent_id AS agent_id, r.session_id AS session_id,
           r.action_id AS action_id, r.source AS source, r.file_sha256 AS file_sha256, r.line AS line, r.issued_at AS issued_at,
           LAG(r.tool_fingerprint) OVER (
               PARTITION BY t.issuer_id, t.agent_id, t.session_id, t.tool_name
               ORDER BY r.issued_at NULLS LAST, r.step NULLS LAST, r.source, r.file_sha256, r.line
           ) AS previous_fingerprint
    FROM session_tools t
    JOIN session_receipts r ON r.session_id = t.session_id AND r.tool_name = t.tool_name
    WHERE (r.issuer_id = t.issuer_id OR (r.issuer_id IS NULL AND t.issuer_id IS NULL))
      AND (r.agent_id = t.agent_id OR (r.agent_id IS NULL AND t.agent_id IS NULL))
),
session_changes AS (
    SELECT 'session_change' AS kind, i.day AS day, i.tool_name AS tool_name, i.tool_fingerprint AS tool_fingerprint,
           i.previous_fingerprint AS previous_fingerprint, 1 AS receipts,
           i.issued_at AS first_seen, i.issued_at AS last_seen,
           i.agent_id AS agent_id, i.session_id AS session_id, i.action_id AS action_id, i.source AS source, i.file_sha256 AS file_sha256, i.line AS line
    FROM in_session i
    CROSS JOIN params p
    WHERE i.previous_fingerprint IS NOT NULL
      AND i.previous_fingerprint <> i.tool_fingerprint
      AND (p.day IS NULL OR i.day = p.day)
),
-- first_seen and unexpected_fingerprint: flagged (day, pair)s ...
pair_first AS (
    SELECT r.tool_name AS tool_name, r.tool_fingerprint AS tool_fingerprint, MIN(r.day) AS first_day
    FROM receipts r
    WHERE r.tool_name IS NOT NULL
      AND r.tool_fingerprint IS NOT NULL
      AND r.day IS NOT NULL
    GROUP BY r.tool_name, r.tool_fingerprint
),
day_pairs AS (
    SELECT DISTINCT r.day AS day, r.tool_name AS tool_name, r.tool_fingerprint AS tool_fingerprint
    FROM receipts r
    CROSS JOIN params p
    WHERE r.tool_name IS NOT NULL
      AND r.tool_fingerprint IS NOT NULL
      AND r.day IS NOT NULL
      AND (p.day IS NULL OR r.day = p.day)
),
flagged_pairs AS (
    SELECT 'first_seen' AS kind, f.first_day AS day, f.tool_name AS tool_name, f.tool_fingerprint AS tool_fingerprint
    FROM pair_first f
    CROSS JOIN params p
    CROSS JOIN history h
    WHERE f.first_day > h.first_day
      AND (p.day IS NULL OR f.first_day = p.day)
    UNION ALL
    SELECT 'unexpected_fingerprint' AS kind, d.day AS day, d.tool_name AS tool_name, d.tool_fingerprint AS tool_fingerprint
    FROM day_pairs d
    CROSS JOIN schemas_given s
    LEFT JOIN expected_pairs e
           ON e.tool_name = d.tool_name AND e.fingerprint = d.tool_fingerprint
    WHERE s.n > 0
      AND e.fingerprint IS NULL
),
-- ... with the receipts that show them, the first one kept (by issued_at,
-- then line_sha256: what the receipts carry, not their file names).
pair_receipts AS (
    SELECT f.kind AS kind, r.day AS day, r.tool_name AS tool_name, r.tool_fingerprint AS tool_fingerprint, r.agent_id AS agent_id,
           r.session_id AS session_id, r.action_id AS action_id, r.source AS source, r.file_sha256 AS file_sha256, r.line AS line,
           ROW_NUMBER() OVER (
               PARTITION BY f.kind, r.day, r.tool_name, r.tool_fingerprint
               ORDER BY r.issued_at NULLS LAST, r.line_sha256 NULLS LAST, r.file_sha256, r.line
           ) AS rn,
           COUNT(*) OVER (PARTITION BY f.kind, r.day, r.tool_name, r.tool_fingerprint) AS receipts,
           MIN(r.issued_at) OVER (PARTITION BY f.kind, r.day, r.tool_name, r.tool_fingerprint) AS first_seen,
           MAX(r.issued_at) OVER (PARTITION BY f.kind, r.day, r.tool_name, r.tool_fingerprint) AS last_seen
    FROM flagged_pairs f
    JOIN receipts r
      ON r.day = f.day
     AND r.tool_name = f.tool_name
     AND r.tool_fingerprint = f.tool_fingerprint
),
findings AS (
    SELECT kind, day, tool_name, tool_fingerprint, NULL AS previous_fingerprint,
           receipts, first_seen, last_seen, agent_id, session_id, action_id,
           source, file_sha256, line
    FROM pair_receipts
    WHERE rn = 1
    UNION ALL
    SELECT kind, day, tool_name, tool_fingerprint, previous_fingerprint,
           receipts, first_seen, last_seen, agent_id, session_id, action_id,
           source, file_sha256, line
    FROM session_changes
),
judged AS (
    SELECT x.day AS day, x.kind AS kind, x.tool_name AS tool_name, x.tool_fingerprint AS tool_fingerprint, x.previous_fingerprint AS previous_fingerprint,
           CASE
               WHEN e.fingerprint IS NOT NULL THEN 'match'
               WHEN s.n = 0 THEN 'not_run'
               WHEN k.tool_name IS NOT NULL THEN 'drift'
               ELSE 'unknown'
           END AS expected,
           e.server AS expected_server,
           CASE
               WHEN x.previous_fingerprint IS NULL THEN NULL
               WHEN pe.fingerprint IS NOT NULL THEN 'match'
               WHEN s.n = 0 THEN 'not_run'
               WHEN k.tool_name IS NOT NULL THEN 'drift'
               ELSE 'unknown'
           END AS previous_expected,
           x.receipts AS receipts, x.first_seen AS first_seen, x.last_seen AS last_seen, x.agent_id AS agent_id, x.session_id AS session_id,
           x.action_id AS action_id, x.source AS source, x.file_sha256 AS file_sha256, x.line AS line
    FROM findings x
    CROSS JOIN schemas_given s
    LEFT JOIN expected_pairs e
           ON e.tool_name = x.tool_name AND e.fingerprint = x.tool_fingerprint
    LEFT JOIN expected_pairs pe
           ON pe.tool_name = x.tool_name AND pe.fingerprint = x.previous_fingerprint
    LEFT JOIN expected_names k ON k.tool_name = x.tool_name
)
SELECT 'drift' AS finding,
       CASE
           WHEN j.expected IN ('drift', 'unknown') THEN 'high'
           WHEN j.expected = 'not_run' THEN 'medium'
           WHEN j.kind = 'first_seen' THEN 'low'
           WHEN j.previous_expected IN ('drift', 'unknown') THEN 'low'
           ELSE 'info'
       END AS severity,
       CASE
           WHEN j.kind = 'session_change' THEN
               'drift|session_change|' || CAST(j.day AS VARCHAR) || '|' || j.tool_name || '|'
               || j.tool_fingerprint || '|' || j.previous_fingerprint || '|'
               || j.file_sha256 || ':' || CAST(j.line AS VARCHAR)
           ELSE 'drift|' || j.kind || '|' || CAST(j.day AS VARCHAR) || '|' || j.tool_name || '|'
               || j.tool_fingerprint
       END AS finding_key,
       j.day AS day,
       j.kind AS kind,
       j.tool_name AS tool_name,
       j.tool_fingerprint AS tool_fingerprint,
       j.previous_fingerprint AS previous_fingerprint,
       j.expected AS expected,
       j.expected_server AS expected_server,
       j.previous_expected AS previous_expected,
       j.receipts AS receipts,
       j.first_seen AS first_seen,
       j.last_seen AS last_seen,
       j.agent_id AS agent_id,
       j.session_id AS session_id,
       j.action_id AS action_id,
       j.source AS source,
       j.line AS line,
       COALESCE(j.first_seen, CAST(j.day AS TIMESTAMP)) AS event_time
FROM judged j
ORDER BY j.day, j.kind, j.tool_name, j.tool_fingerprint,
         j.first_seen NULLS LAST, j.source, j.line
