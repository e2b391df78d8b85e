package analytics

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/exportdir"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/queries"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/toolschema"
)

// genReceipt is what the test reads from a generated receipts.jsonl line,
// independently of the verifier and the loader.
type genReceipt struct {
	line                                    int
	day                                     string
	issued                                  time.Time
	actionID, agent, issuer, session, nonce string
	step                                    int
	tool, fp, sig                           string
}

func readGenerated(t *testing.T, dir string) ([]genReceipt, []receiptgen.Record) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, receiptgen.FileReceipts))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []genReceipt
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var doc struct {
			Payload struct {
				ActionID        string `json:"action_id"`
				AgentID         string `json:"agent_id"`
				IssuerID        string `json:"issuer_id"`
				SessionID       string `json:"session_id"`
				Step            int    `json:"step"`
				ToolName        string `json:"tool_name"`
				ToolFingerprint string `json:"tool_fingerprint"`
				Nonce           string `json:"nonce"`
				IssuedAt        string `json:"issued_at"`
			} `json:"payload"`
			Signature struct {
				Sig string `json:"sig"`
			} `json:"signature"`
		}
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		p := doc.Payload
		at, err := time.Parse(time.RFC3339Nano, p.IssuedAt)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, genReceipt{line: n, day: at.UTC().Format(time.DateOnly), issued: at, actionID: p.ActionID,
			agent: p.AgentID, issuer: p.IssuerID, session: p.SessionID, nonce: p.Nonce, step: p.Step,
			tool: p.ToolName, fp: p.ToolFingerprint, sig: doc.Signature.Sig})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	tb, err := os.ReadFile(filepath.Join(dir, receiptgen.FileTruth))
	if err != nil {
		t.Fatal(err)
	}
	var truth []receiptgen.Record
	for l := range strings.Lines(string(tb)) {
		var r receiptgen.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		truth = append(truth, r)
	}
	return out, truth
}

// expectedFindings derives, from the receipts as generated and the
// expected schemas, the finding keys each rule must report, per finding
// type: "day|kind|..." strings. It shares nothing with the SQL.
func expectedFindings(rs []genReceipt, set *toolschema.Set) map[string][]string {
	want := map[string][]string{}
	add := func(typ string, parts ...any) {
		want[typ] = append(want[typ], fmt.Sprint(parts...))
	}
	// Collisions: (day, tool) with more than one fingerprint; a key per fingerprint.
	fps := map[[2]string]map[string]bool{}
	for _, r := range rs {
		k := [2]string{r.day, r.tool}
		if fps[k] == nil {
			fps[k] = map[string]bool{}
		}
		fps[k][r.fp] = true
	}
	for k, m := range fps {
		if len(m) > 1 {
			for fp := range m {
				add("collisions", k[0], "|", k[1], "|", fp)
			}
		}
	}
	// Drift, first_seen: a pair whose first day is after the first day of all.
	firstDay := rs[0].day
	pairFirst := map[[2]string]string{}
	for _, r := range rs {
		firstDay = min(firstDay, r.day)
		k := [2]string{r.tool, r.fp}
		if d, ok := pairFirst[k]; !ok || r.day < d {
			pairFirst[k] = r.day
		}
	}
	for k, d := range pairFirst {
		if d > firstDay {
			add("drift", d, "|first_seen|", k[0], "|", k[1])
		}
	}
	// Drift, unexpected_fingerprint: (day, pair) no schema has.
	seen := map[string]bool{}
	for _, r := range rs {
		if m, _ := set.Lookup(r.tool, r.fp); m != toolschema.Matched {
			key := fmt.Sprint(r.day, "|unexpected_fingerprint|", r.tool, "|", r.fp)
			if !seen[key] {
				seen[key] = true
				want["drift"] = append(want["drift"], key)
			}
		}
	}
	// Drift, session_change: per session and tool, in issue order.
	sorted := slices.Clone(rs)
	slices.SortStableFunc(sorted, func(a, b genReceipt) int {
		if c := a.issued.Compare(b.issued); c != 0 {
			return c
		}
		if c := cmp.Compare(a.step, b.step); c != 0 {
			return c
		}
		return cmp.Compare(a.line, b.line)
	})
	last := map[[4]string]string{}
	for _, r := range sorted {
		k := [4]string{r.issuer, r.agent, r.session, r.tool}
		if prev, ok := last[k]; ok && prev != r.fp {
			add("drift", r.day, "|session_change|", r.tool, "|", r.fp, "|", r.line)
		}
		last[k] = r.fp
	}
	// Replays: every occurrence after the first, by kind.
	for _, kind := range []string{"action_id", "nonce", "signature"} {
		first := map[string]bool{}
		for _, r := range sorted {
			v := map[string]string{"action_id": r.actionID, "nonce": r.issuer + "\x00" + r.nonce, "signature": r.sig}[kind]
			if first[v] {
				add("replays", r.day, "|", kind, "|", r.line)
			}
			first[v] = true
		}
	}
	for _, v := range want {
		sort.Strings(v)
	}
	return want
}

// reportKeys reads a report's CSV files back as the same keys.
func reportKeys(t *testing.T, dir string) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for _, name := range []string{"collisions", "drift", "replays"} {
		for _, rec := range readCSV(t, filepath.Join(dir, name+".csv")) {
			var k string
			switch name {
			case "collisions":
				k = rec["day"] + "|" + rec["tool_name"] + "|" + rec["tool_fingerprint"]
			case "drift":
				k = rec["day"] + "|" + rec["kind"] + "|" + rec["tool_name"] + "|" + rec["tool_fingerprint"]
				if rec["kind"] == "session_change" {
					k += "|" + rec["line"]
				}
			case "replays":
				k = rec["day"] + "|" + rec["kind"] + "|" + rec["line"]
			}
			got[name] = append(got[name], k)
		}
		sort.Strings(got[name])
	}
	return got
}

// readCSV reads a report CSV into maps by header name.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		out = append(out, m)
	}
	return out
}

// reportCorpus generates the done-when corpus once per test binary run:
// Ed25519 receipts over five days with planted anomalies.
func reportCorpus(t *testing.T) (*corpus, *DB, []string) {
	t.Helper()
	shared.once.Do(func() {
		dir, err := os.MkdirTemp("", "analytics-test-")
		if err != nil {
			shared.err = err
			return
		}
		shared.dir = dir
		cfg := receiptgen.Config{Seed: 20261101, N: 2400, Rate: 0.05, Days: 5, Algs: receiptgen.Ed25519Only()}
		c := genCorpus(t, filepath.Join(dir, "corpus"), cfg)
		db, err := Open(filepath.Join(dir, "audit.duckdb"))
		if err != nil {
			shared.err = err
			return
		}
		mustLoad(t, db, c.v, c.schemas, c.receipts)
		var days []string
		for i := range cfg.Days {
			days = append(days, testStart.AddDate(0, 0, i).Format(time.DateOnly))
		}
		shared.c, shared.db, shared.days = c, db, days
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	if shared.db == nil {
		t.Fatal("the shared report corpus failed to load in an earlier test")
	}
	return shared.c, shared.db, shared.days
}

// shared is reportCorpus's one corpus and database, loaded once for the
// tests that only read them (loading 2,400 receipts is seconds); TestMain
// closes and removes them.
var shared struct {
	once sync.Once
	dir  string
	c    *corpus
	db   *DB
	days []string
	err  error
}

// TestMain runs the tests, then removes what they shared.
func TestMain(m *testing.M) {
	code := m.Run()
	if shared.db != nil {
		shared.db.Close()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// TestReportFindsPlanted is the done-when test: on a generated corpus
// loaded the real way, every planted finding is in the report of its day
// with the right type, and nothing else is: the expected rows are the
// planted anomalies (truth.jsonl) plus what the generator's own data trips
// (first-seen pairs, session changes, collisions), derived here from the
// receipts, not from the SQL.
func TestReportFindsPlanted(t *testing.T) {
	c, db, days := reportCorpus(t)
	rs, truth := readGenerated(t, c.dir)
	byLine := map[int]genReceipt{}
	for _, r := range rs {
		byLine[r.line] = r
	}
	want := expectedFindings(rs, c.schemas)
	out := t.TempDir()
	ctx := context.Background()

	got := map[string][]string{}
	failures := map[string]map[int]string{} // day -> line -> reasons
	for _, day := range days {
		dir := filepath.Join(out, day)
		sum, err := runReport(ctx, db.SQL(), ReportOptions{Day: day, Dir: dir, ToolVersion: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Total() == 0 {
			t.Errorf("%s: no findings", day)
		}
		for typ, keys := range reportKeys(t, dir) {
			got[typ] = append(got[typ], keys...)
		}
		failures[day] = map[int]string{}
		for _, rec := range readCSV(t, filepath.Join(dir, "failures.csv")) {
			if rec["day"] != day {
				t.Errorf("%s/failures.csv holds a row of %s", day, rec["day"])
			}
			n, _ := strconv.Atoi(rec["line"])
			failures[day][n] = rec["reasons"]
		}
	}
	for typ := range got {
		sort.Strings(got[typ])
	}

	// The planted anomalies, each in the report of its day with its type.
	kinds := map[receiptgen.Kind]int{}
	for _, r := range truth {
		kinds[r.Kind]++
		switch r.Kind {
		case receiptgen.KindNameCollision:
			for _, fp := range r.Fingerprints {
				if k := r.Day + "|" + r.ToolName + "|" + fp; !slices.Contains(got["collisions"], k) {
					t.Errorf("planted collision %s missing from collisions", k)
				}
			}
		case receiptgen.KindSchemaDrift:
			g := byLine[r.Line]
			if k := r.Day + "|unexpected_fingerprint|" + g.tool + "|" + g.fp; !slices.Contains(got["drift"], k) {
				t.Errorf("planted drift (line %d) missing from drift: %s", r.Line, k)
			}
		case receiptgen.KindReplayedNonce:
			if k := r.Day + "|nonce|" + strconv.Itoa(r.Line); !slices.Contains(got["replays"], k) {
				t.Errorf("planted replay (line %d) missing from replays", r.Line)
			}
		}
		if r.Line > 0 && r.Kind != receiptgen.KindSchemaDrift {
			reasons, ok := failures[r.Day][r.Line]
			if !ok {
				t.Errorf("planted %s (line %d) missing from %s/failures.csv", r.Kind, r.Line, r.Day)
			} else if !slices.Contains(strings.Split(reasons, ","), r.Reason) {
				t.Errorf("planted %s (line %d): reasons %q, want %s", r.Kind, r.Line, reasons, r.Reason)
			}
			delete(failures[r.Day], r.Line)
		}
	}
	for _, k := range []receiptgen.Kind{receiptgen.KindNameCollision, receiptgen.KindSchemaDrift, receiptgen.KindReplayedNonce, receiptgen.KindFork} {
		if kinds[k] == 0 {
			t.Fatalf("corpus has no planted %s", k)
		}
	}
	// Nothing else fails ...
	for day, m := range failures {
		for line, reasons := range m {
			t.Errorf("%s: failure not planted: line %d (%s)", day, line, reasons)
		}
	}
	// ... and the other types hold exactly what the rules predict.
	for _, typ := range []string{"collisions", "drift", "replays"} {
		if !slices.Equal(got[typ], want[typ]) {
			t.Errorf("%s: report and rules differ\nonly in report: %v\nonly expected:  %v", typ, minus(got[typ], want[typ]), minus(want[typ], got[typ]))
		}
	}
	// The replays the rules predict are exactly the planted ones.
	var planted []string
	for _, r := range truth {
		if r.Kind == receiptgen.KindReplayedNonce {
			planted = append(planted, r.Day+"|nonce|"+strconv.Itoa(r.Line))
		}
	}
	sort.Strings(planted)
	if !slices.Equal(planted, want["replays"]) {
		t.Errorf("replays: planted %v, rules %v", planted, want["replays"])
	}
	t.Logf("rows: %d collisions, %d drift, %d replays over %d days", len(got["collisions"]), len(got["drift"]), len(got["replays"]), len(days))

	// Reporting again gives the same bytes.
	for _, day := range days[:2] {
		dir := filepath.Join(out, day)
		before := readDir(t, dir)
		if _, err := runReport(ctx, db.SQL(), ReportOptions{Day: day, Dir: dir, ToolVersion: "test"}); err != nil {
			t.Fatal(err)
		}
		again := filepath.Join(t.TempDir(), "again")
		if _, err := runReport(ctx, db.SQL(), ReportOptions{Day: day, Dir: again, ToolVersion: "test"}); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{dir, again} {
			after := readDir(t, d)
			if len(after) != len(before) {
				t.Errorf("%s: %d files, then %d", day, len(before), len(after))
			}
			for name, b := range before {
				if !bytes.Equal(after[name], b) {
					t.Errorf("%s: %s differs on a second run", day, name)
				}
			}
		}
	}
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// readDir reads every file of dir, temporary files included (there must
// be none left).
func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

// TestParquetSameRows: every query over the Parquet export, read back by
// DuckDB as views, gives the rows it gives over the database.
func TestParquetSameRows(t *testing.T) {
	_, db, days := reportCorpus(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "parquet")
	sum, err := db.ExportParquet(ctx, dir, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Days) != len(days) || sum.Rows() != queryInt(t, db, "SELECT COUNT(*) FROM receipts") {
		t.Fatalf("exported %d days, %d rows", len(sum.Days), sum.Rows())
	}
	// Re-runnable: a second export replaces the files in place.
	if _, err := db.ExportParquet(ctx, dir, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "*", ".*"))
	top, _ := filepath.Glob(filepath.Join(dir, ".*"))
	leftovers = append(leftovers, top...)
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}

	pq, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer pq.Close()
	// The views replace the tables Open created.
	for _, s := range []string{"DROP TABLE receipts", "DROP TABLE expected_tools", "DROP TABLE files", "DROP TABLE rejects", "DROP TABLE trust"} {
		if _, err := pq.SQL().Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range exportdir.Views(dir) {
		if _, err := pq.SQL().Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range queries.All() {
		for _, day := range append([]string{""}, days...) {
			a, err := runQuery(ctx, db.SQL(), q.Name, day)
			if err != nil {
				t.Fatal(err)
			}
			b, err := runQuery(ctx, pq.SQL(), q.Name, day)
			if err != nil {
				t.Fatalf("%s over Parquet: %v", q.Name, err)
			}
			if len(a.Rows) == 0 && q.Name != "rejects" && q.Name != "completeness" && q.Name != "gaps" && day != "" { // the fixture holds no lifecycle evidence, and no source with a week behind it
				t.Errorf("%s %s: no rows to compare", q.Name, day)
			}
			if ca, cb := csvOf(t, a), csvOf(t, b); ca != cb {
				t.Errorf("%s day %q: database and Parquet differ:\n%s\n--\n%s", q.Name, day, ca, cb)
			}
		}
	}
}

// TestReportEmptyDay: a day without receipts is clean, and the report says so.
func TestReportEmptyDay(t *testing.T) {
	t.Parallel()
	db := fixtureDB(t, fixtureRows, fixtureExpected...)
	dir := t.TempDir()
	sum, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: "2026-10-01", Dir: dir, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Total() != 0 {
		t.Errorf("findings on an empty day: %+v", sum.Findings)
	}
	md, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	if !strings.Contains(string(md), "No findings") || !strings.Contains(string(md), "\n**Verdict: nothing to judge.** No receipt at all on this day") {
		t.Errorf("summary.md:\n%s", md)
	}
	var man manifest
	mj, _ := os.ReadFile(filepath.Join(dir, manifestFile))
	if err := json.Unmarshal(mj, &man); err != nil {
		t.Fatal(err)
	}
	if len(man.Queries) != 11 || man.DuckDBVersion == "" || man.Window.From != "2026-10-01T00:00:00Z" {
		t.Errorf("manifest: %s", mj)
	}
}

// TestReportFixture pins the shape of a report on the hand-built fixture.
func TestReportFixture(t *testing.T) {
	t.Parallel()
	db := fixtureDB(t, fixtureRows, fixtureExpected...)
	dir := t.TempDir()
	sum, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: "2026-11-02", Dir: dir, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, f := range sum.Findings {
		counts[f.Name] = f.Rows
	}
	if want := map[string]int{"collisions": 2, "drift": 4, "replays": 2, "failures": 2, "rejects": 0, "completeness": 0, "gaps": 0}; fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("counts %v, want %v", counts, want)
	}
	files := readDir(t, dir)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	if want := "collisions.csv collisions.jsonl completeness.csv completeness.jsonl drift.csv drift.jsonl failures.csv failures.jsonl fingerprints.svg gaps.csv gaps.jsonl manifest.json rejects.csv rejects.jsonl replays.csv replays.jsonl summary.html summary.md"; strings.Join(names, " ") != want {
		t.Errorf("files: %v", names)
	}
	if !bytes.HasPrefix(files["replays.jsonl"], []byte(`{"finding":"replays","severity":"high","finding_id":"677a7451f726a5f79f66458e1ca206df","techniques":["SAFE-T1103","T1565.001"],"day":"2026-11-02","kind":"action_id","value":"a1","occurrence":2,"occurrences":2,"verdict":"FAIL",`)) {
		t.Errorf("replays.jsonl:\n%s", files["replays.jsonl"])
	}
	if !bytes.Contains(files["collisions.csv"], []byte("\r\ncollisions,info,5c38d735d8074e26b5d71508d69f3883,\"SAFE-T1004,MCP09:2025,T1036\",2026-11-02,search,2,A,crm,match,1,1,1,0,2026-11-02T09:00:00.000000Z,2026-11-02T09:00:00.000000Z,2026-11-02T09:00:00.000000Z,false,\r\n")) {
		t.Errorf("collisions.csv:\n%s", files["collisions.csv"])
	}
	for _, s := range []string{"](fingerprints.svg)", "](collisions.csv)", "](manifest.json)", "| collisions | 2 fingerprints; this one: crm | search | `A` |"} {
		if !bytes.Contains(files["summary.md"], []byte(s)) {
			t.Errorf("summary.md lacks %q:\n%s", s, files["summary.md"])
		}
	}
	if !bytes.Contains(files["fingerprints.svg"], []byte(`<title>search on 2026-11-02: 2 fingerprint(s), 2 receipt(s), each an expected server&apos;s (known collision)</title>`)) {
		t.Errorf("chart lacks the collision mark")
	}
}

// TestReportUnwritable: an output directory that cannot be created is a
// *dberr.WriteError.
func TestReportUnwritable(t *testing.T) {
	t.Parallel()
	db := fixtureDB(t, fixtureRows)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	_, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: "2026-11-02", Dir: filepath.Join(file, "out")})
	if _, ok := err.(*dberr.WriteError); !ok {
		t.Fatalf("got %T %v, want *dberr.WriteError", err, err)
	}
}

// TestReportTimeZone: the process's local time zone changes nothing, not
// even for receipts a minute either side of a UTC midnight. (Not
// parallel: it sets time.Local.)
func TestReportTimeZone(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip(err)
	}
	rows := append(slices.Clone(fixtureRows),
		fixRow{line: 8, actionID: "a8", agent: "ag1", issuer: "org1", session: "s9", tool: "search", fp: "A", nonce: "n8", sig: "sig8", issued: "2026-11-02T23:59:30Z"},
		fixRow{line: 9, actionID: "a9", agent: "ag1", issuer: "org1", session: "s9", step: 1, tool: "search", fp: "B", nonce: "n9", sig: "sig9", issued: "2026-11-03T00:00:30Z"})
	report := func() map[string][]byte {
		db := fixtureDB(t, rows, fixtureExpected...)
		out := map[string][]byte{}
		for _, day := range []string{"2026-11-02", "2026-11-03"} {
			dir := filepath.Join(t.TempDir(), day)
			if _, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: day, Dir: dir, ToolVersion: "test"}); err != nil {
				t.Fatal(err)
			}
			for name, b := range readDir(t, dir) {
				out[day+"/"+name] = b
			}
		}
		return out
	}
	utc := report()
	saved := time.Local
	time.Local = ny
	defer func() { time.Local = saved }()
	local := report()
	for name, b := range utc {
		if !bytes.Equal(local[name], b) {
			t.Errorf("%s differs under America/New_York", name)
		}
	}
	if !bytes.Contains(utc["2026-11-03/drift.csv"], []byte("2026-11-03,session_change,search,B,A,match,files,match,1,2026-11-03T00:00:30.000000Z")) {
		t.Errorf("the change across midnight is not on 2026-11-03:\n%s", utc["2026-11-03/drift.csv"])
	}
}

// TestReportUndated: UndoLog effect-log rows carry no issued_at. They count
// on the UTC day of their load, so that day's report holds their
// exactly-once violation and their failure, and nothing is left out of
// every report.
func TestReportUndated(t *testing.T) {
	t.Parallel()
	const row = `{"session_id":"550e8400-e29b-41d4-a716-446655440000","step_index":0,"tool_name":"ping","args":{},"call_signature":"%s"}`
	good := fmt.Sprintf(row, "eb17211045db0ec2d3f0e8b0b10c984e889efe279a6c5eb2dca6085732ad1f61")
	wrong := fmt.Sprintf(row, "eb17211045db0ec2d3f0e8b0b10c984e889efe279a6c5eb2dca6085732ad1f60")
	input := filepath.Join(t.TempDir(), "effects.jsonl")
	writeLines(t, input, [][]byte{[]byte(good), []byte(good), []byte(wrong)})
	v, err := verify.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	db := openTestDB(t)
	mustLoad(t, db, v, nil, input)

	var loaded time.Time
	var undated, dayless int
	err = db.SQL().QueryRow(`SELECT (SELECT loaded_at FROM files),
		(SELECT COUNT(*) FROM receipts WHERE issued_at IS NULL AND day = CAST((SELECT loaded_at FROM files) AS DATE)),
		(SELECT COUNT(*) FROM receipts WHERE day IS NULL)`).Scan(&loaded, &undated, &dayless)
	if err != nil {
		t.Fatal(err)
	}
	if undated != 3 || dayless != 0 {
		t.Fatalf("%d receipts on the day of the load, %d without a day; want 3 and 0", undated, dayless)
	}
	day := loaded.UTC().Format(time.DateOnly)
	sum, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: day, Dir: t.TempDir(), ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Receipts.Receipts != 3 || sum.Receipts.Undated != 3 {
		t.Errorf("day counts %+v, want 3 receipts, 3 undated", sum.Receipts)
	}
	got := map[string]string{}
	for _, f := range sum.Findings {
		got[f.Name] = fmt.Sprint(f.Rows, f.Kinds)
	}
	// The call recomputed from the third row is the first one's, whatever
	// signature it stores: three executions of one call, two replays.
	want := map[string]string{
		"collisions":   "0 []",
		"drift":        "0 []",
		"replays":      "2 [{call_signature 2}]",
		"failures":     "1 [{fingerprint_mismatch 1}]",
		"rejects":      "0 []",
		"completeness": "0 []",
		"gaps":         "0 []",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("findings on %s:\n got %v\nwant %v", day, got, want)
	}
	files := readDir(t, sum.Dir)
	if !bytes.Contains(files["summary.md"], []byte("3 of them carry no issued_at")) {
		t.Errorf("summary.md does not say the receipts are undated:\n%s", files["summary.md"])
	}
}

// TestReportRejects: a bad line is a finding of the days its file holds
// receipts of; a file of nothing but bad lines, of the day it was loaded.
func TestReportRejects(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 23, N: 4, Days: 1})
	mixed := filepath.Join(c.dir, "mixed.jsonl")
	writeLines(t, mixed, append(readLines(t, c.receipts), []byte(`{"payload":`)))
	garbage := filepath.Join(c.dir, "garbage.jsonl")
	writeLines(t, garbage, [][]byte{[]byte("not json"), []byte("[1,")})
	db := openTestDB(t)
	mustLoad(t, db, c.v, nil, mixed, garbage)
	var loaded time.Time
	if err := db.SQL().QueryRow("SELECT loaded_at FROM files WHERE accepted = 0").Scan(&loaded); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		day     string
		rejects int
		inputs  string
	}{
		{testStart.Format(time.DateOnly), 1, "mixed.jsonl"},
		{loaded.UTC().Format(time.DateOnly), 2, "garbage.jsonl"},
		{"2026-10-01", 0, ""},
	} {
		sum, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: tt.day, Dir: t.TempDir(), ToolVersion: "test"})
		if err != nil {
			t.Fatal(err)
		}
		rejects := sum.Findings[slices.IndexFunc(sum.Findings, func(f findingCount) bool { return f.Name == "rejects" })]
		var inputs []string
		for _, in := range sum.Inputs {
			inputs = append(inputs, filepath.Base(in.Path))
		}
		if rejects.Rows != tt.rejects || strings.Join(inputs, " ") != tt.inputs {
			t.Errorf("%s: %d rejects from %v, want %d from %s", tt.day, rejects.Rows, inputs, tt.rejects, tt.inputs)
		}
		if (sum.Total() > 0) != (tt.rejects > 0) {
			t.Errorf("%s: %d findings in all", tt.day, sum.Total())
		}
		md := readDir(t, sum.Dir)["summary.md"]
		if bytes.Contains(md, []byte("| rejects | syntax: ")) != (tt.rejects > 0) || bytes.Contains(md, []byte(`| rejects | syntax: unexpected "n"`)) != (tt.rejects == 2) ||
			bytes.Contains(md, []byte(`/garbage.jsonl:1 |`)) != (tt.rejects == 2) {
			t.Errorf("%s: summary.md:\n%s", tt.day, md)
		}
	}
}

// TestMarkdownEscapesReceiptText: receipt values in the report show as
// text, one table row each, with nothing a terminal reading the file
// would act on.
func TestMarkdownEscapesReceiptText(t *testing.T) {
	in := "a\x1b[2J|b\r\nc\u202e`d"
	if got, want := mdText(in), `a\\x1b\[2J\|b\\r\\nc\\u202e`+"\\`d"; got != want {
		t.Errorf("mdText(%q) = %q, want %q", in, got, want)
	}
	if got, want := mdCode(in), `a\x1b[2J\|b\r\nc\u202e'd`; got != want {
		t.Errorf("mdCode(%q) = %q, want %q", in, got, want)
	}
}

// TestSVGTextEscapes: a tool name drawn in the chart shows its control and
// format characters as escapes (a bidirectional override would otherwise
// reorder it as drawn) and stays well-formed XML.
func TestSVGTextEscapes(t *testing.T) {
	if got, want := xmlText("a\u202e<b>\x00&\uffff"), `a\u202e&lt;b&gt;\x00&amp;`; got != want {
		t.Errorf("xmlText = %q, want %q", got, want)
	}
}
