package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"ok", []string{"--out", filepath.Join(dir, "a"), "--n", "60", "--rate", "0.1", "--algs", "Ed25519"}, exitOK},
		{"gzip", []string{"--out", filepath.Join(dir, "b"), "--n", "60", "--algs", "Ed25519", "--gzip", "--start", "2026-09-01", "--days", "2"}, exitOK},
		{"mix", []string{"--out", filepath.Join(dir, "d"), "--n", "60", "--rate", "0.1", "--algs", "Ed25519", "--mix", "asqav-hash=3,dsse=3,agentreceipts=5"}, exitOK},
		{"bad mix", []string{"--out", dir, "--mix", "acta=3"}, exitUsage},
		{"no out", []string{"--n", "5"}, exitUsage},
		{"bad flag", []string{"--out", dir, "--bogus"}, exitUsage},
		{"bad start", []string{"--out", dir, "--start", "11/01/2026"}, exitUsage},
		{"bad algs", []string{"--out", dir, "--algs", "RSA"}, exitUsage},
		{"bad rate", []string{"--out", dir, "--rate", "0.9"}, exitUsage},
		{"extra arg", []string{"--out", dir, "x"}, exitUsage},
		{"infeasible", []string{"--out", filepath.Join(dir, "c"), "--n", "10", "--rate", "0.5", "--agents", "1", "--orgs", "1", "--sessions-per-agent", "1"}, exitFailed},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"receiptgen"}, tc.args...), &stdout, &stderr)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", tc.name, code, tc.code, stderr.String())
		}
		if code != exitOK {
			if stdout.Len() > 0 || !strings.HasPrefix(stderr.String(), "receiptgen: ") {
				t.Errorf("%s: stdout %q, stderr %q", tc.name, stdout.String(), stderr.String())
			}
		}
	}
	for _, f := range []string{"a/receipts.jsonl", "a/truth.jsonl", "a/keys/jwks.json", "a/schemas/crm.json", "b/receipts.jsonl.gz"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}
