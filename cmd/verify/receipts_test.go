package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestReceiptsExitCodes pins the documented exit codes of `verify receipts`.
func TestReceiptsExitCodes(t *testing.T) {
	dir := "../../testdata/receipts/"
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := "--at=2026-07-01T00:00:00Z"
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"receipts", "--keys", dir + "asqav-06-mldsa65-payload-prod/jwks.json", at, dir + "asqav-06-mldsa65-payload-prod/receipt.json"}, exitOK},
		{[]string{"receipts", "--keys", dir + "asqav-04-tamper-sig/jwks.json", at, dir + "asqav-04-tamper-sig/receipt.json"}, exitRejected},
		{[]string{"receipts", at, dir + "asqav-06-mldsa65-payload-prod/receipt.json"}, exitIncomplete},
		{[]string{"receipts", at, bad}, exitRejected},
		{[]string{"receipts", at, filepath.Join(tmp, "missing.jsonl")}, exitNoInput},
		{[]string{"receipts", "--output", "xml", at, bad}, exitUsage},
		{[]string{"receipts", "--at", "yesterday", bad}, exitUsage},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		if got := run(append([]string{"verify"}, c.args...), io.LimitReader(nil, 0), &out, &errOut); got != c.want {
			t.Errorf("%v: exit %d, want %d\nstdout: %s\nstderr: %s", c.args, got, c.want, out.String(), errOut.String())
		}
	}
}
