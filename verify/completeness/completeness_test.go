package completeness_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/receiptverify/verify/verify/completeness"
)

// The vectors are pipelock's own signed fixture and copies of it
// (testdata/interop/pipelock-action-v1/PROVENANCE.md).
func vectorLines(t *testing.T, name string, drop ...int) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "interop", "pipelock-action-v1", name, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for i, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		skip := false
		for _, d := range drop {
			skip = skip || d == i
		}
		if !skip {
			out = append(out, l)
		}
	}
	return out
}

const (
	key      = "4655a7e605c12ebb00a46037881c33c5bca5eb74b45a02e8e7261a7ff5a21678"
	hashSeq2 = "4f2e18befefd0e43f1522e5d5d095adaed5459c80329145d7bc0d6dfd60a11eb"
)

func TestJudgePipelock(t *testing.T) {
	t.Parallel()
	late := time.Date(2026, 4, 16, 0, 0, 0, 0, time.UTC)
	soon := time.Date(2026, 4, 15, 12, 0, 10, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		lines  [][]byte
		cps    []completeness.Checkpoint
		at     time.Time
		want   completeness.Status
		claims uint64
	}{
		{"closed", vectorLines(t, "g1-session-lifecycle"), nil, late, completeness.Complete, 4},
		{"tail deleted, within the heartbeat interval", vectorLines(t, "g1-tail-deleted"), nil, soon, completeness.Open, 2},
		{"tail deleted", vectorLines(t, "g1-tail-deleted"), nil, late, completeness.Interrupted, 2},
		{"tail deleted under a checkpoint", vectorLines(t, "g1-tail-deleted"),
			[]completeness.Checkpoint{{Chain: key, Seq: 4}}, late, completeness.Truncated, 4},
		{"receipt removed before the close", vectorLines(t, "g1-session-lifecycle", 2), nil, late, completeness.Truncated, 4},
		{"checkpoint head matches", vectorLines(t, "g1-tail-deleted"),
			[]completeness.Checkpoint{{Chain: key, Seq: 2, Hash: hashSeq2}}, late, completeness.Complete, 2},
		{"chain rewritten under a checkpoint", vectorLines(t, "g1-tail-deleted"),
			[]completeness.Checkpoint{{Chain: key, Seq: 2, Hash: "00" + hashSeq2[2:]}}, late, completeness.Truncated, 2},
		{"checkpoint of another chain", vectorLines(t, "g1-tail-deleted"),
			[]completeness.Checkpoint{{Chain: "other", Seq: 9}}, late, completeness.Interrupted, 2},
		{"no lifecycle records", vectorLines(t, "chain"), nil, late, completeness.Unknown, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chains, err := completeness.Pipelock(tc.lines)
			if err != nil {
				t.Fatal(err)
			}
			if len(chains) != 1 {
				t.Fatalf("%d chains, want 1", len(chains))
			}
			v := completeness.Judge(chains[0], tc.cps, tc.at)
			if v.Status != tc.want || v.Claimed != tc.claims {
				t.Errorf("status %s claimed %d (%s), want %s claimed %d", v.Status, v.Claimed, v.Detail, tc.want, tc.claims)
			}
		})
	}
}

func TestJudgeCloseCountsMore(t *testing.T) {
	t.Parallel()
	c := completeness.Chain{ID: "c", Receipts: []completeness.Receipt{
		{Seq: 0, Kind: completeness.KindOpen},
		{Seq: 1, Kind: completeness.KindClose, FinalSeq: 1, Count: 3},
	}}
	if v := completeness.Judge(c, nil, time.Time{}); v.Status != completeness.Truncated {
		t.Errorf("status %s, want truncated", v.Status)
	}
}

func TestPipelockBadLine(t *testing.T) {
	t.Parallel()
	if _, err := completeness.Pipelock([][]byte{[]byte(`{"action_record":`)}); err == nil {
		t.Error("a line that cannot be read must be an error")
	}
}
