package tlog_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/receiptverify/verify/verify/tlog"
)

type vectors struct {
	Leaves []string `json:"leaves"`
	Roots  []string `json:"roots"`
	Proofs []struct {
		Leaf uint64   `json:"leaf"`
		Size uint64   `json:"size"`
		Path []string `json:"path"`
	} `json:"proofs"`
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// flip returns b with one bit changed, in a copy.
func flip(b []byte) []byte {
	c := append([]byte(nil), b...)
	c[len(c)-1] ^= 1
	return c
}

// TestInclusionVectors: the merkle module's RFC 9162 inclusion proofs
// verify through VerifyInclusion and Judge, and a changed leaf, path hash,
// root or index, an extra path hash, or a log checkpoint of that size with another
// root or a bad signature, refutes them.
func TestInclusionVectors(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "rfc6962-inclusion.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Proofs) == 0 {
		t.Fatal("no vectors")
	}
	for _, p := range v.Proofs {
		t.Run(fmt.Sprintf("leaf%d-of-%d", p.Leaf, p.Size), func(t *testing.T) {
			t.Parallel()
			leaf := tlog.LeafHash(unhex(t, v.Leaves[p.Leaf-1]))
			root := unhex(t, v.Roots[p.Size-1])
			path := make([][]byte, len(p.Path))
			for i, h := range p.Path {
				path[i] = unhex(t, h)
			}
			index := p.Leaf - 1
			if err := tlog.VerifyInclusion(leaf, index, p.Size, path, root); err != nil {
				t.Fatalf("vector does not verify: %v", err)
			}
			changed := map[string]error{
				"leaf":  tlog.VerifyInclusion(flip(leaf), index, p.Size, path, root),
				"root":  tlog.VerifyInclusion(leaf, index, p.Size, path, flip(root)),
				"index": tlog.VerifyInclusion(leaf, index+1, p.Size, path, root),
				"extra": tlog.VerifyInclusion(leaf, index, p.Size, append(path[:len(path):len(path)], root), root),
			}
			for i := range path {
				bad := append([][]byte(nil), path...)
				bad[i] = flip(bad[i])
				changed[fmt.Sprintf("path[%d]", i)] = tlog.VerifyInclusion(leaf, index, p.Size, bad, root)
			}
			for what, err := range changed {
				if err == nil {
					t.Errorf("changed %s verifies", what)
				}
			}

			// What a COSE receipt signs: the root recomputed from the leaf
			// and the path, another for a changed leaf, index or path hash.
			if got, err := tlog.RootFromInclusion(leaf, index, p.Size, path); err != nil || !bytes.Equal(got, root) {
				t.Fatalf("RootFromInclusion = %x, %v; want %x", got, err, root)
			}
			recomputed := map[string][][]byte{"leaf": {flip(leaf)}, "index": {leaf}}
			for what, in := range recomputed {
				i := index
				if what == "index" {
					i = index + 1
				}
				if got, err := tlog.RootFromInclusion(in[0], i, p.Size, path); err == nil && bytes.Equal(got, root) {
					t.Errorf("changed %s leads to the same root", what)
				}
			}
			for i := range path {
				bad := append([][]byte(nil), path...)
				bad[i] = flip(bad[i])
				if got, err := tlog.RootFromInclusion(leaf, index, p.Size, bad); err == nil && bytes.Equal(got, root) {
					t.Errorf("changed path[%d] leads to the same root", i)
				}
			}

			const log = "log.example/test"
			judge := func(cps ...tlog.Checkpoint) tlog.Outcome {
				var cs tlog.Checkpoints
				for _, cp := range cps {
					cs.Add(cp)
				}
				o, _ := cs.Judge(log, leaf, index, p.Size, path, root)
				return o
			}
			signed := tlog.Checkpoint{Origin: log, Size: p.Size, Root: root, Status: tlog.Verified, Signer: "k"}
			// The size is bound by the checkpoint: a proof of another
			// size is judged against another tree head.
			larger := signed
			larger.Size = p.Size + 1
			other := signed
			other.Root = flip(root)
			forged := signed
			forged.Status = tlog.BadSig
			otherLog := signed
			otherLog.Origin = "log.example/other"
			for _, tc := range []struct {
				name string
				cps  []tlog.Checkpoint
				want tlog.Outcome
			}{
				{"signed", []tlog.Checkpoint{signed}, tlog.Included},
				{"signed another root", []tlog.Checkpoint{other}, tlog.Refuted},
				{"forged checkpoint", []tlog.Checkpoint{forged}, tlog.Refuted},
				{"no checkpoint", nil, tlog.Unverified},
				{"another log's", []tlog.Checkpoint{otherLog}, tlog.Unverified},
				{"another size", []tlog.Checkpoint{larger}, tlog.Unverified},
			} {
				if got := judge(tc.cps...); got != tc.want {
					t.Errorf("%s: outcome %d, want %d", tc.name, got, tc.want)
				}
			}
		})
	}
}

// TestConsistencyVectors: the merkle module's RFC 9162 consistency proofs
// verify through VerifyConsistency, and a changed proof hash, old root or
// new root, another old size, or a proof cut short or grown, refutes them.
func TestConsistencyVectors(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "rfc6962-consistency.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Roots  []string `json:"roots"`
		Proofs []struct {
			Size1 uint64   `json:"size1"`
			Size2 uint64   `json:"size2"`
			Proof []string `json:"proof"`
		} `json:"proofs"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Proofs) == 0 {
		t.Fatal("no vectors")
	}
	for _, p := range v.Proofs {
		t.Run(fmt.Sprintf("%d-to-%d", p.Size1, p.Size2), func(t *testing.T) {
			t.Parallel()
			old, cur := unhex(t, v.Roots[p.Size1-1]), unhex(t, v.Roots[p.Size2-1])
			hashes := make([][]byte, len(p.Proof))
			for i, h := range p.Proof {
				hashes[i] = unhex(t, h)
			}
			if err := tlog.VerifyConsistency(p.Size1, p.Size2, hashes, old, cur); err != nil {
				t.Fatalf("vector does not verify: %v", err)
			}
			changed := map[string]error{
				"old root": tlog.VerifyConsistency(p.Size1, p.Size2, hashes, flip(old), cur),
				"new root": tlog.VerifyConsistency(p.Size1, p.Size2, hashes, old, flip(cur)),
				"extra":    tlog.VerifyConsistency(p.Size1, p.Size2, append(hashes[:len(hashes):len(hashes)], cur), old, cur),
			}
			if p.Size1 > 1 {
				changed["old size"] = tlog.VerifyConsistency(p.Size1-1, p.Size2, hashes, old, cur)
			}
			if len(hashes) > 0 {
				changed["cut short"] = tlog.VerifyConsistency(p.Size1, p.Size2, hashes[:len(hashes)-1], old, cur)
			}
			for i := range hashes {
				bad := append([][]byte(nil), hashes...)
				bad[i] = flip(bad[i])
				changed[fmt.Sprintf("proof[%d]", i)] = tlog.VerifyConsistency(p.Size1, p.Size2, bad, old, cur)
			}
			for what, err := range changed {
				if err == nil {
					t.Errorf("changed %s verifies", what)
				}
			}
		})
	}
}

// TestConsistencyShape: a proof from no tree, from a larger tree, or of
// hashes of the wrong size is refused before the merkle module walks it.
func TestConsistencyShape(t *testing.T) {
	t.Parallel()
	root := bytes.Repeat([]byte{1}, tlog.HashSize)
	for name, err := range map[string]error{
		"old size 0":     tlog.VerifyConsistency(0, 4, nil, root, root),
		"old larger":     tlog.VerifyConsistency(5, 4, nil, root, root),
		"short hash":     tlog.VerifyConsistency(2, 4, [][]byte{{1, 2}}, root, root),
		"short root":     tlog.VerifyConsistency(2, 4, [][]byte{root}, root[:4], root),
		"too many":       tlog.VerifyConsistency(2, 4, make([][]byte, tlog.MaxConsistency+1), root, root),
		"same, not root": tlog.VerifyConsistency(4, 4, nil, root, flip(root)),
	} {
		if err == nil {
			t.Errorf("%s: verifies", name)
		}
	}
}
