package shard

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/receiptverify/verify/queries"
)

// TestViews: each engine's statements name exactly the parts given,
// quoted as its string literals, and an empty history_keys without
// history; with history, history_keys reads the compact history's files
// and makes the same columns of earlier runs' records.
func TestViews(t *testing.T) {
	t.Parallel()
	parts := []string{"/m/shard-0/records-00000.parquet", `/m/it's\odd/records-00000.parquet`}
	for _, c := range []struct {
		engine string
		want   []string
		keys   string
	}{
		{"duckdb", []string{
			`CREATE VIEW shard_records AS SELECT * FROM read_parquet(['/m/shard-0/records-00000.parquet', '/m/it''s\odd/records-00000.parquet'])`,
			`CREATE VIEW fold_records AS SELECT ` + FoldColumns + ` FROM read_parquet(['/m/shard-0/records-00000.parquet', '/m/it''s\odd/records-00000.parquet'])`,
			"CREATE TEMP TABLE history_keys (kind VARCHAR, k BLOB, scope BLOB, receipt_order BLOB)",
		}, `SELECT CAST(kind AS VARCHAR) AS kind, CAST(k AS BLOB) AS k, CAST(scope AS BLOB) AS scope, CAST(receipt_order AS BLOB) AS receipt_order FROM read_parquet(['/h/r/keys.parquet'])`},
		{"clickhouse", []string{
			"SET join_use_nulls = 1",
			"SET query_plan_max_optimizations_to_apply = 1000000",
			"CREATE TABLE shard_records ENGINE = Memory AS SELECT " + RecordColumns + " FROM (SELECT " + RecordColumns + " FROM file('/m/it\\'s\\\\odd/records-00000.parquet', Parquet) UNION ALL SELECT " + RecordColumns + " FROM file('/m/shard-0/records-00000.parquet', Parquet))",
			"CREATE VIEW fold_records AS SELECT " + FoldColumns + " FROM file('/m/it\\'s\\\\odd/records-00000.parquet', Parquet) UNION ALL SELECT " + FoldColumns + " FROM file('/m/shard-0/records-00000.parquet', Parquet)",
			"CREATE TABLE history_keys (kind Nullable(String), k Nullable(String), scope Nullable(String), receipt_order Nullable(String)) ENGINE = Memory",
		}, `SELECT kind, k, scope, receipt_order FROM file('/h/r/keys.parquet', Parquet)`},
	} {
		got, err := Views(c.engine, parts, History{})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.engine, got, c.want)
		}
		hist, err := Views(c.engine, parts[:1], History{Records: parts[1:], Keys: []string{"/h/r/keys.parquet"}})
		if err != nil {
			t.Fatal(err)
		}
		hist = hist[len(hist)-3:] // after ClickHouse's settings
		if !strings.Contains(hist[2], " history_keys ") || !strings.Contains(hist[2], "FROM history_all h") {
			t.Fatalf("%s: history: %q", c.engine, hist)
		}
		if !strings.HasPrefix(hist[1], "CREATE VIEW history_all AS SELECT 'o' AS kind, unhex(chain_key) AS k, unhex(scope_key) AS scope, "+ownerOrder+" AS receipt_order FROM ") ||
			!strings.Contains(hist[1], "SELECT 'n' AS kind, unhex(nonce_key) AS k, NULL AS scope, unhex(receipt_order) AS receipt_order FROM ") ||
			!strings.HasSuffix(hist[1], " UNION ALL "+c.keys) {
			t.Errorf("%s: history: %s", c.engine, hist[1])
		}
	}
	// Past 256 KiB, a statement needs a larger max_query_size on
	// ClickHouse: the views raise it.
	// The parts of one directory are read by one file(), naming them
	// in a {a,b} list; another directory's by another.
	got, err := Views("clickhouse", []string{"/m/shard-0/records-00000.parquet", "/m/shard-1/records-00000.parquet", "/n/shard-2/records-00000.parquet"}, History{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "FROM (SELECT " + RecordColumns + " FROM file('/m/{shard-0/records-00000.parquet,shard-1/records-00000.parquet}', Parquet) UNION ALL SELECT " + RecordColumns + " FROM file('/n/shard-2/records-00000.parquet', Parquet))"; !strings.HasSuffix(got[2], want) {
		t.Errorf("parts of two directories: %s\nwant it to end %s", got[2], want)
	}
	many := make([]string, 3000)
	for i := range many {
		many[i] = fmt.Sprintf("/lake/runs/2026-12-%d/maps/shard-0/records-00000.parquet", i)
	}
	if got, err = Views("clickhouse", many, History{}); err != nil {
		t.Fatal(err)
	}
	// The longest statement is the view the fold reads, of more columns.
	if want := fmt.Sprintf("SET max_query_size = %d", 2*len(got[4])); len(got[3]) <= 256<<10 || len(got[4]) < len(got[3]) || got[2] != want {
		t.Errorf("3,000 directories: a statement of %d bytes after %.80q, want %q", len(got[3]), got[2], want)
	}
	// An earlier run's records as history, 2,000 parts: each kind of key
	// reads them by one file(); parts relative to the current directory
	// (--base .) by one too.
	hist := make([]string, 2000)
	for i := range hist {
		hist[i] = fmt.Sprintf("/lake/runs/2026-11-30/maps/shard-%d/records-00000.parquet", i)
	}
	if got, err = Views("clickhouse", []string{"shard-0/records-00000.parquet", "shard-1/records-00000.parquet"}, History{Records: hist}); err != nil {
		t.Fatal(err)
	}
	if want := "FROM (SELECT " + RecordColumns + " FROM file('./{shard-0/records-00000.parquet,shard-1/records-00000.parquet}', Parquet))"; !strings.HasSuffix(got[2], want) {
		t.Errorf("parts in the current directory: %.200s\nwant it to end %s", got[2], want)
	}
	if n := strings.Count(got[4], "file("); !strings.HasPrefix(got[4], "CREATE VIEW history_all AS ") || n != len(historyKinds) {
		t.Errorf("2,000 parts of history: %d file() calls in %.80q, want %d", n, got[4], len(historyKinds))
	}
	if _, err := Views("oracle", parts, History{}); err == nil {
		t.Error("an unknown engine: no error")
	}
}

// TestTableViewsClickHouse: on ClickHouse the report's tables over the
// folded shards begin with the session's settings the finding queries
// need, and each table reads the files of every fold by one file() under
// the directory of the folds, naming them in a list: at 3,000 folds no
// more plan steps than at one, and a statement past 256 KiB raises
// max_query_size.
func TestTableViewsClickHouse(t *testing.T) {
	t.Parallel()
	tables := func(folds int, dir string) map[string][]string {
		out := map[string][]string{}
		if dir != "" {
			dir += "/"
		}
		for n := range folds {
			for _, day := range []string{"2026-11-30", "2026-12-01"} {
				out["receipts"] = append(out["receipts"], fmt.Sprintf("%sshard-%d/receipts/day=%s/part-0.parquet", dir, n, day))
			}
			for _, tb := range []string{"files", "rejects", "expected_tools", "trust"} {
				out[tb] = append(out[tb], fmt.Sprintf("%sshard-%d/%s/part-0.parquet", dir, n, tb))
			}
		}
		return out
	}
	got, err := TableViews("clickhouse", tables(2, "/lake/run=1/folds"))
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string{}, clickHouseLakeSettings...),
		"CREATE VIEW receipts AS SELECT * FROM file('/lake/run=1/folds/{shard-0/receipts/day=2026-11-30/part-0.parquet,shard-0/receipts/day=2026-12-01/part-0.parquet,shard-1/receipts/day=2026-11-30/part-0.parquet,shard-1/receipts/day=2026-12-01/part-0.parquet}', Parquet)",
		"CREATE VIEW files AS SELECT * FROM file('/lake/run=1/folds/{shard-0/files/part-0.parquet,shard-1/files/part-0.parquet}', Parquet)",
		"CREATE VIEW rejects AS SELECT * FROM file('/lake/run=1/folds/{shard-0/rejects/part-0.parquet,shard-1/rejects/part-0.parquet}', Parquet)",
		"CREATE VIEW expected_tools AS SELECT * FROM file('/lake/run=1/folds/{shard-0/expected_tools/part-0.parquet,shard-1/expected_tools/part-0.parquet}', Parquet)",
		"CREATE VIEW trust AS SELECT * FROM file('/lake/run=1/folds/{shard-0/trust/part-0.parquet,shard-1/trust/part-0.parquet}', Parquet)")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("two folds:\n got %q\nwant %q", got, want)
	}
	if !slices.Contains(got, "SET use_hive_partitioning = 1") || !slices.Contains(got, "SET query_plan_max_optimizations_to_apply = 1000000") {
		t.Errorf("the settings: %q", got[:len(clickHouseLakeSettings)])
	}
	// Relative to the current directory (--base .), folds in it.
	if got, err = TableViews("clickhouse", tables(2, "")); err != nil {
		t.Fatal(err)
	}
	if want := "CREATE VIEW trust AS SELECT * FROM file('./{shard-0/trust/part-0.parquet,shard-1/trust/part-0.parquet}', Parquet)"; got[len(got)-1] != want {
		t.Errorf("in the current directory: %s, want %s", got[len(got)-1], want)
	}
	if got, err = TableViews("clickhouse", tables(3000, "/lake/2026-12-01/folds")); err != nil {
		t.Fatal(err)
	}
	receipts := got[len(clickHouseLakeSettings)+1]
	if len(receipts) <= 256<<10 || got[len(clickHouseLakeSettings)] != fmt.Sprintf("SET max_query_size = %d", 2*len(receipts)) ||
		strings.Count(receipts, "file(") != 1 || strings.Count(receipts, "day=") != 6000 {
		t.Errorf("3,000 folds: the receipts' view of %d bytes, %d file() calls, after %.80q", len(receipts), strings.Count(receipts, "file("), got[len(clickHouseLakeSettings)])
	}
	if _, err := TableViews("clickhouse", map[string][]string{"receipts": {"/f/shard-0/receipts/day=2026-11-30/part-0.parquet"}}); err == nil {
		t.Error("no files table: no error")
	}
}

// TestClickHouseJudgments: the judgments in stages are one table a
// WITH name of queries/shard/judgments.sql, in its order, each on a
// line of its own, then judgments from the final SELECT, then the
// stages dropped; SQL of another shape is refused rather than split
// wrong. The engine tests compare the stages' rows with DuckDB's.
func TestClickHouseJudgments(t *testing.T) {
	sql := queries.Judgments()
	var names []string
	for ln := range strings.SplitSeq(sql, "\n") {
		if name, ok := strings.CutSuffix(strings.TrimPrefix(ln, "WITH "), " AS ("); ok {
			names = append(names, name)
		}
	}
	stmts, err := ClickHouseJudgments(sql)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 10 || len(stmts) != 2*len(names)+1 {
		t.Fatalf("%d WITH names, %d statements: want a table and a drop each, and judgments", len(names), len(stmts))
	}
	for i, n := range names {
		if want := "CREATE TABLE " + n + " ENGINE = MergeTree ORDER BY tuple() AS SELECT "; !strings.HasPrefix(stmts[i], want) {
			t.Errorf("statement %d = %.80q, want it to begin %q", i, stmts[i], want)
		}
		if drop := stmts[len(names)+1+i]; drop != "DROP TABLE "+n {
			t.Errorf("statement %d = %q, want DROP TABLE %s", len(names)+1+i, drop, n)
		}
	}
	final := stmts[len(names)]
	if !strings.HasPrefix(final, "CREATE TABLE judgments ENGINE = MergeTree ORDER BY tuple() AS SELECT ") || !strings.HasSuffix(final, "ORDER BY ord, kind") {
		t.Errorf("judgments' statement = %.120q", final)
	}
	for i, s := range stmts {
		if strings.Contains(s, "\n") || strings.Contains(s, "--") || strings.Contains(s, " WITH ") {
			t.Errorf("statement %d is not one line of code: %.120q", i, s)
		}
	}
	for _, bad := range []string{
		"SELECT 1",
		"WITH a AS (\n    SELECT 1\n",
		"WITH a AS (\n)\nSELECT 1",
		"WITH a AS (\n    SELECT 1 -- one\n)\nSELECT * FROM a",
		"WITH a AS (\n    SELECT 1\n),\nb AS (SELECT 2)\nSELECT * FROM a",
	} {
		if _, err := ClickHouseJudgments(bad); err == nil {
			t.Errorf("ClickHouseJudgments(%q): no error", bad)
		}
	}
}
