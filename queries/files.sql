-- files: the input files that hold receipts of the day, those with no
-- receipt at all loaded on the day (but for those wholly re-delivered),
-- and those that re-delivered lines stored before of receipts of the day,
-- with their counts as loaded (files table) and their receipts on the day.
--
-- Parameter: the UTC day (DATE), bound once below; NULL lists every file
-- loaded.
--
-- One row per file: path, file_sha256, size_bytes, lines, accepted,
-- rejected, loaded_at, receipts_on_day, redelivered (its lines stored
-- already from another file, not stored again). Order: path, file_sha256.
WITH params AS (SELECT CAST(? AS DATE) AS day),
on_day AS (
    SELECT r.file_sha256 AS file_sha256, COUNT(*) AS receipts
    FROM receipts r
    CROSS JOIN params p
    WHERE p.day IS NULL OR r.day = p.day
    GROUP BY r.file_sha256
)
SELECT f.path AS path,
       f.file_sha256 AS file_sha256,
       f.size_bytes AS size_bytes,
       f.lines AS lines,
       f.accepted AS accepted,
       f.rejected AS rejected,
       f.loaded_at AS loaded_at,
       COALESCE(d.receipts, 0) AS receipts_on_day,
       COALESCE(f.redelivered, 0) AS redelivered
FROM files f
CROSS JOIN params p
LEFT JOIN on_day d ON d.file_sha256 = f.file_sha256
WHERE p.day IS NULL
   OR d.receipts IS NOT NULL
   OR (f.accepted = 0 AND CAST(f.loaded_at AS DATE) = p.day
       AND (f.rejected > 0 OR COALESCE(f.redelivered, 0) = 0))
   OR (',' || f.redelivered_days || ',') LIKE ('%,' || CAST(p.day AS VARCHAR) || ',%')
ORDER BY f.path, f.file_sha256
