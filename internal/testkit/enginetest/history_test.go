package enginetest

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/shard"
	"github.com/receiptverify/verify/queries"
)

// TestEnginesHistory: three days, each a run of two shards numbered from
// 0; the third day delivers receipts of the first again, forks their
// chains and replays their nonces. Its verdicts with the compact history
// of the first two days (queries/shard/history_append.sql, appended a
// day at a time) are those with the two days' map directories as
// history, byte for byte: the history appended and the judgments run on
// DuckDB (verify finalize), on ClickHouse (chDB), and each engine reading
// the other's history; and the fold in the engine (fold.sql and
// fold_summary.sql) on both gives the Go fold's notes and summary.
func TestEnginesHistory(t *testing.T) {
	enginesOff(t)
	bin := buildVerify(t)
	dir := t.TempDir()
	lines, trust := generatedArchive(t, dir, 20261204)
	q := len(lines) / 3
	forks := strings.ReplaceAll(strings.Join(lines[20:24], ""), `"nonce":"`, `"nonce":"f`)
	bodies := []string{
		strings.Join(lines[:q], ""),
		strings.Join(lines[q-5:2*q], ""), // five receipts of day 1 again
		strings.Join(lines[2*q:], "") + strings.Join(lines[10:14], "") + forks,
	}
	plans := make([]string, 3)
	shards := make([][]string, 3)
	for d, body := range bodies {
		// Two files, two shards: each day's map steps number 0 and 1.
		ls := strings.SplitAfter(body, "\n")
		half := len(ls) / 2
		var files []string
		for i, part := range []string{strings.Join(ls[:half], ""), strings.Join(ls[half:], "")} {
			f := filepath.Join(dir, fmt.Sprintf("day%d-%d.jsonl", d+1, i))
			if err := os.WriteFile(f, []byte(part), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		r := runVerify(t, bin, append(append([]string{"plan", "--id", fmt.Sprintf("day%d", d+1)}, trust...), files...)...)
		if r.code != 0 {
			t.Fatalf("verify plan: exit %d\n%s", r.code, r.stderr)
		}
		plans[d] = filepath.Join(dir, fmt.Sprintf("plan-%d.json", d+1))
		if err := os.WriteFile(plans[d], r.stdout, 0o644); err != nil {
			t.Fatal(err)
		}
		for i := range files {
			out := filepath.Join(dir, "maps", fmt.Sprintf("day%d-shard-%d", d+1, i))
			if r := runVerify(t, bin, "receipts", "--plan", plans[d], "--emit", out, "--shard", fmt.Sprint(i)); r.code != 0 {
				t.Fatalf("map step %d of day %d: exit %d\n%s", i, d+1, r.code, r.stderr)
			}
			shards[d] = append(shards[d], out)
		}
	}
	// The verdicts of day 3 with days 1 and 2 as map directories.
	var records []string
	for _, s := range append(append([]string{}, shards[0]...), shards[1]...) {
		records = append(records, "--history", s)
	}
	want := runVerify(t, bin, append(append([]string{"finalize", "--plan", plans[2], "--format", "json"}, records...), shards[2]...)...)
	if want.code != 1 {
		t.Fatalf("finalize with history: exit %d\n%s", want.code, want.stderr)
	}
	for _, note := range []string{"already named by a receipt loaded earlier", "nonce already used by a receipt of this issuer loaded earlier", "the same receipt as one loaded earlier, delivered again"} {
		if !strings.Contains(string(want.stdout), note) {
			t.Errorf("no receipt of day 3 judged %q", note)
		}
	}
	same := func(t *testing.T, got verifyRun) {
		t.Helper()
		if got.code != want.code || !bytes.Equal(got.stdout, want.stdout) || got.summary() != want.summary() {
			t.Errorf("exit %d (want %d), output differs from the map directories as history:\n%s\n%s", got.code, want.code, firstDiff(want.stdout, got.stdout), got.stderr)
		}
	}
	views := func(engine string, d int, extra ...string) []string {
		return partsStatements(t, bin, append(append([]string{"--plan", plans[d], "--engine", engine}, extra...), shards[d]...)...)
	}

	duckHist := filepath.Join(dir, "history-duckdb")
	if err := os.Mkdir(duckHist, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("duckdb", func(t *testing.T) {
		for d := range 2 {
			r := runVerify(t, bin, append([]string{"finalize", "--plan", plans[d], "--format", "json", "--history-keys", duckHist, "--append-history", duckHist}, shards[d]...)...)
			if r.code > 1 {
				t.Fatalf("finalize --append-history of day %d: exit %d\n%s", d+1, r.code, r.stderr)
			}
		}
		same(t, runVerify(t, bin, append([]string{"finalize", "--plan", plans[2], "--format", "json", "--history-keys", duckHist}, shards[2]...)...))
	})

	t.Run("postgres", func(t *testing.T) {
		if os.Getenv("VERIFY_ENGINES") == "off" {
			t.Skip("VERIFY_ENGINES=off: .ci/run runs this test in a step of its own")
		}
		// The script of verify parts --engine postgres, run by psql:
		// the run's records and the compact history's rows its keys
		// hit. PostgreSQL's rows are DuckDB's, which the subtest above
		// ties to the map directories as history.
		want := duckDBJudgments(t, views("duckdb", 2, "--history-keys", duckHist))
		script := runVerify(t, bin, append([]string{"parts", "--plan", plans[2], "--engine", "postgres", "--history-keys", duckHist}, shards[2]...)...)
		if script.code != 0 {
			t.Fatalf("verify parts --engine postgres: exit %d\n%s", script.code, script.stderr)
		}
		if bytes.Contains(script.stdout, []byte("COPY history_keys (kind, k, scope, receipt_order) FROM STDIN (FORMAT csv);\n\\.\n")) {
			i := bytes.Index(script.stdout, []byte("COPY history_keys"))
			t.Fatalf("verify parts --engine postgres: no history row loaded:\n%s", script.stdout[max(0, i-300):])
		}
		got, err := queryRows(postgresScript(t, script.stdout), queries.Judgments())
		if err != nil {
			t.Fatalf("PostgreSQL: %v", err)
		}
		if d := compare(want, got); d != "" || len(want.rows) == 0 {
			t.Errorf("PostgreSQL's judgments differ from DuckDB's (%d rows):\n%s", len(want.rows), d)
		}
	})

	// The fold in the engine with the history: day 3's notes of
	// receipts loaded earlier and its summary, shard by shard and
	// whole, are the Go fold's.
	day3 := []string{filepath.Join(dir, "day3-0.jsonl"), filepath.Join(dir, "day3-1.jsonl")}
	var shardSums []string
	goShardSums := func(t *testing.T) []string {
		t.Helper()
		if shardSums == nil {
			shardSums = goFoldSummaries(t, bin, plans[2], records, shards[2], len(shards[2]))
		}
		return shardSums
	}
	t.Run("duckdb/fold-sql", func(t *testing.T) {
		out := t.TempDir()
		verdicts := filepath.Join(out, "verdicts")
		r := runVerify(t, bin, append(append([]string{"judge", "--plan", plans[2], "--emit", filepath.Join(out, "judgments"), "--fold", verdicts}, records...), shards[2]...)...)
		if r.code != 0 {
			t.Fatalf("verify judge --fold: exit %d\n%s", r.code, r.stderr)
		}
		sameFold(t, want.stdout, day3, verdicts)
		if r.summary() != want.summary() {
			t.Errorf("verify judge --fold's summary:\n%s\nverify finalize:\n%s", r.summary(), want.summary())
		}
		sameSummary(t, duckDBSummary(t, views("duckdb", 2, records...), verdicts), goShardSums(t), want.summary())
	})
	t.Run("clickhouse/fold-sql", func(t *testing.T) {
		if os.Getenv("VERIFY_ENGINES") == "off" {
			t.Skip("VERIFY_ENGINES=off: .ci/run runs this test in a step of its own")
		}
		verdicts := filepath.Join(t.TempDir(), "verdicts")
		sum := clickHouseFold(t, views("clickhouse", 2, records...), verdicts, len(shards[2]))
		sameFold(t, want.stdout, day3, verdicts)
		sameSummary(t, sum, goShardSums(t), want.summary())
	})

	chHist := filepath.Join(dir, "history-clickhouse")
	t.Run("clickhouse", func(t *testing.T) {
		if os.Getenv("VERIFY_ENGINES") == "off" {
			t.Skip("VERIFY_ENGINES=off: .ci/run runs this test in a step of its own")
		}
		if err := os.Mkdir(chHist, 0o755); err != nil {
			t.Fatal(err)
		}
		// Each day appended as the runbook does: written hidden, then
		// renamed.
		for d := range 2 {
			attempt := filepath.Join(chHist, fmt.Sprintf(".day%d.attempt", d+1))
			if err := os.Mkdir(attempt, 0o755); err != nil {
				t.Fatal(err)
			}
			clickHouseAppend(t, views("clickhouse", d, "--history-keys", chHist), filepath.Join(attempt, "keys.parquet"), false)
			if err := os.Rename(attempt, filepath.Join(chHist, fmt.Sprintf("day%d", d+1))); err != nil {
				t.Fatal(err)
			}
		}
		judge := func(t *testing.T, extra ...string) {
			t.Helper()
			judgments := filepath.Join(t.TempDir(), "judgments.parquet")
			clickHouseJudgments(t, views("clickhouse", 2, extra...), judgments, 0)
			same(t, runVerify(t, bin, append([]string{"finalize", "--plan", plans[2], "--format", "json", "--judgments", judgments}, shards[2]...)...))
		}
		t.Run("compact", func(t *testing.T) { judge(t, "--history-keys", chHist) })
		t.Run("records", func(t *testing.T) { judge(t, records...) })
		// Each engine reads the history the other wrote.
		t.Run("duckdb-history", func(t *testing.T) { judge(t, "--history-keys", duckHist) })
		t.Run("same-rows", func(t *testing.T) {
			// The two engines appended the same keys.
			duck, err := sql.Open("duckdb", "")
			if err != nil {
				t.Fatal(err)
			}
			defer duck.Close()
			rows := func(d string) string {
				return "SELECT CAST(kind AS VARCHAR), hex(k), hex(scope) FROM read_parquet('" + filepath.ToSlash(filepath.Join(d, "day*", "*.parquet")) + "')"
			}
			var diff, n int64
			if err := duck.QueryRow("SELECT (SELECT count(*) FROM ("+rows(chHist)+" EXCEPT ALL "+rows(duckHist)+")) + (SELECT count(*) FROM ("+rows(duckHist)+" EXCEPT ALL "+rows(chHist)+")), (SELECT count(*) FROM ("+rows(duckHist)+"))").Scan(&diff, &n); err != nil {
				t.Fatal(err)
			}
			if diff != 0 || n == 0 {
				t.Errorf("the histories of ClickHouse and DuckDB differ by %d rows (DuckDB's has %d)", diff, n)
			}
		})
		t.Run("read-by-duckdb", func(t *testing.T) {
			same(t, runVerify(t, bin, append([]string{"finalize", "--plan", plans[2], "--format", "json", "--history-keys", chHist}, shards[2]...)...))
		})
		// The history kept in a RocksDB store: each day judged against
		// the store, its history_append.sql rows written as Parquet and
		// put (history_rocks_put.sql) in the same session. Day 3's
		// judgments probed from the store, and from the Parquet written
		// beside it, are those with the map directories as history.
		t.Run("rocks", func(t *testing.T) {
			store := filepath.Join(dir, "history-rocks")
			files := filepath.Join(dir, "history-rocks-files")
			for _, d := range []string{store, files} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for d := range 2 {
				day := filepath.Join(files, fmt.Sprintf("day%d", d+1))
				if err := os.Mkdir(day, 0o755); err != nil {
					t.Fatal(err)
				}
				clickHouseAppend(t, views("clickhouse", d, "--history-rocks", store), filepath.Join(day, "keys.parquet"), true)
			}
			t.Run("store", func(t *testing.T) { judge(t, "--history-rocks", store) })
			t.Run("files", func(t *testing.T) { judge(t, "--history-keys", files) })
		})
	})
}

// clickHouseAppend runs queries/shard/history_append.sql on chDB after
// the statements of verify parts --engine clickhouse and writes its rows
// as Parquet to out, its Strings as binary (docs/scale-out.md). With
// rocks (the views of --history-rocks) it also puts them into the store
// (queries/shard/history_rocks_put.sql).
func clickHouseAppend(t *testing.T, views []string, out string, rocks bool) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		absent(t, "ClickHouse: node is not installed")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(chdbRunner), "node_modules", "chdb")); err != nil {
		absent(t, "ClickHouse: chDB is not installed in %s (npm install)", filepath.Dir(chdbRunner))
	}
	q := "'" + strings.ReplaceAll(filepath.ToSlash(out), "'", "\\'") + "'"
	setup := append(append(append([]string{}, ClickHouseSettings...), HistoryWriteSettings...), views...)
	count := "SELECT (SELECT count() FROM file(" + q + ", Parquet))"
	if rocks {
		setup = append(setup,
			"CREATE TABLE history_run ENGINE = Memory AS SELECT "+shard.HistoryColumns+" FROM ("+queries.HistoryAppend()+")",
			"INSERT INTO FUNCTION file("+q+", Parquet) SELECT "+shard.HistoryColumns+" FROM history_run",
			queries.HistoryRocksPut())
		count += ", (SELECT count() FROM history_rocks)"
	} else {
		setup = append(setup, "INSERT INTO FUNCTION file("+q+", Parquet) SELECT "+shard.HistoryColumns+" FROM ("+queries.HistoryAppend()+")")
	}
	req := struct {
		Setup   []string  `json:"setup"`
		Queries []chQuery `json:"queries"`
	}{Setup: setup, Queries: []chQuery{{ID: "rows", SQL: count}}}
	stdout, _ := runNode(t, node, chdbRunner, req)
	var a chAnswer
	if err := json.Unmarshal(stdout, &a); err != nil || a.Error != "" || a.Result == nil || len(a.Result.Data) != 1 {
		t.Fatalf("chDB: history not appended: %v %s\n%s", err, a.Error, stdout)
	}
	t.Logf("chDB: keys appended (and in the store): %v", a.Result.Data[0])
}

// HistoryWriteSettings are the settings ClickHouse writes the compact
// history with: its keys are bytes, which other readers (DuckDB) refuse
// as strings, in row groups of 64Ki rows as DuckDB writes them.
var HistoryWriteSettings = []string{"SET output_format_parquet_string_as_string = 0", "SET output_format_parquet_row_group_size = 65536"}

// TestEnginesHistoryEarlierNight: the demo's chain of lines 12-23 over
// four nights, its later receipts first (lines 19-23, then 14, then 17,
// then 16), each night judged against the compact history of the nights
// before, then appended to it. The second night's receipt names a
// predecessor nobody holds and the history holds only later receipts of
// its chain: its chain begins before the input. The third and fourth
// nights' name one the history lacks after the second night's receipt:
// a gap (chain_absent), the fourth's although it stands before the third
// night's (the history keeps its chain's least order). cmd/verify ties
// these verdicts to the audit database's;
// here DuckDB's (verify finalize) are those of ClickHouse (chDB) with the
// history as Parquet and in a RocksDB store, each appended by the engine
// night by night, and PostgreSQL's judgments DuckDB's.
func TestEnginesHistoryEarlierNight(t *testing.T) {
	enginesOff(t)
	bin := buildVerify(t)
	dir := t.TempDir()
	demo, err := filepath.Abs(filepath.Join("..", "..", "..", "testdata", "demo"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(demo, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	trust := []string{"--keys", filepath.Join(demo, "keys", "jwks.json"), "--schemas", filepath.Join(demo, "schemas"), "--at", "2026-12-01T00:00:00Z"}
	nights := [][]string{lines[18:23], lines[13:14], lines[16:17], lines[15:16]}
	plans, maps := make([]string, len(nights)), make([]string, len(nights))
	for i, night := range nights {
		file := filepath.Join(dir, fmt.Sprintf("night-%d.jsonl", i+1))
		if err := os.WriteFile(file, []byte(strings.Join(night, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runVerify(t, bin, append(append([]string{"plan", "--id", fmt.Sprintf("night-%d", i+1)}, trust...), file)...)
		if r.code != 0 {
			t.Fatalf("verify plan: exit %d\n%s", r.code, r.stderr)
		}
		plans[i] = filepath.Join(dir, fmt.Sprintf("plan-%d.json", i+1))
		if err := os.WriteFile(plans[i], r.stdout, 0o644); err != nil {
			t.Fatal(err)
		}
		maps[i] = filepath.Join(dir, "maps", fmt.Sprintf("night-%d", i+1))
		if r := runVerify(t, bin, "receipts", "--plan", plans[i], "--emit", maps[i], "--shard", "0"); r.code != 0 {
			t.Fatalf("map step of night %d: exit %d\n%s", i+1, r.code, r.stderr)
		}
	}
	views := func(engine string, i int, extra ...string) []string {
		return partsStatements(t, bin, append(append([]string{"--plan", plans[i], "--engine", engine}, extra...), maps[i])...)
	}

	// DuckDB, and PostgreSQL over the same history.
	duckHist := filepath.Join(dir, "history-duckdb")
	if err := os.Mkdir(duckHist, 0o755); err != nil {
		t.Fatal(err)
	}
	wants := make([]verifyRun, len(nights))
	for i := range nights {
		wants[i] = runVerify(t, bin, "finalize", "--plan", plans[i], "--format", "json", "--history-keys", duckHist, "--append-history", duckHist, maps[i])
		if wants[i].code > 1 {
			t.Fatalf("finalize --append-history of night %d: exit %d\n%s", i+1, wants[i].code, wants[i].stderr)
		}
		if i == 0 || os.Getenv("VERIFY_ENGINES") == "off" {
			continue
		}
		t.Run(fmt.Sprintf("postgres/night-%d", i+1), func(t *testing.T) {
			want := duckDBJudgments(t, views("duckdb", i, "--history-keys", duckHist))
			script := runVerify(t, bin, "parts", "--plan", plans[i], "--engine", "postgres", "--history-keys", duckHist, maps[i])
			if script.code != 0 {
				t.Fatalf("verify parts --engine postgres: exit %d\n%s", script.code, script.stderr)
			}
			got, err := queryRows(postgresScript(t, script.stdout), queries.Judgments())
			if err != nil {
				t.Fatalf("PostgreSQL: %v", err)
			}
			if d := compare(want, got); d != "" || len(want.rows) == 0 {
				t.Errorf("PostgreSQL's judgments differ from DuckDB's (%d rows):\n%s", len(want.rows), d)
			}
		})
	}
	if wants[1].code != 0 || bytes.Contains(wants[1].stdout, []byte("chain_absent")) {
		t.Errorf("night 2: exit %d, want 0 and no chain_absent (its chain begins before the input)\n%s", wants[1].code, wants[1].stdout)
	}
	for _, i := range []int{2, 3} {
		if wants[i].code != 1 || !bytes.Contains(wants[i].stdout, []byte(`"chain_absent"`)) {
			t.Errorf("night %d: exit %d, want 1 and chain_absent (a gap after the second night's receipt)\n%s", i+1, wants[i].code, wants[i].stdout)
		}
	}

	if os.Getenv("VERIFY_ENGINES") == "off" {
		t.Skip("VERIFY_ENGINES=off: .ci/run runs the engines in a step of their own")
	}
	// ClickHouse: each night judged against the history the engine
	// appended the nights before, as Parquet files (written hidden, then
	// renamed) or in a RocksDB store (its rows put after the night's
	// judgments), and finalized with its judgments.
	for _, kind := range []string{"compact", "rocks"} {
		t.Run("clickhouse/"+kind, func(t *testing.T) {
			hist := filepath.Join(dir, "history-clickhouse-"+kind)
			files := filepath.Join(dir, "history-clickhouse-"+kind+"-files")
			for _, d := range []string{hist, files} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			flag := "--history-keys"
			if kind == "rocks" {
				flag = "--history-rocks"
			}
			for i := range nights {
				judgments := filepath.Join(t.TempDir(), "judgments.parquet")
				clickHouseJudgments(t, views("clickhouse", i, flag, hist), judgments, 0)
				got := runVerify(t, bin, "finalize", "--plan", plans[i], "--format", "json", "--judgments", judgments, maps[i])
				if got.code != wants[i].code || !bytes.Equal(got.stdout, wants[i].stdout) {
					t.Errorf("night %d: exit %d (want %d), output differs from DuckDB's:\n%s\n%s", i+1, got.code, wants[i].code, firstDiff(wants[i].stdout, got.stdout), got.stderr)
				}
				if kind == "rocks" {
					clickHouseAppend(t, views("clickhouse", i, flag, hist), filepath.Join(files, fmt.Sprintf("night-%d.parquet", i+1)), true)
					continue
				}
				attempt := filepath.Join(hist, fmt.Sprintf(".night-%d.attempt", i+1))
				if err := os.Mkdir(attempt, 0o755); err != nil {
					t.Fatal(err)
				}
				clickHouseAppend(t, views("clickhouse", i, flag, hist), filepath.Join(attempt, "keys.parquet"), false)
				if err := os.Rename(attempt, filepath.Join(hist, fmt.Sprintf("night-%d", i+1))); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// partsStatements is what verify parts ARGS writes, one statement a line
// without its semicolon.
func partsStatements(t *testing.T, bin string, args ...string) []string {
	t.Helper()
	r := runVerify(t, bin, append([]string{"parts"}, args...)...)
	if r.code != 0 {
		t.Fatalf("verify parts: exit %d\n%s", r.code, r.stderr)
	}
	var out []string
	for l := range strings.Lines(string(r.stdout)) {
		out = append(out, strings.TrimSuffix(strings.TrimSpace(l), ";"))
	}
	return out
}
