package keys

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadFile: a key file read from its path loads as Load loads its
// bytes; a missing file, and one over MaxFileBytes, are errors naming it.
func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "jwks.json")
	set := `{"keys":[{"kid":"k0","agent_id":"agt_0","issuer_id":"org","org_id":"org","alg":"Ed25519","public_key":"iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w="}]}`
	if err := os.WriteFile(good, []byte(set), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadFile(good)
	if err != nil || len(s.Keys) != 1 || s.Name != good {
		t.Fatalf("LoadFile: %v, %+v", err, s)
	}
	if _, err := LoadFile(filepath.Join(dir, "missing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, append([]byte(set), bytes.Repeat([]byte(" "), MaxFileBytes)...), 0o644); err != nil {
		t.Fatal(err)
	}
	var e *Error
	if _, err := LoadFile(big); !errors.As(err, &e) || e.Reason != ReasonLimit || e.File != big {
		t.Errorf("file over MaxFileBytes: %v", err)
	}
	d, err := LoadFiles(good, good)
	if err != nil || d.Len() != 1 {
		t.Errorf("LoadFiles of one file twice: %v", err)
	}
	if _, err := LoadFiles(good, big); err == nil {
		t.Error("LoadFiles with a bad file: no error")
	}
}
