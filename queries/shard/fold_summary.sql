-- fold_summary: the summary of a sharded verification folded by
-- queries/shard/fold.sql, as `verify finalize` counts it (streamrun's
-- Summary: the Go fold stays the reference, a test ties the two), shard
-- by shard and whole.
--
-- Parameter: none. Tables:
--   verdicts     the rows of queries/shard/fold.sql over the run;
--   fold_shards  every shard of the run, from the manifests (`verify
--                parts` makes it): shard, records, and what the map step
--                counted, which judgments do not change: files,
--                files_unreadable, lines, blank, unreadable.
--
-- Engines: portable SQL (|| and substr, position, %).
--
-- Counts: receipts (pass + fail + incomplete), pass, fail, incomplete,
-- unknown_format, duplicates and chains_outside from the verdicts; files,
-- files_unreadable, lines, blank and unreadable from fold_shards; and
-- reasons.NAME, how many times the verdicts name the reason NAME (every
-- record's, an unreadable one's too), for the reasons named.
--
-- One row per count: shard (-1 for the whole run, the sum of its
-- shards'), name, value. Every shard of fold_shards has every count but
-- the reasons, which have a row where named. Order: shard, name.
WITH per_shard AS (
    SELECT CAST(v.ord - v.ord % 1099511627776 AS BIGINT) AS lo,
        sum(CASE WHEN v.verdict = 'PASS' THEN 1 ELSE 0 END) AS pass,
        sum(CASE WHEN v.verdict = 'FAIL' THEN 1 ELSE 0 END) AS fail,
        sum(CASE WHEN v.verdict = 'INCOMPLETE' THEN 1 ELSE 0 END) AS incomplete,
        sum(v.unknown_format) AS unknown_format,
        sum(v.duplicate) AS duplicates,
        sum(v.chain_outside) AS chains_outside
    FROM verdicts v
    GROUP BY CAST(v.ord - v.ord % 1099511627776 AS BIGINT)
),
shard_counts AS (
    SELECT CAST(s.shard AS BIGINT) AS shard,
        CAST(s.files AS BIGINT) AS files, CAST(s.files_unreadable AS BIGINT) AS files_unreadable,
        CAST(s.lines AS BIGINT) AS lines, CAST(s.blank AS BIGINT) AS blank,
        CAST(s.unreadable AS BIGINT) AS unreadable,
        CAST(COALESCE(p.pass, 0) AS BIGINT) AS pass,
        CAST(COALESCE(p.fail, 0) AS BIGINT) AS fail,
        CAST(COALESCE(p.incomplete, 0) AS BIGINT) AS incomplete,
        CAST(COALESCE(p.unknown_format, 0) AS BIGINT) AS unknown_format,
        CAST(COALESCE(p.duplicates, 0) AS BIGINT) AS duplicates,
        CAST(COALESCE(p.chains_outside, 0) AS BIGINT) AS chains_outside
    FROM fold_shards s
    LEFT JOIN per_shard p ON p.lo = CAST(s.shard * 1099511627776 AS BIGINT)
),
-- The verdicts' reason lists, each list once a shard with how many
-- records have it, then split one reason a step: a record names at
-- most one reason an axis, and there are thirteen axes.
reason_sets AS (
    SELECT l.lo AS lo, l.reasons || ',' AS rest, CAST(count(*) AS BIGINT) AS n
    FROM (
        SELECT CAST(v.ord - v.ord % 1099511627776 AS BIGINT) AS lo, v.reasons AS reasons
        FROM verdicts v
        WHERE v.reasons <> ''
    ) l
    GROUP BY l.lo, l.reasons
),
r1 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM reason_sets x
),
r2 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM r1 x
    WHERE x.rest <> ''
),
r3 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM r2 x
    WHERE x.rest <> ''
),
r4 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM r3 x
    WHERE x.rest <> ''
),
r5 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM r4 x
    WHERE x.rest <> ''
),
r6 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM r5 x
    WHERE x.rest <> ''
),
r7 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM r6 x
    WHERE x.rest <> ''
),
r8 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM r7 x
    WHERE x.rest <> ''
),
r9 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM r8 x
    WHERE x.rest <> ''
),
r10 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM r9 x
    WHERE x.rest <> ''
),
r11 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM r10 x
    WHERE x.rest <> ''
),
r12 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM r11 x
    WHERE x.rest <> ''
),
r13 AS (
    SELECT x.lo AS lo, x.n AS n, substr(x.rest, 1, position(',' IN x.rest) - 1) AS reason,
        substr(x.rest, position(',' IN x.rest) + 1) AS rest
    FROM r12 x
    WHERE x.rest <> ''
),
reason_counts AS (
    SELECT u.lo AS lo, u.reason AS reason, CAST(sum(u.n) AS BIGINT) AS n
    FROM (
    SELECT lo, reason, n FROM r1
    UNION ALL SELECT lo, reason, n FROM r2
    UNION ALL SELECT lo, reason, n FROM r3
    UNION ALL SELECT lo, reason, n FROM r4
    UNION ALL SELECT lo, reason, n FROM r5
    UNION ALL SELECT lo, reason, n FROM r6
    UNION ALL SELECT lo, reason, n FROM r7
    UNION ALL SELECT lo, reason, n FROM r8
    UNION ALL SELECT lo, reason, n FROM r9
    UNION ALL SELECT lo, reason, n FROM r10
    UNION ALL SELECT lo, reason, n FROM r11
    UNION ALL SELECT lo, reason, n FROM r12
    UNION ALL SELECT lo, reason, n FROM r13
    ) u
    GROUP BY u.lo, u.reason
),
counts AS (
    SELECT c.shard AS shard, 'files' AS name, c.files AS value FROM shard_counts c
    UNION ALL SELECT c.shard, 'files_unreadable', c.files_unreadable FROM shard_counts c
    UNION ALL SELECT c.shard, 'lines', c.lines FROM shard_counts c
    UNION ALL SELECT c.shard, 'blank', c.blank FROM shard_counts c
    UNION ALL SELECT c.shard, 'receipts', c.pass + c.fail + c.incomplete FROM shard_counts c
    UNION ALL SELECT c.shard, 'pass', c.pass FROM shard_counts c
    UNION ALL SELECT c.shard, 'fail', c.fail FROM shard_counts c
    UNION ALL SELECT c.shard, 'incomplete', c.incomplete FROM shard_counts c
    UNION ALL SELECT c.shard, 'unreadable', c.unreadable FROM shard_counts c
    UNION ALL SELECT c.shard, 'unknown_format', c.unknown_format FROM shard_counts c
    UNION ALL SELECT c.shard, 'duplicates', c.duplicates FROM shard_counts c
    UNION ALL SELECT c.shard, 'chains_outside', c.chains_outside FROM shard_counts c
    UNION ALL SELECT c.shard, 'reasons.' || r.reason, r.n
        FROM reason_counts r
        JOIN shard_counts c ON CAST(c.shard * 1099511627776 AS BIGINT) = r.lo
)
SELECT z.shard AS shard, z.name AS name, z.value AS value
FROM (
    SELECT x.shard AS shard, x.name AS name, x.value AS value FROM counts x
    UNION ALL
    SELECT CAST(-1 AS BIGINT) AS shard, y.name AS name, CAST(sum(y.value) AS BIGINT) AS value
    FROM counts y
    GROUP BY y.name
) z
ORDER BY shard, name
