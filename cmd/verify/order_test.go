package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
// (agent.jsonl.1:83), whichever way the directory is read; and the same
// two halves under names that sort the newer one first judge the same
// receipt.
func TestRotatedDemoReplayOnReplay(t *testing.T) {
	t.Parallel()
	lines := demoLines(t)
	for _, names := range [][2]string{{"agent.jsonl.1", "agent.jsonl"}, {"b.jsonl", "a.jsonl"}} {
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

// TestOrderFreeVerdicts: the demo archive (a week, four formats, planted
// replays, forks and forged receipts) cut into four files, with some
// receipts delivered again in a fifth, gives every receipt the same
// verdict and reasons whatever order the files are named in, and read
// from a directory under logrotate's names. Six orders, chosen without
// randomness, keep it cheap.
func TestOrderFreeVerdicts(t *testing.T) {
	t.Parallel()
	lines := demoLines(t)
	dir := t.TempDir()
	names := []string{"w1.jsonl", "w2.jsonl", "w3.jsonl", "w4.jsonl", "again.jsonl"}
	chunks := []string{
		strings.Join(lines[:60], ""), strings.Join(lines[60:100], ""),
		strings.Join(lines[100:230], ""), strings.Join(lines[230:], ""),
		strings.Join(lines[20:30], "") + strings.Join(lines[200:210], ""),
	}
	for i, name := range names {
		writeFile(t, filepath.Join(dir, name), []byte(chunks[i]))
	}
	verdicts := func(args ...string) string {
		t.Helper()
		_, stdout, stderr := runVerify(t, append(append([]string{"receipts", "-f", "jsonl"}, demoArgs...), args...)...)
		var rows []string
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var r struct {
				Source  string   `json:"source"`
				Line    int      `json:"line"`
				Verdict string   `json:"verdict"`
				Reasons []string `json:"reasons"`
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%v: %.100s\nstderr: %s", err, l, stderr)
			}
			rows = append(rows, fmt.Sprintf("%s:%d %s %v", filepath.Base(r.Source), r.Line, r.Verdict, r.Reasons))
		}
		slices.Sort(rows)
		return strings.Join(rows, "\n")
	}
	orders := [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}, {1, 3, 0, 4, 2}, {3, 4, 1, 2, 0}, {4, 0, 3, 2, 1}}
	var want string
	for _, o := range orders {
		var paths []string
		for _, i := range o {
			paths = append(paths, filepath.Join(dir, names[i]))
		}
		got := verdicts(paths...)
		if want == "" {
			want = got
			if !strings.Contains(want, "nonce_replay") || !strings.Contains(want, "chain_fork") {
				t.Fatalf("the archive plants no replay or fork:\n%s", want)
			}
			continue
		}
		if got != want {
			t.Errorf("order %v: verdicts differ from order %v:\n%s", o, orders[0], lineDiff(want, got))
		}
	}
	// The same four files as one logrotate family in a directory, the
	// receipts delivered again as another log beside it: the live file is
	// read last.
	logs := filepath.Join(t.TempDir(), "logs")
	rotated := map[string]string{"w1.jsonl": "agent.jsonl.3", "w2.jsonl": "agent.jsonl-20261130", "w3.jsonl": "agent.jsonl.1.gz", "w4.jsonl": "agent.jsonl", "again.jsonl": "again.jsonl"}
	for i, name := range names {
		data := []byte(chunks[i])
		if strings.HasSuffix(rotated[name], ".gz") {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(data)
			zw.Close()
			data = b.Bytes()
		}
		writeFile(t, filepath.Join(logs, rotated[name]), data)
	}
	got := verdicts(logs)
	for from, to := range rotated {
		got = strings.ReplaceAll(got, to+":", from+":")
	}
	gotRows := strings.Split(got, "\n")
	slices.Sort(gotRows)
	if got = strings.Join(gotRows, "\n"); got != want {
		t.Errorf("a logrotate family in a directory: verdicts differ:\n%s", lineDiff(want, got))
	}
}

// lineDiff lists the lines of want and got that the other lacks.
func lineDiff(want, got string) string {
	var out []string
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for _, l := range w {
		if !slices.Contains(g, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			out = append(out, "+ "+l)
		}
	}
	return strings.Join(out, "\n")
}
