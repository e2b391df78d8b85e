-- fold: the final verdict of every record of a sharded verification,
-- its chain and nonce judgments folded into what the checks of the
-- receipt alone gave it: the second implementation of the fold of
-- `verify finalize` (streamrun.Folder, the reference, tied to this file
-- by a test that compares the two over the same run, per shard and
-- whole). It gives each record's verdict, reasons, chain and nonce axes
-- and their notes as the Go fold writes them (which record a fork or a
-- replay follows, a receipt delivered again, the position a claim
-- takes), and what the summary counts of it
-- (queries/shard/fold_summary.sql adds those up).
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
--                 chain_note, nonce_note, the two axes before their
--                 judgments ('' where unset); link_prev, chain_what and
--                 claim_note, what the notes name (the predecessor the
--                 receipt names, the field whose difference makes another
--                 chain, the position a claim naming a predecessor takes
--                 and why it does not count, '' for any other receipt);
--                 unknown_format, true when no format's detector
--                 claimed the receipt;
--   judgments     the rows of queries/shard/judgments.sql over the same
--                 run (ord, kind, outcome, first_ord);
--   fold_shards   every shard of the run, from the manifests (`verify
--                 parts` makes it): shard and records, the ordinals its
--                 map step used (blank lines counted), by which a
--                 first_ord becomes the record number the notes name
--                 (every earlier shard's records counted before it); the
--                 whole run's shards, also when fold_records holds one.
--
-- Engines: portable SQL (|| and substr, % and a window sum); on
-- ClickHouse with join_use_nulls = 1, as for the judgments. A note's
-- "--" is written '-' || '-', so that no string holds a comment's mark.
--
-- Rule (verify.Result's fold): a judgment sets its axis unless the axis
-- failed already (nothing overrides a FAIL); a receipt whose signature
-- did not verify (claim) takes no nonce judgment. The verdict is FAIL
-- when a counted axis failed, its reasons those axes' in report order;
-- else INCOMPLETE when a counted axis but chain was skipped, its reasons
-- those; else PASS. A record without a chain or nonce judgment keeps
-- base_verdict and base_reasons.
--
-- Notes (streamrun's judge): a judgment that sets its axis sets its note
-- (a fork's, a replay's and a duplicate nonce's name the first record,
-- numbered from 1 over the whole run); an axis a judgment leaves keeps
-- its note. The chain note of a claim that names a predecessor then
-- ends with claim_note ("; " before it). A receipt delivered again (not a claim) adds "the
-- same receipt as record N, delivered again" to its chain note ("; "
-- after a note), or to its nonce note when the chain axis is unset or
-- NOT_RUN, or to neither when both are.
--
-- One row per record: ord, source, line, verdict, reasons (joined by
-- commas, '' for none), chain_status, chain_reason, nonce_status,
-- nonce_reason, chain_note, nonce_note ('' where the axis has no
-- outcome or no note), and what the summary counts: duplicate (1 for a
-- receipt delivered again), chain_outside (1 for the first receipt of a
-- chain that starts before the input, neither a claim nor delivered
-- again) and unknown_format (1 for an INCOMPLETE receipt of no known
-- format), else 0.
-- Order: ord.
WITH shard_bases AS (
    SELECT CAST(s.shard * 1099511627776 AS BIGINT) AS lo,
        CAST(sum(s.records) OVER (ORDER BY s.shard) - s.records AS BIGINT) AS base
    FROM fold_shards s
),
-- Each judgment with the number of its first record, as the notes name it.
numbered AS (
    SELECT j.ord AS ord, j.kind AS kind, j.outcome AS outcome,
        CAST(b.base + (j.first_ord - b.lo) + 1 AS VARCHAR) AS first_record
    FROM judgments j
    LEFT JOIN shard_bases b ON b.lo = CAST(j.first_ord - j.first_ord % 1099511627776 AS BIGINT)
),
chain_judgments AS (
    SELECT j.ord AS ord, j.outcome AS outcome, j.first_record AS first_record
    FROM numbered j
    WHERE j.kind = 'chain'
),
nonce_judgments AS (
    SELECT j.ord AS ord, j.outcome AS outcome, j.first_record AS first_record
    FROM numbered j
    WHERE j.kind = 'nonce'
),
delivery_judgments AS (
    SELECT j.ord AS ord, j.outcome AS outcome, j.first_record AS first_record
    FROM numbered j
    WHERE j.kind = 'delivery'
),
-- Each record's chain, nonce and delivery outcome: none for an
-- unreadable record, no nonce for a claim, as Go's fold gives them none.
outcomes AS (
    SELECT r.ord AS ord, r.source AS source, r.line AS line, r.claim AS claim,
        r.base_verdict AS base_verdict, r.base_reasons AS base_reasons,
        r.fail_pre AS fail_pre, r.fail_mid AS fail_mid, r.fail_post AS fail_post,
        r.skip_pre AS skip_pre, r.skip_mid AS skip_mid, r.skip_post AS skip_post,
        r.chain_status AS chain_status, r.chain_reason AS chain_reason,
        r.nonce_status AS nonce_status, r.nonce_reason AS nonce_reason,
        r.chain_note AS chain_note, r.nonce_note AS nonce_note,
        r.link_prev AS link_prev, r.chain_what AS chain_what, r.claim_note AS claim_note,
        r.unknown_format AS unknown_format,
        CASE WHEN r.base_verdict = 'UNREADABLE' THEN NULL ELSE c.outcome END AS chain_outcome,
        c.first_record AS chain_first,
        CASE WHEN r.base_verdict = 'UNREADABLE' OR r.claim THEN NULL ELSE n.outcome END AS nonce_outcome,
        n.first_record AS nonce_first,
        CASE WHEN r.base_verdict = 'UNREADABLE' THEN NULL ELSE d.outcome END AS delivery_outcome,
        d.first_record AS delivery_first
    FROM fold_records r
    LEFT JOIN chain_judgments c ON c.ord = r.ord
    LEFT JOIN nonce_judgments n ON n.ord = r.ord
    LEFT JOIN delivery_judgments d ON d.ord = r.ord
),
-- Whether each judgment sets its axis: not over a FAIL, unless it fails.
applied AS (
    SELECT o.*,
        CASE WHEN o.chain_outcome IS NULL OR (o.chain_status = 'FAIL' AND o.chain_outcome IN ('linked', 'outside')) THEN 0 ELSE 1 END AS chain_set,
        CASE WHEN o.nonce_outcome IS NULL OR (o.nonce_status = 'FAIL' AND o.nonce_outcome NOT IN ('replay', 'prior_replay')) THEN 0 ELSE 1 END AS nonce_set
    FROM outcomes o
),
judged AS (
    SELECT o.ord AS ord, o.source AS source, o.line AS line, o.claim AS claim,
        o.base_verdict AS base_verdict, o.base_reasons AS base_reasons,
        o.fail_pre AS fail_pre, o.fail_mid AS fail_mid, o.fail_post AS fail_post,
        o.skip_pre AS skip_pre, o.skip_mid AS skip_mid, o.skip_post AS skip_post,
        o.unknown_format AS unknown_format,
        CASE WHEN o.chain_outcome IS NULL AND o.nonce_outcome IS NULL THEN 0 ELSE 1 END AS changed,
        CASE
            WHEN o.chain_set = 0 THEN o.chain_status
            WHEN o.chain_outcome = 'linked' THEN 'PASS'
            WHEN o.chain_outcome = 'outside' THEN 'SKIPPED'
            ELSE 'FAIL'
        END AS chain_status,
        CASE
            WHEN o.chain_set = 0 THEN o.chain_reason
            WHEN o.chain_outcome = 'linked' THEN ''
            WHEN o.chain_outcome = 'outside' THEN 'chain_unresolved'
            WHEN o.chain_outcome = 'absent' THEN 'chain_absent'
            WHEN o.chain_outcome = 'break' THEN 'chain_break'
            ELSE 'chain_fork'
        END AS chain_reason,
        CASE
            WHEN o.chain_set = 0 THEN o.chain_note
            ELSE CASE
                WHEN o.chain_outcome = 'linked' THEN 'links to a receipt in the input or the archive'
                WHEN o.chain_outcome = 'outside' THEN 'predecessor ' || o.link_prev || ' is not in the input, nor any earlier receipt of its chain: the chain starts before the input and is not checked (give it with -' || '-predecessor, the earlier files, or the audit database)'
                WHEN o.chain_outcome = 'absent' THEN 'predecessor ' || o.link_prev || ' is absent, after earlier receipts of its chain'
                WHEN o.chain_outcome = 'break' THEN 'predecessor ' || o.link_prev || ' belongs to another chain (its ' || o.chain_what || ' differs)'
                WHEN o.chain_outcome = 'fork_prior' THEN 'predecessor ' || o.link_prev || ' is already named by a receipt loaded earlier'
                WHEN o.claim THEN 'predecessor ' || o.link_prev || ' is named by a receipt whose signature verified'
                ELSE 'predecessor ' || o.link_prev || ' is already named by an earlier receipt (record ' || o.chain_first || ')'
            END || CASE WHEN o.claim_note <> '' THEN '; ' || o.claim_note ELSE '' END
        END AS chain_note,
        CASE
            WHEN o.nonce_set = 0 THEN o.nonce_status
            WHEN o.nonce_outcome IN ('replay', 'prior_replay') THEN 'FAIL'
            ELSE 'PASS'
        END AS nonce_status,
        CASE
            WHEN o.nonce_set = 0 THEN o.nonce_reason
            WHEN o.nonce_outcome IN ('replay', 'prior_replay') THEN 'nonce_replay'
            ELSE ''
        END AS nonce_reason,
        CASE
            WHEN o.nonce_set = 0 THEN o.nonce_note
            WHEN o.nonce_outcome = 'replay' THEN 'nonce already used by an earlier receipt of this issuer (record ' || o.nonce_first || ')'
            WHEN o.nonce_outcome = 'prior_replay' THEN 'nonce already used by a receipt of this issuer loaded earlier'
            WHEN o.nonce_outcome = 'duplicate' THEN 'used by this same receipt, delivered before (record ' || o.nonce_first || '): not a replay'
            WHEN o.nonce_outcome = 'prior_duplicate' THEN 'used by this same receipt, loaded earlier: not a replay'
            ELSE 'unique in this run'
        END AS nonce_note,
        CASE WHEN o.delivery_outcome IS NULL THEN 0 ELSE 1 END AS duplicate,
        CASE
            WHEN o.delivery_outcome IS NULL AND o.chain_outcome = 'outside' AND NOT o.claim THEN 1
            ELSE 0
        END AS chain_outside,
        CASE
            WHEN o.delivery_outcome IS NULL OR o.claim THEN ''
            WHEN o.delivery_outcome = 'duplicate' THEN 'the same receipt as record ' || o.delivery_first || ', delivered again'
            ELSE 'the same receipt as one loaded earlier, delivered again'
        END AS delivery_note
    FROM applied o
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
        a.nonce_status AS nonce_status, a.nonce_reason AS nonce_reason,
        -- A receipt delivered again: its note goes to the chain axis, or
        -- the nonce axis, whichever is first set and run.
        CASE
            WHEN a.delivery_note <> '' AND a.chain_status NOT IN ('', 'NOT_RUN')
                THEN CASE WHEN a.chain_note = '' THEN '' ELSE a.chain_note || '; ' END || a.delivery_note
            ELSE a.chain_note
        END AS chain_note,
        CASE
            WHEN a.delivery_note <> '' AND a.chain_status IN ('', 'NOT_RUN') AND a.nonce_status NOT IN ('', 'NOT_RUN')
                THEN CASE WHEN a.nonce_note = '' THEN '' ELSE a.nonce_note || '; ' END || a.delivery_note
            ELSE a.nonce_note
        END AS nonce_note,
        a.duplicate AS duplicate, a.chain_outside AS chain_outside, a.unknown_format AS unknown_format
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
    f.nonce_status AS nonce_status, f.nonce_reason AS nonce_reason,
    f.chain_note AS chain_note, f.nonce_note AS nonce_note,
    f.duplicate AS duplicate, f.chain_outside AS chain_outside,
    CASE
        WHEN f.unknown_format AND (f.changed = 0 AND f.base_verdict = 'INCOMPLETE' OR f.changed = 1 AND f.failed = '' AND f.skipped <> '') THEN 1
        ELSE 0
    END AS unknown_format
FROM counted f
ORDER BY ord
