package verify_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/receiptverify/verify/verify"
)

// TestRecorderEntryHash: the recorder entry hash each receipt and checkpoint
// read from a pipelock flight recorder file carries is the hash the
// recorder wrote beside it, for entries of version 1 (recorder-entries,
// the recorder checkpoint vectors) and version 2 (g1-session-lifecycle).
func TestRecorderEntryHash(t *testing.T) {
	t.Parallel()
	files := []string{
		"pipelock-recorder-checkpoint/recorder-checkpoints/receipts.jsonl",
		"pipelock-action-v1/recorder-entries/receipts.jsonl",
		"pipelock-action-v1/g1-session-lifecycle/receipts.jsonl",
	}
	v, err := verify.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "interop", f))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var entry struct {
				Hash string `json:"hash"`
			}
			if err := json.Unmarshal(line, &entry); err != nil || entry.Hash == "" {
				t.Fatalf("%s:%d: no recorder entry hash: %v", f, i+1, err)
			}
			res, err := v.Verify(line)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Fingerprints.RecorderEntry; got != entry.Hash {
				t.Errorf("%s:%d: recorder_entry %q, the recorder wrote %q", f, i+1, got, entry.Hash)
			}
		}
	}
}
