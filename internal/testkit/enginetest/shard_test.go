package enginetest

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/internal/shard"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/queries"
)

// TestEnginesSharded: a generated archive with planted anomalies (breaks,
// forks, absent links, replayed nonces, crossing the shards, and a
// receipt repeated in another shard), split into 4 files, verified by 4
// map steps (`verify receipts --emit`, each its own process) and
// finalized, gives byte for byte the output of one `verify receipts
// --format json` over the 4 files: with the judgment SQL run by
// `verify finalize` on DuckDB, and run on ClickHouse (chDB) and handed to
// finalize as Parquet.
func TestEnginesSharded(t *testing.T) {
	enginesOff(t)
	bin := buildVerify(t)
	dir := t.TempDir()
	lines, trust := generatedArchive(t, dir, 20261203)
	// Four line-aligned parts; the last also repeats receipts of the
	// first (a replay and a fork across shards) and of the third (the
	// same receipts delivered again), and blank and unreadable
	// lines shift the record numbers the notes name. The later namers of
	// the planted forks head the first part, read before their first
	// namers: the receipts' order, not the shards', decides which links.
	forks := forkLines(t, dir)
	var head []string
	for _, i := range forks {
		head = append(head, lines[i])
	}
	var parts []string
	q := len(lines) / 4
	for i := range 4 {
		var kept []string
		end := min((i+1)*q, len(lines))
		if i == 3 {
			end = len(lines)
		}
		for j := i * q; j < end; j++ {
			if !slices.Contains(forks, j) {
				kept = append(kept, lines[j])
			}
		}
		body := strings.Join(kept, "")
		switch i {
		case 0:
			body = strings.Join(head, "") + body
		case 3:
			// and a stretch of the third part delivered again: the
			// same signed bytes, not replays.
			body += strings.Join(lines[5:8], "") + strings.Join(lines[2*q+10:2*q+14], "")
		}
		if i == 1 {
			body = "\n" + body + "not json\n   \n" + `{"unknown":"shape"}` + "\n"
		}
		p := filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", i))
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
	}

	want := runVerify(t, bin, append(append([]string{"receipts", "--format", "json"}, trust...), parts...)...)
	if want.code != 1 {
		t.Fatalf("verify receipts: exit %d, want 1 (planted failures)\n%s", want.code, want.stderr)
	}
	for _, reason := range []string{"chain_break", "chain_fork", "chain_absent", "nonce_replay", "malformed"} {
		if !strings.Contains(want.summary(), "summary: "+reason+": ") {
			t.Fatalf("verify receipts found no %s: the archive plants none\n%s", reason, want.summary())
		}
	}
	// Every kind of note the fold writes in a run without history
	// (the fold in the engine gives them, below).
	for _, note := range []string{"is already named by an earlier receipt (record ", "nonce already used by an earlier receipt of this issuer (record ",
		"delivered again", "claims chain position", "belongs to another chain", "is absent, after earlier receipts"} {
		if !bytes.Contains(want.stdout, []byte(note)) {
			t.Fatalf("verify receipts writes no note %q: the archive plants none", note)
		}
	}

	// The plan, then the map steps, at once, each its own process.
	plan := filepath.Join(dir, "plan.json")
	planned := runVerify(t, bin, append(append([]string{"plan", "--id", "enginetest"}, trust...), parts...)...)
	if planned.code != 0 {
		t.Fatalf("verify plan: exit %d\n%s", planned.code, planned.stderr)
	}
	if err := os.WriteFile(plan, planned.stdout, 0o644); err != nil {
		t.Fatal(err)
	}
	maps := filepath.Join(dir, "maps")
	var shards []string
	var wg sync.WaitGroup
	outs := make([]verifyRun, len(parts))
	for i := range parts {
		out := filepath.Join(maps, fmt.Sprintf("shard-%d", i))
		shards = append(shards, out)
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = runVerify(t, bin, "receipts", "--plan", plan, "--emit", out, "--shard", fmt.Sprint(i))
		}()
	}
	wg.Wait()
	for i, o := range outs {
		if o.code != 0 {
			t.Fatalf("map step %d: exit %d\n%s", i, o.code, o.stderr)
		}
	}
	// Files a glob over maps/ would read: a stale part beside a shard's
	// and an attempt that never published. The engines read the parts
	// verify parts lists, so these change nothing.
	stale, err := os.ReadFile(filepath.Join(shards[0], "records-00000.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(shards[3], "records-00099.parquet"), filepath.Join(maps, ".shard-1.attempt-1", "records-00000.parquet")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, stale, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Finalize takes the shards in any order: their numbers order them.
	reversed := []string{shards[3], shards[1], shards[2], shards[0]}
	views := func(engine string, extra ...string) []string {
		r := runVerify(t, bin, append(append([]string{"parts", "--plan", plan, "--engine", engine}, extra...), reversed...)...)
		if r.code != 0 {
			t.Fatalf("verify parts --engine %s: exit %d\n%s", engine, r.code, r.stderr)
		}
		var out []string
		for l := range strings.Lines(string(r.stdout)) {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(l), ";"))
		}
		return out
	}

	same := func(t *testing.T, got verifyRun) {
		t.Helper()
		if got.code != want.code {
			t.Errorf("exit %d, verify receipts %d\n%s", got.code, want.code, got.stderr)
		}
		if !bytes.Equal(got.stdout, want.stdout) {
			t.Errorf("output differs from verify receipts --format json:\n%s", firstDiff(want.stdout, got.stdout))
		}
		if got.summary() != want.summary() {
			t.Errorf("summary:\n%s\nverify receipts:\n%s", got.summary(), want.summary())
		}
	}
	// folded folds each shard alone (a second array job: one process per
	// shard, at once) with the judgments judgmentsOf gives it, and
	// summarizes the folded shards with their results.
	folded := func(t *testing.T, format string, judgmentsOf func(n int) string) verifyRun {
		t.Helper()
		folds := t.TempDir()
		var dirs []string
		runs := make([]verifyRun, len(shards))
		var wg sync.WaitGroup
		for i := range shards {
			out := filepath.Join(folds, fmt.Sprintf("shard-%d", i))
			dirs = append([]string{out}, dirs...) // any order: the plan orders them
			wg.Add(1)
			go func() {
				defer wg.Done()
				runs[i] = runVerify(t, bin, append([]string{"finalize", "--plan", plan, "--format", format, "--judgments", judgmentsOf(i),
					"--shard", fmt.Sprint(i), "--emit", out}, reversed...)...)
			}()
		}
		wg.Wait()
		for i, r := range runs {
			if r.code != 0 {
				t.Fatalf("finalize --shard %d: exit %d\n%s", i, r.code, r.stderr)
			}
		}
		return runVerify(t, bin, append([]string{"summarize", "--plan", plan, "--results"}, dirs...)...)
	}
	t.Run("duckdb", func(t *testing.T) {
		same(t, runVerify(t, bin, append([]string{"finalize", "--plan", plan, "--format", "json"}, reversed...)...))
	})
	t.Run("duckdb/per-shard", func(t *testing.T) {
		judgments := filepath.Join(t.TempDir(), "judgments.parquet")
		duckDBJudgmentsFile(t, views("duckdb"), judgments)
		same(t, folded(t, "jsonl", func(int) string { return judgments }))
		// The text output: its lines, then the summary on stdout.
		wantText := runVerify(t, bin, append(append([]string{"receipts"}, trust...), parts...)...)
		got := folded(t, "text", func(int) string { return judgments })
		if got.code != wantText.code || !bytes.Equal(got.stdout, wantText.stdout) {
			t.Errorf("text: exit %d, verify receipts %d; output:\n%s", got.code, wantText.code, firstDiff(wantText.stdout, got.stdout))
		}
	})
	t.Run("clickhouse", func(t *testing.T) {
		if os.Getenv("VERIFY_ENGINES") == "off" {
			t.Skip("VERIFY_ENGINES=off: .ci/run runs this test in a step of its own")
		}
		judgments := filepath.Join(dir, "judgments.parquet")
		clickHouseJudgments(t, views("clickhouse"), judgments, 0)
		same(t, runVerify(t, bin, append([]string{"finalize", "--plan", plan, "--format", "json", "--judgments", judgments}, reversed...)...))
	})
	t.Run("clickhouse/per-shard", func(t *testing.T) {
		if os.Getenv("VERIFY_ENGINES") == "off" {
			t.Skip("VERIFY_ENGINES=off: .ci/run runs this test in a step of its own")
		}
		// The judgments written one file per shard: each fold reads its
		// own, from the table judgments that verify parts --judgments
		// makes in stages.
		out := filepath.Join(t.TempDir(), "judgments")
		clickHouseJudgments(t, views("clickhouse", "--judgments"), out, len(shards)+1)
		// A shard without rows (here one past the run's) still gets its
		// file: a fold never finds its judgments missing.
		if _, err := os.Stat(filepath.Join(out, fmt.Sprintf("shard-%d.parquet", len(shards)))); err != nil {
			t.Errorf("no file for a shard without judgments: %v", err)
		}
		same(t, folded(t, "jsonl", func(n int) string { return filepath.Join(out, fmt.Sprintf("shard-%d.parquet", n)) }))
	})
	// The fold in the engine: verify judge --fold on DuckDB, and
	// judgments.sql then fold.sql on chDB, give every record the
	// verdict, reasons and chain and nonce axes with their notes of
	// verify receipts, shard by shard and whole; fold_summary.sql over
	// them gives each shard's summary as the Go fold of the shard alone
	// (verify finalize --shard N, its fold.json) and the run's as verify
	// receipts.
	var shardSums []string
	goShardSums := func(t *testing.T) []string {
		t.Helper()
		if shardSums == nil {
			shardSums = goFoldSummaries(t, bin, plan, nil, reversed, len(shards))
		}
		return shardSums
	}
	t.Run("duckdb/fold-sql", func(t *testing.T) {
		out := t.TempDir()
		verdicts := filepath.Join(out, "verdicts")
		r := runVerify(t, bin, append([]string{"judge", "--plan", plan, "--emit", filepath.Join(out, "judgments"), "--fold", verdicts}, reversed...)...)
		if r.code != 0 {
			t.Fatalf("verify judge --fold: exit %d\n%s", r.code, r.stderr)
		}
		sameFold(t, want.stdout, parts, verdicts)
		if r.summary() != want.summary() {
			t.Errorf("verify judge --fold's summary:\n%s\nverify receipts:\n%s", r.summary(), want.summary())
		}
		sameSummary(t, duckDBSummary(t, views("duckdb"), verdicts), goShardSums(t), want.summary())
	})
	t.Run("clickhouse/fold-sql", func(t *testing.T) {
		if os.Getenv("VERIFY_ENGINES") == "off" {
			t.Skip("VERIFY_ENGINES=off: .ci/run runs this test in a step of its own")
		}
		verdicts := filepath.Join(t.TempDir(), "verdicts")
		sum := clickHouseFold(t, views("clickhouse"), verdicts, len(shards))
		sameFold(t, want.stdout, parts, verdicts)
		sameSummary(t, sum, goShardSums(t), want.summary())
	})
	t.Run("clickhouse/2000-parts", func(t *testing.T) {
		if os.Getenv("VERIFY_ENGINES") == "off" {
			t.Skip("VERIFY_ENGINES=off: .ci/run runs this test in a step of its own")
		}
		// The run's records cut into 2,000 files, as a run of 2,000
		// parts would be: the views of verify parts read them by one
		// file() naming them in a list, after the settings they need
		// on ClickHouse (the plan's optimizer steps, the statement's
		// size), and the judgments are still the run's.
		var records []string
		for _, l := range views("list") {
			if f, ok := strings.CutPrefix(l, "shard_records\t"); ok {
				records = append(records, f)
			}
		}
		split := filepath.Join(t.TempDir(), "split")
		duck, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		_, err = duck.Exec("COPY (SELECT *, row_number() OVER (ORDER BY ord) % 2000 AS bucket FROM read_parquet(" + slashedList(records) + ")) TO " +
			sqltext.String(filepath.ToSlash(split)) + " (FORMAT parquet, PARTITION_BY (bucket))")
		duck.Close()
		if err != nil {
			t.Fatal(err)
		}
		files, err := filepath.Glob(filepath.Join(split, "bucket=*", "*.parquet"))
		if err != nil || len(files) < 2000 {
			t.Fatalf("%d files, want at least 2,000: %v", len(files), err)
		}
		stmts, err := shard.Views("clickhouse", files, shard.History{})
		if err != nil {
			t.Fatal(err)
		}
		judgments := filepath.Join(t.TempDir(), "judgments.parquet")
		clickHouseJudgments(t, stmts, judgments, 0)
		same(t, runVerify(t, bin, append([]string{"finalize", "--plan", plan, "--format", "json", "--judgments", judgments}, reversed...)...))
	})
	t.Run("postgres", func(t *testing.T) {
		if os.Getenv("VERIFY_ENGINES") == "off" {
			t.Skip("VERIFY_ENGINES=off: .ci/run runs this test in a step of its own")
		}
		// Standard SQL: PostgreSQL's rows are DuckDB's, which the
		// subtest above ties to verify receipts. The tables are made
		// and loaded by the script of verify parts --engine postgres,
		// run by psql as it is.
		want := duckDBJudgments(t, views("duckdb"))
		script := runVerify(t, bin, append([]string{"parts", "--plan", plan, "--engine", "postgres"}, reversed...)...)
		if script.code != 0 {
			t.Fatalf("verify parts --engine postgres: exit %d\n%s", script.code, script.stderr)
		}
		got, err := queryRows(postgresScript(t, script.stdout), queries.Judgments())
		if err != nil {
			t.Fatalf("PostgreSQL: %v", err)
		}
		if len(want.rows) == 0 {
			t.Fatal("no judgments")
		}
		if d := compare(want, got); d != "" {
			t.Errorf("PostgreSQL's judgments differ from DuckDB's:\n%s", d)
		}
	})
}

// duckDBJudgments runs the judgment SQL on DuckDB after the statements
// of verify parts --engine duckdb.
func duckDBJudgments(t *testing.T, views []string) result {
	t.Helper()
	duck, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	duck.SetMaxOpenConns(1)
	for _, s := range views {
		if _, err := duck.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	res, err := queryRows(duck, queries.Judgments())
	if err != nil {
		t.Fatalf("DuckDB: %v", err)
	}
	return res
}

// duckDBJudgmentsFile runs the judgment SQL on DuckDB after the
// statements of verify parts --engine duckdb and writes its rows as
// Parquet to out.
func duckDBJudgmentsFile(t *testing.T, views []string, out string) {
	t.Helper()
	duck, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	duck.SetMaxOpenConns(1)
	for _, s := range views {
		if _, err := duck.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := duck.Exec("COPY (" + queries.Judgments() + ") TO " + sqltext.String(filepath.ToSlash(out)) + " (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
}

// postgresScript starts PostgreSQL and runs script there with psql, as
// a user would run the script of verify parts --engine postgres (the
// tables the judgment SQL reads, made and loaded), twice: a second run
// makes the tables again, never adds to them.
func postgresScript(t *testing.T, script []byte) *sql.DB {
	t.Helper()
	psql, err := exec.LookPath("psql")
	if err != nil {
		if psql = filepath.Join(pgBin(), "psql"); pgBin() == "" {
			absent(t, "PostgreSQL: psql is not installed")
		}
	}
	cfg := startPostgres(t)
	file := filepath.Join(t.TempDir(), "views.sql")
	if err := os.WriteFile(file, script, 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		cmd := exec.Command(psql, "-X", "-q", "-h", cfg.Host, "-U", cfg.User, "-d", cfg.Database, "-f", file)
		cmd.Env = append(os.Environ(), "PGTZ=UTC")
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("psql -f views.sql: %v\n%s", err, out)
		}
	}
	db := stdlib.OpenDB(*cfg)
	t.Cleanup(func() { db.Close() })
	return db
}

// clickHouseJudgments runs queries/shard/judgments.sql on chDB after the
// statements of verify parts --engine clickhouse and writes its rows as
// Parquet to out, the file as it is in one statement; or with shards > 0
// to one file per shard in the directory out, shard-N.parquet, each
// written by an INSERT of its own from the table judgments made in
// stages (docs/scale-out.md: by views, from verify parts --judgments, or
// else here, by shard.ClickHouseJudgments), so that a shard without
// rows still has its file.
func clickHouseJudgments(t *testing.T, views []string, out string, shards int) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		absent(t, "ClickHouse: node is not installed")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(chdbRunner), "node_modules", "chdb")); err != nil {
		absent(t, "ClickHouse: chDB is not installed in %s (npm install)", filepath.Dir(chdbRunner))
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(filepath.ToSlash(s), "'", "\\'") + "'" }
	insert := []string{"INSERT INTO FUNCTION file(" + q(out) + ", Parquet) SELECT * FROM (" + queries.Judgments() + ")"}
	read := out
	if shards > 0 {
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		insert = nil
		if !slices.ContainsFunc(views, func(s string) bool { return strings.HasPrefix(s, "CREATE TABLE judgments ") }) {
			stages, err := shard.ClickHouseJudgments(queries.Judgments())
			if err != nil {
				t.Fatal(err)
			}
			insert = stages
		}
		for n := range shards {
			insert = append(insert, fmt.Sprintf("INSERT INTO FUNCTION file(%s, Parquet) SELECT * FROM judgments WHERE intDiv(ord, 1099511627776) = %d",
				q(filepath.Join(out, fmt.Sprintf("shard-%d.parquet", n))), n))
		}
		read = filepath.Join(out, "shard-*.parquet")
	}
	req := struct {
		Setup   []string  `json:"setup"`
		Queries []chQuery `json:"queries"`
	}{
		Setup:   append(append(append([]string{}, ClickHouseSettings...), views...), insert...),
		Queries: []chQuery{{ID: "rows", SQL: "SELECT count() FROM file(" + q(read) + ", Parquet)"}},
	}
	stdout, _ := runNode(t, node, chdbRunner, req)
	var a chAnswer
	if err := json.Unmarshal(stdout, &a); err != nil || a.Error != "" || a.Result == nil || len(a.Result.Data) != 1 {
		t.Fatalf("chDB: judgments not written: %v %s\n%s", err, a.Error, stdout)
	}
	t.Logf("chDB: %v judgments", a.Result.Data[0][0])
}

// buildVerify builds the verify command once for the package's tests
// (into a directory TestMain removes) and returns its path.
func buildVerify(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			built.skip = "go is not on PATH: cannot build the verify command"
			return
		}
		dir, err := os.MkdirTemp("", "enginetest-verify-")
		if err != nil {
			built.err = err.Error()
			return
		}
		built.dir = dir
		built.bin = filepath.Join(dir, "verify")
		cmd := exec.Command(goBin, "build", "-o", built.bin, "github.com/receiptverify/verify/cmd/verify")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Sprintf("go build: %v\n%s", err, out)
		}
	})
	if built.skip != "" {
		t.Skip(built.skip)
	}
	if built.err != "" {
		t.Fatal(built.err)
	}
	return built.bin
}

// built is the one build of the verify command the tests share.
var built struct {
	once      sync.Once
	dir, bin  string
	skip, err string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// verifyRun is one run of the verify command.
type verifyRun struct {
	code           int
	stdout, stderr []byte
}

// summary is the run's summary lines (stderr with --format json, each
// prefixed verify:), without the prefix.
func (r verifyRun) summary() string {
	var b strings.Builder
	for line := range strings.SplitAfterSeq(string(r.stderr), "\n") {
		if l, ok := strings.CutPrefix(line, "verify: "); ok && strings.HasPrefix(l, "summary: ") {
			b.WriteString(l)
		}
	}
	return b.String()
}

func runVerify(t *testing.T, bin string, args ...string) verifyRun {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("verify %s: %v", strings.Join(args, " "), err)
	}
	return verifyRun{code: code, stdout: stdout.Bytes(), stderr: stderr.Bytes()}
}

// firstDiff shows the first line where got differs from want.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d (of %d, verify receipts %d):\n  got  %s\n  want %s", i+1, len(g), len(w), gl, wl)
		}
	}
	return "(same lines)"
}

// generatedArchive writes the engine tests' archive of seed into dir
// (3,000 Ed25519 receipts over 3 days from 2026-11-01, hash-chained, DSSE
// and agent-receipts alike, a tenth of them anomalous, with their keys and
// schemas) and returns its lines, each with its newline, and the trust
// flags that verify them (--keys, --schemas, and --at 30 days on).
func generatedArchive(t *testing.T, dir string, seed uint64) (lines, trust []string) {
	t.Helper()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cfg := receiptgen.Config{Seed: seed, N: 3000, Rate: 0.1, Days: 3, Start: start,
		Algs: receiptgen.Ed25519Only(), Mix: receiptgen.Mix{Hash: 100, DSSE: 100, AgentReceipts: 100}}
	if _, err := receiptgen.Generate(cfg, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.SplitAfter(string(raw), "\n")
	trust = []string{"--keys", filepath.Join(dir, "keys", "jwks.json"), "--schemas", filepath.Join(dir, "schemas"), "--at", start.AddDate(0, 0, 30).Format(time.RFC3339)}
	return lines[:len(lines)-1], trust // after the last newline
}

// forkLines is the indexes in the lines of generatedArchive's planted
// forks' later namers (truth.jsonl in dir).
func forkLines(t *testing.T, dir string) []int {
	t.Helper()
	out, err := receiptgen.LoadLinesOf(dir, receiptgen.KindFork)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("no planted fork")
	}
	return out
}

// slashedList is files as a DuckDB list of paths.
func slashedList(files []string) string {
	slashed := make([]string, len(files))
	for i, f := range files {
		slashed[i] = filepath.ToSlash(f)
	}
	return sqltext.List(slashed)
}
