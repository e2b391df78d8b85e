package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/receiptverify/verify/queries"
)

// shardRun is a sharded run of the demo archive in two files, mapped and
// published, with what one verify receipts over the files gives.
type shardRun struct {
	work, plan     string
	shards         []string
	want           string // verify receipts -f jsonl's stdout
	wantCode       int
	trust, sources []string
}

func newShardRun(t *testing.T) *shardRun {
	t.Helper()
	demo := "../../testdata/demo/"
	r := &shardRun{work: t.TempDir()}
	r.trust = []string{"--keys", demo + "keys/jwks.json", "--schemas", demo + "schemas", "--at", "2026-12-01T00:00:00Z"}
	data, err := os.ReadFile(demo + "receipts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	// The second file repeats receipts of the first: replays and forks
	// across the shards.
	for i, body := range []string{strings.Join(lines[:150], ""), strings.Join(lines[150:], "") + strings.Join(lines[3:9], "")} {
		p := filepath.Join(r.work, "part-"+string(rune('a'+i))+".jsonl")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		r.sources = append(r.sources, p)
	}
	code, plan, stderr := runVerify(t, append(append([]string{"plan"}, r.trust...), r.sources...)...)
	if code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, stderr)
	}
	r.plan = filepath.Join(r.work, "plan.json")
	if err := os.WriteFile(r.plan, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range r.sources {
		dir := filepath.Join(r.work, "maps", "shard-"+string(rune('0'+i)))
		if code, _, stderr := runVerify(t, "receipts", "--plan", r.plan, "--emit", dir, "--shard", string(rune('0'+i))); code != exitOK {
			t.Fatalf("map step %d: exit %d\n%s", i, code, stderr)
		}
		r.shards = append(r.shards, dir)
	}
	r.wantCode, r.want, stderr = runVerify(t, append(append([]string{"receipts", "-f", "jsonl"}, r.trust...), r.sources...)...)
	if r.wantCode != exitRejected || !strings.Contains(r.want, "nonce_replay") || !strings.Contains(r.want, "chain_fork") {
		t.Fatalf("verify receipts: exit %d, want 1 with replays and forks\n%s", r.wantCode, stderr)
	}
	return r
}

// finalize runs verify finalize over the run's shards with extra flags.
func (r *shardRun) finalize(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runVerify(t, append(append([]string{"finalize", "--plan", r.plan, "-f", "jsonl"}, args...), r.shards...)...)
}

// judgments runs the judgment SQL over the run's parts, as another
// engine would, into the table j of a DuckDB, and gives a function that
// writes the rows of a query over j as the Parquet file name in the run's
// directory.
func (r *shardRun) judgments(t *testing.T) func(t *testing.T, name, query string) string {
	t.Helper()
	code, views, stderr := runVerify(t, append([]string{"parts", "--plan", r.plan, "--engine", "duckdb"}, r.shards...)...)
	if code != exitOK {
		t.Fatalf("parts: exit %d\n%s", code, stderr)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for l := range strings.Lines(views) {
		if _, err := db.Exec(l); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
	}
	if _, err := db.Exec("CREATE TABLE j AS " + queries.Judgments()); err != nil {
		t.Fatal(err)
	}
	return func(t *testing.T, name, query string) string {
		t.Helper()
		p := filepath.Join(r.work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("COPY (" + query + ") TO '" + p + "' (FORMAT parquet)"); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return p
	}
}

// refused checks a refusal: the exit code, no result on stdout, and
// stderr matching pattern.
func refused(t *testing.T, code int, stdout, stderr string, want int, pattern string) {
	t.Helper()
	if code != want {
		t.Errorf("exit %d, want %d\n%s", code, want, stderr)
	}
	if stdout != "" {
		t.Errorf("results written before the refusal:\n%.300s", stdout)
	}
	if !regexp.MustCompile(pattern).MatchString(stderr) {
		t.Errorf("stderr does not match %q:\n%s", pattern, stderr)
	}
}

// TestFinalizeJudgmentsCover: judgments from another engine must judge
// every record with a link or a nonce exactly once; an empty, partial,
// repeated or foreign set of rows is refused with exit 65 before any
// result is written, never read as "no finding". Serially: run is not
// safe to call twice at once (see TestExitCodes).
func TestFinalizeJudgmentsCover(t *testing.T) {
	r := newShardRun(t)
	code, got, stderr := r.finalize(t)
	if code != r.wantCode || got != r.want {
		t.Fatalf("finalize: exit %d (want %d), output equal to verify receipts: %t\n%s", code, r.wantCode, got == r.want, stderr)
	}

	write := r.judgments(t)
	good := write(t, "good.parquet", "SELECT * FROM j ORDER BY ord, kind")
	code, got, stderr = r.finalize(t, "--judgments", good)
	if code != r.wantCode || got != r.want {
		t.Fatalf("finalize --judgments: exit %d (want %d), output equal to verify receipts: %t\n%s", code, r.wantCode, got == r.want, stderr)
	}

	dup := filepath.Join(r.work, "dup")
	write(t, "dup/a.parquet", "SELECT * FROM j")
	write(t, "dup/b.parquet", "SELECT * FROM j WHERE kind = 'nonce' AND ord < 1099511627776")
	for _, c := range []struct {
		name, query, pattern string
	}{
		{"empty", "SELECT * FROM j WHERE false", `shard 0 \(.*shard-0\): 0 chain rows, and its manifest counts \d+ records with a link`},
		{"partial", "SELECT * FROM j ORDER BY ord, kind OFFSET 1", `shard 0 .*: \d+ (chain|nonce) rows, and its manifest counts \d+ records with a`},
		{"one shard only", "SELECT * FROM j WHERE ord < 1099511627776", `shard 1 .*: 0 chain rows`},
		{"repeated", "SELECT * FROM j UNION ALL (SELECT * FROM j WHERE kind = 'nonce' ORDER BY ord LIMIT 1)", `shard 0 .*: \d+ nonce rows for \d+ records: a record judged twice`},
		{"unknown record", "SELECT CASE WHEN ord = (SELECT max(ord) FROM j) THEN ord + 1000000 ELSE ord END AS ord, kind, outcome, first_ord FROM j", `the (chain|nonce) row of ord \d+ \(\w+\) judges no record with that key`},
		{"unknown shard", "SELECT * FROM j UNION ALL SELECT ord + 7 * 1099511627776, kind, outcome, first_ord FROM j WHERE ord = (SELECT min(ord) FROM j)", `rows of kind "\w+" for shard "7", which the run does not have`},
		{"wrong kind", "SELECT ord, CASE WHEN kind = 'chain' THEN 'nonce' ELSE 'chain' END AS kind, outcome, first_ord FROM j", `shard 0 .*: 0 chain rows|\d+ chain rows, and its manifest`},
		{"no such outcome", "SELECT ord, kind, CASE WHEN ord = (SELECT min(ord) FROM j) THEN 'fine' ELSE outcome END AS outcome, first_ord FROM j", `the (chain|nonce) row of ord \d+ \(fine\) .* has no such outcome`},
		{"delivery of a record twice", "SELECT * FROM j UNION ALL SELECT ord, 'delivery', 'duplicate', first_ord FROM j WHERE kind = 'chain' AND ord = (SELECT max(ord) FROM j WHERE kind = 'chain') UNION ALL SELECT ord, 'delivery', 'duplicate', first_ord FROM j WHERE kind = 'chain' AND ord = (SELECT max(ord) FROM j WHERE kind = 'chain')", `\d+ delivery rows for \d+ records: a record judged twice`},
		{"delivery of another receipt", "SELECT * FROM j UNION ALL SELECT ord, 'delivery', 'duplicate', (SELECT min(ord) FROM j) FROM j WHERE kind = 'chain' AND ord = (SELECT max(ord) FROM j WHERE kind = 'chain' AND ord NOT IN (SELECT ord FROM j WHERE kind = 'delivery'))", `the delivery row of ord \d+ \(duplicate\) judges no record with that key, names as first_ord no record with the same key`},
		{"first_ord of no record", "SELECT ord, kind, outcome, CASE WHEN ord = (SELECT max(ord) FROM j) THEN 5 ELSE first_ord END AS first_ord FROM j", `names as first_ord no record with the same key at or before it`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, strings.ReplaceAll(c.name, " ", "-")+".parquet", c.query)
			code, stdout, stderr := r.finalize(t, "--judgments", p)
			refused(t, code, stdout, stderr, exitDataErr, c.pattern)
		})
	}
	t.Run("a glob that sees a stale file", func(t *testing.T) {
		code, stdout, stderr := r.finalize(t, "--judgments", filepath.Join(dup, "*.parquet"))
		refused(t, code, stdout, stderr, exitDataErr, `a record judged twice`)
	})
	t.Run("a glob that matches nothing", func(t *testing.T) {
		code, stdout, stderr := r.finalize(t, "--judgments", filepath.Join(r.work, "none-*.parquet"))
		refused(t, code, stdout, stderr, exitNoInput, `none-\*\.parquet: the judgments cannot be read`)
	})
}

// TestFinalizeForgedManifest: a manifest edited after its map step (a
// shard number the plan does not have, its parts list emptied, counts or
// trust material or inputs that are not the plan's) is refused with exit
// 65, naming the directory or part.
func TestFinalizeForgedManifest(t *testing.T) {
	r := newShardRun(t)
	manifest := filepath.Join(r.shards[1], "manifest.json")
	orig, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		edit    func(m map[string]any)
		pattern string
	}{
		{"extra shard", func(m map[string]any) { m["shard"] = 5 }, `shard-1: shard 5, and the plan has shards 0 to 1`},
		{"parts emptied", func(m map[string]any) { m["parts"] = []any{} }, `shard-1/manifest.json: no parts`},
		{"counts", func(m map[string]any) {
			p := m["parts"].([]any)[0].(map[string]any)
			p["rows"] = p["rows"].(float64) + 1
			m["rows"] = m["rows"].(float64) + 1
		}, `shard-1/records-00000.parquet: \d+ records \(\d+ links, \d+ nonces\), the manifest says \d+`},
		{"counts against the parts", func(m map[string]any) { m["nonces"] = 0 }, `shard-1/manifest.json: the parts hold`},
		{"trust", func(m map[string]any) { m["trust"].(map[string]any)["at"] = "2026-12-02T00:00:00Z" }, `shard-1: shard 1 was mapped with --at 2026-12-02T00:00:00Z, the plan's 2026-12-01T00:00:00Z`},
		{"key file", func(m map[string]any) {
			m["trust"].(map[string]any)["keys"].([]any)[0].(map[string]any)["sha256"] = strings.Repeat("0", 64)
		}, `shard-1: shard 1 was mapped with key file .*jwks.json with SHA-256 0+, where the plan has`},
		{"inputs", func(m map[string]any) { m["inputs"].([]any)[0].(map[string]any)["size"] = 1 }, `shard-1: shard 1 read other inputs than the plan gives it`},
		{"plan", func(m map[string]any) { m["plan_sha256"] = strings.Repeat("1", 64) }, `shard-1: shard 1 of run \w+ \(plan SHA-256 1+\), not of run .*: a foreign shard`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(orig, &m); err != nil {
				t.Fatal(err)
			}
			c.edit(m)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(manifest, b, 0o644); err != nil {
				t.Fatal(err)
			}
			defer os.WriteFile(manifest, orig, 0o644)
			code, stdout, stderr := r.finalize(t)
			refused(t, code, stdout, stderr, exitDataErr, c.pattern)
		})
	}
	if code, got, stderr := r.finalize(t); code != r.wantCode || got != r.want {
		t.Errorf("the manifest restored: exit %d, output equal: %t\n%s", code, got == r.want, stderr)
	}
}
