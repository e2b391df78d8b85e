// Package exportdir is the Parquet layout of an export directory, one
// directory per table, so that a table a lake engine defines over a
// directory reads that table alone:
//
//	receipts/day=YYYY-MM-DD/part-N.parquet  the receipts of one UTC day, every column but day
//	files/part-N.parquet                    the files loaded, with their counts
//	rejects/part-N.parquet                  the lines that could not be read
//	expected_tools/part-N.parquet           the expected tool schemas
//	trust/part-N.parquet                    the trust material verdicts came from
//
// day is a Hive-style partition: DuckDB's read_parquet(...,
// hive_partitioning = true), Spark, Trino's Hive connector and ClickHouse
// (use_hive_partitioning) read it back as a column. Timestamps are UTC
// instants (TIMESTAMP WITH TIME ZONE, isAdjustedToUTC) and reasons and
// tool_servers LISTs of text. A directory's files are part-0.parquet,
// part-1.parquet, ..., each cut at about analytics.ExportOptions.MaxFileBytes.
package exportdir

import (
	"fmt"
	"path/filepath"

	"github.com/receiptverify/verify/internal/helpers/sqltext"
)

// The tables of an export, each a directory.
const (
	Receipts      = "receipts"
	Files         = "files"
	Rejects       = "rejects"
	ExpectedTools = "expected_tools"
	Trust         = "trust"
)

// Side lists the tables exported besides receipts, in export order.
func Side() []string { return []string{Files, Rejects, ExpectedTools, Trust} }

// Glob is the glob of a table's files under an export directory.
func Glob(dir, table string) string {
	if table == Receipts {
		return filepath.ToSlash(filepath.Join(dir, table, "day=*", "*.parquet"))
	}
	return filepath.ToSlash(filepath.Join(dir, table, "*.parquet"))
}

// Views are the statements that make an in-memory DuckDB read an
// export directory as the tables the queries expect, for tests and the
// DuckDB recipe in docs/engines.md.
func Views(dir string) []string {
	out := []string{fmt.Sprintf("CREATE VIEW receipts AS SELECT * FROM read_parquet(%s, hive_partitioning = true)", sqltext.String(Glob(dir, Receipts)))}
	for _, t := range Side() {
		out = append(out, fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM read_parquet(%s)", t, sqltext.String(Glob(dir, t))))
	}
	return out
}

// Summary is what an export wrote.
type Summary struct {
	Dir    string
	Days   []Day
	Tables []Table // files, rejects, expected_tools, trust
	// Undated is the receipts without a day, not exported: none since
	// the database gives undated receipts their load's day.
	Undated int64
	// Stale are files of the layout of earlier versions in Dir
	// (day=*/receipts.parquet, *.parquet), which the export no longer
	// writes or replaces and a reader of the new layout does not read.
	Stale []string
	// Removed are the day partitions of an earlier export whose days the
	// database no longer holds, removed so that a reader of the export
	// counts what the database holds; Kept, such directories holding
	// files the export did not write, left as they are.
	Removed, Kept []string
}

// Day is one day's partition of receipts.
type Day struct {
	Day   string
	Rows  int64
	Path  string // the day's directory
	Parts int    // its part files
}

// Table is one side table's directory.
type Table struct {
	Table string
	Rows  int64
	Path  string
	Parts int
}

// Rows is the number of receipts exported.
func (s *Summary) Rows() int64 {
	var n int64
	for _, d := range s.Days {
		n += d.Rows
	}
	return n
}
