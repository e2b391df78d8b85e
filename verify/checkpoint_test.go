package verify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
)

// TestCheckpoint: a C2SP signed note naming a chain's head verifies with
// the key files' key and carries the head as lifecycle evidence; changed
// after signing it fails, and without its key it is INCOMPLETE.
func TestCheckpoint(t *testing.T) {
	t.Parallel()
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("..", "testdata", "checkpoints", name))
		if err != nil {
			t.Fatal(err)
		}
		return []byte(strings.TrimSpace(string(b)))
	}
	snap, err := keys.Load("witness.json", read("witness.json"))
	if err != nil {
		t.Fatal(err)
	}
	withKey, _ := keys.NewDirectory(snap)
	none, _ := keys.NewDirectory()
	for _, tc := range []struct {
		name, file string
		dir        *keys.Directory
		want       verify.Verdict
		reason     verify.Reason
	}{
		{"verifies", "head-4.jsonl", withKey, verify.Pass, ""},
		{"changed after signing", "forged.jsonl", withKey, verify.Fail, verify.ReasonBadSignature},
		{"no key", "head-4.jsonl", none, verify.Incomplete, verify.ReasonNoKeys},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := verify.New(tc.dir)
			if err != nil {
				t.Fatal(err)
			}
			res, err := v.Verify(read(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != "c2sp-checkpoint" || res.Verdict != tc.want || (tc.reason != "" && res.Reasons[0] != tc.reason) {
				t.Fatalf("%s %s %v, want %s %s", res.Format, res.Verdict, res.Reasons, tc.want, tc.reason)
			}
			lc := res.Fields.Lifecycle
			if lc == nil || lc.Kind != verify.LifecycleCheckpoint || (tc.file == "head-4.jsonl" && lc.FinalSeq != 4) || lc.Head == "" {
				t.Fatalf("lifecycle %+v", lc)
			}
		})
	}
}
