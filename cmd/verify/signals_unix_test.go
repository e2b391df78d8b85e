//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// guardSIGTERM keeps a SIGTERM the test sends from ending the test binary
// should the run under test not catch it.
func guardSIGTERM(t *testing.T) {
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, syscall.SIGTERM)
	t.Cleanup(func() { signal.Stop(guard) })
}

// TestSIGTERMStopsEndlessInput: `verify receipts /dev/zero` reads a line
// that never ends; SIGTERM stops it at once.
func TestSIGTERMStopsEndlessInput(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	guardSIGTERM(t)
	_, stderr, wait := startRun("receipts", "--at=2026-12-01T00:00:00Z", "/dev/zero")
	waitOpenTemp(t, "zero") // reading, the handler in place
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if got := wait(t, 10*time.Second, "SIGTERM did not stop the read of /dev/zero"); got != exitInterrupt {
		t.Errorf("exit %d, want %d\n%s", got, exitInterrupt, stderr)
	}
}

// TestSIGTERMDuringStdinCopy: the handler is in place before standard
// input is copied, so SIGTERM during the copy (stdin still open, nothing
// more coming) ends the run with exit 130 and no copy left in $TMPDIR.
func TestSIGTERMDuringStdinCopy(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	guardSIGTERM(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	_, stderr, wait := startRunStdin(pr, "receipts", "--at=2026-12-01T00:00:00Z", "-")
	go pw.Write(bytes.Repeat([]byte("{}\n"), 10_000)) // then the pipe stays open, silent
	waitOpenTemp(t, "verify-input-")
	time.Sleep(100 * time.Millisecond)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if got := wait(t, 10*time.Second, "SIGTERM did not stop the copy of stdin"); got != exitInterrupt || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("exit %d, want %d\n%s", got, exitInterrupt, stderr)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %s", left[0].Name())
	}
}

// TestSIGPIPELeavesNothing: `verify receipts -f jsonl ... | head` closes
// the pipe early; the run ends with exit 74 and leaves neither the spool
// of results nor the copy of standard input. It runs the command as a
// process of its own, as SIGPIPE is about the process's stdout. 20,000
// lines are some 5 MB of results, forty times the output buffer and the
// pipe's together: the run is writing when the pipe closes.
func TestSIGPIPELeavesNothing(t *testing.T) {
	input := filepath.Join(t.TempDir(), "many.jsonl")
	if err := os.WriteFile(input, bytes.Repeat([]byte("{}\n"), 20_000), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{input}, {"-"}} {
		t.Run(args[0], func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command("verify", append([]string{"receipts", "-f", "jsonl", "--at=2026-12-01T00:00:00Z"}, args...)...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			in, err := os.Open(input)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			cmd.Stdin = in
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			head := make([]byte, 100) // as head -c 100 would
			if _, err := io.ReadFull(out, head); err != nil {
				t.Fatal(err)
			}
			out.Close()
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != exitIOErr {
				t.Errorf("%v, want exit %d\n%s", err, exitIOErr, stderr.String())
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %s", left[0].Name())
			}
		})
	}
}

// TestStaleSpoolsRemovedAtStart: a load removes the row spools that loads
// killed outright left behind (their process is gone), and no other.
func TestStaleSpoolsRemovedAtStart(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	files := map[string]bool{ // name: removed
		fmt.Sprintf("verify-load-%d-123.ndjson", dead.Process.Pid): true,
		fmt.Sprintf("verify-load-%d-456.ndjson", os.Getppid()):     false, // a live process
		"verify-load-abc-1.ndjson":                                 false,
		"other-file":                                               false,
	}
	for name := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(in, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runVerify(t, "load", "--db", filepath.Join(t.TempDir(), "a.duckdb"), in)
	if code != exitOK {
		t.Fatalf("load: %d\n%s", code, stderr)
	}
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(tmp, name))
		if gone := errors.Is(err, os.ErrNotExist); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
		if removed && !strings.Contains(stderr, name) {
			t.Errorf("stderr does not name %s:\n%s", name, stderr)
		}
	}
}
