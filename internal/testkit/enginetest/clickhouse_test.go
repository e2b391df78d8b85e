package enginetest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/analytics/exportdir"
)

// chdbRunner is the Node script that runs statements on chDB.
const chdbRunner = "testdata/chdb/run.mjs"

// chdbScript is chdbRunner's absolute path, for a test that changes its
// working directory.
var chdbScript, _ = filepath.Abs(chdbRunner)

// ClickHouseSettings are the session settings the queries need on
// ClickHouse; docs/engines.md says why each is needed.
var ClickHouseSettings = []string{
	// Timestamps are shown, and DATE casts of them taken, in UTC.
	"SET session_timezone = 'UTC'",
	// An outer join's missing side is NULL, as in standard SQL, not
	// the column type's default ('' or 0).
	"SET join_use_nulls = 1",
	// CAST(NULL AS DATE), the all-days parameter, is a NULL DATE rather
	// than an error.
	"SET cast_keep_nullable = 1",
	// day=YYYY-MM-DD directories are read as the column day.
	"SET use_hive_partitioning = 1",
}

// clickHouseViews are the views over the Parquet export, named as the
// tables the queries read.
func clickHouseViews(dir string) []string {
	q := func(s string) string { return "'" + strings.ReplaceAll(filepath.ToSlash(s), "'", "\\'") + "'" }
	var out []string
	for _, t := range []string{exportdir.Receipts, exportdir.Files, exportdir.Rejects, exportdir.ExpectedTools, exportdir.Trust} {
		out = append(out, "CREATE VIEW "+t+" AS SELECT * FROM file("+q(exportdir.Glob(dir, t))+", Parquet)")
	}
	return out
}

type chQuery struct {
	ID     string             `json:"id"`
	SQL    string             `json:"sql"`
	Params map[string]*string `json:"params"`
}

type chAnswer struct {
	ID     string `json:"id"`
	Error  string `json:"error"`
	Result *struct {
		Meta []struct {
			Name string `json:"name"`
			Type string `json:"type"`
		} `json:"meta"`
		Data [][]any `json:"data"`
	} `json:"result"`
}

// runClickHouse runs every run on chDB over the export in one Node
// process, the day bound as {day:Nullable(Date)} or written as a literal.
func runClickHouse(t *testing.T, dir string, runs []run) (map[string]result, map[string]string) {
	t.Helper()
	return runClickHouseViews(t, clickHouseViews(dir), runs)
}

// runClickHouseViews runs every run on chDB after the statements views,
// which make the tables the queries read.
func runClickHouseViews(t *testing.T, views []string, runs []run) (map[string]result, map[string]string) {
	t.Helper()
	return runClickHouseIn(t, "", views, runs)
}

// runClickHouseIn is runClickHouseViews with chDB running in the
// directory dir ("": the package's), the one it reads Iceberg tables in
// (its user_files_path).
func runClickHouseIn(t *testing.T, dir string, views []string, runs []run) (map[string]result, map[string]string) {
	t.Helper()
	return runClickHouseSetup(t, dir, append(append([]string{}, ClickHouseSettings...), views...), runs)
}

// runClickHouseSetup runs every run on chDB, in the directory dir ("":
// the package's), after the statements setup alone: no setting of its
// own.
func runClickHouseSetup(t *testing.T, dir string, setup []string, runs []run) (map[string]result, map[string]string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		absent(t, "ClickHouse: node is not installed")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(chdbScript), "node_modules", "chdb")); err != nil {
		absent(t, "ClickHouse: chDB is not installed in %s (npm install)", filepath.Dir(chdbRunner))
	}
	req := struct {
		Setup   []string  `json:"setup"`
		Queries []chQuery `json:"queries"`
	}{Setup: setup}
	for _, r := range runs {
		q := chQuery{ID: r.String(), SQL: r.text(t, "CAST({day:Nullable(Date)} AS DATE)")}
		if !r.literal {
			var day *string
			if r.day != "" {
				day = &r.day
			}
			q.Params = map[string]*string{"day": day}
		}
		req.Queries = append(req.Queries, q)
	}
	out, stderr := runNodeIn(t, dir, node, chdbScript, req)
	got, errs := map[string]result{}, map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	for dec.More() {
		var a chAnswer
		if err := dec.Decode(&a); err != nil {
			t.Fatalf("chDB runner output: %v", err)
		}
		if a.Error != "" || a.Result == nil {
			errs[a.ID] = "ClickHouse: " + a.Error
			continue
		}
		var res result
		for _, m := range a.Result.Meta {
			res.columns = append(res.columns, m.Name)
		}
		for _, row := range a.Result.Data {
			vals := make([]string, len(row))
			for i, v := range row {
				vals[i] = canonClickHouse(t, v, a.Result.Meta[i].Type)
			}
			res.rows = append(res.rows, vals)
		}
		got[a.ID] = res
	}
	if len(got)+len(errs) != len(runs) {
		t.Fatalf("chDB runner answered %d of %d queries\n%s", len(got)+len(errs), len(runs), stderr)
	}
	return got, errs
}

// canonClickHouse is the canonical form of a value of ClickHouse's JSON
// output, whose type is typ.
func canonClickHouse(t *testing.T, v any, typ string) string {
	if v == nil {
		return null
	}
	typ = unwrap(typ, "Nullable(")
	typ = unwrap(typ, "LowCardinality(")
	switch {
	case strings.HasPrefix(typ, "Array("):
		list, ok := v.([]any)
		if !ok {
			t.Fatalf("ClickHouse %s value %v", typ, v)
		}
		items := make([]string, len(list))
		for i, e := range list {
			items[i] = canonClickHouse(t, e, strings.TrimSuffix(strings.TrimPrefix(typ, "Array("), ")"))
		}
		return canonList(items)
	case strings.HasPrefix(typ, "DateTime"):
		tm, err := time.Parse("2006-01-02 15:04:05.999999999", v.(string))
		if err != nil {
			t.Fatalf("ClickHouse %s value %v: %v", typ, v, err)
		}
		return canonTime(tm)
	case strings.HasPrefix(typ, "Float"):
		f, err := strconv.ParseFloat(string(v.(json.Number)), 64)
		if err != nil {
			t.Fatal(err)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case strings.HasPrefix(typ, "Bool"):
		return strconv.FormatBool(v.(bool))
	}
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case string:
		// 64-bit integers may come quoted; they compare as their digits.
		return x
	}
	t.Fatalf("ClickHouse %s value %v (%T)", typ, v, v)
	return ""
}

func unwrap(typ, wrapper string) string {
	if strings.HasPrefix(typ, wrapper) && strings.HasSuffix(typ, ")") {
		return typ[len(wrapper) : len(typ)-1]
	}
	return typ
}

// runNode runs a Node.js script of testdata with req as JSON on its stdin
// and returns its stdout and stderr; a script that fails fails the test,
// with its stderr.
func runNode(t *testing.T, node, script string, req any) (stdout, stderr []byte) {
	t.Helper()
	return runNodeIn(t, "", node, script, req)
}

// runNodeIn is runNode in the working directory dir ("": the package's).
func runNodeIn(t *testing.T, dir, node, script string, req any) (stdout, stderr []byte) {
	t.Helper()
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var errBuf bytes.Buffer
	cmd.Stderr = &errBuf
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(script), err, errBuf.Bytes())
	}
	return out, errBuf.Bytes()
}
