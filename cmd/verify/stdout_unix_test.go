//go:build unix

package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestClosedStdoutExits74: a command started with stdout closed (the
// shell's >&-) loses its results: exit 74, where the Go runtime's
// /dev/null in its place made it exit 0. Output sent to /dev/null on
// purpose is fine, and so is a command that writes nothing to stdout.
func TestClosedStdoutExits74(t *testing.T) {
	verify, err := exec.LookPath("verify")
	if err != nil {
		t.Skip(err)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip(err)
	}
	db := filepath.Join(t.TempDir(), "a.duckdb")
	for _, tt := range []struct {
		script string
		want   int
	}{
		{`echo '{"b":1}' | "$0" canon >&-`, exitIOErr},
		{`echo '{"b":1}' | "$0" canon >/dev/null`, exitOK},
		{`echo '{}' | "$0" receipts --at 2026-12-01T00:00:00Z - >&-`, exitIOErr},
		{`echo '{}' | "$0" load --db "$1" - >&-`, exitOK},
	} {
		cmd := exec.Command("sh", "-c", tt.script, verify, db)
		out, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tt.want {
			t.Errorf("%s: exit %d, want %d\n%s", tt.script, code, tt.want, out)
		}
		if tt.want == exitIOErr && !strings.Contains(string(out), "standard output is closed") {
			t.Errorf("%s: stderr does not say why:\n%s", tt.script, out)
		}
	}
}
