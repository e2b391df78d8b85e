package tempspool

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRemoveStale: the spool of a process that is gone is removed; this
// process's own spool, and a file whose name carries no process id, are
// left.
func TestRemoveStale(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	gone := cmd.Process.Pid
	if !processGone(gone) {
		t.Skip("this system cannot tell that a process is gone")
	}
	if own := Pattern(); !strings.HasPrefix(own, spoolPrefix+strconv.Itoa(os.Getpid())+"-") {
		t.Fatalf("Pattern() = %q", own)
	}
	dir := t.TempDir()
	name := func(s string) string { return filepath.Join(dir, spoolPrefix+s+"-1.ndjson") }
	stale, own, odd := name(strconv.Itoa(gone)), name(strconv.Itoa(os.Getpid())), name("x")
	for _, p := range []string{stale, own, odd} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := RemoveStale(dir)
	if err != nil || !slices.Equal(removed, []string{stale}) {
		t.Fatalf("RemoveStale = %v, %v; want [%s]", removed, err, stale)
	}
	for _, p := range []string{own, odd} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}
