package verify_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"
	"golang.org/x/mod/sumdb/note"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
)

// TestLogConsistencyProof: a log checkpoint line's consistency proof
// from the tree of 3 leaves to its 7 (the merkle module's test leaves)
// passes the anchors axis and records the tree head it leads from; a
// changed proof hash, old root, new root (a note of that other root,
// validly signed) or old size fails it (bad_consistency_proof), a changed
// note signature fails the signature and records nothing, and a line
// without a proof is not run.
func TestLogConsistencyProof(t *testing.T) {
	t.Parallel()
	const origin, name = "log.example/consistency", "consistency-test-log"
	seed := sha256.Sum256([]byte("verify consistency test key"))
	key := ed25519.NewKeyFromSeed(seed[:])
	tree := testonly.New(rfc6962.DefaultHasher)
	for _, d := range testonly.LeafInputs()[:7] {
		tree.AppendData(d)
	}
	oldRoot := tree.HashAt(3)
	proof, err := tree.ConsistencyProof(3, 7)
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString
	sign := func(root []byte) string {
		t.Helper()
		body := origin + "\n7\n" + b64(root) + "\n"
		n, err := note.Sign(&note.Note{Text: body}, logSigner{name, key})
		if err != nil {
			t.Fatal(err)
		}
		return string(n)
	}
	changed := func(h []byte) []byte {
		c := append([]byte(nil), h...)
		c[0] ^= 0x80
		return c
	}
	line := func(cp string, oldSize int, old []byte, hashes [][]byte) string {
		t.Helper()
		enc := make([]string, len(hashes))
		for i, h := range hashes {
			enc[i] = b64(h)
		}
		b, err := json.Marshal(map[string]any{"checkpoint": cp, "consistency": map[string]any{
			"old_size": oldSize, "old_root": b64(old), "proof": enc}})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	good := sign(tree.Hash())
	sigText := good[strings.LastIndex(good, " ")+1 : len(good)-1]
	sig, _ := base64.StdEncoding.DecodeString(sigText)
	sig[len(sig)-1] ^= 1
	forged := strings.Replace(good, sigText, b64(sig), 1)
	badProof := append([][]byte(nil), proof...)
	badProof[1] = changed(badProof[1])
	plain, _ := json.Marshal(map[string]string{"checkpoint": good})

	k, err := keys.Load("log-key.json", []byte(`{"`+name+`":"`+hex.EncodeToString(key.Public().(ed25519.PublicKey))+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := keys.NewDirectory(k)
	v, err := verify.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		line     string
		anchors  verify.Status
		verdict  verify.Verdict
		size     int64
		recorded string // ConsistencyRoot
	}{
		{"consistent", line(good, 3, oldRoot, proof), verify.StatusPass, verify.Pass, 3, hex.EncodeToString(oldRoot)},
		{"changed proof hash", line(good, 3, oldRoot, badProof), verify.StatusFail, verify.Fail, 3, ""},
		{"changed old root", line(good, 3, changed(oldRoot), proof), verify.StatusFail, verify.Fail, 3, ""},
		{"changed new root", line(sign(changed(tree.Hash())), 3, oldRoot, proof), verify.StatusFail, verify.Fail, 3, ""},
		{"changed old size", line(good, 2, oldRoot, proof), verify.StatusFail, verify.Fail, 2, ""},
		{"changed signature", line(forged, 3, oldRoot, proof), verify.StatusPass, verify.Fail, 0, ""},
		{"no proof", string(plain), verify.StatusNotRun, verify.Pass, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := v.Verify([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			ax := res.Axes.Of(verify.AxisAnchors)
			lc := res.Fields.Lifecycle
			if res.Format != "c2sp-checkpoint" || ax.Status != tc.anchors || res.Verdict != tc.verdict || lc == nil {
				t.Fatalf("%s %s %v, anchors %s (%s); want anchors %s, %s", res.Format, res.Verdict, res.Reasons, ax.Status, ax.Note, tc.anchors, tc.verdict)
			}
			if tc.anchors == verify.StatusFail && res.Reasons[0] != verify.ReasonBadConsistencyProof {
				t.Errorf("reasons %v, want %s", res.Reasons, verify.ReasonBadConsistencyProof)
			}
			if tc.name == "changed signature" && res.Reasons[0] != verify.ReasonBadSignature {
				t.Errorf("reasons %v, want %s", res.Reasons, verify.ReasonBadSignature)
			}
			if lc.Kind != verify.LifecycleLogCheckpoint || lc.FinalSeq != 7 || lc.ConsistencySize != tc.size || lc.ConsistencyRoot != tc.recorded {
				t.Errorf("lifecycle %+v; want size 7, consistency from %d %q", lc, tc.size, tc.recorded)
			}
		})
	}

	// A chain-head checkpoint carries no consistency proof.
	chain := strings.Replace(line(good, 3, oldRoot, proof), origin, "pipelock-action-v1/"+strconv.Itoa(7), 1)
	res, err := v.Verify([]byte(chain))
	if err != nil {
		t.Fatal(err)
	}
	if ax := res.Axes.Of(verify.AxisAnchors); ax.Status != verify.StatusFail {
		t.Errorf("a chain checkpoint's consistency proof: anchors %s (%s), want fail", ax.Status, ax.Note)
	}
}
