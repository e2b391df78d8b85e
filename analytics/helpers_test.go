package analytics

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/stream"
	"github.com/receiptverify/verify/verify/toolschema"
)

// corpus is a generated archive on disk.
type corpus struct {
	dir      string
	receipts string // receipts.jsonl
	v        *verify.Verifier
	schemas  *toolschema.Set
}

// testStart is the first day of generated test corpora.
var testStart = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// genCorpus writes a small Ed25519 corpus to dir (t.TempDir() if empty) and
// builds a verifier from its keys and schemas.
func genCorpus(t testing.TB, dir string, cfg receiptgen.Config) *corpus {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	if cfg.Algs == nil {
		cfg.Algs = receiptgen.Ed25519Only()
	}
	if cfg.Start.IsZero() {
		cfg.Start = testStart
	}
	if _, err := os.Stat(filepath.Join(dir, "receipts.jsonl")); err != nil {
		if _, err := receiptgen.Generate(cfg, receiptgen.DirSink(dir)); err != nil {
			t.Fatalf("generate: %v", err)
		}
	}
	c := &corpus{dir: dir, receipts: filepath.Join(dir, "receipts.jsonl")}
	c.v, c.schemas = verifierFor(t, dir, cfg.Start.AddDate(0, 0, cfg.Days+31))
	return c
}

// verifierFor reads dir/keys/jwks.json and dir/schemas/*.json.
func verifierFor(t testing.TB, dir string, at time.Time) (*verify.Verifier, *toolschema.Set) {
	t.Helper()
	v, set, err := receiptgen.LoadVerifier(dir, at)
	if err != nil {
		t.Fatal(err)
	}
	return v, set
}

// fileInput is a plain file as a load input.
func fileInput(path string) Input {
	return Input{Source: stream.Source{Name: path, Lines: !strings.HasSuffix(path, ".json"), Open: func() (io.ReadCloser, error) {
		return os.Open(path)
	}}}
}

func openTestDB(t testing.TB) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "audit.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustLoad(t testing.TB, db *DB, v *verify.Verifier, set *toolschema.Set, paths ...string) LoadSummary {
	t.Helper()
	var ins []Input
	for _, p := range paths {
		ins = append(ins, fileInput(p))
	}
	sum, err := db.Load(context.Background(), v, ins, LoadOptions{Schemas: set, TempDir: t.TempDir()})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return sum
}

// dump is every row of every table, as text, in a stable order; loaded_at
// is included, so a second load that touched files shows.
func dump(t testing.TB, db *DB) string {
	t.Helper()
	var b strings.Builder
	for _, table := range []string{"files", "receipts", "rejects", "expected_tools", "trust"} {
		fmt.Fprintf(&b, "== %s\n", table)
		rows, err := db.SQL().Query("SELECT * FROM " + table + " ORDER BY ALL")
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(rowsText(t, rows))
	}
	return b.String()
}

// rowsText renders rows one per line, values as DuckDB casts them to
// VARCHAR would not be needed: fmt of the scanned values is stable.
func rowsText(t testing.TB, rows *sql.Rows) string {
	t.Helper()
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('\t')
			}
			if tv, ok := v.(time.Time); ok {
				v = tv.UTC().Format(time.RFC3339Nano)
			}
			fmt.Fprintf(&b, "%v", v)
		}
		b.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func queryInt(t testing.TB, db *DB, q string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.SQL().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
