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

// TestTrustFileOwnedByOtherUserRefused: a key file reached through a
// symlink whose target another user (not root) owns is refused, the
// target named with the chown that fixes it.
func TestTrustFileOwnedByOtherUserRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another user needs root")
	}
	dir := t.TempDir()
	target, link := filepath.Join(dir, "jwks.json"), filepath.Join(dir, "link.json")
	if err := os.WriteFile(target, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := checkTrusted(link, "a key file", unsafeTrustFlag); err != nil {
		t.Fatalf("root's own file: %v", err)
	}
	if err := os.Chown(target, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	err := checkTrusted(link, "a key file", unsafeTrustFlag)
	if err == nil || !strings.Contains(err.Error(), "(a link to "+target+"): refused: owned by uid 4242") || !strings.Contains(err.Error(), "run chown 0 "+target) {
		t.Fatalf("file of uid 4242: %v, want a refusal naming the target and the chown", err)
	}
}
