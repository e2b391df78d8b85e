package enginetest

import (
	"bytes"
	"compress/gzip"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/exportdir"
	"github.com/receiptverify/verify/queries"
)

// lakeQueries are the finding queries of the daily report that run over
// the receipts a sharded run's folds write.
var lakeQueries = []string{"collisions", "drift", "replays", "failures"}

// TestEnginesLakeReport: a generated archive with replays (nonces, and
// repeated action ids on receipts altered after signing), name
// collisions, drift and failures, split into 3 files, verified as a
// sharded run of 1 and of 3 shards whose folds write the receipts table
// (`verify finalize --shard N --emit DIR --receipts`). The finding
// queries over exactly the files `verify parts --folds` names give, on
// DuckDB, ClickHouse (chDB) and PostgreSQL, the rows they give over the
// DuckDB database of `verify audit` of the same files, for every day and
// for all days.
func TestEnginesLakeReport(t *testing.T) {
	enginesOff(t)
	bin := buildVerify(t)
	dir := t.TempDir()
	lines, trust := generatedArchive(t, dir, 20261204)
	// Three files. The second also holds receipts of the first with their
	// decision changed after signing (repeated action ids, failed), a
	// blank line and a line that is not JSON, gzip-compressed (the fold
	// reads the lines of its failures and rejects through gzip); the third repeats lines of its own (the
	// same receipt delivered twice in one file, stored twice) and lines of
	// the first and second (delivered again, byte for byte: stored once).
	altered := 0
	var parts []string
	q := len(lines) / 3
	for i := range 3 {
		body := strings.Join(lines[i*q:min((i+1)*q, len(lines))], "")
		if i == 2 {
			body = strings.Join(lines[2*q:], "") + strings.Join(lines[2*q+10:2*q+14], "") + strings.Join(lines[5:9], "") + lines[q+3]
		}
		if i == 1 {
			for _, l := range lines[20:80] {
				for _, d := range [][2]string{{`"decision":"allow"`, `"decision":"deny"`}, {`"decision":"deny"`, `"decision":"allow"`}} {
					if strings.Contains(l, d[0]) {
						body += strings.Replace(l, d[0], d[1], 1)
						altered++
						break
					}
				}
			}
			body += "\nnot json\n"
		}
		p := filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", i))
		data := []byte(body)
		if i == 1 {
			p += ".gz"
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(data)
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			data = z.Bytes()
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}
	if altered == 0 {
		t.Fatal("no receipt with a decision to alter")
	}

	// The DuckDB audit of the same files: what verify query reads.
	db := filepath.Join(dir, "audit.duckdb")
	audit := runVerify(t, bin, append(append([]string{"audit", "--db", db, "--out", filepath.Join(dir, "report")}, trust...), parts...)...)
	if audit.code != 0 && audit.code != 1 {
		t.Fatalf("verify audit: exit %d\n%s", audit.code, audit.stderr)
	}
	adb, err := analytics.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	var days []string
	rows, err := adb.SQL().Query("SELECT DISTINCT CAST(day AS VARCHAR) FROM receipts ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			t.Fatal(err)
		}
		days = append(days, d)
	}
	rows.Close()
	var runs []run
	want := map[string]result{}
	for _, name := range lakeQueries {
		query, err := queries.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, day := range append([]string{""}, days...) {
			r := run{query: query, day: day}
			runs = append(runs, r)
			want[r.String()] = (&fixture{db: adb}).want(t, r)
		}
		// verify query runs the same SQL over the audit database.
		all := want[run{query: query}.String()]
		if len(all.rows) == 0 {
			t.Fatalf("%s: no rows on the audit: the archive plants none", name)
		}
		t.Logf("%s: %d rows over every day", name, len(all.rows))
		vq := runVerify(t, bin, "query", name, "--db", db, "--format", "jsonl")
		if vq.code != 0 || strings.Count(string(vq.stdout), "\n") != len(all.rows) {
			t.Fatalf("verify query %s: exit %d, %d rows, the SQL %d\n%s", name, vq.code, strings.Count(string(vq.stdout), "\n"), len(all.rows), vq.stderr)
		}
	}
	// The whole receipts table, every column but the line itself (raw,
	// which a fold does not have), to compare with the folds'.
	cols, err := queryRows(adb.SQL(), "SELECT column_name FROM (DESCRIBE receipts) WHERE column_name <> 'raw'")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cols.rows {
		names = append(names, c[0])
	}
	allReceipts := "SELECT " + strings.Join(names, ", ") + " FROM receipts ORDER BY file_sha256, line"
	wantReceipts, err := queryRows(adb.SQL(), allReceipts)
	if err != nil {
		t.Fatal(err)
	}
	// The lines the fold keeps as an audit does: of the receipts not
	// PASS, and of the rejects (every column).
	const flaggedRaw = "SELECT file_sha256, line, raw FROM receipts WHERE verdict <> 'PASS' ORDER BY file_sha256, line"
	const allRejects = "SELECT file_sha256, source, line, error, raw FROM rejects ORDER BY file_sha256, line"
	wantRaw, err := queryRows(adb.SQL(), flaggedRaw)
	if err != nil {
		t.Fatal(err)
	}
	wantRejects, err := queryRows(adb.SQL(), allRejects)
	if err != nil {
		t.Fatal(err)
	}
	if len(wantRaw.rows) == 0 || len(wantRejects.rows) == 0 {
		t.Fatalf("the audit has %d receipts not PASS and %d rejects: the archive plants none", len(wantRaw.rows), len(wantRejects.rows))
	}
	adb.Close()
	if n := len(want[run{query: mustQuery(t, "replays")}.String()].rows); n < altered {
		t.Fatalf("replays: %d rows for %d repeated action ids", n, altered)
	}

	reports := auditReports(t, bin, dir, db, days)
	for _, c := range []struct {
		shards int
		judge  string
	}{{3, "duckdb"}, {3, "clickhouse"}} {
		t.Run(fmt.Sprintf("shards=%d/judged=%s", c.shards, c.judge), func(t *testing.T) {
			if c.judge == "clickhouse" && os.Getenv("VERIFY_ENGINES") == "off" {
				t.Skip("VERIFY_ENGINES=off: .ci/run runs this test in a step of its own")
			}
			lk := lakeRun(t, bin, trust, parts, c.shards, c.judge)
			views := lk.views
			t.Run("report", func(t *testing.T) { reports.check(t, bin, lk) })
			check := func(t *testing.T, got map[string]result, errs map[string]string) {
				t.Helper()
				for _, r := range runs {
					if e, ok := errs[r.String()]; ok {
						t.Errorf("%s: %s", r, e)
						continue
					}
					if d := compare(want[r.String()], got[r.String()]); d != "" {
						t.Errorf("%s differs from the audit's:\n%s", r, d)
					}
				}
			}
			t.Run("duckdb", func(t *testing.T) {
				duck, err := sql.Open("duckdb", "")
				if err != nil {
					t.Fatal(err)
				}
				defer duck.Close()
				duck.SetMaxOpenConns(1)
				for _, s := range append([]string{"SET TimeZone = 'UTC'"}, views("duckdb")...) {
					if _, err := duck.Exec(s); err != nil {
						t.Fatalf("%s: %v", s, err)
					}
				}
				got, errs := map[string]result{}, map[string]string{}
				for _, r := range runs {
					var day any
					if r.day != "" {
						day = r.day
					}
					res, err := queryRows(duck, r.query.Text, day)
					if err != nil {
						errs[r.String()] = err.Error()
						continue
					}
					got[r.String()] = res
				}
				check(t, got, errs)
				// Every receipts row is the audit's, but for raw.
				all, err := queryRows(duck, allReceipts)
				if err != nil {
					t.Fatal(err)
				}
				if d := compare(wantReceipts, all); d != "" {
					t.Errorf("the receipts table differs from the audit's:\n%s", d)
				}
				for _, c := range []struct {
					what, query string
					want        result
				}{{"the lines of the receipts not PASS", flaggedRaw, wantRaw}, {"the rejects table", allRejects, wantRejects}} {
					got, err := queryRows(duck, c.query)
					if err != nil {
						t.Fatal(err)
					}
					if d := compare(c.want, got); d != "" {
						t.Errorf("%s differ from the audit's:\n%s", c.what, d)
					}
				}
			})
			t.Run("clickhouse", func(t *testing.T) {
				if os.Getenv("VERIFY_ENGINES") == "off" {
					t.Skip("VERIFY_ENGINES=off: .ci/run runs this test in a step of its own")
				}
				got, errs := runClickHouseViews(t, views("clickhouse"), runs)
				check(t, got, errs)
			})
			t.Run("postgres", func(t *testing.T) {
				if c.judge != "duckdb" {
					t.Skip("the tables are those of the run judged on DuckDB")
				}
				if os.Getenv("VERIFY_ENGINES") == "off" {
					t.Skip("VERIFY_ENGINES=off: .ci/run runs this test in a step of its own")
				}
				cfg := startPostgres(t)
				loadPostgresViews(t, cfg, views("duckdb"), []string{exportdir.Receipts, exportdir.ExpectedTools, exportdir.Trust})
				got, errs := runPostgresLoaded(t, cfg, runs)
				check(t, got, errs)
			})
		})
	}
}

func mustQuery(t *testing.T, name string) queries.Query {
	t.Helper()
	q, err := queries.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// lake is a sharded run whose folds wrote the report's tables.
type lake struct {
	plan  string                       // the plan file
	folds string                       // the directory of the folded shards
	views func(engine string) []string // the statements of verify parts --folds
}

// lakeRun runs the sharded run of parts in the given number of shards,
// through the binary: the plan, the map steps, the judgments (over
// verify parts' views, on DuckDB or, judge "clickhouse", chDB), the folds
// with --receipts, each its own process.
func lakeRun(t *testing.T, bin string, trust, parts []string, shards int, judge string) lake {
	t.Helper()
	plan, folds := lakeFolds(t, bin, trust, parts, shards, fmt.Sprintf("lake-%d", shards), judge)
	return lake{plan: plan, folds: filepath.Dir(folds[0]), views: func(engine string) []string {
		t.Helper()
		r := runVerify(t, bin, append([]string{"parts", "--plan", plan, "--folds", "--engine", engine}, folds...)...)
		if r.code != 0 {
			t.Fatalf("verify parts --folds --engine %s: exit %d\n%s", engine, r.code, r.stderr)
		}
		var out []string
		for l := range strings.Lines(string(r.stdout)) {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(l), ";"))
		}
		return out
	}}
}

// lakeFolds runs the sharded run id of parts in the given number of
// shards up to the folds with --receipts, its judgments on DuckDB or,
// judge "clickhouse", chDB, and returns its plan and folded directories.
func lakeFolds(t *testing.T, bin string, trust, parts []string, shards int, id, judge string) (plan string, folds []string) {
	t.Helper()
	work := t.TempDir()
	plan = filepath.Join(work, "plan.json")
	if r := runVerify(t, bin, append(append([]string{"plan", "--id", id, "--shards", fmt.Sprint(shards), "-o", plan}, trust...), parts...)...); r.code != 0 {
		t.Fatalf("verify plan: exit %d\n%s", r.code, r.stderr)
	}
	parallel := func(step string, args func(i int, out string) []string) []string {
		var dirs []string
		runs := make([]verifyRun, shards)
		var wg sync.WaitGroup
		for i := range shards {
			out := filepath.Join(work, step, fmt.Sprintf("shard-%d", i))
			dirs = append(dirs, out)
			wg.Add(1)
			go func() {
				defer wg.Done()
				runs[i] = runVerify(t, bin, args(i, out)...)
			}()
		}
		wg.Wait()
		for i, r := range runs {
			if r.code != 0 {
				t.Fatalf("%s step %d: exit %d\n%s", step, i, r.code, r.stderr)
			}
		}
		return dirs
	}
	maps := parallel("maps", func(i int, out string) []string {
		return []string{"receipts", "--plan", plan, "--shard", fmt.Sprint(i), "--emit", out}
	})
	r := runVerify(t, bin, append([]string{"parts", "--plan", plan, "--engine", judge}, maps...)...)
	if r.code != 0 {
		t.Fatalf("verify parts: exit %d\n%s", r.code, r.stderr)
	}
	var stmts []string
	for l := range strings.Lines(string(r.stdout)) {
		stmts = append(stmts, strings.TrimSuffix(strings.TrimSpace(l), ";"))
	}
	judgments := filepath.Join(work, "judgments.parquet")
	if judge == "clickhouse" {
		clickHouseJudgments(t, stmts, judgments, 0)
	} else {
		duckDBJudgmentsFile(t, stmts, judgments)
	}
	folds = parallel("folds", func(i int, out string) []string {
		return append([]string{"finalize", "--plan", plan, "--format", "jsonl", "--judgments", judgments, "--receipts", "--shard", fmt.Sprint(i), "--emit", out}, maps...)
	})
	return plan, folds
}
