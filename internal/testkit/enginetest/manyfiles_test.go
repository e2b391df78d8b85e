package enginetest

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/queries"
	"github.com/rogpeppe/go-internal/txtar"
)

// TestEnginesLakeManyFiles: a run's lake of more than 2,000 files, made
// through the binary (a generated archive over 100 days dealt into 24
// inputs, so that every fold writes a receipts file for most days: the
// files of a day's run of 2,000 shards), read on chDB by the statements
// of verify parts --folds --engine clickhouse alone, no setting added:
// the finding queries and every table give the rows DuckDB gives over
// the statements of --engine duckdb. A view of one file() a file,
// without settings, stops chDB at about 100 files ("Too many
// optimizations applied to query plan").
func TestEnginesLakeManyFiles(t *testing.T) {
	enginesOff(t)
	bin := buildVerify(t)
	dir := t.TempDir()
	start := time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)
	cfg := receiptgen.Config{Seed: 20261207, N: 6000, Rate: 0.1, Days: 100, Start: start, Algs: receiptgen.Ed25519Only()}
	if _, err := receiptgen.Generate(cfg, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	lines = lines[:len(lines)-1]
	const shards = 24
	var inputs []string
	for i := range shards {
		var b strings.Builder
		for j := i; j < len(lines); j += shards {
			b.WriteString(lines[j])
		}
		p := filepath.Join(dir, fmt.Sprintf("part-%02d.jsonl", i))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, p)
	}
	trust := []string{"--keys", filepath.Join(dir, "keys", "jwks.json"), "--schemas", filepath.Join(dir, "schemas"), "--at", start.AddDate(0, 0, 130).Format(time.RFC3339)}
	began := time.Now()
	lk := lakeRun(t, bin, trust, inputs, shards, "duckdb")
	t.Logf("the run of %d shards through the binary: %.1f s", shards, time.Since(began).Seconds())

	views := lk.views("clickhouse")
	files := 0
	for _, l := range lk.views("list") {
		if strings.HasPrefix(l, "receipts\t") {
			files++
		}
	}
	if files < 2000 {
		t.Fatalf("%d receipts files, want at least 2,000", files)
	}
	t.Logf("%d receipts files, %d statements", files, len(views))

	// DuckDB over the statements of --engine duckdb: the rows to get.
	began = time.Now()
	duck, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	duck.SetMaxOpenConns(1)
	for _, s := range append([]string{"SET TimeZone = 'UTC'"}, lk.views("duckdb")...) {
		if _, err := duck.Exec(s); err != nil {
			t.Fatalf("%.200s: %v", s, err)
		}
	}
	cols, err := queryRows(duck, "SELECT column_name FROM (DESCRIBE receipts) WHERE column_name NOT IN ('raw', 'tool_servers')")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cols.rows {
		names = append(names, c[0])
	}
	// Every table whole (the receipts but for the line, which a fold
	// does not keep of a PASS, and tool_servers, NULL on DuckDB and [] on
	// ClickHouse, which has no NULL array), and each finding query over
	// every day (TestEnginesLakeReport runs them for each day, bound and
	// as a literal, on a lake of a few files).
	tables := map[string]string{
		"receipts":       "SELECT " + strings.Join(names, ", ") + " FROM receipts ORDER BY file_sha256, line",
		"days":           "SELECT day, count(*) AS n FROM receipts GROUP BY day ORDER BY day",
		"files":          "SELECT * FROM files ORDER BY file_sha256",
		"rejects":        "SELECT * FROM rejects ORDER BY file_sha256, line",
		"expected_tools": "SELECT * FROM expected_tools ORDER BY ALL",
		"trust":          "SELECT * FROM trust ORDER BY ALL",
	}
	var runs []run
	want := map[string]result{}
	for name, text := range tables {
		r := run{query: queries.Query{Name: name, Text: "WITH params AS (SELECT " + paramLine + " AS day) " + text}, literal: true}
		runs = append(runs, r)
		if want[r.String()], err = queryRows(duck, text); err != nil {
			t.Fatalf("%s on DuckDB: %v", name, err)
		}
	}
	for _, name := range lakeQueries {
		r := run{query: mustQuery(t, name)}
		runs = append(runs, r)
		if want[r.String()], err = queryRows(duck, r.query.Text, nil); err != nil {
			t.Fatalf("%s on DuckDB: %v", r, err)
		}
		if len(want[r.String()].rows) == 0 {
			t.Fatalf("%s: no rows on DuckDB: the archive plants none", r)
		}
	}
	t.Logf("DuckDB: %d queries over the views in %.1f s", len(runs), time.Since(began).Seconds())
	if n := len(want[run{query: queries.Query{Name: "days"}, literal: true}.String()].rows); n < 90 {
		t.Fatalf("receipts of %d days, want 90 or more of the 100", n)
	}

	began = time.Now()
	got, errs := runClickHouseSetup(t, "", views, runs)
	t.Logf("chDB: %d queries over the views in %.1f s", len(runs), time.Since(began).Seconds())
	for _, r := range runs {
		if e, ok := errs[r.String()]; ok {
			t.Errorf("%s: %s", r, e)
			continue
		}
		if d := compare(want[r.String()], got[r.String()]); d != "" {
			t.Errorf("%s differs from DuckDB's:\n%s", r, d)
		}
	}
}

// TestEnginesNothingToJudge: a run with nothing to judge (a receipt that
// names no predecessor and uses no nonce) still gets its shard's
// judgments file, without rows, judged by verify judge on DuckDB and by
// the statements of verify parts --engine clickhouse on chDB, one INSERT
// a shard (docs/scale-out.md); the fold of the shard reads it, and its
// output is verify receipts'.
func TestEnginesNothingToJudge(t *testing.T) {
	enginesOff(t)
	bin := buildVerify(t)
	dir := t.TempDir()
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "..", "cmd", "verify", "testdata", "script", "long", "shard.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "a.jsonl" || f.Name == "jwks.json" {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	input := filepath.Join(dir, "a.jsonl")
	trust := []string{"--keys", filepath.Join(dir, "jwks.json"), "--at", "2026-07-01T00:00:00Z"}
	want := runVerify(t, bin, append(append([]string{"receipts", "--format", "json"}, trust...), input)...)
	if want.code != 0 || len(want.stdout) == 0 {
		t.Fatalf("verify receipts: exit %d\n%s", want.code, want.stderr)
	}
	plan := filepath.Join(dir, "plan.json")
	if r := runVerify(t, bin, append(append([]string{"plan", "-o", plan}, trust...), input)...); r.code != 0 {
		t.Fatalf("verify plan: exit %d\n%s", r.code, r.stderr)
	}
	maps := filepath.Join(dir, "maps", "shard-0")
	if r := runVerify(t, bin, "receipts", "--plan", plan, "--shard", "0", "--emit", maps); r.code != 0 {
		t.Fatalf("map step: exit %d\n%s", r.code, r.stderr)
	}
	fold := func(t *testing.T, judgments string) {
		t.Helper()
		duck, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		defer duck.Close()
		rows, err := queryRows(duck, "SELECT count(*) FROM read_parquet("+sqltext.String(filepath.ToSlash(judgments))+")")
		if err != nil || len(rows.rows) != 1 || rows.rows[0][0] != "0" {
			t.Fatalf("%s: %v rows, want a file without rows: %v", judgments, rows.rows, err)
		}
		out := filepath.Join(t.TempDir(), "fold")
		if r := runVerify(t, bin, "finalize", "--plan", plan, "--format", "json", "--judgments", judgments, "--shard", "0", "--emit", out, maps); r.code != 0 {
			t.Fatalf("finalize --shard 0: exit %d\n%s", r.code, r.stderr)
		}
		got := runVerify(t, bin, "summarize", "--plan", plan, "--results", out)
		if got.code != want.code || string(got.stdout) != string(want.stdout) {
			t.Errorf("summarize: exit %d, output:\n%s", got.code, firstDiff(want.stdout, got.stdout))
		}
	}
	t.Run("duckdb", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "judgments")
		if r := runVerify(t, bin, "judge", "--plan", plan, "--emit", out, maps); r.code != 0 {
			t.Fatalf("verify judge: exit %d\n%s", r.code, r.stderr)
		}
		fold(t, filepath.Join(out, "shard-0.parquet"))
	})
	t.Run("clickhouse", func(t *testing.T) {
		r := runVerify(t, bin, "parts", "--plan", plan, "--engine", "clickhouse", maps)
		if r.code != 0 {
			t.Fatalf("verify parts: exit %d\n%s", r.code, r.stderr)
		}
		var stmts []string
		for l := range strings.Lines(string(r.stdout)) {
			stmts = append(stmts, strings.TrimSuffix(strings.TrimSpace(l), ";"))
		}
		out := filepath.Join(t.TempDir(), "judgments")
		clickHouseJudgments(t, stmts, out, 1)
		fold(t, filepath.Join(out, "shard-0.parquet"))
	})
}
