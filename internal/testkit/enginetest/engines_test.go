package enginetest

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/queries"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/stream"
	"github.com/receiptverify/verify/verify/toolschema"
)

// paramLine is the one placeholder every query has (see package queries);
// an engine gets the file with only this replaced.
const paramLine = "CAST(? AS DATE)"

// fixture is a generated archive with planted anomalies, loaded into an
// audit database and exported as Parquet.
type fixture struct {
	db      *analytics.DB
	parquet string   // the export directory
	days    []string // every day a query can report on, "" (all days) first
}

// newFixture generates five days of receipts with planted anomalies
// (replays, bad signatures, drift, ...), adds a file that repeats some of
// them with malformed lines among them and a file of nothing but
// malformed lines, loads the three and the corpus's checkpoints (chains
// truncated, rewritten and complete, for completeness) and exports the
// database.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cfg := receiptgen.Config{Seed: 20261118, N: 2400, Rate: 0.05, Days: 5, Start: start, Algs: receiptgen.Ed25519Only(), Completeness: 1}
	if _, err := receiptgen.Generate(cfg, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	v, schemas := fixtureVerifier(t, dir, start.AddDate(0, 0, cfg.Days+31))
	main := filepath.Join(dir, "receipts.jsonl")
	raw, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	mixed := filepath.Join(dir, "mixed.jsonl")
	body := strings.Join(lines[:40], "") + "not json\n" + `{"unknown":"shape"}` + "\n" + strings.Join(lines[1000:1010], "")
	if err := os.WriteFile(mixed, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\n[1,2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	db, err := analytics.Open(filepath.Join(dir, "audit.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var ins []analytics.Input
	logs := filepath.Join("testdata", "logcheckpoints", "checkpoints.jsonl")
	for _, p := range []string{main, mixed, bad, filepath.Join(dir, receiptgen.FileCheckpoints), logs} {
		ins = append(ins, analytics.Input{Source: stream.Source{Name: p, Lines: true, Open: func() (io.ReadCloser, error) { return os.Open(p) }}})
	}
	if _, err := db.Load(ctx, v, ins, analytics.LoadOptions{Schemas: schemas, TempDir: t.TempDir()}); err != nil {
		t.Fatalf("load: %v", err)
	}
	f := &fixture{db: db, parquet: filepath.Join(dir, "parquet")}
	if _, err := db.ExportParquet(ctx, f.parquet, analytics.ExportOptions{}); err != nil {
		t.Fatalf("export: %v", err)
	}
	// The receipts' days, the day the files were loaded on (the rejects
	// of a file without receipts are reported then), a day with nothing,
	// and the day after the last, on which every source is silent (gaps).
	rows, err := db.SQL().QueryContext(ctx, `SELECT CAST(d AS VARCHAR) FROM (
		SELECT day AS d FROM receipts UNION SELECT CAST(loaded_at AS DATE) FROM files
		UNION SELECT DATE '2026-10-01' UNION SELECT DATE '2026-11-06') ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	f.days = []string{""}
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			t.Fatal(err)
		}
		f.days = append(f.days, d)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return f
}

// fixtureVerifier is receiptgen's verifier for the corpus in dir, with
// the key of the transparency log whose checkpoints
// testdata/logcheckpoints holds (those of
// cmd/verify/testdata/script/log_consistency.txtar: tree heads of 2, 4
// and 6 leaves with consistency proofs, another root of 6 leaves, and a
// proof with a hash changed), so that the completeness query's rows for
// a log are compared too.
func fixtureVerifier(t *testing.T, dir string, at time.Time) (*verify.Verifier, *toolschema.Set) {
	t.Helper()
	var snaps []*keys.Snapshot
	for _, name := range []string{filepath.Join(dir, filepath.FromSlash(receiptgen.FileJWKS)), filepath.Join(dir, filepath.FromSlash(receiptgen.FileWitness)),
		filepath.Join("testdata", "logcheckpoints", "log-key.json")} {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := keys.Load(filepath.Base(name), raw)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, snap)
	}
	kd, err := keys.NewDirectory(snaps...)
	if err != nil {
		t.Fatal(err)
	}
	set, err := receiptgen.LoadSchemas(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.New(kd, verify.WithTime(at), verify.WithSchemas(set))
	if err != nil {
		t.Fatal(err)
	}
	return v, set
}

// run is one query to run on an engine: a file for a day, the day bound
// as a parameter or written as a literal.
type run struct {
	query   queries.Query
	day     string // "" for all days
	literal bool
}

func (r run) String() string {
	day := r.day
	if day == "" {
		day = "all"
	}
	how := "param"
	if r.literal {
		how = "literal"
	}
	return r.query.Name + "/" + day + "/" + how
}

// text is the file with its placeholder replaced by what the engine
// binds (param) or by the day as a literal.
func (r run) text(t *testing.T, param string) string {
	t.Helper()
	if !strings.Contains(r.query.Text, paramLine) {
		t.Fatalf("%s: no %q", r.query.File, paramLine)
	}
	with := param
	if r.literal {
		with = "NULL"
		if r.day != "" {
			with = "DATE '" + r.day + "'"
		}
		with = "CAST(" + with + " AS DATE)"
	}
	return strings.Replace(r.query.Text, paramLine, with, 1)
}

func (f *fixture) runs() []run {
	var out []run
	for _, q := range queries.All() {
		for _, day := range f.days {
			out = append(out, run{query: q, day: day}, run{query: q, day: day, literal: true})
		}
	}
	return out
}

// result is a query's column names and rows with every value in one
// canonical text form, so that engines that name the same value with
// different types (DuckDB's DATE, ClickHouse's Nullable(Date)) compare.
type result struct {
	columns []string
	rows    [][]string
}

// null is NULL in a canonical row; no value of a receipt holds a NUL.
const null = "\x00NULL"

// canonTime is the canonical form of a timestamp: RFC 3339 in UTC, six
// fraction digits.
func canonTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

// canonList is the canonical form of a list.
func canonList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// want is DuckDB's result over the audit database itself: the file's
// own rows, finding_key as the SQL gives it (the runner shows its SHA-256
// as finding_id, which is the same wherever the key is).
func (f *fixture) want(t *testing.T, r run) result {
	t.Helper()
	var day any // nil: NULL
	if r.day != "" {
		day = r.day
	}
	res, err := queryRows(f.db.SQL(), r.query.Text, day)
	if err != nil {
		t.Fatalf("%s on DuckDB: %v", r, err)
	}
	return res
}

// canonGo is the canonical form of a value scanned by database/sql.
func canonGo(v any, dbType string) string {
	switch x := v.(type) {
	case nil:
		return null
	case table.Date:
		return string(x)
	case time.Time:
		if dbType == "DATE" {
			return x.UTC().Format(time.DateOnly)
		}
		return canonTime(x)
	case []byte:
		return canonGo(string(x), dbType)
	case string:
		if dbType == "_TEXT" { // a PostgreSQL text[], as its text form
			var list []string
			if err := pgtype.NewMap().SQLScanner(&list).Scan(x); err != nil {
				return "text[] " + x + ": " + err.Error()
			}
			return canonList(list)
		}
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int16:
		return strconv.FormatInt(int64(x), 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		items := make([]string, len(x))
		for i, e := range x {
			items[i] = canonGo(e, "")
		}
		return canonList(items)
	case []string:
		return canonList(x)
	}
	return fmt.Sprintf("%T:%v", v, v)
}

// compare reports how got differs from want, or "".
func compare(want, got result) string {
	if !slices.Equal(want.columns, got.columns) {
		return fmt.Sprintf("columns %q, DuckDB's %q", got.columns, want.columns)
	}
	var b strings.Builder
	if len(want.rows) != len(got.rows) {
		fmt.Fprintf(&b, "%d rows, DuckDB %d\n", len(got.rows), len(want.rows))
	}
	shown := 0
	for i := 0; i < max(len(want.rows), len(got.rows)) && shown < 5; i++ {
		var w, g []string
		if i < len(want.rows) {
			w = want.rows[i]
		}
		if i < len(got.rows) {
			g = got.rows[i]
		}
		if slices.Equal(w, g) {
			continue
		}
		shown++
		fmt.Fprintf(&b, "row %d:\n  got    %s\n  DuckDB %s\n", i+1, showRow(g), showRow(w))
	}
	return b.String()
}

func showRow(r []string) string {
	if r == nil {
		return "(none)"
	}
	out := make([]string, len(r))
	for i, v := range r {
		if v == null {
			v = "NULL"
		}
		out[i] = v
	}
	return strings.Join(out, " | ")
}

// required is whether a missing engine fails the test rather than skips
// it: .ci/run sets VERIFY_ENGINES=required after installing them (and
// VERIFY_ENGINES=off for the other tests' step).
func required() bool { return os.Getenv("VERIFY_ENGINES") == "required" }

// enginesOff skips t when VERIFY_ENGINES=off: .ci/run runs every
// TestEngines* test, DuckDB halves included, in a step of its own, so the
// step of the other tests need not run them again.
func enginesOff(t *testing.T) {
	t.Helper()
	if os.Getenv("VERIFY_ENGINES") == "off" {
		t.Skip("VERIFY_ENGINES=off: .ci/run runs this test in a step of its own")
	}
}

// absent skips t, or fails it when the engines are required.
func absent(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...) + " (.ci/setup installs it)"
	if required() {
		t.Fatal(msg + "; VERIFY_ENGINES=required")
	}
	t.Skip(msg)
}

// TestEngines: every query gives DuckDB's rows on ClickHouse and on
// PostgreSQL, for every day and for all days, with the day bound as a
// parameter and as a literal; and hyparquet reads the export as DuckDB
// does.
func TestEngines(t *testing.T) {
	enginesOff(t)
	f := newFixture(t)
	runs := f.runs()
	// The log's rows are among those compared: its split view.
	for _, r := range runs {
		if r.query.Name != "completeness" || r.day != "" || r.literal {
			continue
		}
		want := f.want(t, r)
		st := slices.Index(want.columns, "status")
		if !slices.ContainsFunc(want.rows, func(row []string) bool { return st >= 0 && row[st] == "split_view" }) {
			t.Fatalf("completeness: no split_view row for the fixture's log checkpoints; columns %v", want.columns)
		}
	}
	check := func(t *testing.T, got map[string]result, errs map[string]string) {
		t.Helper()
		nonEmpty := map[string]bool{}
		failed := map[string][]string{} // by query, in run order
		for _, r := range runs {
			want := f.want(t, r)
			if len(want.rows) > 0 {
				nonEmpty[r.query.Name] = true
			}
			if msg, ok := errs[r.String()]; ok {
				failed[r.query.Name] = append(failed[r.query.Name], fmt.Sprintf("%s: %s", r, msg))
			} else if d := compare(want, got[r.String()]); d != "" {
				failed[r.query.Name] = append(failed[r.query.Name], fmt.Sprintf("%s differs:\n%s", r, d))
			}
		}
		// The first two failures of each query, and how many there were.
		for _, q := range queries.All() {
			if fs := failed[q.Name]; len(fs) > 0 {
				t.Errorf("%s: %d of %d runs fail; the first:\n%s", q.Name, len(fs), 2*len(f.days), strings.Join(fs[:min(2, len(fs))], "\n"))
			}
			// A query that gave no rows anywhere compared nothing.
			if !nonEmpty[q.Name] {
				t.Errorf("%s: no rows on any day, nothing compared", q.Name)
			}
		}
	}
	t.Run("clickhouse", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		got, errs := runClickHouse(t, f.parquet, runs)
		t.Logf("chDB: %d runs in %v", len(runs), time.Since(start).Round(time.Millisecond))
		check(t, got, errs)
	})
	// The export itself, read by a reader that is not DuckDB.
	t.Run("hyparquet", func(t *testing.T) {
		t.Parallel()
		got := checkReadBack(t, f.parquet)
		if want := tableCounts(t, f.db); !maps.Equal(got, want) {
			t.Errorf("hyparquet read %v rows, the database has %v", got, want)
		}
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		got, errs := runPostgres(t, f.parquet, runs)
		t.Logf("PostgreSQL: %d runs in %v", len(runs), time.Since(start).Round(time.Millisecond))
		check(t, got, errs)
	})
}
