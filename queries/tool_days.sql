-- tool_days: distinct fingerprints per tool per UTC day over the 28 days
-- up to and including the day (the report's chart). More than one on a day
-- is a collision or a drift worth a look; `unexpected` tells which.
--
-- Parameter: the UTC day (DATE), bound once below; NULL: every day.
--
-- One row per (tool_name, day) with receipts carrying a fingerprint:
-- fingerprints (distinct), receipts, unexpected (distinct fingerprints no
-- expected server has; NULL when no expected schemas were loaded, as
-- nothing can be told then).
-- Order: tool_name, day.
WITH params AS (SELECT CAST(? AS DATE) AS day),
expected_pairs AS (
    SELECT tool_name, fingerprint FROM expected_tools GROUP BY tool_name, fingerprint
),
schemas_given AS (
    SELECT COUNT(*) AS n FROM expected_tools
),
used AS (
    SELECT r.tool_name AS tool_name, r.day AS day, r.tool_fingerprint AS tool_fingerprint,
           CASE WHEN e.fingerprint IS NULL THEN r.tool_fingerprint END AS unexpected_fingerprint
    FROM receipts r
    CROSS JOIN params p
    LEFT JOIN expected_pairs e
           ON e.tool_name = r.tool_name AND e.fingerprint = r.tool_fingerprint
    WHERE r.tool_name IS NOT NULL
      AND r.tool_fingerprint IS NOT NULL
      AND r.day IS NOT NULL
      AND (p.day IS NULL OR (r.day > p.day - INTERVAL '28' DAY AND r.day <= p.day))
)
SELECT u.tool_name AS tool_name,
       u.day AS day,
       COUNT(DISTINCT u.tool_fingerprint) AS fingerprints,
       COUNT(*) AS receipts,
       CASE WHEN MAX(s.n) > 0 THEN COUNT(DISTINCT u.unexpected_fingerprint) END AS unexpected
FROM used u
CROSS JOIN schemas_given s
GROUP BY u.tool_name, u.day
ORDER BY u.tool_name, u.day
