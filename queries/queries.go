// Package queries holds the detection and reporting queries as SQL files,
// one statement per file, named after the question it answers, each
// opening with a comment block saying what it finds and what it binds.
//
// # Parameter convention
//
// Every file takes exactly one parameter, the UTC day, written once as
// the first line of the statement:
//
//	WITH params AS (SELECT CAST(? AS DATE) AS day)
//
// and used as params.day everywhere else. The runner (analytics.DB.RunQuery)
// binds it as a 'YYYY-MM-DD' string, or NULL for "every day" where the
// file says so. The rest is portable SQL over the tables of
// analytics/schema.sql (receipts, expected_tools, files, rejects): CTEs,
// window functions, COUNT(DISTINCT), CASE, explicit NULLS LAST in every
// ORDER BY on a nullable column; no QUALIFY, no JSON paths, no
// engine-specific functions. To run a file on another engine, substitute
// that one placeholder: DATE '2026-11-03' everywhere (Trino, Spark SQL,
// ClickHouse), or Trino's EXECUTE ... USING DATE '2026-11-03', Spark's
// spark.sql(text, args=[...]), ClickHouse's {day:Nullable(Date)}.
//
// # Finding rows
//
// A finding query (collisions, drift, replays, failures, rejects) opens
// each row with finding (its own name), severity (high, medium, low or
// info, computed from the row's facts by a CASE its header explains under
// "Severity") and finding_key (the row's identifying facts joined with
// '|'; the runner shows its SHA-256 as finding_id, the same on every
// re-run), and carries an event_time.
package queries

import (
	"embed"
	"io/fs"
)

// FS holds the *.sql files, read-only.
func FS() fs.FS { return files }

//go:embed *.sql
var files embed.FS

// Judgments is shard/judgments.sql, the cross-file judgments of a sharded
// verification: not a report query (it takes no day), so not in FS.
func Judgments() string { return judgments }

//go:embed shard/judgments.sql
var judgments string

// Fold is shard/fold.sql, the judgments of a sharded verification
// folded into each record's verdict: the fold of verify finalize in SQL.
func Fold() string { return fold }

//go:embed shard/fold.sql
var fold string

// FoldSummary is shard/fold_summary.sql, the summary of the verdicts
// Fold gives: the counts of verify finalize in SQL.
func FoldSummary() string { return foldSummary }

//go:embed shard/fold_summary.sql
var foldSummary string

// HistoryAppend is shard/history_append.sql, the rows a finalized
// sharded run adds to the compact history Judgments reads.
func HistoryAppend() string { return historyAppend }

//go:embed shard/history_append.sql
var historyAppend string

// HistoryRocksPut is shard/history_rocks_put.sql, the statement that
// puts the rows of the compact history (history_run) into its RocksDB
// store on ClickHouse.
func HistoryRocksPut() string { return historyRocksPut }

//go:embed shard/history_rocks_put.sql
var historyRocksPut string

// HistorySuperseded is shard/history_superseded.sql, the keys of the
// compact history whose first receipt a run's receipt stands before.
func HistorySuperseded() string { return historySuperseded }

//go:embed shard/history_superseded.sql
var historySuperseded string
