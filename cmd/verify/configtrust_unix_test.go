//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigOwnedByOtherUserRefused checks the owner half of the config
// trust rule: a verify.toml owned by another user (not root) is refused
// whatever its mode. Changing a file's owner takes root.
func TestConfigOwnedByOtherUserRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another user needs root")
	}
	path := filepath.Join(t.TempDir(), "verify.toml")
	if err := os.WriteFile(path, []byte("no-fail = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkConfigTrust(path); err != nil {
		t.Fatalf("root's own file: %v", err)
	}
	if err := os.Chown(path, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	err := checkConfigTrust(path)
	if err == nil || !strings.Contains(err.Error(), "owned by uid 4242") {
		t.Fatalf("file of uid 4242: %v, want a refusal naming the owner", err)
	}
}
