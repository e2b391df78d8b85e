package enginetest

import (
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/exportdir"
	"github.com/receiptverify/verify/queries"
)

// TestEnginesIceberg: the receipts of a sharded run's folds, committed
// as an Apache Iceberg table (verify parts --folds --iceberg DIR), are
// read by ClickHouse's Iceberg reader (chDB's icebergLocal), which this
// project's code has no part in: every row equals the audit database's
// receipts table (the rows the export and the folds' files hold), and
// the finding queries over it give the audit's rows, for every day and
// for all days. The table is written for an s3:// location and read
// from its directory; committed again, it is left as it is; a second
// run appends a snapshot; every directory and file of it is readable by
// another user.
func TestEnginesIceberg(t *testing.T) {
	enginesOff(t)
	bin := buildVerify(t)
	dir := t.TempDir()
	lines, trust := generatedArchive(t, dir, 20261206)
	var parts []string
	q := len(lines) / 3
	for i := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", i))
		if err := os.WriteFile(p, []byte(strings.Join(lines[i*q:min((i+1)*q, len(lines))], "")+strings.Join(lines[i:i+3], "")), 0o644); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}

	// The audit of the same files: its receipts, and the finding queries.
	db := filepath.Join(dir, "audit.duckdb")
	if r := runVerify(t, bin, append(append([]string{"audit", "--db", db, "--out", filepath.Join(dir, "report")}, trust...), parts...)...); r.code != 0 && r.code != 1 {
		t.Fatalf("verify audit: exit %d\n%s", r.code, r.stderr)
	}
	adb, err := analytics.OpenReadOnly(db)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := queryRows(adb.SQL(), "SELECT column_name FROM (DESCRIBE receipts) WHERE column_name <> 'raw'")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cols.rows {
		names = append(names, c[0])
	}
	whole := run{literal: true, query: queries.Query{Name: "receipts", File: "receipts",
		Text: "SELECT " + strings.Join(names, ", ") + " FROM receipts WHERE " + paramLine + " IS NULL ORDER BY file_sha256, line"}}
	runs := []run{whole}
	want := map[string]result{}
	days, err := queryRows(adb.SQL(), "SELECT DISTINCT CAST(day AS VARCHAR) FROM receipts ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	if len(days.rows) < 2 {
		t.Fatalf("the archive spans %d days: a table partitioned by day wants more", len(days.rows))
	}
	// Each day's receipts, which a reader finds by the files' partition
	// values in the manifests (with partition pruning on).
	perDay := queries.Query{Name: "per-day", File: "per-day", Text: "SELECT count(*) AS n FROM receipts WHERE day = " + paramLine}
	for _, day := range days.rows {
		runs = append(runs, run{query: perDay, day: day[0]})
	}
	for _, name := range lakeQueries {
		runs = append(runs, run{query: mustQuery(t, name)})
		for _, day := range days.rows {
			runs = append(runs, run{query: mustQuery(t, name), day: day[0]})
		}
	}
	for _, r := range runs {
		want[r.String()] = (&fixture{db: adb}).want(t, r)
	}
	adb.Close()
	if n := len(want[whole.String()].rows); n < len(lines) {
		t.Fatalf("the audit holds %d receipts of %d lines", n, len(lines))
	}

	plan, folds := lakeFolds(t, bin, trust, parts, 3, "iceberg-3", "duckdb")
	// The run's directory holds the folds and the tables: chDB runs in
	// it (its user_files_path, where icebergLocal reads), and reads every
	// file by a path relative to it (verify parts --base .).
	work := filepath.Dir(filepath.Dir(folds[0]))
	table := filepath.Join(work, "lake", "receipts")
	commit := func(plan string, folds []string) verifyRun {
		t.Helper()
		r := runVerify(t, bin, append([]string{"parts", "--plan", plan, "--folds", "--iceberg", table, "--iceberg-location", "s3://lake-bucket/verify/receipts"}, folds...)...)
		if r.code != 0 || len(r.stdout) != 0 {
			t.Fatalf("verify parts --iceberg: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
		}
		return r
	}
	if r := commit(plan, folds); !strings.Contains(string(r.stderr), "committed") {
		t.Fatalf("verify parts --iceberg says %q", r.stderr)
	}
	hint := filepath.Join(table, "metadata", "version-hint.text")
	v1, err := os.ReadFile(hint)
	if err != nil {
		t.Fatal(err)
	}
	if r := commit(plan, folds); !strings.Contains(string(r.stderr), "already") {
		t.Fatalf("committed again: %q", r.stderr)
	}
	if v, _ := os.ReadFile(hint); string(v) != string(v1) {
		t.Fatalf("committed again: the table's version went from %s to %s", v1, v)
	}
	meta, err := os.ReadFile(filepath.Join(table, "metadata", "v"+string(v1)+".metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(meta), `"location": "s3://lake-bucket/verify/receipts"`) || !strings.Contains(string(meta), `"s3://lake-bucket/verify/receipts/metadata/snap-`) {
		t.Errorf("the metadata does not name the table's files under its s3:// location:\n%s", meta)
	}
	// One directory of data files per day.
	dayDirs, _ := filepath.Glob(filepath.Join(table, "data", "day=*"))
	if len(dayDirs) != len(days.rows) {
		t.Errorf("%d day directories in %s/data, %d days", len(dayDirs), table, len(days.rows))
	}
	readable(t, table)

	// expected_tools and trust, which the finding queries read beside the
	// receipts, from the folds' files; receipts from the Iceberg table.
	t.Chdir(work)
	r := runVerify(t, bin, append([]string{"parts", "--plan", plan, "--folds", "--engine", "clickhouse", "--base", "."}, folds...)...)
	if r.code != 0 {
		t.Fatalf("verify parts --folds: exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(string(r.stdout), work) {
		t.Fatalf("verify parts --base . names absolute paths:\n%s", r.stdout)
	}
	// With partition pruning, a day's query reads the files whose
	// manifest entries carry that day: wrong partition values lose rows.
	views := []string{"SET use_iceberg_partition_pruning = 1", "CREATE VIEW " + exportdir.Receipts + " AS SELECT * FROM icebergLocal('lake/receipts')"}
	for l := range strings.Lines(string(r.stdout)) {
		if !strings.HasPrefix(l, "CREATE VIEW "+exportdir.Receipts+" ") {
			views = append(views, strings.TrimSuffix(strings.TrimSpace(l), ";"))
		}
	}
	// ClickHouse has no NULL array: a list column's NULL reads as [].
	w := want[whole.String()]
	for i, c := range w.columns {
		if c != "reasons" && c != "tool_servers" {
			continue
		}
		for _, row := range w.rows {
			if row[i] == null {
				row[i] = canonList(nil)
			}
		}
	}
	got, errs := runClickHouseIn(t, work, views, runs)
	for _, r := range runs {
		if e, ok := errs[r.String()]; ok {
			t.Errorf("%s: %s", r, e)
			continue
		}
		if d := compare(want[r.String()], got[r.String()]); d != "" {
			t.Errorf("%s over the Iceberg table differs from the audit's:\n%s", r, d)
		}
	}

	// Made without --iceberg-location, the table names its files by
	// their file: URLs, and reads the same.
	local := filepath.Join(work, "lake", "local")
	if r := runVerify(t, bin, append([]string{"parts", "--plan", plan, "--folds", "--iceberg", local}, folds...)...); r.code != 0 {
		t.Fatalf("verify parts --iceberg: exit %d\n%s", r.code, r.stderr)
	}
	views[1] = "CREATE VIEW " + exportdir.Receipts + " AS SELECT * FROM icebergLocal('lake/local')"
	got, errs = runClickHouseIn(t, work, views, []run{whole})
	if e, ok := errs[whole.String()]; ok {
		t.Errorf("%s: %s", whole, e)
	} else if d := compare(want[whole.String()], got[whole.String()]); d != "" {
		t.Errorf("the table at its file: location differs from the audit's:\n%s", d)
	}
	views[1] = "CREATE VIEW " + exportdir.Receipts + " AS SELECT * FROM icebergLocal('lake/receipts')"

	// A second run appends a snapshot: the table holds both runs' rows,
	// and its first snapshot still the first run's.
	plan1, folds1 := lakeFolds(t, bin, trust, parts, 1, "iceberg-1", "duckdb")
	commit(plan1, folds1)
	if v, _ := os.ReadFile(hint); string(v) == string(v1) {
		t.Fatalf("a second run committed: the version is still %s", v)
	}
	snap := regexp.MustCompile(`"current-snapshot-id": ([0-9]+)`).FindSubmatch(meta)
	if snap == nil {
		t.Fatalf("no current snapshot in the first commit's metadata:\n%s", meta)
	}
	n := len(want[whole.String()].rows)
	count := func(id, settings string) run {
		return run{literal: true, query: queries.Query{Name: id, File: id, Text: "SELECT count() AS n FROM " + exportdir.Receipts + " WHERE " + paramLine + " IS NULL" + settings}}
	}
	counts := []run{count("all", ""), count("first", " SETTINGS iceberg_snapshot_id = "+string(snap[1]))}
	got, errs = runClickHouseIn(t, work, views, counts)
	for i, w := range []int{2 * n, n} {
		r := counts[i]
		if e, ok := errs[r.String()]; ok {
			t.Errorf("%s: %s", r, e)
		} else if g := got[r.String()]; len(g.rows) != 1 || g.rows[0][0] != fmt.Sprint(w) {
			t.Errorf("%s: %v rows, want %d", r, g.rows, w)
		}
	}
	readable(t, table)

	// Offline, DuckDB reads the data files themselves (its iceberg
	// extension is not linked in): every run's rows, with their day.
	duck, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	res, err := queryRows(duck, "SELECT count(*), count(DISTINCT day) FROM read_parquet('lake/receipts/data/*/*.parquet', hive_partitioning = false)")
	if err != nil {
		t.Fatal(err)
	}
	if g := res.rows; len(g) != 1 || g[0][0] != fmt.Sprint(2*n) || g[0][1] != fmt.Sprint(len(days.rows)) {
		t.Errorf("DuckDB over the data files: %v, want %d rows of %d days", g, 2*n, len(days.rows))
	}
}

// readable fails t unless every directory under dir is 0755 and every
// file 0644: an engine running as another user reads them all.
func readable(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o644)
		if d.IsDir() {
			want = 0o755
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
