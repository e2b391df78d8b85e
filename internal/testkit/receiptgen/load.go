package receiptgen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/toolschema"
)

// LoadKeys reads the key directory of a corpus written under dir
// (dir/keys/jwks.json, and dir/keys/witness.json when the corpus has
// completeness plants), for the tests and benchmarks that verify it.
func LoadKeys(dir string) (*keys.Directory, error) {
	var snaps []*keys.Snapshot
	for _, f := range []string{FileJWKS, FileWitness} {
		name := filepath.Join(dir, filepath.FromSlash(f))
		raw, err := os.ReadFile(name)
		if f == FileWitness && os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		snap, err := keys.Load(filepath.Base(name), raw)
		if err != nil {
			return nil, err
		}
		snaps = append(snaps, snap)
	}
	return keys.NewDirectory(snaps...)
}

// LoadSchemas reads the expected tool schemas of a corpus written under
// dir (dir/schemas/*.json), in name order, one server per file.
func LoadSchemas(dir string) (*toolschema.Set, error) {
	set := toolschema.NewSet()
	files, err := filepath.Glob(filepath.Join(dir, SchemaDir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := set.Add(toolschema.ServerName(f), raw); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// LoadVerifier is the verifier of the corpus written under dir, judging
// at at, and the expected schemas it checks tools against.
func LoadVerifier(dir string, at time.Time) (*verify.Verifier, *toolschema.Set, error) {
	kd, err := LoadKeys(dir)
	if err != nil {
		return nil, nil, err
	}
	set, err := LoadSchemas(dir)
	if err != nil {
		return nil, nil, err
	}
	v, err := verify.New(kd, verify.WithTime(at), verify.WithSchemas(set))
	if err != nil {
		return nil, nil, err
	}
	return v, set, nil
}

// LoadLinesOf reads the truth.jsonl an archive in dir was written with
// and returns the 0-based indexes of the lines planted as kind, in line
// order: the tests that move planted receipts about find them by it.
func LoadLinesOf(dir string, kind Kind) ([]int, error) {
	raw, err := os.ReadFile(filepath.Join(dir, FileTruth))
	if err != nil {
		return nil, err
	}
	var out []int
	for i, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var r Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", FileTruth, i+1, err)
		}
		if r.Kind == kind && r.Line > 0 {
			out = append(out, r.Line-1)
		}
	}
	return out, nil
}
