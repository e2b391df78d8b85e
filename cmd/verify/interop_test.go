package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// interopCase is what the command test reads of a vector's expected.json
// (testdata/interop/README.md).
type interopCase struct {
	Format  string   `json:"format"`
	Verdict string   `json:"verdict"`
	Reasons []string `json:"reasons"`
	Lines   []struct {
		Verdict string   `json:"verdict"`
		Reasons []string `json:"reasons"`
	} `json:"lines"`
	Keys []string `json:"keys"`
	At   string   `json:"at"`
}

// TestInteropCLI runs every interop vector as a user types it, `verify
// receipts --keys K... --at T [--predecessor P] -o json receipt.json` (or
// receipts.jsonl), and requires each receipt's format, verdict and reasons
// and the exit code of the run.
func TestInteropCLI(t *testing.T) {
	t.Parallel()
	found, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "interop", "*", "*", "expected.json"))
	if len(found) == 0 {
		t.Fatal("no interop vectors")
	}
	for _, path := range found {
		dir := filepath.Dir(path)
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			var c interopCase
			raw, err := os.ReadFile(path)
			if err != nil || json.Unmarshal(raw, &c) != nil {
				t.Fatalf("%s: %v", path, err)
			}
			keys := c.Keys
			if keys == nil {
				for _, n := range []string{"jwks.json", "keys.json", "acta-keys.json", "did_map.json"} {
					if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
						keys = append(keys, n)
					}
				}
			}
			at := c.At
			if at == "" {
				at = "2100-01-01T00:00:00Z"
			}
			args := []string{"verify", "receipts", "--at", at, "-o", "json"}
			for _, k := range keys {
				args = append(args, "--keys", filepath.Join(dir, k))
			}
			if _, err := os.Stat(filepath.Join(dir, "predecessor.json")); err == nil {
				args = append(args, "--predecessor", filepath.Join(dir, "predecessor.json"))
			}
			type want struct {
				verdict string
				reasons []string
			}
			wants := []want{{c.Verdict, c.Reasons}}
			input := filepath.Join(dir, "receipt.json")
			if _, err := os.Stat(input); err != nil {
				input, wants = filepath.Join(dir, "receipts.jsonl"), nil
				for _, l := range c.Lines {
					wants = append(wants, want{l.Verdict, l.Reasons})
				}
			}
			var stdout, stderr bytes.Buffer
			code := run(append(args, input), strings.NewReader(""), &stdout, &stderr)
			dec := json.NewDecoder(&stdout)
			wantCode := exitOK
			for i, w := range wants {
				var got struct {
					Format, Verdict string
					Reasons         []string
				}
				if err := dec.Decode(&got); err != nil {
					t.Fatalf("receipt %d: %v (exit %d)\n%s", i+1, err, code, stderr.String())
				}
				if w.reasons == nil {
					w.reasons = []string{}
				}
				if got.Format != c.Format || got.Verdict != w.verdict || !slices.Equal(got.Reasons, w.reasons) {
					t.Errorf("receipt %d: %s %s %v, want %s %s %v", i+1, got.Format, got.Verdict, got.Reasons, c.Format, w.verdict, w.reasons)
				}
				switch {
				case w.verdict == "FAIL":
					wantCode = exitRejected
				case w.verdict == "INCOMPLETE" && wantCode == exitOK:
					wantCode = exitIncomplete
				}
			}
			if dec.More() {
				t.Error("more results than expected")
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d\n%s", code, wantCode, stderr.String())
			}
		})
	}
}
