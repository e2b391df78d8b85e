-- collisions: tool names seen with more than one tool_fingerprint on one
-- UTC day. Two MCP servers exposing the same name with different schemas
-- (NSA CSI U/OO/6030316-26, p.8), or one server whose schema changed: the
-- name alone no longer says which tool ran.
--
-- Parameter: the UTC day (DATE), bound once below; NULL reports every day.
-- Receipts: every loaded receipt with a tool_name and a tool_fingerprint,
-- whatever its verdict (failed receipts are counted in `failed`).
--
-- One row per (day, tool_name, tool_fingerprint, expected server):
--   fingerprints     distinct fingerprints of the name on the day (> 1)
--   expected_server  an expected server whose schema has this fingerprint
--                    (expected_tools), NULL if none does
--   expected         match | drift (the name is expected, this schema is
--                    not) | unknown (no expected server has the name) |
--                    not_run (no expected schemas were given)
--   receipts, agents, sessions, failed, first_seen, last_seen: of this
--   fingerprint on the day.
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
expected_names AS (
    SELECT DISTINCT tool_name FROM expected_tools
),
schemas_given AS (
    SELECT COUNT(*) AS n FROM expected_tools
)
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
       pr.receipts AS receipts,
       pr.agents AS agents,
       pr.sessions AS sessions,
       pr.failed AS failed,
       pr.first_seen AS first_seen,
       pr.last_seen AS last_seen
FROM pairs pr
JOIN names n ON n.day = pr.day AND n.tool_name = pr.tool_name
CROSS JOIN schemas_given s
LEFT JOIN expected_tools e
       ON e.tool_name = pr.tool_name AND e.fingerprint = pr.tool_fingerprint
LEFT JOIN expected_names k ON k.tool_name = pr.tool_name
ORDER BY pr.day, pr.tool_name, pr.tool_fingerprint, e.server NULLS LAST
