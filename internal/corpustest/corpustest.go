// Package corpustest loads, for tests and benchmarks, the trust material of
// a corpus directory as receiptgen writes it: keys/jwks.json and
// schemas/*.json.
package corpustest

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/toolschema"
)

// Keys loads dir/keys/jwks.json.
func Keys(tb testing.TB, dir string) *keys.Directory {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "keys", "jwks.json"))
	if err != nil {
		tb.Fatal(err)
	}
	snap, err := keys.Load("jwks.json", raw)
	if err != nil {
		tb.Fatal(err)
	}
	kd, err := keys.NewDirectory(snap)
	if err != nil {
		tb.Fatal(err)
	}
	return kd
}

// Schemas loads dir/schemas/*.json in name order, one server per file.
func Schemas(tb testing.TB, dir string) *toolschema.Set {
	tb.Helper()
	set := toolschema.NewSet()
	files, _ := filepath.Glob(filepath.Join(dir, "schemas", "*.json"))
	sort.Strings(files)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		if err := set.Add(toolschema.ServerName(f), raw); err != nil {
			tb.Fatal(err)
		}
	}
	return set
}

// Verifier is the verifier of the corpus in dir, judging at at, and the
// expected schemas it checks tools against.
func Verifier(tb testing.TB, dir string, at time.Time) (*verify.Verifier, *toolschema.Set) {
	tb.Helper()
	set := Schemas(tb, dir)
	v, err := verify.New(Keys(tb, dir), verify.WithTime(at), verify.WithSchemas(set))
	if err != nil {
		tb.Fatal(err)
	}
	return v, set
}
