package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// demoArgs are the trust material and clock of the demo archive.
var demoArgs = []string{"--keys", "../../testdata/demo/keys/jwks.json", "--schemas", "../../testdata/demo/schemas", "--at", "2026-12-01T00:00:00Z"}

// demoLines are the demo archive's lines, each with its line end.
func demoLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../testdata/demo/receipts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
}

// TestRotatedDemoReplayOnReplay: the demo archive rotated once (lines
// 1-100 in agent.jsonl.1, the rest in the live agent.jsonl) fails the
// replay, line 126 of the whole (agent.jsonl:26), and not its original
// (agent.jsonl.1:83): the directory walk reads the rotated file first,
// although its name sorts after the live one's.
func TestRotatedDemoReplayOnReplay(t *testing.T) {
	t.Parallel()
	lines := demoLines(t)
	for _, names := range [][2]string{{"agent.jsonl.1", "agent.jsonl"}, {"gateway.jsonl-20261101", "gateway.jsonl"}} {
		logs := filepath.Join(t.TempDir(), "logs")
		writeFile(t, filepath.Join(logs, names[0]), []byte(strings.Join(lines[:100], "")))
		writeFile(t, filepath.Join(logs, names[1]), []byte(strings.Join(lines[100:], "")))
		_, stdout, stderr := runVerify(t, append(append([]string{"receipts"}, demoArgs...), logs)...)
		replay := filepath.Join(logs, names[1]) + ":26: FAIL asqav-native: nonce fail nonce_replay"
		original := filepath.Join(logs, names[0]) + ":83: "
		if !strings.Contains(stdout, replay) || strings.Contains(stdout, original) {
			t.Errorf("%s: want the replay %q failed and not the original %q\nstdout: %s\nstderr: %s", names, replay, original, stdout, stderr)
		}
	}
}

// TestChainGapInEveryArgOrder: the demo archive split before its line 78,
// a receipt whose predecessor is missing after earlier receipts of its
// chain, fails that receipt chain_absent whichever file is given first,
// in one run and in a sharded run (a shard a file): the receipt of a
// chain that may begin before the input is its earliest by issue time,
// not the first read. Every other verdict is the same in both orders too.
func TestChainGapInEveryArgOrder(t *testing.T) {
	t.Parallel()
	lines := demoLines(t)
	dir := t.TempDir()
	early, late := filepath.Join(dir, "early.jsonl"), filepath.Join(dir, "late.jsonl")
	writeFile(t, early, []byte(strings.Join(lines[:77], "")))
	writeFile(t, late, []byte(strings.Join(lines[77:], "")))
	outs := map[string][]string{}
	for i, order := range [][]string{{early, late}, {late, early}} {
		_, stdout, stderr := runVerify(t, append(append([]string{"receipts", "--format", "jsonl"}, demoArgs...), order...)...)
		sharded, shardedErr := shardedJSONL(t, filepath.Join(dir, fmt.Sprint("run", i)), order)
		for _, run := range []struct{ name, stdout, stderr string }{{"receipts", stdout, stderr}, {"sharded", sharded, shardedErr}} {
			gap := false
			var verdicts []string
			for _, l := range strings.Split(strings.TrimSpace(run.stdout), "\n") {
				var r struct {
					Source  string   `json:"source"`
					Line    int      `json:"line"`
					Verdict string   `json:"verdict"`
					Reasons []string `json:"reasons"`
				}
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatalf("%s %v: %v: %s", run.name, order, err, l)
				}
				if r.Source == late && r.Line == 1 {
					gap = r.Verdict == "FAIL" && slices.Contains(r.Reasons, "chain_absent")
				}
				verdicts = append(verdicts, fmt.Sprintf("%s:%d %s %v", r.Source, r.Line, r.Verdict, r.Reasons))
			}
			if !gap {
				t.Errorf("%s %v: want %s:1 FAIL chain_absent\nstdout: %s\nstderr: %s", run.name, order, late, run.stdout, run.stderr)
			}
			slices.Sort(verdicts)
			outs[run.name] = append(outs[run.name], strings.Join(verdicts, "\n"))
		}
	}
	for name, o := range outs {
		if o[0] != o[1] {
			t.Errorf("%s: the verdicts depend on the order of the files:\n%s\n---\n%s", name, o[0], o[1])
		}
	}
}

// TestGenesisFirstInEveryArgOrder: a chain whose genesis is in the input
// began there, so a receipt of it naming a predecessor the input lacks
// is a gap, even when it was issued in the genesis's second and its line
// sorts first. agentreceipts' chain-tampered vector (four receipts of one
// second; the second's signature broken, so the third's predecessor
// counts as absent), its later half in a file read first or last, in one
// run and sharded.
func TestGenesisFirstInEveryArgOrder(t *testing.T) {
	t.Parallel()
	vec := "../../testdata/interop/agentreceipts-go/v0.2.0-chain-tampered/"
	data, err := os.ReadFile(vec + "receipts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d receipts, want 4", len(lines))
	}
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a-first.jsonl"), filepath.Join(dir, "b-second.jsonl")
	writeFile(t, first, []byte(lines[0]+lines[1]))
	writeFile(t, second, []byte(lines[2]+strings.TrimSuffix(lines[3], "\n")+"\n"))
	trust := []string{"--keys", vec + "did_map.json", "--at", "2026-12-06T12:00:00Z"}
	for i, order := range [][]string{{first, second}, {second, first}} {
		_, stdout, stderr := runVerify(t, append(append([]string{"receipts", "--format", "jsonl"}, trust...), order...)...)
		sharded, shardedErr := shardedJSONLWith(t, filepath.Join(dir, fmt.Sprint("run", i)), trust, order)
		for _, run := range []struct{ name, stdout, stderr string }{{"receipts", stdout, stderr}, {"sharded", sharded, shardedErr}} {
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(run.stdout), "\n") {
				var r struct {
					Source  string   `json:"source"`
					Line    int      `json:"line"`
					Verdict string   `json:"verdict"`
					Reasons []string `json:"reasons"`
				}
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatalf("%s %v: %v: %s", run.name, order, err, l)
				}
				got = append(got, fmt.Sprintf("%s:%d %s %v", filepath.Base(r.Source), r.Line, r.Verdict, r.Reasons))
			}
			slices.Sort(got)
			want := "a-first.jsonl:1 PASS []\na-first.jsonl:2 FAIL [bad_signature]\nb-second.jsonl:1 FAIL [chain_absent]\nb-second.jsonl:2 PASS []"
			if strings.Join(got, "\n") != want {
				t.Errorf("%s %v:\n%s\nwant\n%s\nstderr: %s", run.name, order, strings.Join(got, "\n"), want, run.stderr)
			}
		}
	}
}

// shardedJSONL is the JSON Lines of a sharded run over files, a shard a
// file in the order given (plan, map steps, finalize in dir), and
// finalize's stderr.
func shardedJSONL(t *testing.T, dir string, files []string) (string, string) {
	t.Helper()
	return shardedJSONLWith(t, dir, demoArgs, files)
}

// shardedJSONLWith is shardedJSONL with the trust flags trust.
func shardedJSONLWith(t *testing.T, dir string, trust, files []string) (string, string) {
	t.Helper()
	code, plan, stderr := runVerify(t, append(append([]string{"plan"}, trust...), files...)...)
	if code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, stderr)
	}
	planFile := filepath.Join(dir, "plan.json")
	writeFile(t, planFile, []byte(plan))
	args := []string{"finalize", "--plan", planFile, "-f", "jsonl"}
	for i := range files {
		out := filepath.Join(dir, "maps", fmt.Sprint("shard-", i))
		if code, _, stderr := runVerify(t, "receipts", "--plan", planFile, "--emit", out, "--shard", fmt.Sprint(i)); code != exitOK {
			t.Fatalf("map step %d: exit %d\n%s", i, code, stderr)
		}
		args = append(args, out)
	}
	_, stdout, stderr := runVerify(t, args...)
	return stdout, stderr
}

// TestExplainNamersInOrder: explain lists the receipts naming a
// predecessor first namer first (by issue time, as the verdicts take
// them), not by file and line: the demo's fork (its line 121) put in a
// file that sorts first, or on a line before its original (line 120),
// is listed after the original, in the audit database and in a file.
func TestExplainNamersInOrder(t *testing.T) {
	t.Parallel()
	lines := demoLines(t)
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	fork, rest := filepath.Join(logs, "a.jsonl"), filepath.Join(logs, "b.jsonl")
	writeFile(t, fork, []byte(lines[120]))
	writeFile(t, rest, []byte(strings.Join(slices.Concat(lines[:120], lines[121:]), "")))
	swapped := filepath.Join(dir, "swapped.jsonl")
	writeFile(t, swapped, []byte(strings.Join(slices.Concat(lines[:119], lines[120:121], lines[119:120], lines[121:]), "")))
	db := filepath.Join(dir, "d.duckdb")
	if code, _, stderr := runVerify(t, append(append([]string{"load", "--db", db}, demoArgs...), logs)...); code != exitOK && code != exitRejected {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	for _, tt := range []struct {
		args []string
		want []string // the successors of line 119, as source:line verdict
	}{
		{[]string{"--db", db, rest + ":119"}, []string{rest + ":120 PASS", fork + ":1 FAIL"}},
		{[]string{swapped + ":119"}, []string{":121 PASS", ":120 FAIL"}},
	} {
		_, stdout, stderr := runVerify(t, append(append([]string{"explain", "-f", "json"}, demoArgs...), tt.args...)...)
		var ex struct {
			Chain struct {
				Successors []neighbour `json:"successors"`
			} `json:"chain"`
		}
		if err := json.Unmarshal([]byte(stdout), &ex); err != nil {
			t.Fatalf("%v: %v\nstdout: %s\nstderr: %s", tt.args, err, stdout, stderr)
		}
		var got []string
		for _, n := range ex.Chain.Successors {
			got = append(got, fmt.Sprintf("%s:%d %s", n.Source, n.Line, n.Verdict))
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%v: successors %q, want %q\nstderr: %s", tt.args, got, tt.want, stderr)
		}
	}
}

// TestShardHistoryOrder: a sharded night judged against the compact
// history of a night finalized before gives its receipts the verdicts one
// run over both nights gives, by the receipts' order: the demo's nonce
// original (its line 83) and first namer (line 120) delivered a night
// after their replay (line 126) and fork (line 121) pass, where the
// history alone made them replay and fork. A history file appended
// before the history kept the receipts' order is refused, and so is one
// appended before it kept its chain owners'.
func TestShardHistoryOrder(t *testing.T) {
	t.Parallel()
	lines := demoLines(t)
	dir := t.TempDir()
	night1, night2 := filepath.Join(dir, "night-1.jsonl"), filepath.Join(dir, "night-2.jsonl")
	writeFile(t, night1, []byte(strings.Join(slices.Concat(lines[:82], lines[83:119], lines[120:]), "")))
	writeFile(t, night2, []byte(lines[82]+lines[119]))
	hist := filepath.Join(dir, "hist")
	var maps []string
	for _, night := range []string{"night-1", "night-2"} {
		planFile, out := planAndMap(t, dir, night, filepath.Join(dir, night+".jsonl"))
		maps = append(maps, planFile, out)
	}
	if code, _, stderr := runVerify(t, "finalize", "--plan", maps[0], "--append-history", hist, maps[1]); code != exitOK && code != exitRejected {
		t.Fatalf("finalize night-1: exit %d\n%s", code, stderr)
	}
	_, want, _ := runVerify(t, append(append([]string{"receipts", "-f", "jsonl"}, demoArgs...), night1, night2)...)
	verdicts := func(out, source string) string { return sourceVerdicts(t, out, source) }
	for _, history := range [][]string{{"--history-keys", hist}, {"--history", maps[1]}, {"--history-keys", hist, "--append-history", hist}} {
		code, got, stderr := runVerify(t, append(append([]string{"finalize", "--plan", maps[2], "-f", "jsonl"}, history...), maps[3])...)
		if g, w := verdicts(got, night2), verdicts(want, night2); g != w || code != exitOK {
			t.Errorf("%v: exit %d, verdicts\n%s\nwant (one run over both nights, exit 0)\n%s\nstderr: %s", history, code, g, w, stderr)
		}
		// The history's replay and fork, published by the first night,
		// are named as not revised.
		if !strings.Contains(stderr, "verify: finalize: 2 predecessor(s) or nonce(s) of the history are named or used first by this run's receipts") {
			t.Errorf("%v: no word of the history's receipts now a replay and a fork\nstderr: %s", history, stderr)
		}
	}
	// The first night judged again against the second night's append
	// (its own directory left out): the replay and the fork fail, as in
	// one run, by the order the append recorded.
	_, got, stderr := runVerify(t, "finalize", "--plan", maps[0], "-f", "jsonl", "--history-keys", hist, maps[1])
	if g, w := verdicts(got, night1), verdicts(want, night1); g != w || !strings.Contains(g, "nonce_replay") || !strings.Contains(g, "chain_fork") {
		t.Errorf("the first night against the second's append: verdicts\n%s\nwant\n%s\nstderr: %s", g, w, stderr)
	}

	// A history file of an earlier build: no receipt_order.
	old := filepath.Join(hist, "night-0", "keys.parquet")
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("COPY (SELECT 'n' AS kind, unhex('00112233445566778899aabbccddeeff') AS k, CAST(NULL AS BLOB) AS scope) TO '" + old + "' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runVerify(t, "finalize", "--plan", maps[2], "--history-keys", hist, maps[3])
	refused(t, code, stdout, stderr, exitDataErr, regexp.QuoteMeta(old)+": .*rebuild the history")

	// One of a build that kept the order of links and nonces only: its
	// chain owners' receipt_order NULL.
	if _, err := db.Exec("COPY (SELECT * FROM (VALUES ('l', unhex('00112233445566778899aabbccddeeff'), CAST(NULL AS BLOB), unhex('" + strings.Repeat("ab", 24) + "')), " +
		"('o', unhex('ffeeddccbbaa99887766554433221100'), unhex('00112233445566778899aabbccddeeff'), CAST(NULL AS BLOB))) t(kind, k, scope, receipt_order)) TO '" + old + "' (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runVerify(t, "finalize", "--plan", maps[2], "--history-keys", hist, maps[3])
	refused(t, code, stdout, stderr, exitDataErr, regexp.QuoteMeta(old)+": .*chain owners have no order.*rebuild the history")
}

// TestShardHistoryEarlierNight: a chain's later receipts one night and
// its earlier ones the next (the demo's chain of lines 12-23 without its
// first two: lines 18-23, then 14-17). The second night's first receipt
// names a predecessor nobody holds, and the history holds only receipts
// of its chain issued after it: its chain begins before the input (PASS),
// as one run over both nights and the audit database loaded night by
// night judge it, not a gap (chain_absent). Each night's verdicts, with
// the compact history (appended night by night) or the earlier nights'
// map directories as history, are those the database stores after that
// night's load. The nights the other way round (14-17, then 19-23, line
// 18 missing) still fail the second night's first receipt, a gap after
// the history's receipts of its chain; and so does a third night's
// receipt issued between the first two nights' (18-23, 14-15, then 17),
// and a fourth night's issued before the third's (19-23, 14, 17, then
// 16): the history keeps the least order of the chain's receipts. The
// first night's first receipt delivered again the next night begins
// its chain before the input, as its first delivery did.
func TestShardHistoryEarlierNight(t *testing.T) {
	t.Parallel()
	lines := demoLines(t)
	for _, tt := range []struct {
		name   string
		nights [][]string
		first  string // the last night's first receipt's verdict
	}{
		{"earlier-second", [][]string{lines[17:23], lines[13:17]}, "1 PASS []"},
		{"later-second", [][]string{lines[13:17], lines[18:23]}, "1 FAIL [chain_absent]"},
		{"between-third", [][]string{lines[17:23], lines[13:15], lines[16:17]}, "1 FAIL [chain_absent]"},
		{"between-fourth", [][]string{lines[18:23], lines[13:14], lines[16:17], lines[15:16]}, "1 FAIL [chain_absent]"},
		// The first night's first receipt delivered again, its line
		// re-serialised (its SHA-256, so its order, after the first
		// delivery's): judged as the first delivery, not after it.
		{"delivered-again", [][]string{lines[17:23], {reserialisedAfter(lines[17])}}, "1 PASS []"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			shardNights(t, tt.nights, tt.first)
		})
	}
}

// reserialisedAfter is line (a JSON object and its line end) with spaces
// after its opening brace, as few as make its SHA-256, by which receipts
// of one issue time are ordered, stand after line's.
func reserialisedAfter(line string) string {
	body := strings.TrimSuffix(line, "\n")
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	for pad := " "; ; pad += " " {
		if again := "{" + pad + strings.TrimPrefix(body, "{"); sum(again) > sum(body) {
			return again + "\n"
		}
	}
}

// shardNights runs TestShardHistoryEarlierNight over nights' lines.
func shardNights(t *testing.T, nights [][]string, first string) {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "audit.duckdb")
	verdicts := func(out, source string) string { return sourceVerdicts(t, out, source) }
	hist := filepath.Join(dir, "hist")
	var files, earlier []string
	var want string
	for i, night := range nights {
		name := fmt.Sprintf("night-%d", i+1)
		file := filepath.Join(dir, name+".jsonl")
		writeFile(t, file, []byte(strings.Join(night, "")))
		files = append(files, file)
		// The database path: the night loaded into the one database.
		if code, stdout, stderr := runVerify(t, append(append([]string{"audit", "-q", "--no-fail", "--db", db, "--out", filepath.Join(dir, "reports")}, demoArgs...), file)...); code != exitOK {
			t.Fatalf("audit %s: exit %d\n%s%s", name, code, stdout, stderr)
		}
		var rows []string
		for _, row := range strings.Split(strings.TrimSpace(queryOrderRows(t, db, "SELECT line, verdict, reasons FROM receipts WHERE source = '"+file+"' ORDER BY line")), "\n") {
			rows = append(rows, strings.ReplaceAll(row, "\t", " "))
		}
		want = strings.Join(rows, "\n")
		// The sharded night.
		planFile, maps := planAndMap(t, dir, name, file)
		histories := [][]string{{"--history-keys", hist, "--append-history", hist}}
		if i == 0 {
			histories = [][]string{{"--append-history", hist}}
		} else {
			var records []string
			for _, m := range earlier {
				records = append(records, "--history", m)
			}
			histories = append(histories, records)
		}
		earlier = append(earlier, maps)
		for _, history := range histories {
			_, got, stderr := runVerify(t, append(append([]string{"finalize", "--plan", planFile, "-f", "jsonl"}, history...), maps)...)
			if g := verdicts(got, file); g != want {
				t.Errorf("%s %v: verdicts\n%s\nwant (the audit database's)\n%s\nstderr: %s", name, history, g, want, stderr)
			}
		}
	}
	// One run over every night gives the last night's verdicts too.
	last := files[len(files)-1]
	_, all, stderr := runVerify(t, append(append([]string{"receipts", "-f", "jsonl"}, demoArgs...), files...)...)
	if g := verdicts(all, last); g != want || !strings.HasPrefix(g+"\n", first+"\n") {
		t.Errorf("one run over every night: the last night's verdicts\n%s\nwant (the audit database's; the first %s)\n%s\nstderr: %s", g, first, want, stderr)
	}
}

// sourceVerdicts is each result line of source in the JSON Lines out, as
// "LINE VERDICT [REASONS]", one a line.
func sourceVerdicts(t *testing.T, out, source string) string {
	t.Helper()
	var vs []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Source  string   `json:"source"`
			Line    int      `json:"line"`
			Verdict string   `json:"verdict"`
			Reasons []string `json:"reasons"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if r.Source == source {
			vs = append(vs, fmt.Sprintf("%d %s %v", r.Line, r.Verdict, r.Reasons))
		}
	}
	return strings.Join(vs, "\n")
}

// planAndMap plans a one-shard run named name over file with the demo's
// trust material, in dir, and runs its map step: the plan's file and the
// map directory.
func planAndMap(t *testing.T, dir, name, file string) (planFile, maps string) {
	t.Helper()
	code, plan, stderr := runVerify(t, append(append([]string{"plan", "--id", name}, demoArgs...), file)...)
	if code != exitOK {
		t.Fatalf("plan %s: exit %d\n%s", name, code, stderr)
	}
	planFile = filepath.Join(dir, name+".plan.json")
	writeFile(t, planFile, []byte(plan))
	maps = filepath.Join(dir, "maps", name)
	if code, _, stderr := runVerify(t, "receipts", "--plan", planFile, "--emit", maps, "--shard", "0"); code != exitOK {
		t.Fatalf("map %s: exit %d\n%s", name, code, stderr)
	}
	return planFile, maps
}
