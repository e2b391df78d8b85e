package enginetest

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/queries"
)

// The fold in the engine (queries/shard/fold.sql) is checked inside
// TestEnginesSharded, on its run: these are its helpers.

// foldLines is what fold.sql gives of each result of the JSON Lines
// output of verify receipts: source, line, verdict, reasons joined by
// commas, and the chain and nonce axes' status and reason, a line each,
// tab-separated; by source, in input order.
func foldLines(t *testing.T, jsonl []byte) map[string]string {
	t.Helper()
	type axis struct{ Status, Reason string }
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
		out[r.Source] += strings.Join([]string{r.Source, fmt.Sprint(r.Line), r.Verdict, strings.Join(r.Reasons, ","), c.Status, c.Reason, n.Status, n.Reason}, "\t") + "\n"
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
		"CAST(nonce_status AS VARCHAR), CAST(nonce_reason AS VARCHAR) FROM read_parquet(" + sqltext.String(filepath.ToSlash(file)) + ") ORDER BY ord")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var f [8]string
		if err := rows.Scan(&f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]); err != nil {
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

// clickHouseFold runs queries/shard/judgments.sql and then
// queries/shard/fold.sql on chDB after the statements of verify parts
// --engine clickhouse, as docs/scale-out.md does, and writes the fold's
// rows one file a shard, out/shard-N.parquet.
func clickHouseFold(t *testing.T, views []string, out string, shards int) {
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
	stmts := []string{
		"CREATE TABLE judgments ENGINE = Memory AS SELECT * FROM (" + queries.Judgments() + ")",
		"CREATE TABLE verdicts ENGINE = Memory AS SELECT * FROM (" + queries.Fold() + ")",
	}
	for n := range shards {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO FUNCTION file(%s, Parquet) SELECT * FROM verdicts WHERE intDiv(ord, 1099511627776) = %d ORDER BY ord",
			q(filepath.Join(out, fmt.Sprintf("shard-%d.parquet", n))), n))
	}
	req := struct {
		Setup   []string  `json:"setup"`
		Queries []chQuery `json:"queries"`
	}{
		Setup:   append(append(append([]string{}, ClickHouseSettings...), views...), stmts...),
		Queries: []chQuery{{ID: "rows", SQL: "SELECT count() FROM verdicts"}},
	}
	stdout, _ := runNode(t, node, chdbRunner, req)
	var a chAnswer
	if err := json.Unmarshal(stdout, &a); err != nil || a.Error != "" || a.Result == nil || len(a.Result.Data) != 1 {
		t.Fatalf("chDB: verdicts not written: %v %s\n%s", err, a.Error, stdout)
	}
	t.Logf("chDB: %v verdicts", a.Result.Data[0][0])
}
