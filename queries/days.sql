-- days: the UTC days that hold receipts, with their receipts by verdict.
-- A receipt's day is that of its issued_at or, without one, of its load.
--
-- Parameter: the UTC day (DATE), bound once below; NULL lists every day.
--
-- One row per day: receipts, pass, fail, incomplete, undated (those of
-- them without issued_at, on the day of their load), first and last
-- issued_at, and unknown_format (of the incomplete, those of a format this
-- tool does not read: not checked, which is not failed). Order: day.
WITH params AS (SELECT CAST(? AS DATE) AS day)
SELECT r.day AS day,
       COUNT(*) AS receipts,
       COUNT(CASE WHEN r.verdict = 'PASS' THEN 1 END) AS pass,
       COUNT(CASE WHEN r.verdict = 'FAIL' THEN 1 END) AS fail,
       COUNT(CASE WHEN r.verdict = 'INCOMPLETE' THEN 1 END) AS incomplete,
       COUNT(CASE WHEN r.issued_at IS NULL THEN 1 END) AS undated,
       MIN(r.issued_at) AS first_issued_at,
       MAX(r.issued_at) AS last_issued_at,
       COUNT(CASE WHEN r.verdict = 'INCOMPLETE' AND r.format = 'unknown' THEN 1 END) AS unknown_format
FROM receipts r
CROSS JOIN params p
WHERE r.day IS NOT NULL
  AND (p.day IS NULL OR r.day = p.day)
GROUP BY r.day
ORDER BY r.day
