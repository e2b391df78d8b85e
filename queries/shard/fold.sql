-- fold: the final verdict of every record of a sharded verification,
-- its chain and nonce judgments folded into what the checks of the
-- receipt alone gave it: the second implementation of the fold of
-- `verify finalize` (streamrun.Folder, the reference, tied to this file
-- by a test that compares the two over the same run, per shard and
-- whole). It gives each record's verdict, reasons and chain and nonce
-- axes; the notes people read (which record a fork or a replay follows,
-- a receipt delivered again, the position a claim takes) stay with
-- `verify finalize`.
--
-- Parameter: none. Tables:
--   fold_records  every shard's records (`verify parts` makes the view
--                 over exactly the run's parts): ord, source, line,
--                 claim, and what the verdict takes from the checks of
--                 the receipt alone (streamrun.FoldBase): base_verdict
--                 and base_reasons, the verdict without any judgment;
--                 fail_pre, fail_mid, fail_post and skip_pre, skip_mid,
--                 skip_post, the reasons of the counted axes that failed
--                 or were skipped before the chain axis, between chain
--                 and nonce, after nonce (a comma before each);
--                 chain_status, chain_reason, nonce_status, nonce_reason,
--                 the two axes before their judgments ('' where unset);
--   judgments     the rows of queries/shard/judgments.sql over the same
--                 run (ord, kind, outcome, first_ord).
--
-- Engines: portable SQL (|| and substr); on ClickHouse with
-- join_use_nulls = 1, as for the judgments.
--
-- Rule (verify.Result's fold): a judgment sets its axis unless the axis
-- failed already (nothing overrides a FAIL); a receipt whose signature
-- did not verify (claim) takes no nonce judgment. The verdict is FAIL
-- when a counted axis failed, its reasons those axes' in report order;
-- else INCOMPLETE when a counted axis but chain was skipped, its reasons
-- those; else PASS. A record without a chain or nonce judgment keeps
-- base_verdict and base_reasons.
--
-- One row per record: ord, source, line, verdict, reasons (joined by
-- commas, '' for none), chain_status, chain_reason, nonce_status,
-- nonce_reason ('' where the axis has no outcome).
-- Order: ord.
WITH chain_judgments AS (
    SELECT j.ord AS ord, j.outcome AS outcome
    FROM judgments j
    WHERE j.kind = 'chain'
),
nonce_judgments AS (
    SELECT j.ord AS ord, j.outcome AS outcome
    FROM judgments j
    WHERE j.kind = 'nonce'
),
-- Each record's chain and nonce outcome: none for an unreadable
-- record, no nonce for a claim, as Go's fold gives them none.
outcomes AS (
    SELECT r.ord AS ord, r.source AS source, r.line AS line,
        r.base_verdict AS base_verdict, r.base_reasons AS base_reasons,
        r.fail_pre AS fail_pre, r.fail_mid AS fail_mid, r.fail_post AS fail_post,
        r.skip_pre AS skip_pre, r.skip_mid AS skip_mid, r.skip_post AS skip_post,
        r.chain_status AS chain_status, r.chain_reason AS chain_reason,
        r.nonce_status AS nonce_status, r.nonce_reason AS nonce_reason,
        CASE WHEN r.base_verdict = 'UNREADABLE' THEN NULL ELSE c.outcome END AS chain_outcome,
        CASE WHEN r.base_verdict = 'UNREADABLE' OR r.claim THEN NULL ELSE n.outcome END AS nonce_outcome
    FROM fold_records r
    LEFT JOIN chain_judgments c ON c.ord = r.ord
    LEFT JOIN nonce_judgments n ON n.ord = r.ord
),
judged AS (
    SELECT o.ord AS ord, o.source AS source, o.line AS line,
        o.base_verdict AS base_verdict, o.base_reasons AS base_reasons,
        o.fail_pre AS fail_pre, o.fail_mid AS fail_mid, o.fail_post AS fail_post,
        o.skip_pre AS skip_pre, o.skip_mid AS skip_mid, o.skip_post AS skip_post,
        CASE WHEN o.chain_outcome IS NULL AND o.nonce_outcome IS NULL THEN 0 ELSE 1 END AS changed,
        CASE
            WHEN o.chain_outcome IS NULL OR (o.chain_status = 'FAIL' AND o.chain_outcome IN ('linked', 'outside')) THEN o.chain_status
            WHEN o.chain_outcome = 'linked' THEN 'PASS'
            WHEN o.chain_outcome = 'outside' THEN 'SKIPPED'
            ELSE 'FAIL'
        END AS chain_status,
        CASE
            WHEN o.chain_outcome IS NULL OR (o.chain_status = 'FAIL' AND o.chain_outcome IN ('linked', 'outside')) THEN o.chain_reason
            WHEN o.chain_outcome = 'linked' THEN ''
            WHEN o.chain_outcome = 'outside' THEN 'chain_unresolved'
            WHEN o.chain_outcome = 'absent' THEN 'chain_absent'
            WHEN o.chain_outcome = 'break' THEN 'chain_break'
            ELSE 'chain_fork'
        END AS chain_reason,
        CASE
            WHEN o.nonce_outcome IS NULL OR (o.nonce_status = 'FAIL' AND o.nonce_outcome NOT IN ('replay', 'prior_replay')) THEN o.nonce_status
            WHEN o.nonce_outcome IN ('replay', 'prior_replay') THEN 'FAIL'
            ELSE 'PASS'
        END AS nonce_status,
        CASE
            WHEN o.nonce_outcome IS NULL OR (o.nonce_status = 'FAIL' AND o.nonce_outcome NOT IN ('replay', 'prior_replay')) THEN o.nonce_reason
            WHEN o.nonce_outcome IN ('replay', 'prior_replay') THEN 'nonce_replay'
            ELSE ''
        END AS nonce_reason
    FROM outcomes o
),
counted AS (
    SELECT a.ord AS ord, a.source AS source, a.line AS line, a.changed AS changed,
        a.base_verdict AS base_verdict, a.base_reasons AS base_reasons,
        a.fail_pre || CASE WHEN a.chain_status = 'FAIL' THEN ',' || a.chain_reason ELSE '' END
            || a.fail_mid || CASE WHEN a.nonce_status = 'FAIL' THEN ',' || a.nonce_reason ELSE '' END
            || a.fail_post AS failed,
        a.skip_pre || a.skip_mid || CASE WHEN a.nonce_status = 'SKIPPED' THEN ',' || a.nonce_reason ELSE '' END
            || a.skip_post AS skipped,
        a.chain_status AS chain_status, a.chain_reason AS chain_reason,
        a.nonce_status AS nonce_status, a.nonce_reason AS nonce_reason
    FROM judged a
)
SELECT f.ord AS ord, f.source AS source, f.line AS line,
    CASE
        WHEN f.changed = 0 THEN f.base_verdict
        WHEN f.failed <> '' THEN 'FAIL'
        WHEN f.skipped <> '' THEN 'INCOMPLETE'
        ELSE 'PASS'
    END AS verdict,
    CASE
        WHEN f.changed = 0 THEN f.base_reasons
        WHEN f.failed <> '' THEN substr(f.failed, 2)
        ELSE substr(f.skipped, 2)
    END AS reasons,
    f.chain_status AS chain_status, f.chain_reason AS chain_reason,
    f.nonce_status AS nonce_status, f.nonce_reason AS nonce_reason
FROM counted f
ORDER BY ord
