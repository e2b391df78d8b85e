package verify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
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

// TestCheckpointAsqav: a checkpoint naming an Asqav chain (receiptgen's
// completeness plants) has the chain scope of the chain's receipts and,
// for a chain held whole, the head's chain hash.
func TestCheckpointAsqav(t *testing.T) {
	t.Parallel()
	sink := receiptgen.NewMemSink()
	truth, err := receiptgen.Generate(receiptgen.Config{Seed: 3, N: 60, Algs: receiptgen.Ed25519Only(), Completeness: 1}, sink)
	if err != nil {
		t.Fatal(err)
	}
	var snaps []*keys.Snapshot
	for _, f := range []string{receiptgen.FileJWKS, receiptgen.FileWitness} {
		s, err := keys.Load(f, sink.File(f))
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, s)
	}
	dir, err := keys.NewDirectory(snaps...)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.New(dir, verify.WithTime(receiptgen.DefaultStart().AddDate(0, 0, 10)))
	if err != nil {
		t.Fatal(err)
	}
	heads := map[string]string{} // scope -> chain hash of the highest step
	steps := map[string]int64{}
	for _, l := range strings.Split(strings.TrimSpace(string(sink.File(receiptgen.FileReceipts))), "\n") {
		res, err := v.Verify([]byte(l))
		if err != nil || res.Verdict != verify.Pass {
			t.Fatalf("receipt %v %v: %s", err, res.Reasons, l)
		}
		if s := res.ScopeKey(); res.Fields.Step != nil && (heads[s] == "" || *res.Fields.Step > steps[s]) {
			heads[s], steps[s] = res.Fingerprints.ChainHash, *res.Fields.Step
		}
	}
	lines := strings.Split(strings.TrimSpace(string(sink.File(receiptgen.FileCheckpoints))), "\n")
	if want := 4; len(lines) != want || len(truth.Records) == 0 {
		t.Fatalf("%d checkpoints, want %d", len(lines), want)
	}
	for i, l := range lines {
		res, err := v.Verify([]byte(l))
		if err != nil || res.Verdict != verify.Pass {
			t.Fatalf("checkpoint %d: %v %v", i+1, err, res.Reasons)
		}
		head, held := heads[res.ScopeKey()]
		lc := res.Fields.Lifecycle
		switch i {
		case 0, 2: // a tail deleted, a chain rewritten: held, another head
			if !held || head == lc.Head {
				t.Errorf("checkpoint %d: held %v, head %s, checkpoint's %s", i+1, held, head, lc.Head)
			}
		case 1: // a session removed
			if held {
				t.Errorf("checkpoint %d names a removed session, but the archive holds it", i+1)
			}
		case 3: // a clean chain, whole
			if !held || head != lc.Head || lc.FinalSeq != steps[res.ScopeKey()] {
				t.Errorf("checkpoint %d: head %s seq %d, the chain's %s %d", i+1, lc.Head, lc.FinalSeq, head, steps[res.ScopeKey()])
			}
		}
	}
}
