package analytics

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Parquet export layout under the export directory:
//
//	day=YYYY-MM-DD/receipts.parquet   the receipts of one UTC day, every column but day
//	expected_tools.parquet            the expected tool schemas
//	files.parquet                     the files loaded, with their counts
//	rejects.parquet                   the lines that could not be read
//	trust.parquet                     the trust material verdicts came from
//
// day is a Hive-style partition: DuckDB's read_parquet(...,
// hive_partitioning = true), Spark, Trino's Hive connector and ClickHouse
// (use_hive_partitioning) read it back as a column.
const (
	ParquetReceipts      = "receipts.parquet"
	ParquetExpectedTools = "expected_tools.parquet"
	ParquetFiles         = "files.parquet"
	ParquetRejects       = "rejects.parquet"
	ParquetTrust         = "trust.parquet"
)

// ExportSummary is what an export wrote.
type ExportSummary struct {
	Dir           string
	Days          []ExportedDay
	Undated       int64 // receipts without a day, not exported: none since Open gives undated receipts their load's day
	ExpectedTools int64
	Files         int64
	Rejects       int64
	Trust         int64
}

// ExportedDay is one day's partition.
type ExportedDay struct {
	Day  string
	Rows int64
	Path string
}

// Rows is the number of receipts exported.
func (s *ExportSummary) Rows() int64 {
	var n int64
	for _, d := range s.Days {
		n += d.Rows
	}
	return n
}

// ExportParquet writes the receipts of db as Parquet partitioned by UTC
// day under dir, one COPY per day so memory stays bounded by a day, plus
// expected_tools, files, rejects and trust. Each file is written under a temporary name in
// its final directory and renamed over the old one, so a re-run replaces
// each day's file atomically and a reader never sees half a file.
// Partitions of days no longer in the database are left alone. Rows are in
// (issued_at, source, file, line) order. A database error (COPY included)
// is an *IOError, a directory or file that cannot be made a *WriteError.
func ExportParquet(ctx context.Context, db *DB, dir string) (*ExportSummary, error) {
	sum := &ExportSummary{Dir: dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &WriteError{Path: dir, Err: err}
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, &IOError{Op: "export", Path: db.path, Err: err}
	}
	defer conn.Close()

	rows, err := conn.QueryContext(ctx, `SELECT day, COUNT(*) FROM receipts GROUP BY day ORDER BY day NULLS LAST`)
	if err != nil {
		return nil, &IOError{Op: "export", Path: db.path, Err: err}
	}
	for rows.Next() {
		var day *time.Time
		var n int64
		if err := rows.Scan(&day, &n); err != nil {
			rows.Close()
			return nil, &IOError{Op: "export", Path: db.path, Err: err}
		}
		if day == nil {
			sum.Undated = n
			continue
		}
		sum.Days = append(sum.Days, ExportedDay{Day: day.UTC().Format(time.DateOnly), Rows: n})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, &IOError{Op: "export", Path: db.path, Err: err}
	}

	copyTo := func(query, final string) error {
		if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
			return &WriteError{Path: final, Err: err}
		}
		// The temporary name does not end in .parquet, so a glob over the
		// layout never picks it up.
		tmp := filepath.Join(filepath.Dir(final), "."+filepath.Base(final)+".tmp")
		os.Remove(tmp)
		stmt := fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet, COMPRESSION zstd)", query, sqlString(tmp))
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			os.Remove(tmp)
			return &IOError{Op: "export", Path: final, Err: err}
		}
		if err := os.Rename(tmp, final); err != nil {
			os.Remove(tmp)
			return &WriteError{Path: final, Err: err}
		}
		return nil
	}
	for i := range sum.Days {
		d := &sum.Days[i]
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		d.Path = filepath.Join(dir, "day="+d.Day, ParquetReceipts)
		// d.Day was formatted from a DATE, so it is safe as a literal.
		q := fmt.Sprintf(`SELECT * EXCLUDE (day) FROM receipts WHERE day = DATE '%s' ORDER BY issued_at NULLS LAST, source, file_sha256, line`, d.Day)
		if err := copyTo(q, d.Path); err != nil {
			return sum, err
		}
	}
	for _, t := range []struct {
		table, file, order string
		n                  *int64
	}{
		{"expected_tools", ParquetExpectedTools, "server, tool_name, fingerprint", &sum.ExpectedTools},
		{"files", ParquetFiles, "path, file_sha256", &sum.Files},
		{"rejects", ParquetRejects, "source, file_sha256, line", &sum.Rejects},
		{"trust", ParquetTrust, "trust_sha256", &sum.Trust},
	} {
		if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+t.table).Scan(t.n); err != nil {
			return sum, &IOError{Op: "export", Path: db.path, Err: err}
		}
		if err := copyTo("SELECT * FROM "+t.table+" ORDER BY "+t.order, filepath.Join(dir, t.file)); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// ParquetViews are the statements that make an in-memory DuckDB read an
// export directory as the tables the queries expect, for tests and the
// DuckDB recipe in docs/engines.md.
func ParquetViews(dir string) []string {
	glob := filepath.ToSlash(filepath.Join(dir, "day=*", "*.parquet"))
	return []string{
		fmt.Sprintf("CREATE VIEW receipts AS SELECT * FROM read_parquet(%s, hive_partitioning = true)", sqlString(glob)),
		fmt.Sprintf("CREATE VIEW expected_tools AS SELECT * FROM read_parquet(%s)", sqlString(filepath.ToSlash(filepath.Join(dir, ParquetExpectedTools)))),
		fmt.Sprintf("CREATE VIEW files AS SELECT * FROM read_parquet(%s)", sqlString(filepath.ToSlash(filepath.Join(dir, ParquetFiles)))),
		fmt.Sprintf("CREATE VIEW rejects AS SELECT * FROM read_parquet(%s)", sqlString(filepath.ToSlash(filepath.Join(dir, ParquetRejects)))),
		fmt.Sprintf("CREATE VIEW trust AS SELECT * FROM read_parquet(%s)", sqlString(filepath.ToSlash(filepath.Join(dir, ParquetTrust)))),
	}
}
