package completeness_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/completeness"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/stream"
)

// TestRecorderCheckpoints: pipelock flight recorder checkpoints, made by
// pipelock's own recorder (testdata/interop/pipelock-recorder-checkpoint),
// decide completeness through stream.Run and FromResults. A checkpoint
// whose signed head (an entry hash) is the last receipt held makes the
// chain complete; one naming an entry the archive does not hold, such as
// the checkpoints of a tail deleted and kept apart, makes it truncated; a
// checkpoint changed after signing is no evidence, and the others decide.
func TestRecorderCheckpoints(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "testdata", "interop", "pipelock-recorder-checkpoint")
	for _, tc := range []struct {
		name   string
		files  []string
		status completeness.Status
	}{
		{"recorder-checkpoints", []string{"receipts.jsonl"}, completeness.Complete},
		{"recorder-checkpoint-tampered", []string{"receipts.jsonl"}, completeness.Complete},
		{"recorder-tail-deleted", []string{"receipts.jsonl"}, completeness.Complete},
		{"recorder-tail-deleted", []string{"receipts.jsonl", "checkpoints.jsonl"}, completeness.Truncated},
		{"recorder-tail-deleted", []string{"checkpoints.jsonl"}, completeness.Truncated},
	} {
		t.Run(tc.name+"/"+filepath.Join(tc.files...), func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join(dir, tc.name, "keys.json"))
			if err != nil {
				t.Fatal(err)
			}
			snap, err := keys.Load("keys.json", b)
			if err != nil {
				t.Fatal(err)
			}
			d, err := keys.NewDirectory(snap)
			if err != nil {
				t.Fatal(err)
			}
			v, err := verify.New(d)
			if err != nil {
				t.Fatal(err)
			}
			var srcs []stream.Source
			for _, f := range tc.files {
				srcs = append(srcs, stream.FileSource(filepath.Join(dir, tc.name, f)))
			}
			var results []*verify.Result
			if _, err := stream.Run(context.Background(), v, srcs, stream.Options{}, func(r *stream.Record) error {
				results = append(results, r.Result)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			vs := completeness.JudgeResults(results, time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC))
			if len(vs) != 1 || vs[0].Status != tc.status {
				t.Fatalf("verdicts %+v, want one chain %s", vs, tc.status)
			}
			if vs[0].Chain != verify.PipelockChainScope("5d2b9010feee195b62100b9d05c936fb6e3f63ee962344ae6969e3a426e2af7d") {
				t.Fatalf("chain %q is not the signer's", vs[0].Chain)
			}
		})
	}
}
