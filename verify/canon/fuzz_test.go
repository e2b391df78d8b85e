package canon

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// seedFuzz adds the RFC 8785 reference inputs and a few hostile shapes.
func seedFuzz(f *testing.F) {
	inputs, _ := filepath.Glob("../../testdata/jcs/input/*.json")
	for _, in := range inputs {
		if b, err := os.ReadFile(in); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{`{"a":1,"a":2}`, `"\ud800"`, `[1e400]`, `{"😀":1,"＠":1}`, `-0.0`, `[[[[[]]]]]`, `{"n":9007199254740993}`, "\"\xed\xa0\x80\""} {
		f.Add([]byte(s))
	}
}

// FuzzRFC8785 checks that canonicalization never panics, is idempotent, and
// yields JSON that means the same as its input.
func FuzzRFC8785(f *testing.F) {
	seedFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := RFC8785().Canonicalize(data)
		if err != nil {
			return
		}
		again, err := RFC8785().Canonicalize(out)
		if err != nil {
			t.Fatalf("canonical output rejected: %q: %v", out, err)
		}
		if !bytes.Equal(out, again) {
			t.Fatalf("not idempotent:\n%q\n%q", out, again)
		}
		var a, b any
		if json.Unmarshal(data, &a) != nil || json.Unmarshal(out, &b) != nil {
			t.Fatalf("encoding/json disagrees on validity: %q -> %q", data, out)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("value changed:\n in  %q\n out %q", data, out)
		}
	})
}

// FuzzAsqav checks the Asqav() dialects never panic and are idempotent.
func FuzzAsqav(f *testing.F) {
	seedFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range []Dialect{Asqav(), AsqavCodePoint()} {
			out, err := d.Canonicalize(data)
			if err != nil {
				continue
			}
			again, err := d.Canonicalize(out)
			if err != nil || !bytes.Equal(out, again) {
				t.Fatalf("%s: not idempotent: %q -> %q, %v", d.Name(), out, again, err)
			}
			if !json.Valid(out) {
				t.Fatalf("%s: invalid JSON out: %q", d.Name(), out)
			}
		}
	})
}
