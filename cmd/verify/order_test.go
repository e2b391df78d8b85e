package main

import (
	"os"
	"path/filepath"
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
