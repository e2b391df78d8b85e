-- trust: the trust material the day's verdicts came from: for each set of
-- key files, schema files, judging time, strictness and tool version a
-- load recorded (trust table), the day's receipts judged with it.
--
-- Parameter: the UTC day (DATE), bound once below; NULL counts every day.
--
-- One row per trust_sha256 with receipts on the day: trust_sha256,
-- key_files and schema_files (JSON arrays of path and sha256), judged_at
-- (NULL: the clock of the load), strict_schemas, tool_version, receipts.
-- Receipts loaded before the trust table existed have none (NULL).
-- Order: trust_sha256.
WITH params AS (SELECT CAST(? AS DATE) AS day),
used AS (
    SELECT r.trust_sha256 AS trust_sha256, COUNT(*) AS receipts
    FROM receipts r
    CROSS JOIN params p
    WHERE p.day IS NULL OR r.day = p.day
    GROUP BY r.trust_sha256
)
SELECT u.trust_sha256 AS trust_sha256,
       t.key_files AS key_files,
       t.schema_files AS schema_files,
       t.judged_at AS judged_at,
       t.strict_schemas AS strict_schemas,
       t.tool_version AS tool_version,
       u.receipts AS receipts
FROM used u
LEFT JOIN trust t ON t.trust_sha256 = u.trust_sha256
ORDER BY u.trust_sha256 NULLS LAST
