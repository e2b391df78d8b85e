-- gaps: sources that went silent or thin. A signature proves what a
-- receipt says, not that every receipt arrived: a gateway whose logging
-- was switched off, a shipper that stopped, or a rotation lost on the way
-- leaves an archive in which every receipt held verifies. A source is a
-- logrotate family (files.family: the live file's path, the same for its
-- .1, -YYYYMMDD and .gz rotations), whole (agent '*') and per agent_id in
-- it; its volume on a day is the receipts of that day it delivered. It is
-- judged against the median of its volumes on the window_days days before
-- (a day it delivered nothing counts as 0; of an even window, the lower
-- middle day):
--   silent  it delivered nothing on the day, and the median is above 0
--           (it delivers on most days)
--   thin    it delivered under thin_fraction of the median
-- A source with a median of 0 (new, or delivering on few days) is not
-- judged. settings holds the defaults; verify reads them from
-- --gap-window and --thin-fraction (verify.toml: gap-window,
-- thin-fraction) and puts them in that line when they differ.
--
-- Parameter: the UTC day (DATE), bound once below; NULL judges every day
-- some source delivered on (a day on which nothing at all arrived has no
-- row to be found by, and is judged only when named).
--
-- Severity: high for silent (the record of the day is missing), medium
-- for thin (most of it may be).
--
-- One row per source and day judged: finding ('gaps'), severity,
-- finding_key (day, family and agent), day, kind (silent or thin), family,
-- agent ('*' for the family whole), receipts (the day's volume),
-- median_receipts (over the window), window_days, days_delivered (of the
-- window), event_time (the day's midnight).
-- Order: day, family, agent.
WITH params AS (SELECT CAST(? AS DATE) AS day),
settings AS (SELECT 7 AS window_days, 0.25 AS thin_fraction),
sourced AS (
    SELECT COALESCE(f.family, f.path) AS family, r.agent_id AS agent_id, r.day AS day
    FROM receipts r
    JOIN files f ON f.file_sha256 = r.file_sha256
    WHERE r.day IS NOT NULL
),
vol AS (
    SELECT family, '*' AS agent, day, COUNT(*) AS n
    FROM sourced
    GROUP BY family, day
    UNION ALL
    SELECT family, agent_id AS agent, day, COUNT(*) AS n
    FROM sourced
    WHERE agent_id IS NOT NULL
    GROUP BY family, agent_id, day
),
candidates AS (
    SELECT p.day AS day FROM params p WHERE p.day IS NOT NULL
    UNION DISTINCT
    SELECT v.day AS day FROM vol v CROSS JOIN params p WHERE p.day IS NULL
),
win AS (
    SELECT c.day AS day, v.family AS family, v.agent AS agent, v.n AS n, s.window_days AS window_days,
           ROW_NUMBER() OVER (PARTITION BY c.day, v.family, v.agent ORDER BY v.n) AS rn,
           COUNT(*) OVER (PARTITION BY c.day, v.family, v.agent) AS k
    FROM candidates c
    CROSS JOIN vol v
    CROSS JOIN settings s
    WHERE c.day - v.day >= 1 AND c.day - v.day <= s.window_days
),
-- The window's volumes sorted are window_days - k zeros, then the k days
-- it delivered (rn 1..k): the median is the middle one (of an even
-- window, the lower of the two), a whole number on every engine.
medians AS (
    SELECT w.day AS day, w.family AS family, w.agent AS agent, MAX(w.k) AS days_delivered,
           MAX(w.window_days) AS window_days,
           CAST(SUM(CASE WHEN w.rn = FLOOR((w.window_days + 1) / 2.0) - (w.window_days - w.k) THEN w.n ELSE 0 END) AS BIGINT) AS median_receipts
    FROM win w
    GROUP BY w.day, w.family, w.agent
),
judged AS (
    SELECT m.day AS day, m.family AS family, m.agent AS agent, COALESCE(t.n, 0) AS receipts,
           m.median_receipts AS median_receipts, m.window_days AS window_days, m.days_delivered AS days_delivered,
           CASE WHEN COALESCE(t.n, 0) = 0 THEN 'silent' ELSE 'thin' END AS kind
    FROM medians m
    CROSS JOIN settings s
    LEFT JOIN vol t ON t.day = m.day AND t.family = m.family AND t.agent = m.agent
    WHERE m.median_receipts > 0 AND COALESCE(t.n, 0) < s.thin_fraction * m.median_receipts
)
SELECT 'gaps' AS finding,
       CASE j.kind WHEN 'silent' THEN 'high' ELSE 'medium' END AS severity,
       'gaps|' || CAST(j.day AS VARCHAR) || '|' || j.family || '|' || j.agent AS finding_key,
       j.day AS day,
       j.kind AS kind,
       j.family AS family,
       j.agent AS agent,
       j.receipts AS receipts,
       j.median_receipts AS median_receipts,
       j.window_days AS window_days,
       j.days_delivered AS days_delivered,
       CAST(j.day AS TIMESTAMP) AS event_time
FROM judged j
ORDER BY j.day, j.family, j.agent
