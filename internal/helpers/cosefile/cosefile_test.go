package cosefile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/vectors"
)

// TestLine: a whole COSE_Sign1 file becomes the line whose statement is
// its bytes; a file cut short (each length from one byte on), one with a
// byte after the message, one that does not start with CBOR tag 18, an
// empty one and one over MaxBytes are refused with the reason.
func TestLine(t *testing.T) {
	t.Parallel()
	cose := vectors.TransparentStatement(t, filepath.Join("..", "..", "..", "testdata", "interop", "scitt", "es256-attached"))
	line, err := Line(bytes.NewReader(cose))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		TS string `json:"transparent_statement"`
	}
	if err := json.Unmarshal(line, &got); err != nil || !bytes.HasSuffix(line, []byte("\n")) || bytes.Count(line, []byte("\n")) != 1 {
		t.Fatalf("line %q: %v", line, err)
	}
	if back, err := base64.RawURLEncoding.DecodeString(got.TS); err != nil || !bytes.Equal(back, cose) {
		t.Fatalf("the line's statement is not the file's bytes: %v", err)
	}
	for n := 1; n < len(cose); n++ {
		if _, err := Line(bytes.NewReader(cose[:n])); !errors.Is(err, ErrTruncated) {
			t.Fatalf("cut to %d of %d bytes: %v, want a truncated file", n, len(cose), err)
		}
	}
	for name, tc := range map[string]struct {
		data []byte
		want error
	}{
		"trailing byte": {append(append([]byte(nil), cose...), 0), ErrNotCOSE},
		"untagged":      {cose[1:], ErrNotCOSE},
		"empty":         {nil, ErrNotCOSE},
		"too large":     {append([]byte{tag18}, make([]byte, MaxBytes)...), ErrTooLarge},
	} {
		if _, err := Line(bytes.NewReader(tc.data)); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	for _, name := range []string{"a.cose", "dir/a.cose.gz"} {
		if !IsName(name) {
			t.Errorf("%s is a .cose file's name", name)
		}
	}
	if IsName("a.cose.jsonl") || IsName("a.jsonl") {
		t.Error("a JSON Lines file taken for a .cose file")
	}
}
