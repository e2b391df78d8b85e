-- rejects: lines that could not be read as receipts (malformed JSON, too
-- long, unknown shape), with their file and error. A rejected line has no
-- day of its own: with a day, the rejects of the files that hold receipts
-- of that day, and of the files with no receipt at all loaded on that day
-- (so that a file of nothing but bad lines is in one report); with NULL,
-- every reject.
--
-- Parameter: the UTC day (DATE), bound once below; NULL lists every reject.
--
-- Severity: high, every row (see README, "Severity"). A line of a receipt
-- archive that is not a receipt is a record nobody can verify: a truncated
-- write, corruption, or an edit; `verify receipts` exits 1 on it too.
--
-- One row per line: finding ('rejects'), severity, finding_key (the file
-- and line; the runner shows its SHA-256 as finding_id), source,
-- file_sha256, line, error, event_time (when its file was loaded: a line
-- carries no time of its own). Order: source, file_sha256, line.
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
SELECT 'rejects' AS finding,
       'high' AS severity,
       'rejects|' || j.file_sha256 || ':' || CAST(j.line AS VARCHAR) AS finding_key,
       j.source AS source,
       j.file_sha256 AS file_sha256,
       j.line AS line,
       j.error AS error,
       f.loaded_at AS event_time
FROM rejects j
LEFT JOIN files f ON f.file_sha256 = j.file_sha256
CROSS JOIN params p
LEFT JOIN day_files d ON d.file_sha256 = j.file_sha256
WHERE p.day IS NULL OR d.file_sha256 IS NOT NULL
ORDER BY j.source, j.file_sha256, j.line
