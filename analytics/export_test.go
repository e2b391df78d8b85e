package analytics

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/analytics/exportdir"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// partsDB is a database with one day of n synthetic receipts, three of
// another day, and files and rejects rows; the receipts' issued_at order
// is not their line order, so that an export that kept line order would
// show.
func partsDB(t *testing.T, n int) *DB {
	t.Helper()
	db := openTestDB(t)
	for _, s := range []string{
		`INSERT INTO files (file_sha256, path, size_bytes, lines, accepted, rejected, loaded_at) VALUES ('f1', 'in.jsonl', 1, 1, 1, 0, TIMESTAMP '2026-11-02 08:00:00')`,
		`INSERT INTO rejects (file_sha256, source, line, error, raw) VALUES ('f1', 'in.jsonl', 99999, 'not json', 'x')`,
		fmt.Sprintf(`INSERT INTO receipts (file_sha256, source, line, format, verdict, reasons, tool_match, tool_servers, issued_at, day, raw)
			SELECT 'f1', 'in.jsonl', i, 'asqav', CASE WHEN i %% 7 = 0 THEN 'FAIL' ELSE 'PASS' END,
			       CASE WHEN i %% 7 = 0 THEN ['bad_signature', 'chain_fork'] ELSE [] END, 'match',
			       CASE WHEN i %% 5 = 0 THEN ['srv-' || (i %% 3)] END,
			       make_timestamp(1793577600000000 + ((i * 7919) %% %[1]d) * 1000000 + i %% 1000),
			       DATE '2026-11-02', '{"n":' || i || ',"pad":"' || md5(i::VARCHAR) || md5((i + 1)::VARCHAR) || '"}'
			FROM range(1, %[1]d + 1) r(i)`, n),
		`INSERT INTO receipts (file_sha256, source, line, format, verdict, reasons, tool_match, issued_at, day, raw)
			SELECT 'f1', 'in.jsonl', 100000 + i, 'asqav', 'PASS', [], 'match', TIMESTAMP '2026-11-03 00:00:00' + to_seconds(i), DATE '2026-11-03', '{}'
			FROM range(3) r(i)`,
	} {
		if _, err := db.SQL().Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// TestExportParts: a small bound cuts a day into several part files,
// (enough rows that DuckDB writing with several threads would mix them),
// part-0 to part-N, each cut at the first row group past the bound, that
// hold the day's rows once each and in the export's order; timestamps are
// UTC instants; and a second export with a larger bound replaces the
// day's files as a whole.
func TestExportParts(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	ctx := context.Background()
	const n = 200000
	db := partsDB(t, n)
	dir := filepath.Join(t.TempDir(), "pq")
	const bound = 64 << 10
	sum, err := db.ExportParquet(ctx, dir, ExportOptions{MaxFileBytes: bound})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Days) != 2 || sum.Days[0].Rows != n || sum.Days[1].Parts != 1 {
		t.Fatalf("export summary: %+v", sum.Days)
	}
	day := sum.Days[0]
	parts := partFiles(t, day.Path)
	if len(parts) < 3 || len(parts) != day.Parts {
		t.Fatalf("%d parts (summary %d) for %d receipts at a %d-byte bound, want 3 or more", len(parts), day.Parts, n, bound)
	}

	q := func(s string) string {
		return strings.ReplaceAll(s, "DAYGLOB", sqltext.String(filepath.ToSlash(filepath.Join(day.Path, "*.parquet"))))
	}
	// Every row once, in (issued_at, source, file, line) order across the
	// parts taken in part number order.
	got := rowsText(t, mustQuery(t, db, q(`SELECT line FROM read_parquet(DAYGLOB, filename = true, file_row_number = true)
		ORDER BY CAST(regexp_extract(filename, 'part-(\d+)\.parquet', 1) AS BIGINT), file_row_number`)))
	want := rowsText(t, mustQuery(t, db, `SELECT line FROM receipts WHERE day = DATE '2026-11-02' ORDER BY issued_at, source, file_sha256, line`))
	if got != want {
		t.Errorf("the parts' rows, in part order, are not the day's rows in export order (%d lines, want %d)", strings.Count(got, "\n"), strings.Count(want, "\n"))
	}
	// The same values, lists and timestamps included.
	if n := queryInt(t, db, q(`SELECT count(*) FROM (
		SELECT line, reasons, tool_servers, issued_at, raw FROM read_parquet(DAYGLOB)
		EXCEPT SELECT line, reasons, tool_servers, issued_at, raw FROM receipts)`)); n != 0 {
		t.Errorf("%d exported rows differ from the database's", n)
	}

	// A part is cut at the first row group boundary at or past the bound:
	// all its row groups but the last come to less than the bound.
	for _, p := range parts {
		var before int64
		if err := db.SQL().QueryRow(`SELECT COALESCE(SUM(b), 0) FROM (
			SELECT row_group_id, SUM(total_compressed_size) AS b FROM parquet_metadata(?) GROUP BY row_group_id
			ORDER BY row_group_id DESC OFFSET 1)`, p).Scan(&before); err != nil {
			t.Fatal(err)
		}
		if before >= bound {
			t.Errorf("%s: %d bytes before its last row group, past the %d-byte bound", filepath.Base(p), before, bound)
		}
	}

	// Timestamps are instants (isAdjustedToUTC), lists LISTs.
	for _, c := range []struct{ file, column, want string }{
		{parts[0], "issued_at", "isAdjustedToUTC=1"},
		{filepath.Join(dir, "files", "part-0.parquet"), "loaded_at", "isAdjustedToUTC=1"},
	} {
		var lt string
		if err := db.SQL().QueryRow(`SELECT logical_type FROM parquet_schema(?) WHERE name = ?`, c.file, c.column).Scan(&lt); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(lt, c.want) {
			t.Errorf("%s %s: logical type %s, want %s", c.file, c.column, lt, c.want)
		}
	}
	if n := queryInt(t, db, `SELECT count(*) FROM parquet_schema(?) WHERE name IN ('reasons', 'tool_servers') AND converted_type = 'LIST'`, parts[0]); n != 2 {
		t.Errorf("reasons and tool_servers: %d LIST columns, want 2", n)
	}

	// A larger bound: fewer parts, none of the old ones left.
	sum, err = db.ExportParquet(ctx, dir, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again := partFiles(t, day.Path); len(again) != 1 || sum.Days[0].Parts != 1 {
		t.Errorf("re-export at the default bound: parts %v, want part-0 alone", again)
	}
	hidden, _ := filepath.Glob(filepath.Join(dir, "*", ".*"))
	top, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if left := append(hidden, top...); len(left) > 0 {
		t.Errorf("temporary directories left: %v", left)
	}
}

// partFiles lists dir's part files and checks they are part-0 to part-N.
func partFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names, paths []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for i := range names {
		want := fmt.Sprintf("part-%d.parquet", i)
		if !slices.Contains(names, want) {
			t.Fatalf("%s: files %v, want part-0.parquet to part-%d.parquet", dir, names, len(names)-1)
		}
		paths = append(paths, filepath.Join(dir, want))
	}
	return paths
}

func mustQuery(t *testing.T, db *DB, q string) *sql.Rows {
	t.Helper()
	rows, err := db.SQL().Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return rows
}

// TestSideTablesLayout: the tables an export writes besides receipts are
// those exportdir lays out and reads back as views, in its order.
func TestSideTablesLayout(t *testing.T) {
	t.Parallel()
	side := exportdir.Side()
	if len(side) != len(sideTables) {
		t.Fatalf("exportdir has %d side tables, the export %d", len(side), len(sideTables))
	}
	for i, st := range sideTables {
		if side[i] != st.table {
			t.Errorf("side table %d: exportdir %s, export %s", i, side[i], st.table)
		}
	}
}
