package analytics

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/receiptverify/verify/internal/analytics/table"
)

// TestOpenConvertsTextLists: a database written when reasons and
// tool_servers were comma-joined text (testdata/schema-text-lists.sql is
// that schema) is refused read-only with an error that says how to
// convert it, and opening it for loading converts it in place, every
// query then reading lists.
func TestOpenConvertsTextLists(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "old.duckdb")
	old, err := os.ReadFile("testdata/schema-text-lists.sql")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{string(old),
		`INSERT INTO files (file_sha256, path, size_bytes, lines, accepted, rejected, loaded_at) VALUES ('f1', 'in.jsonl', 10, 3, 3, 0, TIMESTAMP '2026-11-02 08:00:00')`,
		`INSERT INTO receipts (file_sha256, source, line, format, verdict, reasons, tool_match, tool_servers, issued_at, day, raw) VALUES
			('f1', 'in.jsonl', 1, 'asqav', 'FAIL', 'bad_signature,chain_fork', 'match', 'srv-a,srv-b', TIMESTAMP '2026-11-02 07:00:00', DATE '2026-11-02', '{}'),
			('f1', 'in.jsonl', 2, 'asqav', 'PASS', '', 'not_run', NULL, TIMESTAMP '2026-11-02 07:00:01', DATE '2026-11-02', '{}'),
			('f1', 'in.jsonl', 3, 'asqav', 'INCOMPLETE', 'unknown_key', 'not_run', NULL, TIMESTAMP '2026-11-02 07:00:02', DATE '2026-11-02', '{}')`,
	} {
		if _, err := raw.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	_, err = OpenReadOnly(path)
	var oe *oldSchemaError
	if !errors.As(err, &oe) || !strings.Contains(err.Error(), "receipts.reasons and receipts.tool_servers are comma-joined text") || !strings.Contains(err.Error(), "verify load --db") {
		t.Fatalf("read-only open of a database with text lists: %v, want an *OldSchemaError saying how to convert it", err)
	}

	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	got := dump(t, db) // every column, a list as fmt prints a []any
	for _, want := range []string{"[bad_signature chain_fork]", "[srv-a srv-b]", "[unknown_key]"} {
		if !strings.Contains(got, want) {
			t.Errorf("converted database lacks %s:\n%s", want, got)
		}
	}
	if n := queryInt(t, db, `SELECT count(*) FROM receipts WHERE len(reasons) = 0 AND verdict = 'PASS'`); n != 1 {
		t.Errorf("'' reasons: %d rows of no reasons, want 1", n)
	}
	if n := queryInt(t, db, `SELECT count(*) FROM receipts WHERE list_contains(reasons, 'chain_fork') AND list_contains(tool_servers, 'srv-b')`); n != 1 {
		t.Errorf("list_contains finds %d converted rows, want 1", n)
	}
	tab, err := runQuery(context.Background(), db.SQL(), "failures", "2026-11-02")
	if err != nil {
		t.Fatal(err)
	}
	var rs []string
	for _, r := range tab.Rows {
		rs = append(rs, string(table.AppendJSONValue(nil, r[tab.Col("reasons")])))
	}
	if got, want := strings.Join(rs, " "), `["bad_signature","chain_fork"] ["unknown_key"]`; got != want {
		t.Errorf("failures' reasons after conversion: %s, want %s", got, want)
	}
	db.Close()

	// Converted once: a read-only open now works, and opening again for
	// loading changes nothing.
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("read-only open after conversion: %v", err)
	}
	ro.Close()
	db, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if again := dump(t, db); again != got {
		t.Errorf("a second open changed the database:\n%s\nwas\n%s", again, got)
	}
	db.Close()
}
