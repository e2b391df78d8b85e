package shard

import (
	"strings"
	"testing"
)

// TestViews: each engine's statements name exactly the parts given,
// quoted as its string literals, and an empty history_records without
// history.
func TestViews(t *testing.T) {
	t.Parallel()
	parts := []string{"/m/shard-0/records-00000.parquet", `/m/it's\odd/records-00000.parquet`}
	for _, c := range []struct {
		engine string
		want   []string
	}{
		{"duckdb", []string{
			`CREATE VIEW shard_records AS SELECT * FROM read_parquet(['/m/shard-0/records-00000.parquet', '/m/it''s\odd/records-00000.parquet'])`,
			"CREATE TEMP TABLE history_records (ord BIGINT, chain_key VARCHAR, link_key VARCHAR, scope_key VARCHAR, nonce_key VARCHAR)",
		}},
		{"clickhouse", []string{
			`CREATE VIEW shard_records AS SELECT * FROM file('/m/shard-0/records-00000.parquet', Parquet) UNION ALL SELECT * FROM file('/m/it\'s\\odd/records-00000.parquet', Parquet)`,
			"CREATE TABLE history_records (ord Int64, chain_key Nullable(String), link_key Nullable(String), scope_key Nullable(String), nonce_key Nullable(String)) ENGINE = Memory",
		}},
	} {
		got, err := Views(c.engine, parts, nil)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.engine, got, c.want)
		}
		hist, err := Views(c.engine, parts[:1], parts[1:])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(hist[1], "CREATE VIEW history_records AS SELECT ord, chain_key, link_key, scope_key, nonce_key FROM ") {
			t.Errorf("%s: history: %s", c.engine, hist[1])
		}
	}
	if _, err := Views("oracle", parts, nil); err == nil {
		t.Error("an unknown engine: no error")
	}
}
