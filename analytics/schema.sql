-- The audit database. One row per receipt line loaded, one per line that
-- could not be read, one per file loaded. Timestamps are UTC; day is the
-- UTC day of issued_at, or, for a receipt without a readable issued_at
-- (UndoLog rows and Overturn entries carry none), the UTC day of its load
-- (its file's loaded_at), so that every receipt is in some daily report.
-- Columns are plain SQL types so that the same
-- queries run over the Parquet export in Trino, Spark SQL or ClickHouse.
-- receipts has no primary key: (file_sha256, line) is unique by
-- construction (a file's lines are loaded once, in one transaction), and the index
-- would cost about a fifth of the load rate.
-- The archive files are the evidence: every receipts row says where its
-- line is (byte_offset and byte_length in the file's content, line_sha256
-- of its bytes), and raw holds the line itself only for the receipts an
-- auditor needs at hand (RawPolicy in rawpolicy.go: by default those not
-- PASS and those of a replay; every one with --store-raw all).
-- receipts.raw is FSST-compressed by declaration. DuckDB picks FSST for
-- these kilobyte JSON lines anyway, but only after also trying dictionary
-- compression on every row group, which hashes every line and was about a
-- tenth of the load's CPU time; the file is the same size either way.

CREATE TABLE IF NOT EXISTS files (
    file_sha256   VARCHAR PRIMARY KEY,  -- hex SHA-256 of the file's content (decompressed), from its first byte to the end of this row's lines
    path          VARCHAR NOT NULL,     -- as given on the command line
    size_bytes    BIGINT  NOT NULL,     -- the file's size as stored (gzip included)
    lines         BIGINT  NOT NULL,     -- lines this row added (first_line on), blank ones included
    accepted      BIGINT  NOT NULL,     -- rows in receipts
    rejected      BIGINT  NOT NULL,     -- rows in rejects
    loaded_at     TIMESTAMP NOT NULL,   -- UTC, when the file's transaction began (--at when given)
    -- Content identity, so that a file loaded again under another name,
    -- recompressed, or grown since adds only its new lines. A grown file
    -- gets a row of its own for the lines it added, pointing at the row
    -- of the content it extends.
    content_bytes BIGINT,               -- bytes of content file_sha256 covers
    first_line    BIGINT,               -- the first line this row added: 1, or one past the content it extends
    base_sha256   VARCHAR,              -- file_sha256 of the content this row extends; NULL for a whole file
    head_sha256   VARCHAR,              -- hex SHA-256 of the first line (without its newline), to find the content a grown file extends
    unterminated  BOOLEAN,              -- the content's last line has no newline
    trust_sha256  VARCHAR,              -- the trust material its receipts were verified with (trust table)
    redelivered   BIGINT,               -- its receipts not stored because their lines were stored already from another file
    redelivered_days VARCHAR,           -- the UTC days of the stored receipts those are, comma-separated
    family        VARCHAR               -- the logrotate family of path (path without .1, -YYYYMMDD, .gz): the source whose daily volume queries/gaps.sql follows
);

CREATE TABLE IF NOT EXISTS receipts (
    file_sha256      VARCHAR NOT NULL,
    source           VARCHAR NOT NULL,
    line             BIGINT  NOT NULL,
    byte_offset      BIGINT,            -- where the line starts in the file's content (a gzip file's decompressed bytes)
    byte_length      BIGINT,            -- its length in bytes, without the line end
    line_sha256      VARCHAR,           -- hex SHA-256 of those bytes
    format           VARCHAR NOT NULL,
    verdict          VARCHAR NOT NULL,  -- PASS, FAIL, INCOMPLETE
    reasons          VARCHAR[] NOT NULL, -- reason codes, in the verifier's order, [] for none
    action_id        VARCHAR,
    agent_id         VARCHAR,
    issuer_id        VARCHAR,
    org_id           VARCHAR,
    session_id       VARCHAR,
    step             BIGINT,
    action_type      VARCHAR,
    tool_name        VARCHAR,
    tool_fingerprint VARCHAR,
    tool_match       VARCHAR,           -- match, drift, unknown, absent, not_run
    tool_servers     VARCHAR[],         -- expected servers whose schema matches; NULL for none
    nonce            VARCHAR,
    call_signature   VARCHAR,           -- UndoLog rows
    signature_sha256 VARCHAR,           -- hex SHA-256 of the encoded signature as carried
    previous_hash    VARCHAR,
    chain_hash       VARCHAR,
    chain_scope      VARCHAR,           -- SHA-256 of the receipt's chain scope, first 32 hex digits, with chain_hash: how later loads judge a link to it
    decision         VARCHAR,
    issued_at        TIMESTAMP,         -- UTC
    day              DATE,              -- UTC day of issued_at; without one, of loaded_at
    raw              VARCHAR USING COMPRESSION fsst, -- the receipt line exactly as read; NULL when it is left in the archive
    nonce_key        VARCHAR,           -- SHA-256 of (issuer, nonce), first 32 hex digits: how later loads find replays of it
    trust_sha256     VARCHAR,           -- the trust material its verdict came from (trust table)
    -- A signed lifecycle record or checkpoint, what completeness rests on
    -- (queries/completeness.sql); NULL for an ordinary action.
    lifecycle        VARCHAR,           -- session_open, heartbeat, session_close, checkpoint or log_checkpoint
    lifecycle_seq    BIGINT,            -- a close's final sequence number; the head sequence number a checkpoint names
    lifecycle_count  BIGINT,            -- the receipts a close counts
    heartbeat_seconds BIGINT,           -- the heartbeat interval a session_open declares
    lifecycle_head   VARCHAR,           -- the chain_hash of the head a checkpoint names; a recorder checkpoint's, the recorder_entry
    lifecycle_scope  VARCHAR,           -- the chain_scope the record names: its own; a pipelock recorder checkpoint's, its key's chain
    recorder_entry   VARCHAR,           -- the hash of the pipelock flight recorder entry the receipt was read from
    -- A receipt whose signature did not verify (verify.Result.Evidence): a
    -- later load counts it as a predecessor present and as nothing else
    -- (prior.go).
    claim            BOOLEAN,
    -- A transparency log's checkpoint (lifecycle log_checkpoint: its size
    -- in lifecycle_seq, its root in lifecycle_head) given with a
    -- consistency proof, once its note verified: the tree head the proof
    -- leads from, which queries/completeness.sql holds to the log's
    -- checkpoints stored before.
    consistency_size BIGINT,            -- the old tree's size
    consistency_root VARCHAR            -- its root in hex; NULL when the proof does not verify
);

CREATE TABLE IF NOT EXISTS rejects (
    file_sha256 VARCHAR NOT NULL,
    source      VARCHAR NOT NULL,
    line        BIGINT  NOT NULL,       -- 1-based; a file that cannot be read to its end is not recorded at all (the load reports it, exit 66)
    error       VARCHAR NOT NULL,
    raw         VARCHAR,                -- the line as read, when it was not too long
    PRIMARY KEY (file_sha256, line)
);

-- The expected tool schemas given with --schemas, so reports can say
-- which server's schema a fingerprint matches.
CREATE TABLE IF NOT EXISTS expected_tools (
    server      VARCHAR NOT NULL,
    tool_name   VARCHAR NOT NULL,
    fingerprint VARCHAR NOT NULL,
    PRIMARY KEY (server, tool_name, fingerprint)
);

-- The expected tool sets already added to expected_tools, by the SHA-256
-- of their sorted (server, tool_name, fingerprint) rows, so that a load
-- given the same --schemas as before does not add them again.
CREATE TABLE IF NOT EXISTS expected_tool_sets (
    set_sha256 VARCHAR PRIMARY KEY,
    tools      BIGINT  NOT NULL
);

-- The trust material verdicts came from: one row per distinct set of key
-- files, schema files, judging time and strictness, with the tool version
-- that judged. trust_sha256 is the SHA-256 of the canonical JSON in
-- material; files and receipts rows point to it.
CREATE TABLE IF NOT EXISTS trust (
    trust_sha256   VARCHAR PRIMARY KEY,
    key_files      VARCHAR NOT NULL,    -- JSON array of {path, sha256}, in the order given
    schema_files   VARCHAR NOT NULL,    -- JSON array of {path, sha256}, in name order
    judged_at      TIMESTAMP,           -- --at, UTC; NULL when the clock of the load judged
    strict_schemas BOOLEAN NOT NULL,
    tool_version   VARCHAR NOT NULL,
    material       VARCHAR NOT NULL     -- what trust_sha256 covers (paths excluded: the same bytes are the same material)
);

-- Each generation of a day's report (verify report, verify audit): when
-- and by which run. A later load that adds receipts to a day with a row
-- here is a late delivery (late_deliveries), whatever the load times.
CREATE TABLE IF NOT EXISTS report_runs (
    day          DATE      NOT NULL,
    generated_at TIMESTAMP NOT NULL,    -- UTC, the run's clock (--at when given)
    run          VARCHAR   NOT NULL,    -- the command and its wall-clock start: "verify audit 2026-11-05T01:10:02Z pid 4711"
    dir          VARCHAR   NOT NULL     -- the report directory written
);

-- Receipts a load added to a day already reported (report_runs), one row
-- per day and file row of that load: the day's next reports list them.
CREATE TABLE IF NOT EXISTS late_deliveries (
    day          DATE      NOT NULL,
    file_sha256  VARCHAR   NOT NULL,    -- the files row that added them
    source       VARCHAR   NOT NULL,
    receipts     BIGINT    NOT NULL,
    not_pass     BIGINT    NOT NULL,    -- of them FAIL or INCOMPLETE
    loaded_at    TIMESTAMP NOT NULL,
    reported_at  TIMESTAMP NOT NULL,    -- the day's last report generation before the load
    PRIMARY KEY (day, file_sha256)
);

-- Verdicts a load revised: a stored receipt that a later load showed not
-- to be the original of its (issuer, nonce), as the load brought a
-- receipt that stands before it (by issued_at, a receipt without one
-- last, then line_sha256): it is a replay now, FAIL nonce_replay, as one
-- load of every file would have judged it. One row per receipt revised.
CREATE TABLE IF NOT EXISTS revisions (
    day          DATE      NOT NULL,    -- the revised receipt's day, whose reports before are stale
    file_sha256  VARCHAR   NOT NULL,    -- the revised receipt (receipts row)
    source       VARCHAR   NOT NULL,
    line         BIGINT    NOT NULL,
    old_verdict  VARCHAR   NOT NULL,
    old_reasons  VARCHAR[] NOT NULL,
    new_verdict  VARCHAR   NOT NULL,
    new_reasons  VARCHAR[] NOT NULL,
    why          VARCHAR   NOT NULL,    -- the judgment that changed and the receipt that changed it
    cause_sha256 VARCHAR   NOT NULL,    -- the files row holding that receipt, which the load added
    cause_line   BIGINT    NOT NULL,
    loaded_at    TIMESTAMP NOT NULL,    -- the load's clock (--at when given)
    run          VARCHAR   NOT NULL     -- the load's command and start, as report_runs.run; '' from the library
);

-- The bytes of the key, schema and baseline files loads and reports used,
-- once each by SHA-256 (trust.key_files and schema_files, the manifest's
-- baseline name them), so that explain --db judges a receipt with its
-- load's material on a machine where those paths hold nothing.
CREATE TABLE IF NOT EXISTS trust_contents (
    sha256   VARCHAR PRIMARY KEY,
    content  BLOB NOT NULL
);
