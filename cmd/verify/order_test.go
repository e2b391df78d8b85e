package main

import (
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
// chain, fails that receipt chain_absent whichever file is given first:
// the receipt of a chain that may begin before the input is its earliest
// by issue time, not the first read. Every other verdict is the same in
// both orders too.
func TestChainGapInEveryArgOrder(t *testing.T) {
	t.Parallel()
	lines := demoLines(t)
	dir := t.TempDir()
	early, late := filepath.Join(dir, "early.jsonl"), filepath.Join(dir, "late.jsonl")
	writeFile(t, early, []byte(strings.Join(lines[:77], "")))
	writeFile(t, late, []byte(strings.Join(lines[77:], "")))
	var outs []string
	for _, order := range [][]string{{early, late}, {late, early}} {
		_, stdout, stderr := runVerify(t, append(append([]string{"receipts", "--format", "jsonl"}, demoArgs...), order...)...)
		gap := false
		var verdicts []string
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var r struct {
				Source  string   `json:"source"`
				Line    int      `json:"line"`
				Verdict string   `json:"verdict"`
				Reasons []string `json:"reasons"`
			}
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%v: %v: %s", order, err, l)
			}
			if r.Source == late && r.Line == 1 {
				gap = r.Verdict == "FAIL" && slices.Contains(r.Reasons, "chain_absent")
			}
			verdicts = append(verdicts, fmt.Sprintf("%s:%d %s %v", r.Source, r.Line, r.Verdict, r.Reasons))
		}
		if !gap {
			t.Errorf("%v: want %s:1 FAIL chain_absent\nstdout: %s\nstderr: %s", order, late, stdout, stderr)
		}
		slices.Sort(verdicts)
		outs = append(outs, strings.Join(verdicts, "\n"))
	}
	if outs[0] != outs[1] {
		t.Errorf("the verdicts depend on the order of the files:\n%s\n---\n%s", outs[0], outs[1])
	}
}
