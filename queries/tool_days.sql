-- tool_days: distinct fingerprints per tool per UTC day over the 28 days
-- up to and including the day (the report's chart). More than one on a day
-- is a collision or a drift worth a look.
--
-- Parameter: the UTC day (DATE), bound once below; NULL: every day.
--
-- One row per (tool_name, day) with receipts carrying a fingerprint:
-- fingerprints (distinct), receipts.
-- Order: tool_name, day.
WITH params AS (SELECT CAST(? AS DATE) AS day)
SELECT r.tool_name AS tool_name,
       r.day AS day,
       COUNT(DISTINCT r.tool_fingerprint) AS fingerprints,
       COUNT(*) AS receipts
FROM receipts r
CROSS JOIN params p
WHERE r.tool_name IS NOT NULL
  AND r.tool_fingerprint IS NOT NULL
  AND r.day IS NOT NULL
  AND (p.day IS NULL OR (r.day > p.day - INTERVAL '28' DAY AND r.day <= p.day))
GROUP BY r.tool_name, r.day
ORDER BY r.tool_name, r.day
