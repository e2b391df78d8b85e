package verify_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"
	"golang.org/x/mod/sumdb/note"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/tlog"
)

var updateLogProof = flag.Bool("update-logproof", false, "rewrite testdata/logproof from its generator")

// The log of testdata/logproof: its origin, the name of its checkpoint
// key and the seed of that key.
const (
	logOrigin  = "log.example/aerf-evidence"
	logKeyName = "aerf-test-log"
	logKeySeed = "verify aerf transparency log test key"
	logIndex   = 2
)

// logSigner signs a note with an Ed25519 key, as the C2SP signed-note
// spec names it (key hash over name, newline, 0x01 and the key).
type logSigner struct {
	name string
	key  ed25519.PrivateKey
}

func (s logSigner) Name() string { return s.name }
func (s logSigner) KeyHash() uint32 {
	h := sha256.Sum256(append([]byte(s.name+"\n\x01"), s.key.Public().(ed25519.PublicKey)...))
	return binary.BigEndian.Uint32(h[:4])
}
func (s logSigner) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(s.key, msg), nil }

// logProofFixture builds testdata/logproof from the AERF receipt
// aerf-up-01-genesis-happy-path: the receipt with a log_inclusion_proof at
// index 2 of a five-leaf RFC 6962 tree (the other leaves the merkle
// module's test inputs), the log's C2SP checkpoint of that tree signed by
// a key from a fixed seed, and that key as a key file.
func logProofFixture(t *testing.T) map[string][]byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "testdata", "receipts", "aerf-up-01-genesis-happy-path", "receipt.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := canon.Parse(raw, canon.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kept canon.Value
	kept.Kind = canon.Object
	for _, m := range doc.Members {
		if m.Name != "signature" {
			kept.Members = append(kept.Members, m)
		}
	}
	payload, err := canon.AsqavCodePoint().Append(nil, &kept)
	if err != nil {
		t.Fatal(err)
	}
	tree := testonly.New(rfc6962.DefaultHasher)
	in := testonly.LeafInputs()
	for i, data := range [][]byte{in[0], in[1], payload, in[3], in[4]} {
		if i == logIndex {
			tree.Append(tlog.LeafHash(data))
			continue
		}
		tree.AppendData(data)
	}
	path, err := tree.InclusionProof(logIndex, tree.Size())
	if err != nil {
		t.Fatal(err)
	}
	hexes := make([]string, len(path))
	for i, h := range path {
		hexes[i] = hex.EncodeToString(h)
	}
	seed := sha256.Sum256([]byte(logKeySeed))
	key := ed25519.NewKeyFromSeed(seed[:])
	sth := `{"root_hash":"` + hex.EncodeToString(tree.Hash()) + `","timestamp":"2026-05-06T16:30:00+00:00","tree_size":` + strconv.FormatUint(tree.Size(), 10) + `}`
	proof, err := json.Marshal(map[string]any{
		"log_id":        logOrigin,
		"leaf_hash":     hex.EncodeToString(tlog.LeafHash(payload)),
		"leaf_index":    logIndex,
		"tree_size":     tree.Size(),
		"audit_path":    hexes,
		"sth":           json.RawMessage(sth),
		"sth_signature": hex.EncodeToString(ed25519.Sign(key, []byte(sth))),
	})
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		t.Fatal(err)
	}
	line := bytes.TrimSuffix(compact.Bytes(), []byte("}"))
	line = append(append(append(line, `,"log_inclusion_proof":`...), proof...), "}\n"...)

	body := logOrigin + "\n" + strconv.FormatUint(tree.Size(), 10) + "\n" + base64.StdEncoding.EncodeToString(tree.Hash()) + "\n"
	signed, err := note.Sign(&note.Note{Text: body}, logSigner{logKeyName, key})
	if err != nil {
		t.Fatal(err)
	}
	cp, _ := json.Marshal(map[string]string{"checkpoint": string(signed)})
	keyFile, _ := json.Marshal(map[string]string{logKeyName: hex.EncodeToString(key.Public().(ed25519.PublicKey))})
	return map[string][]byte{
		"receipt.jsonl":    line,
		"checkpoint.jsonl": append(cp, '\n'),
		"log-key.json":     append(keyFile, '\n'),
	}
}

// TestLogProofFixture: testdata/logproof is what its generator makes
// (go test ./verify -run TestLogProofFixture -update-logproof rewrites it).
func TestLogProofFixture(t *testing.T) {
	t.Parallel()
	for name, want := range logProofFixture(t) {
		path := filepath.Join("..", "testdata", "logproof", name)
		if *updateLogProof {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its generator's output", path)
		}
	}
}

// TestAERFInclusionProof: an AERF receipt's log_inclusion_proof passes the
// anchors axis against its log's signed checkpoint; a changed leaf hash,
// audit path, root or checkpoint signature fails it (bad_inclusion_proof);
// without a checkpoint, or one no key of the key files signed, it is not
// run. The issuer signature does not cover the proof: the verdict of a
// receipt whose proof only lacks a checkpoint stays the signature's.
func TestAERFInclusionProof(t *testing.T) {
	t.Parallel()
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("..", "testdata", "logproof", name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	var cp struct{ Checkpoint string }
	if err := json.Unmarshal([]byte(read("checkpoint.jsonl")), &cp); err != nil {
		t.Fatal(err)
	}
	receipt := read("receipt.jsonl")
	issuer, err := keys.Load("keys.json", []byte(read("../receipts/aerf-up-01-genesis-happy-path/keys.json")))
	if err != nil {
		t.Fatal(err)
	}
	logKey, err := keys.Load("log-key.json", []byte(read("log-key.json")))
	if err != nil {
		t.Fatal(err)
	}
	withLog, _ := keys.NewDirectory(issuer, logKey)
	issuerOnly, _ := keys.NewDirectory(issuer)

	var p struct {
		LeafHash  string   `json:"leaf_hash"`
		AuditPath []string `json:"audit_path"`
		STH       struct {
			RootHash string `json:"root_hash"`
		} `json:"sth"`
	}
	var doc struct {
		P json.RawMessage `json:"log_inclusion_proof"`
	}
	if err := json.Unmarshal([]byte(receipt), &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc.P, &p); err != nil {
		t.Fatal(err)
	}
	// change swaps the first occurrence of a hex hash for another.
	change := func(s, h string) string {
		t.Helper()
		if !strings.Contains(s, h) {
			t.Fatalf("%s not in the fixture", h)
		}
		b, _ := hex.DecodeString(h)
		b[0] ^= 0x80
		return strings.Replace(s, h, hex.EncodeToString(b), 1)
	}
	// A changed checkpoint signature: one bit of the note's signature.
	sigLine := cp.Checkpoint[strings.LastIndex(cp.Checkpoint, " ")+1 : len(cp.Checkpoint)-1]
	sig, err := base64.StdEncoding.DecodeString(sigLine)
	if err != nil {
		t.Fatal(err)
	}
	sig[len(sig)-1] ^= 1
	forgedCP := strings.Replace(cp.Checkpoint, sigLine, base64.StdEncoding.EncodeToString(sig), 1)

	for _, tc := range []struct {
		name    string
		receipt string
		dir     *keys.Directory
		cps     []string
		status  verify.Status
		verdict verify.Verdict
	}{
		{"included", receipt, withLog, []string{cp.Checkpoint}, verify.StatusPass, verify.Pass},
		{"changed leaf hash", change(receipt, p.LeafHash), withLog, []string{cp.Checkpoint}, verify.StatusFail, verify.Fail},
		{"changed audit path", change(receipt, p.AuditPath[1]), withLog, []string{cp.Checkpoint}, verify.StatusFail, verify.Fail},
		{"changed root", change(receipt, p.STH.RootHash), withLog, []string{cp.Checkpoint}, verify.StatusFail, verify.Fail},
		{"changed checkpoint signature", receipt, withLog, []string{forgedCP}, verify.StatusFail, verify.Fail},
		{"no checkpoint", receipt, withLog, nil, verify.StatusNotRun, verify.Pass},
		{"checkpoint key not given", receipt, issuerOnly, []string{cp.Checkpoint}, verify.StatusNotRun, verify.Pass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, err := verify.New(tc.dir, verify.WithLogCheckpoints(tc.cps...))
			if err != nil {
				t.Fatal(err)
			}
			res, err := v.Verify([]byte(tc.receipt))
			if err != nil {
				t.Fatal(err)
			}
			ax := res.Axes.Of(verify.AxisAnchors)
			if res.Format != "aerf" || ax.Status != tc.status || res.Verdict != tc.verdict {
				t.Fatalf("%s %s, anchors %s (%s), want anchors %s, %s", res.Format, res.Verdict, ax.Status, ax.Note, tc.status, tc.verdict)
			}
			if tc.status == verify.StatusFail && res.Reasons[0] != verify.ReasonBadInclusionProof {
				t.Fatalf("reasons %v, want %s", res.Reasons, verify.ReasonBadInclusionProof)
			}
			if sig := res.Axes.Of(verify.AxisSignature); sig.Status != verify.StatusPass {
				t.Fatalf("issuer signature %s: the proof is outside it", sig.Status)
			}
		})
	}

	// The log's checkpoint, read as an input line, is a transparency
	// log's: it verifies with the log's key and names no chain head.
	v, err := verify.New(withLog)
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Verify([]byte(read("checkpoint.jsonl")))
	if err != nil {
		t.Fatal(err)
	}
	if lc := res.Fields.Lifecycle; res.Format != "c2sp-checkpoint" || res.Verdict != verify.Pass || lc == nil || lc.Kind != verify.LifecycleLogCheckpoint || lc.FinalSeq != 5 {
		t.Fatalf("log checkpoint: %s %s %v lifecycle %+v", res.Format, res.Verdict, res.Reasons, res.Fields.Lifecycle)
	}
}
