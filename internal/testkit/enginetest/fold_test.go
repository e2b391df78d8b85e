package enginetest

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/internal/shard"
	"github.com/receiptverify/verify/queries"
)

// The fold in the engine (queries/shard/fold.sql) is checked inside
// TestEnginesSharded, on its run: these are its helpers.

// foldLines is what fold.sql gives of each result of the JSON Lines
// output of verify receipts: source, line, verdict, reasons joined by
// commas, and the chain and nonce axes' status, reason and note, a line
// each, tab-separated; by source, in input order.
func foldLines(t *testing.T, jsonl []byte) map[string]string {
	t.Helper()
	type axis struct{ Status, Reason, Note string }
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(jsonl))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct {
			Source  string
			Line    int64
			Verdict string
			Reasons []string
			Axes    map[string]axis
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("verify receipts --format json: %v", err)
		}
		c, n := r.Axes["chain"], r.Axes["nonce"]
		out[r.Source] += strings.Join([]string{r.Source, fmt.Sprint(r.Line), r.Verdict, strings.Join(r.Reasons, ","), c.Status, c.Reason, n.Status, n.Reason, c.Note, n.Note}, "\t") + "\n"
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sqlFoldLines reads a file of fold.sql's rows as foldLines writes
// them, in ord order, with DuckDB.
func sqlFoldLines(t *testing.T, file string) string {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT CAST(source AS VARCHAR), line, CAST(verdict AS VARCHAR), CAST(reasons AS VARCHAR), CAST(chain_status AS VARCHAR), CAST(chain_reason AS VARCHAR), " +
		"CAST(nonce_status AS VARCHAR), CAST(nonce_reason AS VARCHAR), CAST(chain_note AS VARCHAR), CAST(nonce_note AS VARCHAR) FROM read_parquet(" + sqltext.String(filepath.ToSlash(file)) + ") ORDER BY ord")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var f [10]string
		if err := rows.Scan(&f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9]); err != nil {
			t.Fatal(err)
		}
		b.WriteString(strings.Join(f[:], "\t") + "\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sameFold requires the files dir/shard-N.parquet of fold.sql's rows to
// hold, shard by shard, the results of verify receipts (want, its JSON
// Lines output) of the shard's input parts[N], and together the whole
// output.
func sameFold(t *testing.T, want []byte, parts []string, dir string) {
	t.Helper()
	bySource := foldLines(t, want)
	var whole, got strings.Builder
	for n, p := range parts {
		shard := sqlFoldLines(t, filepath.Join(dir, fmt.Sprintf("shard-%d.parquet", n)))
		if shard != bySource[p] || shard == "" {
			t.Errorf("shard %d: fold.sql's verdicts differ from verify receipts':\n%s", n, firstDiff([]byte(bySource[p]), []byte(shard)))
		}
		whole.WriteString(bySource[p])
		got.WriteString(shard)
	}
	if got.String() != whole.String() || len(bySource) != len(parts) {
		t.Errorf("the run's verdicts differ from verify receipts' (%d sources):\n%s", len(bySource), firstDiff([]byte(whole.String()), []byte(got.String())))
	}
}

// clickHouseFold runs queries/shard/judgments.sql (in stages,
// shard.ClickHouseJudgments) and then queries/shard/fold.sql on chDB
// after the statements of verify parts --engine clickhouse, as
// docs/scale-out.md does, writes the fold's
// rows one file a shard, out/shard-N.parquet, and returns the rows of
// queries/shard/fold_summary.sql over them as summaryRows writes them.
func clickHouseFold(t *testing.T, views []string, out string, shards int) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		absent(t, "ClickHouse: node is not installed")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(chdbRunner), "node_modules", "chdb")); err != nil {
		absent(t, "ClickHouse: chDB is not installed in %s (npm install)", filepath.Dir(chdbRunner))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(filepath.ToSlash(s), "'", "\\'") + "'" }
	stmts, err := shard.ClickHouseJudgments(queries.Judgments())
	if err != nil {
		t.Fatal(err)
	}
	stmts = append(stmts, "CREATE TABLE verdicts ENGINE = Memory AS SELECT * FROM ("+queries.Fold()+")")
	for n := range shards {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO FUNCTION file(%s, Parquet) SELECT * FROM verdicts WHERE intDiv(ord, 1099511627776) = %d ORDER BY ord",
			q(filepath.Join(out, fmt.Sprintf("shard-%d.parquet", n))), n))
	}
	req := struct {
		Setup   []string  `json:"setup"`
		Queries []chQuery `json:"queries"`
	}{
		Setup:   append(append(append([]string{}, ClickHouseSettings...), views...), stmts...),
		Queries: []chQuery{{ID: "rows", SQL: "SELECT count() FROM verdicts"}, {ID: "summary", SQL: queries.FoldSummary()}},
	}
	stdout, _ := runNode(t, node, chdbRunner, req)
	dec := json.NewDecoder(bytes.NewReader(stdout))
	var a, sum chAnswer
	if err := dec.Decode(&a); err != nil || a.Error != "" || a.Result == nil || len(a.Result.Data) != 1 {
		t.Fatalf("chDB: verdicts not written: %v %s\n%s", err, a.Error, stdout)
	}
	t.Logf("chDB: %v verdicts", a.Result.Data[0][0])
	if err := dec.Decode(&sum); err != nil || sum.Error != "" || sum.Result == nil {
		t.Fatalf("chDB: queries/shard/fold_summary.sql: %v %s\n%s", err, sum.Error, stdout)
	}
	var b strings.Builder
	for _, row := range sum.Result.Data {
		var f [3]string
		for i, v := range row[:3] {
			f[i] = fmt.Sprint(v)
			if x, ok := v.(float64); ok {
				f[i] = strconv.FormatFloat(x, 'f', -1, 64)
			}
		}
		b.WriteString(strings.Join(f[:], "\t") + "\n")
	}
	return b.String()
}

// duckDBSummary runs queries/shard/fold_summary.sql on DuckDB over the
// files dir/shard-N.parquet of fold.sql's rows, with the table
// fold_shards the statements of verify parts --engine duckdb (views)
// make, and returns its rows as summaryRows writes them.
func duckDBSummary(t *testing.T, views []string, dir string) string {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	stmts := []string{"CREATE VIEW verdicts AS SELECT * FROM read_parquet(" + sqltext.String(filepath.ToSlash(filepath.Join(dir, "shard-*.parquet"))) + ")"}
	for _, v := range views {
		if strings.Contains(v, " fold_shards ") {
			stmts = append(stmts, v)
		}
	}
	if len(stmts) < 3 {
		t.Fatalf("verify parts --engine duckdb makes no table fold_shards:\n%s", strings.Join(views, "\n"))
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.Query(queries.FoldSummary())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var n, v int64
		var name string
		if err := rows.Scan(&n, &name, &v); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%d\t%s\t%d\n", n, name, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sameSummary requires the rows of queries/shard/fold_summary.sql (got,
// as summaryRows writes them) to be, shard by shard, the summaries of
// the Go fold of each shard alone (shards: the fold.json of verify
// finalize --shard N --emit, the reference) and, whole, the summary of
// verify receipts (want, its "summary: " lines).
func sameSummary(t *testing.T, got string, shards []string, want string) {
	t.Helper()
	whole := map[string]int64{}
	var perShard strings.Builder
	for l := range strings.Lines(got) {
		f := strings.Split(strings.TrimSuffix(l, "\n"), "\t")
		if len(f) != 3 {
			t.Fatalf("fold_summary.sql: row %q", l)
		}
		v, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if f[0] == "-1" {
			whole[f[1]] = v
		} else {
			perShard.WriteString(l)
		}
	}
	if s := strings.Join(shards, ""); perShard.String() != s {
		t.Errorf("fold_summary.sql's shards differ from the Go fold's:\n%s", firstDiff([]byte(s), []byte(perShard.String())))
	}
	if text := summaryText(whole); text != want {
		t.Errorf("fold_summary.sql's run:\n%s\nverify receipts:\n%s", text, want)
	}
}

// goFoldSummaries are the summaries of the Go fold of each of the n
// shards of plan alone (verify judge --emit with history, the
// judgments; verify finalize --shard N --emit, their fold.json), as
// summaryRows writes them: the reference fold_summary.sql's shards are
// held to.
func goFoldSummaries(t *testing.T, bin, plan string, history, dirs []string, n int) []string {
	t.Helper()
	out := t.TempDir()
	judgments := filepath.Join(out, "judgments")
	if r := runVerify(t, bin, append(append([]string{"judge", "--plan", plan, "--emit", judgments}, history...), dirs...)...); r.code != 0 {
		t.Fatalf("verify judge: exit %d\n%s", r.code, r.stderr)
	}
	var sums []string
	for i := range n {
		dir := filepath.Join(out, fmt.Sprintf("fold-%d", i))
		r := runVerify(t, bin, append([]string{"finalize", "--plan", plan, "--format", "jsonl", "--judgments", filepath.Join(judgments, fmt.Sprintf("shard-%d.parquet", i)),
			"--shard", fmt.Sprint(i), "--emit", dir}, dirs...)...)
		if r.code != 0 {
			t.Fatalf("finalize --shard %d: exit %d\n%s", i, r.code, r.stderr)
		}
		sums = append(sums, foldJSONSummary(t, i, filepath.Join(dir, "fold.json")))
	}
	return sums
}

// foldJSONSummary is the summary in the fold.json of a folded shard n,
// as summaryRows writes it.
func foldJSONSummary(t *testing.T, n int, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Summary map[string]json.RawMessage `json:"summary"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	rows := map[string]int64{}
	for name, raw := range f.Summary {
		if name == "reasons" {
			var rs map[string]int64
			if err := json.Unmarshal(raw, &rs); err != nil {
				t.Fatal(err)
			}
			for r, c := range rs {
				if c != 0 {
					rows["reasons."+r] = c
				}
			}
			continue
		}
		var v int64
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: summary %s: %v", file, name, err)
		}
		rows[name] = v
	}
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		fmt.Fprintf(&b, "%d\t%s\t%d\n", n, name, rows[name])
	}
	return b.String()
}

// summaryText is the summary of counts (fold_summary.sql's names) as
// verify receipts writes it, its "summary: " lines.
func summaryText(c map[string]int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "summary: %d lines read in %d files: %d receipts verified (%d pass, %d fail, %d incomplete), %d unreadable, %d blank",
		c["lines"], c["files"], c["receipts"], c["pass"], c["fail"], c["incomplete"], c["unreadable"], c["blank"])
	if c["files_unreadable"] > 0 {
		fmt.Fprintf(&b, ", %d files unreadable", c["files_unreadable"])
	}
	b.WriteString("\n")
	for _, name := range slices.Sorted(maps.Keys(c)) {
		if r, ok := strings.CutPrefix(name, "reasons."); ok {
			fmt.Fprintf(&b, "summary: %s: %d\n", r, c[name])
		}
	}
	if n := c["unknown_format"]; n > 0 {
		fmt.Fprintf(&b, "summary: %d receipt(s) of a format this tool does not read (INCOMPLETE, unknown_format: not checked, not failed)\n", n)
	}
	if n := c["duplicates"]; n > 0 {
		fmt.Fprintf(&b, "summary: duplicates: %d (receipts delivered again, the same signed bytes: judged as their first delivery, not as replays)\n", n)
	}
	if n := c["chains_outside"]; n > 0 {
		fmt.Fprintf(&b, "summary: chains starting before the input: %d (their first link not checked; give the predecessors with --predecessor, the earlier files, or the audit database)\n", n)
	}
	return b.String()
}
