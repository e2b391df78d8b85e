-- replays: exactly-once violations. A value that must be unique seen on
-- more than one receipt, its kind in `kind`:
--   action_id       the same action_id
--   nonce           the same nonce from the same issuer_id
--   signature       the same signature (as carried; value is its SHA-256)
--   call_signature  the same UndoLog call signature
-- The first occurrence by what the receipts carry (issued_at, a receipt
-- without one last, then the SHA-256 of its line; never the file's name or
-- when it was loaded) is the original, as the loads judge nonces; every
-- later one is a finding, reported on its own UTC day, so a replay of an
-- older receipt shows on the day it was replayed.
--
-- A later occurrence with the original's chain_hash is the same receipt
-- (the same signed bytes, however re-serialised) delivered again, as
-- at-least-once shipping and archivers do: not a replay. It is one row of
-- kind `duplicate` (value: the chain hash), whatever values it repeats.
--
-- Parameter: the UTC day (DATE), bound once below; NULL reports every day.
-- Receipts: every loaded receipt, whatever its verdict; the originals may
-- be on any day.
--
-- Severity: high, every row but duplicates (see README, "Severity"). A
-- value that must occur once occurring on two different receipts is an
-- exactly-once violation whatever the receipts' verdicts: the same
-- approval or call presented again, or an issuer reusing nonces. There is
-- no benign reading to rank lower. A duplicate is low: the same receipt
-- stored twice says something of the shipping, nothing of the agent.
--
-- One row per later occurrence (one per duplicate delivery): finding ('replays'), severity, finding_key
-- (the row's identity: kind, scope, the whole value, the receipt's file and
-- line; the runner shows its SHA-256 as finding_id), value (the repeated
-- value, its first 64 characters), occurrence (2, 3, ...), occurrences (in
-- all), the receipt's verdict, action_id, agent_id, issuer_id, issued_at,
-- source, line, the original's first_action_id, first_issued_at,
-- first_source, first_line, and event_time (issued_at, or the day's
-- midnight without one).
-- Order: day, kind, value, occurrence.
WITH params AS (SELECT CAST(? AS DATE) AS day),
-- Per kind: the values that occur more than once in the whole database,
-- on at least one receipt of the day (nonces: from any issuer here; the
-- same issuer is required below). One aggregate per kind over the table,
-- which costs the same for one day as for every day ...
repeated AS (
    SELECT 'action_id' AS kind, r.action_id AS value
    FROM receipts r
    CROSS JOIN params p
    WHERE r.action_id IS NOT NULL AND r.action_id <> ''
    GROUP BY r.action_id, p.day
    HAVING COUNT(*) > 1
       AND (p.day IS NULL OR MAX(CASE WHEN r.day = p.day THEN 1 ELSE 0 END) = 1)
    UNION ALL
    SELECT 'nonce' AS kind, r.nonce AS value
    FROM receipts r
    CROSS JOIN params p
    WHERE r.nonce IS NOT NULL AND r.nonce <> ''
    GROUP BY r.nonce, p.day
    HAVING COUNT(*) > 1
       AND (p.day IS NULL OR MAX(CASE WHEN r.day = p.day THEN 1 ELSE 0 END) = 1)
    UNION ALL
    SELECT 'signature' AS kind, r.signature_sha256 AS value
    FROM receipts r
    CROSS JOIN params p
    WHERE r.signature_sha256 IS NOT NULL AND r.signature_sha256 <> ''
    GROUP BY r.signature_sha256, p.day
    HAVING COUNT(*) > 1
       AND (p.day IS NULL OR MAX(CASE WHEN r.day = p.day THEN 1 ELSE 0 END) = 1)
    UNION ALL
    SELECT 'call_signature' AS kind, r.call_signature AS value
    FROM receipts r
    CROSS JOIN params p
    WHERE r.call_signature IS NOT NULL AND r.call_signature <> ''
    GROUP BY r.call_signature, p.day
    HAVING COUNT(*) > 1
       AND (p.day IS NULL OR MAX(CASE WHEN r.day = p.day THEN 1 ELSE 0 END) = 1)
),
-- ... with every receipt that carries them ...
occurrences AS (
    SELECT x.kind AS kind, '' AS scope, x.value AS value, r.day AS day, r.file_sha256 AS file_sha256, r.source AS source, r.line AS line,
           r.action_id AS action_id, r.agent_id AS agent_id, r.issuer_id AS issuer_id, r.issued_at AS issued_at, r.verdict AS verdict,
           r.chain_hash AS chain_hash, r.line_sha256 AS line_sha256
    FROM repeated x
    JOIN receipts r ON r.action_id = x.value
    WHERE x.kind = 'action_id'
    UNION ALL
    SELECT x.kind AS kind, COALESCE(r.issuer_id, '') AS scope, x.value AS value, r.day AS day, r.file_sha256 AS file_sha256, r.source AS source, r.line AS line,
           r.action_id AS action_id, r.agent_id AS agent_id, r.issuer_id AS issuer_id, r.issued_at AS issued_at, r.verdict AS verdict,
           r.chain_hash AS chain_hash, r.line_sha256 AS line_sha256
    FROM repeated x
    JOIN receipts r ON r.nonce = x.value
    WHERE x.kind = 'nonce'
    UNION ALL
    SELECT x.kind AS kind, '' AS scope, x.value AS value, r.day AS day, r.file_sha256 AS file_sha256, r.source AS source, r.line AS line,
           r.action_id AS action_id, r.agent_id AS agent_id, r.issuer_id AS issuer_id, r.issued_at AS issued_at, r.verdict AS verdict,
           r.chain_hash AS chain_hash, r.line_sha256 AS line_sha256
    FROM repeated x
    JOIN receipts r ON r.signature_sha256 = x.value
    WHERE x.kind = 'signature'
    UNION ALL
    SELECT x.kind AS kind, '' AS scope, x.value AS value, r.day AS day, r.file_sha256 AS file_sha256, r.source AS source, r.line AS line,
           r.action_id AS action_id, r.agent_id AS agent_id, r.issuer_id AS issuer_id, r.issued_at AS issued_at, r.verdict AS verdict,
           r.chain_hash AS chain_hash, r.line_sha256 AS line_sha256
    FROM repeated x
    JOIN receipts r ON r.call_signature = x.value
    WHERE x.kind = 'call_signature'
),
-- ... numbered in order of issue (then line_sha256), per kind, scope (the issuer, for
-- nonces) and value; a value with one receipt in its scope has no
-- occurrence 2.
ranked AS (
    SELECT o.kind AS kind, o.scope AS scope, o.value AS value, o.day AS day, o.source AS source, o.file_sha256 AS file_sha256, o.line AS line, o.action_id AS action_id,
           o.agent_id AS agent_id, o.issuer_id AS issuer_id, o.issued_at AS issued_at, o.verdict AS verdict,
           o.chain_hash AS chain_hash,
           ROW_NUMBER() OVER (
               PARTITION BY o.kind, o.scope, o.value
               ORDER BY o.issued_at NULLS LAST, o.line_sha256 NULLS LAST, o.file_sha256, o.line
           ) AS occurrence,
           COUNT(*) OVER (PARTITION BY o.kind, o.scope, o.value) AS occurrences
    FROM occurrences o
),
-- ... each later one beside its original, the same receipt or another ...
pairs AS (
    SELECT later.kind AS kind, later.scope AS scope, later.value AS value, later.day AS day,
           later.file_sha256 AS file_sha256, later.line AS line, later.occurrence AS occurrence,
           later.occurrences AS occurrences, later.verdict AS verdict, later.action_id AS action_id,
           later.agent_id AS agent_id, later.issuer_id AS issuer_id, later.issued_at AS issued_at,
           later.source AS source, later.chain_hash AS chain_hash,
           orig.action_id AS first_action_id, orig.issued_at AS first_issued_at,
           orig.source AS first_source, orig.line AS first_line,
           COALESCE(later.chain_hash IS NOT NULL AND later.chain_hash <> '' AND later.chain_hash = orig.chain_hash, FALSE) AS same
    FROM ranked later
    JOIN ranked orig
      ON orig.kind = later.kind
     AND orig.scope = later.scope
     AND orig.value = later.value
     AND orig.occurrence = 1
    CROSS JOIN params p
    WHERE later.occurrence > 1
      AND (p.day IS NULL OR later.day = p.day)
),
-- ... the same receipt once per delivery, whichever values it repeats.
duplicates AS (
    SELECT d.*, ROW_NUMBER() OVER (PARTITION BY d.file_sha256, d.line ORDER BY d.kind) AS nth
    FROM pairs d
    WHERE d.same
),
found AS (
    SELECT x.kind AS kind, 'high' AS severity, x.scope AS scope, x.value AS value, x.day AS day,
           x.file_sha256 AS file_sha256, x.line AS line, x.occurrence AS occurrence,
           x.occurrences AS occurrences, x.verdict AS verdict, x.action_id AS action_id,
           x.agent_id AS agent_id, x.issuer_id AS issuer_id, x.issued_at AS issued_at,
           x.source AS source, x.first_action_id AS first_action_id,
           x.first_issued_at AS first_issued_at, x.first_source AS first_source,
           x.first_line AS first_line
    FROM pairs x
    WHERE NOT x.same
    UNION ALL
    SELECT 'duplicate' AS kind, 'low' AS severity, '' AS scope, d.chain_hash AS value, d.day AS day,
           d.file_sha256 AS file_sha256, d.line AS line, d.occurrence AS occurrence,
           d.occurrences AS occurrences, d.verdict AS verdict, d.action_id AS action_id,
           d.agent_id AS agent_id, d.issuer_id AS issuer_id, d.issued_at AS issued_at,
           d.source AS source, d.first_action_id AS first_action_id,
           d.first_issued_at AS first_issued_at, d.first_source AS first_source,
           d.first_line AS first_line
    FROM duplicates d
    WHERE d.nth = 1
)
SELECT 'replays' AS finding,
       r.severity AS severity,
       'replays|' || r.kind || '|' || r.scope || '|' || r.value || '|'
           || r.file_sha256 || ':' || CAST(r.line AS VARCHAR) AS finding_key,
       r.day AS day,
       r.kind AS kind,
       SUBSTR(r.value, 1, 64) AS value,
       r.occurrence AS occurrence,
       r.occurrences AS occurrences,
       r.verdict AS verdict,
       r.action_id AS action_id,
       r.agent_id AS agent_id,
       r.issuer_id AS issuer_id,
       r.issued_at AS issued_at,
       r.source AS source,
       r.line AS line,
       r.first_action_id AS first_action_id,
       r.first_issued_at AS first_issued_at,
       r.first_source AS first_source,
       r.first_line AS first_line,
       COALESCE(r.issued_at, CAST(r.day AS TIMESTAMP)) AS event_time
FROM found r
ORDER BY r.day, r.kind, r.value, r.scope, r.occurrence
