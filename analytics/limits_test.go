package analytics

import (
	"path/filepath"
	"testing"
)

// TestLimits: a database opens with DefaultMemoryLimit, not DuckDB's
// fraction of the machine, read-only too; SetLimits changes the engine's
// settings for every connection; malformed limits are refused.
func TestLimits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.duckdb")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	setting := func(db *DB, name string) string {
		t.Helper()
		var v string
		if err := db.sql.QueryRow("SELECT current_setting('" + name + "')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	ref, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	want := func(size string) string {
		t.Helper()
		if _, err := ref.sql.Exec("SET memory_limit = '" + size + "'"); err != nil {
			t.Fatal(err)
		}
		return setting(ref, "memory_limit")
	}
	if got, w := setting(db, "memory_limit"), want(DefaultMemoryLimit); got != w {
		t.Errorf("memory_limit at open = %s, want %s (%s)", got, w, DefaultMemoryLimit)
	}
	if err := db.SetLimits(Limits{Memory: "300MB", Threads: 1}); err != nil {
		t.Fatal(err)
	}
	// Another connection of the pool sees them: they are the engine's.
	conn1, _ := db.sql.Conn(t.Context())
	conn2, _ := db.sql.Conn(t.Context())
	var mem, threads string
	if err := conn2.QueryRowContext(t.Context(), "SELECT current_setting('memory_limit'), CAST(current_setting('threads') AS VARCHAR)").Scan(&mem, &threads); err != nil {
		t.Fatal(err)
	}
	conn1.Close()
	conn2.Close()
	if w := want("300MB"); mem != w || threads != "1" {
		t.Errorf("after SetLimits: memory_limit %s threads %s, want %s and 1", mem, threads, w)
	}
	db.Close()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, w := setting(ro, "memory_limit"), want(DefaultMemoryLimit); got != w {
		t.Errorf("read-only memory_limit = %s, want %s", got, w)
	}
	ro.Close()
	for _, bad := range []Limits{{Memory: "5"}, {Memory: "1GB'; DROP TABLE receipts; --"}, {Memory: "lots"}, {Threads: -1}} {
		if err := bad.Check(); err == nil {
			t.Errorf("%+v.Check() = nil, want an error", bad)
		}
	}
}
