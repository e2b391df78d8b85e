package baseline

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, text, want string }{
		{"unknown key", "[[suppress]]\ntool = \"a\"\nfingerprnt = \"b\"\nreason = \"r\"\nexpires = 2027-01-01\n", "unknown key(s) suppress.fingerprnt"},
		{"no reason", "[[suppress]]\ntool = \"a\"\nexpires = 2027-01-01\n", "entry 1 (tool a) has no reason"},
		{"no expiry", "[[suppress]]\ntool = \"a\"\nreason = \"r\"\n", "has no expires date"},
		{"names nothing", "[[suppress]]\nreason = \"r\"\nexpires = 2027-01-01\n", "names no tool, fingerprint or server"},
		{"expiry a string", "[[suppress]]\ntool = \"a\"\nreason = \"r\"\nexpires = \"soon\"\n", "want a date"},
		{"not TOML", "[[suppress]\n", "baseline b.toml:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("b.toml", []byte(tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
	b, err := Parse("b.toml", []byte("[[suppress]]\nserver = \"crm\"\nreason = \"r\"\nexpires = 2027-01-01T12:00:00+02:00\n"))
	if err != nil || !b.Entries[0].Expires.Equal(time.Date(2027, 1, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("offset datetime: %v %v", b, err)
	}
}

// TestReadBounded checks that a baseline past maxBaselineBytes,
// or a device that never ends, is refused instead of read whole.
func TestReadBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.toml")
	if err := os.WriteFile(big, bytes.Repeat([]byte("#"), maxBaselineBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{big, "/dev/zero"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if _, err := Read(p); !errors.Is(err, ErrTooLarge) {
			t.Errorf("Read(%s) = %v, want ErrTooLarge", p, err)
		}
	}
}
