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

// TestInteropFormatsCLI runs every producer-made vector of the ACTA, AERF,
// agentreceipts, authproof and pipelock suites as a user types it:
// `verify receipts --keys K... [--predecessor P] -o json receipt.json`,
// and requires the expected verdict, format, reasons and exit code.
func TestInteropFormatsCLI(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"acta", "agentreceipts", "pipelock-evidence-v2", "aerf", "authproof"} {
		cases, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "interop", format, "*", "expected.json"))
		if len(cases) == 0 {
			t.Errorf("%s: no interop vectors", format)
		}
		for _, path := range cases {
			dir := filepath.Dir(path)
			t.Run(format+"/"+filepath.Base(dir), func(t *testing.T) {
				var want struct {
					Format, Verdict string
					Reasons         []string
				}
				raw, err := os.ReadFile(path)
				if err != nil || json.Unmarshal(raw, &want) != nil {
					t.Fatalf("%s: %v", path, err)
				}
				args := []string{"verify", "receipts", "--at", "2027-01-01T00:00:00Z", "-o", "json"}
				entries, _ := os.ReadDir(dir)
				for _, e := range entries {
					switch e.Name() {
					case "receipt.json", "expected.json":
					case "predecessor.json":
						args = append(args, "--predecessor", filepath.Join(dir, e.Name()))
					default:
						args = append(args, "--keys", filepath.Join(dir, e.Name()))
					}
				}
				args = append(args, filepath.Join(dir, "receipt.json"))
				var stdout, stderr bytes.Buffer
				code := run(args, strings.NewReader(""), &stdout, &stderr)
				var got struct {
					Format, Verdict string
					Reasons         []string
				}
				if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
					t.Fatalf("exit %d, output %q: %v\n%s", code, stdout.String(), err, stderr.String())
				}
				slices.Sort(got.Reasons)
				slices.Sort(want.Reasons)
				if want.Reasons == nil {
					want.Reasons = []string{}
				}
				if got.Reasons == nil {
					got.Reasons = []string{}
				}
				wantCode := map[string]int{"PASS": exitOK, "FAIL": exitRejected, "INCOMPLETE": exitIncomplete}[want.Verdict]
				if got.Format != want.Format || got.Verdict != want.Verdict || !slices.Equal(got.Reasons, want.Reasons) || code != wantCode {
					t.Errorf("got %s %s %v exit %d, want %s %s %v exit %d\n%s", got.Format, got.Verdict, got.Reasons, code,
						want.Format, want.Verdict, want.Reasons, wantCode, stdout.String())
				}
			})
		}
	}
}
