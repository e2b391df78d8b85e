-- failures: every receipt that did not verify (verdict FAIL, or
-- INCOMPLETE: some check could not be made), by reason.
--
-- Parameter: the UTC day (DATE), bound once below; NULL reports every day.
--
-- Severity (see README, "Severity"): high, FAIL (forged, tampered,
-- revoked, out of its chain, replayed) and INCOMPLETE alike. An INCOMPLETE
-- receipt proves nothing (a receipt signed by a key the snapshot lacks is
-- INCOMPLETE, and so is a forgery signed with the forger's own key), so it
-- pages as a failure does; `verdict` tells them apart. Medium, a receipt of
-- a format this tool does not read (INCOMPLETE, format 'unknown', reason
-- unknown_format): not checked, which is not failed, since a producer the
-- tool has not met is no forgery; at the default --fail-on high it does not
-- fail the day, at --fail-on medium it does.
--
-- One row per receipt: finding ('failures'), severity, finding_key (the
-- receipt's file and line; the runner shows its SHA-256 as finding_id),
-- reasons (the list of reason codes that decided the verdict, in the
-- verifier's order), verdict, format, the
-- receipt's identifiers and tool, issued_at, source, line, and event_time
-- (issued_at, or the day's midnight without one).
-- Order: day, reasons, verdict, issued_at, source, line.
WITH params AS (SELECT CAST(? AS DATE) AS day)
SELECT 'failures' AS finding,
       CASE WHEN r.verdict = 'INCOMPLETE' AND r.format = 'unknown' THEN 'medium'
            ELSE 'high'
       END AS severity,
       'failures|' || r.file_sha256 || ':' || CAST(r.line AS VARCHAR) AS finding_key,
       r.day AS day,
       r.reasons AS reasons,
       r.verdict AS verdict,
       r.format AS format,
       r.action_id AS action_id,
       r.agent_id AS agent_id,
       r.issuer_id AS issuer_id,
       r.session_id AS session_id,
       r.step AS step,
       r.tool_name AS tool_name,
       r.issued_at AS issued_at,
       r.source AS source,
       r.line AS line,
       COALESCE(r.issued_at, CAST(r.day AS TIMESTAMP)) AS event_time
FROM receipts r
CROSS JOIN params p
WHERE r.verdict <> 'PASS'
  AND r.day IS NOT NULL
  AND (p.day IS NULL OR r.day = p.day)
ORDER BY r.day, r.reasons, r.verdict, r.issued_at NULLS LAST, r.source, r.file_sha256, r.line
