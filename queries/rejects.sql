-- rejects: lines that could not be read as receipts (malformed JSON, too
-- long, unknown shape), with their file and error. A rejected line has no
-- day of its own: with a day, the rejects of the files that hold receipts
-- of that day, and of the files with no receipt at all loaded on that day
-- (so that a file of nothing but bad lines is in one report); with NULL,
-- every reject.
--
-- Parameter: the UTC day (DATE), bound once below; NULL lists every reject.
--
-- One row per line: source, file_sha256, line, error. Order: source,
-- file_sha256, line.
WITH params AS (SELECT CAST(? AS DATE) AS day),
day_files AS (
    SELECT r.file_sha256 AS file_sha256
    FROM receipts r
    CROSS JOIN params p
    WHERE r.day = p.day
    UNION DISTINCT
    SELECT f.file_sha256 AS file_sha256
    FROM files f
    CROSS JOIN params p
    WHERE f.accepted = 0 AND CAST(f.loaded_at AS DATE) = p.day
)
SELECT j.source AS source,
       j.file_sha256 AS file_sha256,
       j.line AS line,
       j.error AS error
FROM rejects j
CROSS JOIN params p
LEFT JOIN day_files d ON d.file_sha256 = j.file_sha256
WHERE p.day IS NULL OR d.file_sha256 IS NOT NULL
ORDER BY j.source, j.file_sha256, j.line
