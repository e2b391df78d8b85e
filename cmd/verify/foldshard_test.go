package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// fold runs verify finalize --shard n --emit dir over the run's shards.
func (r *shardRun) fold(t *testing.T, n int, dir string, args ...string) (int, string, string) {
	t.Helper()
	return runVerify(t, append(append([]string{"finalize", "--plan", r.plan, "--shard", fmt.Sprint(n), "--emit", dir}, args...), r.shards...)...)
}

// summaryLines are the summary lines of stderr (verify: summary: ...).
func summaryLines(stderr string) string {
	var b strings.Builder
	for l := range strings.Lines(stderr) {
		if strings.HasPrefix(l, "verify: summary: ") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// TestFinalizeShard: each shard folded alone (verify finalize --shard N
// --emit DIR) publishes its part of the output; verify summarize over the
// folded shards, in any order, gives the output, summary and exit code of
// one verify receipts over the inputs. Judgments that do not cover the
// shard's records, and a first_ord past an earlier shard's records, are
// refused with nothing published. Serially: run is not safe to call twice
// at once (see TestExitCodes).
func TestFinalizeShard(t *testing.T) {
	r := newShardRun(t)
	write := r.judgments(t)
	good := write(t, "good.parquet", "SELECT * FROM j")
	_, _, wholeStderr := r.finalize(t, "--judgments", good)

	folds := filepath.Join(r.work, "folds")
	var dirs []string
	for i := range r.shards {
		dir := filepath.Join(folds, fmt.Sprintf("shard-%d", i))
		code, stdout, stderr := r.fold(t, i, dir, "-f", "jsonl", "--judgments", good)
		if code != exitOK || stdout != "" {
			t.Fatalf("fold of shard %d: exit %d, stdout %q\n%s", i, code, stdout, stderr)
		}
		if !regexp.MustCompile(`^verify: finalize: shard \d of run \w+: \d+ receipts verified .*, folded in `).MatchString(stderr) {
			t.Errorf("fold of shard %d: stderr %q", i, stderr)
		}
		dirs = append([]string{dir}, dirs...)
	}
	code, stdout, stderr := runVerify(t, append([]string{"summarize", "--plan", r.plan, "--results"}, dirs...)...)
	if code != r.wantCode || stdout != r.want {
		t.Fatalf("summarize --results: exit %d (want %d), output equal to verify receipts: %t\n%s", code, r.wantCode, stdout == r.want, stderr)
	}
	if got, want := summaryLines(stderr), summaryLines(wholeStderr); got != want || got == "" {
		t.Errorf("summary:\n%s\nfinalize of the whole run:\n%s", got, want)
	}
	code, stdout, _ = runVerify(t, append([]string{"summarize", "--plan", r.plan}, dirs...)...)
	if code != r.wantCode || stdout != "" {
		t.Errorf("summarize without --results: exit %d, stdout %q", code, stdout)
	}

	t.Run("text", func(t *testing.T) {
		_, want, _ := runVerify(t, append(append([]string{"receipts"}, r.trust...), r.sources...)...)
		var dirs []string
		for i := range r.shards {
			dir := filepath.Join(r.work, "folds-text", fmt.Sprintf("shard-%d", i))
			if code, _, stderr := r.fold(t, i, dir, "--judgments", good); code != exitOK {
				t.Fatalf("fold of shard %d: exit %d\n%s", i, code, stderr)
			}
			dirs = append(dirs, dir)
		}
		code, got, _ := runVerify(t, append([]string{"summarize", "--plan", r.plan, "--results"}, dirs...)...)
		if code != r.wantCode || got != want {
			t.Errorf("exit %d (want %d), output:\n%s\nverify receipts:\n%s", code, r.wantCode, got, want)
		}
		code, got, _ = runVerify(t, append([]string{"summarize", "--plan", r.plan}, dirs...)...)
		if code != r.wantCode || !strings.HasPrefix(got, "summary: ") || !strings.HasSuffix(want, got) {
			t.Errorf("without --results: exit %d, stdout %q", code, got)
		}
		// A shard folded as text beside the others as JSON Lines.
		code, stdout, stderr := runVerify(t, "summarize", "--plan", r.plan, filepath.Join(folds, "shard-0"), dirs[1])
		refused(t, code, stdout, stderr, exitDataErr, `shard-1: folded as text, and .* as jsonl: fold every shard in one format`)
	})

	t.Run("retry of a folded shard", func(t *testing.T) {
		code, stdout, stderr := r.fold(t, 1, filepath.Join(folds, "shard-1"), "-f", "jsonl", "--judgments", good)
		if code != exitOK || stdout != "" || !strings.Contains(stderr, "shard 1 of run") || !strings.Contains(stderr, "is already folded in") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})

	shard1 := "1099511627776"
	for _, c := range []struct {
		name, query, pattern string
	}{
		{"the other shard judgments only", "SELECT * FROM j WHERE ord < " + shard1, `shard 1 \(.*shard-1\): 0 chain rows, and its manifest counts \d+ records with a link`},
		{"partial", "SELECT * FROM j WHERE ord <> (SELECT max(ord) FROM j)", `shard 1 .*: \d+ (chain|nonce) rows, and its manifest counts \d+`},
		{"repeated", "SELECT * FROM j UNION ALL (SELECT * FROM j WHERE ord >= " + shard1 + " ORDER BY ord LIMIT 1)", `shard 1 .*: a record judged twice`},
		{"first_ord of no record in the shard", "SELECT ord, kind, outcome, CASE WHEN ord = (SELECT max(ord) FROM j) THEN " + shard1 + " + 100000 ELSE first_ord END AS first_ord FROM j",
			`names as first_ord no record with the same key at or before it`},
		{"first_ord past an earlier shard records", "SELECT ord, kind, outcome, CASE WHEN ord = (SELECT max(ord) FROM j) THEN 100000 ELSE first_ord END AS first_ord FROM j",
			`the (chain|nonce) row of ord \d+: ord 100000 is no record of the run`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, "shard1/"+strings.ReplaceAll(c.name, " ", "-")+".parquet", c.query)
			dir := filepath.Join(r.work, "refused", strings.ReplaceAll(c.name, " ", "-"))
			code, stdout, stderr := r.fold(t, 1, dir, "-f", "jsonl", "--judgments", p)
			refused(t, code, stdout, stderr, exitDataErr, c.pattern)
			if ents, _ := os.ReadDir(filepath.Dir(dir)); len(ents) != 0 {
				t.Errorf("left in %s: %v", filepath.Dir(dir), ents)
			}
		})
	}

	for _, c := range []struct {
		name    string
		args    []string
		code    int
		pattern string
	}{
		{"--emit without --shard", []string{"finalize", "--plan", r.plan, "--judgments", good, "--emit", "x"}, exitUsage, `--emit needs --shard N`},
		{"--shard without --emit", []string{"finalize", "--plan", r.plan, "--judgments", good, "--shard", "0"}, exitUsage, `--shard needs --emit DIR`},
		{"--shard without --judgments", []string{"finalize", "--plan", r.plan, "--shard", "0", "--emit", "x"}, exitUsage, `--shard needs --judgments`},
		{"--shard with --history", []string{"finalize", "--plan", r.plan, "--shard", "0", "--emit", "x", "--history", r.shards[0]}, exitUsage, `--history and --history-keys do not go with --shard`},
		{"--shard with --history-keys", []string{"finalize", "--plan", r.plan, "--shard", "0", "--emit", "x", "--history-keys", "h"}, exitUsage, `--history and --history-keys do not go with --shard`},
		{"--shard with --append-history", []string{"finalize", "--plan", r.plan, "--shard", "0", "--emit", "x", "--judgments", "j.parquet", "--append-history", "h"}, exitUsage, `--append-history does not go with --shard`},
		{"--shard out of range", []string{"finalize", "--plan", r.plan, "--judgments", good, "--shard", "2", "--emit", filepath.Join(r.work, "x")}, exitDataErr, `--shard 2: the plan has shards 0 to 1`},
		{"--emit holding something else", []string{"finalize", "--plan", r.plan, "--judgments", good, "--shard", "0", "--emit", r.shards[1]}, exitDataErr, `not empty and not a folded shard's directory`},
		{"--emit holding another shard", []string{"finalize", "--plan", r.plan, "--judgments", good, "--shard", "0", "--emit", filepath.Join(folds, "shard-1")}, exitDataErr, `holds folded shard 1 of run \w+ .*, not shard 0`},
		{"a missing map directory", []string{"finalize", "--plan", r.plan, "--judgments", good, "--shard", "0", "--emit", filepath.Join(r.work, "x"), r.shards[0]}, exitNoInput, `shard 1 of 2 is missing`},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if c.name != "a missing map directory" {
				args = append(args, r.shards...)
			}
			code, stdout, stderr := runVerify(t, args...)
			refused(t, code, stdout, stderr, c.code, c.pattern)
		})
	}
	if _, err := os.Stat(filepath.Join(r.work, "x")); err == nil {
		t.Errorf("a refused fold left %s", filepath.Join(r.work, "x"))
	}
}

// TestSummarizeRefusals: verify summarize refuses folded shards that do
// not make up the plan's run (missing, repeated, foreign or extra), and a
// results file or summary changed since its fold, with exit 65 or 66 and
// nothing on stdout.
func TestSummarizeRefusals(t *testing.T) {
	r := newShardRun(t)
	good := r.judgments(t)(t, "good.parquet", "SELECT * FROM j")
	folds := filepath.Join(r.work, "folds")
	var dirs []string
	for i := range r.shards {
		dir := filepath.Join(folds, fmt.Sprintf("shard-%d", i))
		if code, _, stderr := r.fold(t, i, dir, "-f", "jsonl", "--judgments", good); code != exitOK {
			t.Fatalf("fold of shard %d: exit %d\n%s", i, code, stderr)
		}
		dirs = append(dirs, dir)
	}
	// forged copies shard 1's folded directory and lets edit change it.
	forged := func(t *testing.T, edit func(dir string)) string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "shard-1")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"fold.json", "results.jsonl"} {
			b, err := os.ReadFile(filepath.Join(dirs[1], name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		edit(dir)
		return dir
	}
	editJSON := func(t *testing.T, key string, value any) func(string) {
		return func(dir string) {
			p := filepath.Join(dir, "fold.json")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if sub, k, ok := strings.Cut(key, "."); ok {
				m[sub].(map[string]any)[k] = value
			} else {
				m[key] = value
			}
			if b, err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	results := func(t *testing.T, change func([]byte) []byte) func(string) {
		return func(dir string) {
			p := filepath.Join(dir, "results.jsonl")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, change(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name    string
		dirs    func(t *testing.T) []string
		code    int
		pattern string
	}{
		{"missing", func(*testing.T) []string { return dirs[:1] }, exitNoInput, `folded shard 1 of 2 is missing`},
		{"given twice", func(*testing.T) []string { return []string{dirs[0], dirs[1], dirs[1]} }, exitDataErr, `folded shard 1, as .*shard-1 is: give each shard once`},
		{"copied", func(t *testing.T) []string { return []string{dirs[0], dirs[1], forged(t, func(string) {})} }, exitDataErr, `folded shard 1, as .* is: give each shard once`},
		{"a map directory", func(*testing.T) []string { return []string{dirs[0], r.shards[1]} }, exitNoInput, `not a folded shard's directory: no fold.json`},
		{"foreign", func(t *testing.T) []string {
			return []string{dirs[0], forged(t, editJSON(t, "plan_sha256", strings.Repeat("0", 64)))}
		}, exitDataErr, `folded shard 1 of run \w+ \(plan SHA-256 0+\), not of run`},
		{"extra shard", func(t *testing.T) []string { return []string{dirs[0], dirs[1], forged(t, editJSON(t, "shard", 5))} }, exitDataErr, `shard 5, and the plan has shards 0 to 1`},
		{"results grown", func(t *testing.T) []string {
			return []string{dirs[0], forged(t, results(t, func(b []byte) []byte { return append(b, b[:10]...) }))}
		}, exitDataErr, `results.jsonl: \d+ bytes, fold.json says \d+`},
		{"results changed", func(t *testing.T) []string {
			return []string{dirs[0], forged(t, results(t, func(b []byte) []byte { return []byte(strings.Replace(string(b), `"PASS"`, `"FAIL"`, 1)) }))}
		}, exitDataErr, `results.jsonl: SHA-256 [0-9a-f]{64}, fold.json says`},
		{"results removed", func(t *testing.T) []string {
			return []string{dirs[0], forged(t, func(dir string) { os.Remove(filepath.Join(dir, "results.jsonl")) })}
		}, exitNoInput, `results.jsonl: the results cannot be read`},
		{"summary forged", func(t *testing.T) []string {
			return []string{dirs[0], forged(t, editJSON(t, "summary.fail", 0))}
		}, exitDataErr, `fold.json: a summary with a negative count, receipts that are not`},
		{"summary duplicates", func(t *testing.T) []string {
			return []string{dirs[0], forged(t, editJSON(t, "summary.duplicates", 1<<40))}
		}, exitDataErr, `fold.json: .*more duplicates or chains outside than receipts`},
		{"summary negative", func(t *testing.T) []string {
			return []string{dirs[0], forged(t, editJSON(t, "summary.files", -1))}
		}, exitDataErr, `fold.json: a summary with a negative count`},
		{"summary reason not a code", func(t *testing.T) []string {
			return []string{dirs[0], forged(t, editJSON(t, "summary.reasons", map[string]any{"\x1b]0;owned\x07": 1}))}
		}, exitDataErr, `fold.json: summary: reason .* not a reason code of verify`},
		{"another format", func(t *testing.T) []string {
			return []string{dirs[0], forged(t, editJSON(t, "format", "csv"))}
		}, exitDataErr, `fold.json: format "csv"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runVerify(t, append([]string{"summarize", "--plan", r.plan, "--results"}, c.dirs(t)...)...)
			refused(t, code, stdout, stderr, c.code, c.pattern)
		})
	}
	t.Run("usage", func(t *testing.T) {
		code, stdout, stderr := runVerify(t, "summarize", "--plan", r.plan)
		refused(t, code, stdout, stderr, exitUsage, `want at least one DIR`)
		code, stdout, stderr = runVerify(t, append([]string{"summarize"}, dirs...)...)
		refused(t, code, stdout, stderr, exitUsage, `want --plan FILE`)
	})
}

// TestFoldReceipts: a fold with --receipts publishes the same results
// and, beside them, the report's tables named in fold.json; verify parts
// --folds lists exactly their files (every shard's receipts, one
// expected_tools and trust) and refuses a shard folded without them, a
// table file changed since its fold and a fold.json naming a file outside
// its tables. Serially, as TestFinalizeShard.
func TestFoldReceipts(t *testing.T) {
	testenv.Long(t)
	r := newShardRun(t)
	good := r.judgments(t)(t, "good.parquet", "SELECT * FROM j")
	var dirs, plain []string
	for i := range r.shards {
		dir := filepath.Join(r.work, "folds", fmt.Sprintf("shard-%d", i))
		if code, stdout, stderr := r.fold(t, i, dir, "-f", "jsonl", "--receipts", "--judgments", good); code != exitOK || stdout != "" {
			t.Fatalf("fold of shard %d with --receipts: exit %d, stdout %q\n%s", i, code, stdout, stderr)
		}
		dirs = append(dirs, dir)
		p := filepath.Join(r.work, "plain", fmt.Sprintf("shard-%d", i))
		if code, _, stderr := r.fold(t, i, p, "-f", "jsonl", "--judgments", good); code != exitOK {
			t.Fatalf("fold of shard %d: exit %d\n%s", i, code, stderr)
		}
		plain = append(plain, p)
		a, _ := os.ReadFile(filepath.Join(dir, "results.jsonl"))
		b, _ := os.ReadFile(filepath.Join(p, "results.jsonl"))
		if string(a) != string(b) || len(a) == 0 {
			t.Errorf("shard %d: the results differ with --receipts", i)
		}
	}
	if code, stdout, stderr := runVerify(t, append([]string{"summarize", "--plan", r.plan, "--results"}, dirs...)...); code != r.wantCode || stdout != r.want {
		t.Fatalf("summarize --results: exit %d (want %d), output equal to verify receipts: %t\n%s", code, r.wantCode, stdout == r.want, stderr)
	}
	code, list, stderr := runVerify(t, append([]string{"parts", "--plan", r.plan, "--folds", "--engine", "list"}, dirs...)...)
	if code != exitOK {
		t.Fatalf("parts --folds: exit %d\n%s", code, stderr)
	}
	count := map[string]int{}
	for l := range strings.Lines(list) {
		table, path, ok := strings.Cut(strings.TrimSpace(l), "\t")
		if !ok || !filepath.IsAbs(path) {
			t.Fatalf("parts --folds: line %q", l)
		}
		if _, err := os.Stat(path); err != nil {
			t.Error(err)
		}
		count[table]++
	}
	if count["receipts"] < len(r.shards) || count["files"] != len(r.shards) || count["rejects"] != len(r.shards) ||
		count["expected_tools"] != 1 || count["trust"] != 1 || len(count) != 5 {
		t.Errorf("parts --folds: %v files by table\n%s", count, list)
	}
	for _, engine := range []string{"duckdb", "clickhouse"} {
		code, views, stderr := runVerify(t, append([]string{"parts", "--plan", r.plan, "--folds", "--engine", engine}, dirs...)...)
		if code != exitOK || strings.Count(views, "CREATE VIEW ") != 5 {
			t.Errorf("parts --folds --engine %s: exit %d\n%s%s", engine, code, views, stderr)
		}
	}

	t.Run("iceberg", func(t *testing.T) {
		table := filepath.Join(r.work, "iceberg", "receipts")
		commit := func(extra ...string) (int, string, string) {
			return runVerify(t, append(append([]string{"parts", "--plan", r.plan, "--folds", "--iceberg", table}, extra...), dirs...)...)
		}
		if code, stdout, stderr := commit(); code != exitOK || stdout != "" || !strings.Contains(stderr, "committed to the Iceberg table") {
			t.Fatalf("parts --iceberg: exit %d, stdout %q\n%s", code, stdout, stderr)
		}
		if code, stdout, stderr := commit(); code != exitOK || stdout != "" || !strings.Contains(stderr, "already (snapshot") {
			t.Fatalf("parts --iceberg again: exit %d, stdout %q\n%s", code, stdout, stderr)
		}
		metas, _ := filepath.Glob(filepath.Join(table, "metadata", "v*.metadata.json"))
		data, _ := filepath.Glob(filepath.Join(table, "data", "day=*", "*.parquet"))
		if len(metas) != 1 || len(data) < len(dirs) {
			t.Errorf("the table holds %d metadata files and %d data files", len(metas), len(data))
		}
		for _, p := range append(metas, data...) {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
				t.Errorf("%s: %v, not 0644", p, err)
			}
		}
		for _, c := range []struct {
			name    string
			args    []string
			code    int
			pattern string
		}{
			{"without --folds", []string{"parts", "--plan", r.plan, "--iceberg", table}, exitUsage, `--iceberg goes with --folds`},
			{"with --engine", []string{"parts", "--plan", r.plan, "--folds", "--iceberg", table, "--engine", "duckdb"}, exitUsage, `--engine and --base do not go with --iceberg`},
			{"a location without --iceberg", []string{"parts", "--plan", r.plan, "--folds", "--iceberg-location", "s3://b/t"}, exitUsage, `--iceberg-location goes with --iceberg DIR`},
			{"a location that is no URL", []string{"parts", "--plan", r.plan, "--folds", "--iceberg", table, "--iceberg-location", "lake/receipts"}, exitUsage, `want a URL`},
			{"another location", []string{"parts", "--plan", r.plan, "--folds", "--iceberg", table, "--iceberg-location", "s3://b/t"}, exitDataErr, `the table's location is file://.*, not s3://b/t`},
			{"a shard folded without --receipts", []string{"parts", "--plan", r.plan, "--folds", "--iceberg", table, dirs[0], plain[1]}, exitNoInput, `shards \[1\] were folded without --receipts`},
		} {
			t.Run(c.name, func(t *testing.T) {
				args := c.args
				if !slices.Contains(args, dirs[0]) {
					args = append(args, dirs...)
				}
				code, stdout, stderr := runVerify(t, args...)
				refused(t, code, stdout, stderr, c.code, c.pattern)
			})
		}
	})
	t.Run("base", func(t *testing.T) {
		t.Chdir(r.work)
		for _, base := range []string{".", "s3://bucket/run/"} {
			code, got, stderr := runVerify(t, append([]string{"parts", "--plan", r.plan, "--folds", "--base", base}, dirs...)...)
			if code != exitOK {
				t.Fatalf("parts --folds --base %s: exit %d\n%s", base, code, stderr)
			}
			prefix := strings.TrimSuffix(strings.TrimPrefix(base, "."), "/")
			if prefix != "" {
				prefix += "/"
			}
			work, _ := filepath.EvalSymlinks(r.work)
			want := strings.ReplaceAll(strings.ReplaceAll(list, "\t"+r.work+string(filepath.Separator), "\t"+prefix), "\t"+work+string(filepath.Separator), "\t"+prefix)
			if got != filepath.ToSlash(want) || strings.Contains(got, r.work) {
				t.Errorf("parts --folds --base %s:\n%s\nwant\n%s", base, got, want)
			}
		}
		// The map directories' parts too.
		code, got, stderr := runVerify(t, append([]string{"parts", "--plan", r.plan, "--base", "s3://bucket/run"}, r.shards...)...)
		if code != exitOK || strings.Count(got, "shard_records\ts3://bucket/run/") != strings.Count(got, "\n") || got == "" {
			t.Errorf("parts --base s3://bucket/run: exit %d\n%s%s", code, got, stderr)
		}
		for _, c := range []struct {
			name    string
			args    []string
			pattern string
		}{
			{"no URL", []string{"--base", "run/"}, `--base "run/": want \. or a URL`},
			{"a URL for ClickHouse", []string{"--base", "s3://bucket/run", "--engine", "clickhouse"}, `--base URL goes with --engine list or duckdb`},
		} {
			code, stdout, stderr := runVerify(t, append(append([]string{"parts", "--plan", r.plan, "--folds"}, c.args...), dirs...)...)
			refused(t, code, stdout, stderr, exitUsage, c.pattern)
		}
		t.Chdir(dirs[0])
		code, stdout, stderr := runVerify(t, append([]string{"parts", "--plan", r.plan, "--folds", "--base", "."}, dirs...)...)
		refused(t, code, stdout, stderr, exitUsage, `--base: .* is outside the current directory`)
	})
	t.Run("a shard folded without --receipts", func(t *testing.T) {
		code, stdout, stderr := runVerify(t, "parts", "--plan", r.plan, "--folds", dirs[0], plain[1])
		refused(t, code, stdout, stderr, exitNoInput, `shards \[1\] were folded without --receipts`)
		code, stdout, stderr = runVerify(t, "query", "--lake", filepath.Join(r.work, "plain"), "days")
		refused(t, code, stdout, stderr, exitNoInput, `were folded without --receipts`)
	})
	t.Run("--lake", func(t *testing.T) {
		lake := filepath.Join(r.work, "folds")
		// The files table: every input of the plan, once.
		code, stdout, stderr := runVerify(t, "query", "--lake", lake, "--plan", r.plan, "files", "-f", "csv")
		if code != exitOK || strings.Count(stdout, "\n") != len(r.sources)+1 {
			t.Fatalf("query --lake files: exit %d, %d inputs\n%s%s", code, len(r.sources), stdout, stderr)
		}
		for _, src := range r.sources {
			if !strings.Contains(stdout, src+",") {
				t.Errorf("query --lake files: no row of %s\n%s", src, stdout)
			}
		}
		code, stdout, stderr = runVerify(t, "query", "--lake", lake, "days", "-f", "jsonl")
		if code != exitOK || stdout == "" {
			t.Fatalf("query --lake days: exit %d\n%s%s", code, stdout, stderr)
		}
		var day struct {
			Day string `json:"day"`
		}
		if err := json.Unmarshal([]byte(strings.SplitN(stdout, "\n", 2)[0]), &day); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(r.work, "lake-report")
		code, stdout, stderr = runVerify(t, "report", "--lake", lake, "--day", day.Day, "--out", out)
		if (code != exitOK && code != exitRejected) || !strings.Contains(stdout, day.Day+": report: ") {
			t.Fatalf("report --lake: exit %d\n%s%s", code, stdout, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
			t.Error(err)
		}
		// show: a failing receipt's line (stored in the lake) and a
		// passing one's (read again from its input), as in the input.
		code, stdout, stderr = runVerify(t, "query", "--lake", lake, "failures", "-f", "jsonl")
		var failed struct {
			Source string `json:"source"`
			Line   int    `json:"line"`
		}
		if code != exitOK || json.Unmarshal([]byte(strings.SplitN(stdout, "\n", 2)[0]), &failed) != nil || failed.Source == "" {
			t.Fatalf("query --lake failures: exit %d\n%s%s", code, stdout, stderr)
		}
		input, err := os.ReadFile(failed.Source)
		if err != nil {
			t.Fatal(err)
		}
		inputLines := strings.Split(string(input), "\n")
		for _, line := range []int{failed.Line, 1} {
			at := fmt.Sprintf("%s:%d", failed.Source, line)
			code, stdout, stderr = runVerify(t, "show", "--lake", lake, at)
			if code != exitOK || stdout != inputLines[line-1]+"\n" {
				t.Errorf("show --lake %s: exit %d\n%s%s\nwant the input's line %d", at, code, stdout, stderr, line)
			}
		}
		// explain: the failing receipt as the lake holds it, judged
		// again with the run's trust material, as from an audit database.
		at := fmt.Sprintf("%s:%d", failed.Source, failed.Line)
		code, stdout, stderr = runVerify(t, "explain", "--lake", lake, "--format", "json", at)
		var ex struct {
			Loaded struct {
				Source, Verdict string
				Line            int
			}
		}
		if code != exitRejected || json.Unmarshal([]byte(stdout), &ex) != nil || ex.Loaded.Source != failed.Source || ex.Loaded.Line != failed.Line || ex.Loaded.Verdict != "FAIL" {
			t.Errorf("explain --lake %s: exit %d, loaded %+v\n%s%s", at, code, ex.Loaded, stdout, stderr)
		}
		code, stdout, stderr = runVerify(t, "show", "--lake", lake, "--plan", r.plan, failed.Source+":9999")
		refused(t, code, stdout, stderr, exitRejected, `no receipt at that FILE:LINE`)
		code, _, stderr = runVerify(t, "query", "--lake", lake, "--db", filepath.Join(r.work, "no.duckdb"), "days")
		if code != exitOK || !strings.Contains(stderr, "is not read") {
			t.Errorf("query --lake with --db: exit %d\n%s", code, stderr)
		}

		missing := filepath.Join(r.work, "lake-missing")
		copyDir(t, dirs[0], filepath.Join(missing, "shard-0"))
		code, stdout, stderr = runVerify(t, "report", "--lake", missing, "--day", day.Day, "--out", filepath.Join(r.work, "r2"))
		refused(t, code, stdout, stderr, exitNoInput, `folded shard 1 of \d+ is missing`)

		stray := filepath.Join(r.work, "lake-stray")
		for i, d := range dirs {
			copyDir(t, d, filepath.Join(stray, fmt.Sprintf("shard-%d", i)))
		}
		copyDir(t, filepath.Join(r.work, "plain", "shard-0"), filepath.Join(stray, ".shard-0.attempt-x")) // hidden: not read
		if code, _, stderr := runVerify(t, "query", "--lake", stray, "days"); code != exitOK {
			t.Fatalf("query --lake with a hidden attempt: exit %d\n%s", code, stderr)
		}
		if err := os.Mkdir(filepath.Join(stray, "other"), 0o755); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr = runVerify(t, "query", "--lake", stray, "days")
		refused(t, code, stdout, stderr, exitNoInput, `other: not a folded shard's directory`)

		code, stdout, stderr = runVerify(t, "query", "--lake", filepath.Join(r.work, "nothing"), "days")
		refused(t, code, stdout, stderr, exitNoInput, `the lake cannot be read`)
		code, stdout, stderr = runVerify(t, "query", "--plan", r.plan, "--db", filepath.Join(r.work, "no.duckdb"), "days")
		refused(t, code, stdout, stderr, exitUsage, `--plan goes with --lake`)
		code, stdout, stderr = runVerify(t, "report", "--day", day.Day, "--out", out)
		refused(t, code, stdout, stderr, exitUsage, `--db is required`)
	})
	t.Run("a table file changed", func(t *testing.T) {
		var m struct {
			Tables []struct{ Name string } `json:"tables"`
		}
		b, err := os.ReadFile(filepath.Join(dirs[1], "fold.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &m); err != nil || len(m.Tables) == 0 {
			t.Fatalf("fold.json: %v, %d tables", err, len(m.Tables))
		}
		copyDir(t, dirs[1], filepath.Join(r.work, "changed"))
		f, err := os.OpenFile(filepath.Join(r.work, "changed", m.Tables[0].Name), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte{0})
		f.Close()
		lake := filepath.Join(r.work, "lake-changed")
		copyDir(t, dirs[0], filepath.Join(lake, "shard-0"))
		copyDir(t, filepath.Join(r.work, "changed"), filepath.Join(lake, "shard-1"))
		for i := 2; i < len(dirs); i++ {
			copyDir(t, dirs[i], filepath.Join(lake, fmt.Sprintf("shard-%d", i)))
		}
		code, stdout, stderr := runVerify(t, "query", "--lake", lake, "days")
		refused(t, code, stdout, stderr, exitDataErr, `bytes, fold.json says \d+: not the file the fold wrote`)
		for _, cmd := range []string{"parts", "summarize"} {
			args := []string{cmd, "--plan", r.plan}
			if cmd == "parts" {
				args = append(args, "--folds")
			}
			code, stdout, stderr := runVerify(t, append(args, dirs[0], filepath.Join(r.work, "changed"))...)
			refused(t, code, stdout, stderr, exitDataErr, `bytes, fold.json says \d+: not the file the fold wrote`)
		}
	})
	t.Run("a table file outside its table", func(t *testing.T) {
		dir := filepath.Join(r.work, "outside")
		copyDir(t, dirs[1], dir)
		b, err := os.ReadFile(filepath.Join(dir, "fold.json"))
		if err != nil {
			t.Fatal(err)
		}
		b = regexp.MustCompile(`"name": "trust/part-0.parquet"`).ReplaceAll(b, []byte(`"name": "trust/../../x.parquet"`))
		if err := os.WriteFile(filepath.Join(dir, "fold.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runVerify(t, "parts", "--plan", r.plan, "--folds", dirs[0], dir)
		refused(t, code, stdout, stderr, exitDataErr, `table file "trust/\.\./\.\./x\.parquet" of "trust": not a Parquet file of the directory`)
	})
	for _, c := range []struct {
		name, pattern string
		edit          func([]any) []any
	}{
		{"a table file named twice", `table file "receipts/day=[0-9-]+/part-0\.parquet" named twice`, func(ts []any) []any { return append(ts, ts[0]) }},
		{"no trust file", `tables without expected_tools or trust`, func(ts []any) []any {
			return slices.DeleteFunc(ts, func(x any) bool { return x.(map[string]any)["table"] == "trust" })
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(r.work, strings.ReplaceAll(c.name, " ", "-"))
			copyDir(t, dirs[1], dir)
			var m map[string]any
			b, err := os.ReadFile(filepath.Join(dir, "fold.json"))
			if err == nil {
				err = json.Unmarshal(b, &m)
			}
			if err != nil {
				t.Fatal(err)
			}
			m["tables"] = c.edit(m["tables"].([]any))
			if b, err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "fold.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runVerify(t, "parts", "--plan", r.plan, "--folds", dirs[0], dir)
			refused(t, code, stdout, stderr, exitDataErr, c.pattern)
		})
	}
	t.Run("an earlier shard's part changed", func(t *testing.T) {
		// The fold of shard 1 reads shard 0's parts for the lines
		// delivered again: with --receipts they are checked.
		changed := filepath.Join(r.work, "maps-changed", "shard-0")
		copyDir(t, r.shards[0], changed)
		parts, _ := filepath.Glob(filepath.Join(changed, "records-*.parquet"))
		if len(parts) == 0 {
			t.Fatal("no part")
		}
		f, err := os.OpenFile(parts[0], os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte{0})
		f.Close()
		dir := filepath.Join(r.work, "refused-receipts", "shard-1")
		code, stdout, stderr := runVerify(t, "finalize", "--plan", r.plan, "--shard", "1", "--emit", dir, "-f", "jsonl", "--judgments", good, "--receipts", changed, r.shards[1])
		refused(t, code, stdout, stderr, exitDataErr, `records-00000\.parquet: SHA-256 \w+, the manifest says \w+`)
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("a refused fold published %s", dir)
		}
	})
	t.Run("an input changed since its map step", func(t *testing.T) {
		// The fold reads again the lines of the receipts not PASS: a
		// line that is not the one verified is refused, and so is an
		// input that cannot be read.
		src := r.sources[1]
		orig, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(src, orig, 0o644)
		if err := os.WriteFile(src, bytes.ReplaceAll(orig, []byte(`"a`), []byte(`"b`)), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(r.work, "refused-raw", "shard-1")
		code, stdout, stderr := r.fold(t, 1, dir, "-f", "jsonl", "--receipts", "--judgments", good)
		refused(t, code, stdout, stderr, exitDataErr, `the line at byte \d+ \(\d+ bytes\) is not the one verified: the input changed since its map step`)
		os.Remove(src)
		code, stdout, stderr = r.fold(t, 1, dir, "-f", "jsonl", "--receipts", "--judgments", good)
		refused(t, code, stdout, stderr, exitNoInput, `the input cannot be read again for the lines of its receipts not PASS`)
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("a refused fold published %s", dir)
		}
	})
	t.Run("--receipts without --shard", func(t *testing.T) {
		code, stdout, stderr := r.finalize(t, "--judgments", good, "--receipts")
		refused(t, code, stdout, stderr, exitUsage, `--receipts goes with --shard N --emit DIR`)
	})
}

// copyDir copies the regular files under src to dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
