//go:build unix

package main

import (
	"bytes"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWalkReportsNamedPipes: a named pipe found in a receipts or schemas
// directory is reported as unreadable instead of opened, which would block
// the run until something wrote to it; the directory's regular files are
// still verified.
func TestWalkReportsNamedPipes(t *testing.T) {
	dir := t.TempDir()
	receipts := filepath.Join(dir, "receipts")
	schemas := filepath.Join(dir, "schemas")
	for _, d := range []string{receipts, schemas} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	demo, err := os.ReadFile("../../testdata/demo/receipts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first := demo[:bytes.IndexByte(demo, '\n')+1]
	if err := os.WriteFile(filepath.Join(receipts, "a.jsonl"), first, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fifo := range []string{filepath.Join(receipts, "b.jsonl"), filepath.Join(schemas, "evil.json")} {
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
	}
	keys := "--keys=../../testdata/demo/keys/jwks.json"
	at := "--at=2026-12-01T00:00:00Z"
	for _, tt := range []struct {
		name         string
		args         []string
		out, errText string
	}{
		{"receipts directory", []string{"receipts", keys, at, receipts}, "b.jsonl is a named pipe, not read", "1 input file(s) could not be read"},
		{"schemas directory", []string{"receipts", keys, at, "--schemas", schemas, filepath.Join(receipts, "a.jsonl")}, "", "evil.json is a named pipe, not read"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, wait := startRun(tt.args...)
			if got := wait(t, 30*time.Second, "the run blocked on the named pipe"); got != exitNoInput {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", got, exitNoInput, stdout, stderr)
			}
			if !strings.Contains(stdout.String(), tt.out) || !strings.Contains(stderr.String(), tt.errText) {
				t.Errorf("stdout lacks %q or stderr %q\nstdout:\n%s\nstderr:\n%s", tt.out, tt.errText, stdout, stderr)
			}
			if tt.out != "" && !strings.Contains(stdout.String(), "1 receipts verified (1 pass") {
				t.Errorf("the regular file beside the pipe was not verified:\n%s", stdout)
			}
		})
	}
}

// TestNamedPipeArgument: a named pipe given as a path (the shell's
// <(command)) is read once, into a spool, so that the commands reading
// their input twice (load, audit) take it too.
func TestNamedPipeArgument(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	demo, err := os.ReadFile("../../testdata/demo/receipts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(demo, []byte("\n"))
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until the run opens it
		if err != nil {
			return
		}
		w.Write(bytes.Join(lines[:5], nil))
		w.Close()
	}()
	_, stderr, wait := startRun("load", "--db", filepath.Join(dir, "a.duckdb"), "--keys=../../testdata/demo/keys/jwks.json", "--at=2026-12-01T00:00:00Z", fifo)
	if got := wait(t, 60*time.Second, "the run did not finish"); got != exitOK || !strings.Contains(stderr.String(), fifo+": 5 accepted, 0 rejected") {
		t.Errorf("exit %d\nstderr:\n%s", got, stderr)
	}
}

// TestInterruptRemovesTemporaryFiles: SIGTERM (or SIGINT) in the middle
// of a run stops it with exit 130 and leaves nothing in $TMPDIR; the
// default handling of the signal would end the process at once and leave
// the spool, gigabytes for a large archive.
func TestInterruptRemovesTemporaryFiles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	input := filepath.Join(t.TempDir(), "many.jsonl")
	if err := os.WriteFile(input, bytes.Repeat([]byte("{}\n"), 3_000_000), 0o644); err != nil {
		t.Fatal(err)
	}
	// Should the run end before the signal arrives, this keeps the signal
	// from ending the test binary.
	guard := make(chan os.Signal, 1)
	signal.Notify(guard, syscall.SIGTERM)
	defer signal.Stop(guard)

	_, stderr, wait := startRun("receipts", "--at=2026-12-01T00:00:00Z", input)
	waitOpenTemp(t, "verify-spool-")
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The notice that stopping has begun is written, whole, before the
	// final error (go test -race catches the two writing at once).
	if got := wait(t, 60*time.Second, "the run did not stop"); got != exitInterrupt || !strings.Contains(stderr.String(), "interrupted") ||
		!strings.Contains(stderr.String(), "verify: SIGTERM received: stopping") {
		t.Errorf("exit %d, want %d\nstderr:\n%s", got, exitInterrupt, stderr)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("%d file(s) left in TMPDIR, the first %s", len(left), left[0].Name())
	}
}

// startRun runs the command in the background, as run does, with empty
// standard input. wait returns its exit code, or fails the test with
// hung once limit has passed: the faults these tests guard against hang.
// The buffers are for reading once wait has returned.
func startRun(args ...string) (stdout, stderr *bytes.Buffer, wait func(t *testing.T, limit time.Duration, hung string) int) {
	return startRunStdin(io.LimitReader(nil, 0), args...)
}

// startRunStdin is startRun with stdin as standard input.
func startRunStdin(stdin io.Reader, args ...string) (stdout, stderr *bytes.Buffer, wait func(t *testing.T, limit time.Duration, hung string) int) {
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	code := make(chan int, 1)
	go func() { code <- run(append([]string{"verify"}, args...), stdin, stdout, stderr) }()
	return stdout, stderr, func(t *testing.T, limit time.Duration, hung string) int {
		t.Helper()
		select {
		case got := <-code:
			return got
		case <-time.After(limit):
			t.Fatal(hung)
			return 0
		}
	}
}

// waitOpenTemp waits until this process holds open a file whose name
// contains prefix: the temporary files are unlinked as soon as they are
// made, so only /proc/self/fd shows them.
func waitOpenTemp(t *testing.T, prefix string) {
	t.Helper()
	if _, err := os.ReadDir("/proc/self/fd"); err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		fds, _ := os.ReadDir("/proc/self/fd")
		for _, fd := range fds {
			if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.Contains(filepath.Base(target), prefix) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s* file was opened", prefix)
		}
	}
}
