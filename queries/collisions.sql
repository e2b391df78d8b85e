-- collisions: tool names seen with more than one tool_fingerprint on one
-- UTC day. Two MCP servers exposing the same name with different schemas
-- (NSA CSI U/OO/6030316-26, p.8), or one server whose schema changed: the
-- name alone no longer says which tool ran.
--
-- Parameter: the UTC day (DATE), bound once below; NULL reports every day.
-- Receipts: every loaded receipt with a tool_name and a tool_fingerprint,
-- whatever its verdict (failed receipts are counted in `failed`).
--
-- Severity, per row (see README, "Severity"):
--   high    this fingerprint is no expected server's (expected drift or
--           unknown): a tool ran with a schema nobody declared, which is
--           what a swapped or poisoned server looks like.
--   medium  no expected schemas were loaded (not_run): a collision between
--           two servers cannot be told from a schema change; give --schemas.
--   low     this fingerprint is an expected server's, but another one of the
--           name on the day is not: the known side of a high collision,
--           listed for context.
--   info    every fingerprint of the name on the day is an expected
--           server's: two declared servers expose the same name. Known and
--           expected; nothing to do unless agents should not see both.
--
-- One row per (day, tool_name, tool_fingerprint, expected server):
--   finding          'collisions'
--   severity         high | medium | low | info, as above
--   finding_key      the row's identity: day, tool name, fingerprint,
--                    expected server (the runner shows its SHA-256 as
--                    finding_id, the same on every re-run)
--   fingerprints     distinct fingerprints of the name on the day (> 1)
--   expected_server  an expected server whose schema has this fingerprint
--                    (expected_tools), NULL if none does
--   expected         match | drift (the name is expected, this schema is
--                    not) | unknown (no expected server has the name) |
--                    not_run (no expected schemas were given)
--   receipts, agents, sessions, failed, first_seen, last_seen: of this
--   fingerprint on the day.
--   event_time       first_seen, or the day's midnight when no receipt of
--                    the fingerprint carries issued_at
-- Order: day, tool_name, tool_fingerprint, expected_server.
WITH params AS (SELECT CAST(? AS DATE) AS day),
used AS (
    SELECT r.day AS day, r.tool_name AS tool_name, r.tool_fingerprint AS tool_fingerprint, r.agent_id AS agent_id, r.session_id AS session_id,
           r.verdict AS verdict, r.issued_at AS issued_at
    FROM receipts r
    CROSS JOIN params p
    WHERE r.tool_name IS NOT NULL
      AND r.tool_fingerprint IS NOT NULL
      AND r.day IS NOT NULL
      AND (p.day IS NULL OR r.day = p.day)
),
names AS (
    SELECT day, tool_name, COUNT(DISTINCT tool_fingerprint) AS fingerprints
    FROM used
    GROUP BY day, tool_name
    HAVING COUNT(DISTINCT tool_fingerprint) > 1
),
pairs AS (
    SELECT u.day AS day, u.tool_name AS tool_name, u.tool_fingerprint AS tool_fingerprint,
           COUNT(*) AS receipts,
           COUNT(DISTINCT u.agent_id) AS agents,
           COUNT(DISTINCT u.session_id) AS sessions,
           COUNT(CASE WHEN u.verdict = 'FAIL' THEN 1 END) AS failed,
           MIN(u.issued_at) AS first_seen,
           MAX(u.issued_at) AS last_seen
    FROM used u
    JOIN names n ON n.day = u.day AND n.tool_name = u.tool_name
    GROUP BY u.day, u.tool_name, u.tool_fingerprint
),
expected_pairs AS (
    SELECT tool_name, fingerprint FROM expected_tools GROUP BY tool_name, fingerprint
),
expected_names AS (
    SELECT DISTINCT tool_name FROM expected_tools
),
schemas_given AS (
    SELECT COUNT(*) AS n FROM expected_tools
),
-- Per (day, name): how many of its fingerprints no expected server has.
unmatched AS (
    SELECT pr.day AS day, pr.tool_name AS tool_name,
           COUNT(CASE WHEN e.fingerprint IS NULL THEN 1 END) AS fingerprints
    FROM pairs pr
    LEFT JOIN expected_pairs e
           ON e.tool_name = pr.tool_name AND e.fingerprint = pr.tool_fingerprint
    GROUP BY pr.day, pr.tool_name
),
rows_out AS (
    SELECT pr.day AS day,
           pr.tool_name AS tool_name,
           n.fingerprints AS fingerprints,
           pr.tool_fingerprint AS tool_fingerprint,
           e.server AS expected_server,
           CASE
               WHEN e.server IS NOT NULL THEN 'match'
               WHEN s.n = 0 THEN 'not_run'
               WHEN k.tool_name IS NOT NULL THEN 'drift'
               ELSE 'unknown'
           END AS expected,
           um.fingerprints AS unmatched,
           pr.receipts AS receipts,
           pr.agents AS agents,
           pr.sessions AS sessions,
           pr.failed AS failed,
           pr.first_seen AS first_seen,
           pr.last_seen AS last_seen
    FROM pairs pr
    JOIN names n ON n.day = pr.day AND n.tool_name = pr.tool_name
    JOIN unmatched um ON um.day = pr.day AND um.tool_name = pr.tool_name
    CROSS JOIN schemas_given s
    LEFT JOIN expected_tools e
           ON e.tool_name = pr.tool_name AND e.fingerprint = pr.tool_fingerprint
    LEFT JOIN expected_names k ON k.tool_name = pr.tool_name
)
SELECT 'collisions' AS finding,
       CASE
           WHEN x.expected IN ('drift', 'unknown') THEN 'high'
           WHEN x.expected = 'not_run' THEN 'medium'
           WHEN x.unmatched > 0 THEN 'low'
           ELSE 'info'
       END AS severity,
       'collisions|' || CAST(x.day AS VARCHAR) || '|' || x.tool_name || '|' || x.tool_fingerprint
           || '|' || COALESCE(x.expected_server, '') AS finding_key,
       x.day AS day,
       x.tool_name AS tool_name,
       x.fingerprints AS fingerprints,
       x.tool_fingerprint AS tool_fingerprint,
       x.expected_server AS expected_server,
       x.expected AS expected,
       x.receipts AS receipts,
       x.agents AS agents,
       x.sessions AS sessions,
       x.failed AS failed,
       x.first_seen AS first_seen,
       x.last_seen AS last_seen,
       COALESCE(x.first_seen, CAST(x.day AS TIMESTAMP)) AS event_time
FROM rows_out x
ORDER BY x.day, x.tool_name, x.tool_fingerprint, x.expected_server NULLS LAST
