package analytics

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestOpenSettings checks the per-connection settings on the first
// connection and on a second one the pool opens while the first is busy.
func TestOpenSettings(t *testing.T) {
	t.Parallel()
	db, err := Open(filepath.Join(t.TempDir(), "a.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	c1, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := db.SQL().Conn(ctx) // c1 is held, so this is a new connection
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	want := map[string]string{
		"TimeZone":                     "UTC",
		"autoinstall_known_extensions": "false",
		"autoload_known_extensions":    "false",
	}
	for n, c := range map[string]*sql.Conn{"first": c1, "second": c2} {
		for name, w := range want {
			var got string
			if err := c.QueryRowContext(ctx, "SELECT current_setting('"+name+"')::VARCHAR").Scan(&got); err != nil {
				t.Fatalf("%s connection: %s: %v", n, name, err)
			}
			if got != w {
				t.Errorf("%s connection: %s = %q, want %q", n, name, got, w)
			}
		}
	}
	// The tables exist.
	for _, table := range []string{"files", "receipts", "rejects", "expected_tools"} {
		var n int
		if err := c2.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Errorf("%s: %v", table, err)
		}
	}
}
