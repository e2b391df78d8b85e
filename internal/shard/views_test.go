package shard

import (
	"fmt"
	"strings"
	"testing"
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
		if !strings.HasPrefix(hist[1], "CREATE VIEW history_all AS SELECT 'o' AS kind, unhex(chain_key) AS k, unhex(scope_key) AS scope, NULL AS receipt_order FROM ") ||
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
	if _, err := Views("oracle", parts, History{}); err == nil {
		t.Error("an unknown engine: no error")
	}
}
