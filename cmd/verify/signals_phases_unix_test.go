//go:build unix

package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGTERMInEveryPhase sends SIGTERM as each phase of each command
// begins (phaseHook) and checks the one mechanism they share: the signal
// is said at once on stderr, the run stops with exit 130, the outputs it
// had not finished are absent and no temporary file is left, while what
// was finished (a file committed before the signal) stays whole.
// Serially: the signal goes to the whole test process.
func TestSIGTERMInEveryPhase(t *testing.T) {
	guardSIGTERM(t)
	demo := "../../testdata/demo/"
	input := demo + "receipts.jsonl"
	trust := []string{"--keys", demo + "keys/jwks.json", "--schemas", demo + "schemas", "--at", "2026-12-01T00:00:00Z"}
	work := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	w := func(name string) string { return filepath.Join(work, name) }
	second := w("second.jsonl")
	data, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(second, []byte(strings.Join(lines[:10], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	db := w("loaded.duckdb")
	if code, _, stderr := runVerify(t, append(append([]string{"load", "--db", db}, trust...), input)...); code != exitOK {
		t.Fatalf("load: exit %d\n%s", code, stderr)
	}
	code, plan, stderr := runVerify(t, append(append([]string{"plan"}, trust...), input)...)
	if code != exitOK {
		t.Fatalf("plan: exit %d\n%s", code, stderr)
	}
	if err := os.WriteFile(w("plan.json"), []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runVerify(t, "receipts", "--plan", w("plan.json"), "--emit", w("shard"), "--shard", "0"); code != exitOK {
		t.Fatalf("receipts --emit: exit %d\n%s", code, stderr)
	}
	with := func(args ...string) []string { return append(append(args[:1:1], trust...), args[1:]...) }

	cases := []struct {
		name, phase string
		args        []string
		absent      []string // unfinished outputs
		then        func(t *testing.T)
	}{
		{"receipts", "verify", with("receipts", "-o", w("r.txt"), input), []string{w("r.txt")}, nil},
		{"load", "load", with("load", "--db", w("l.duckdb"), input), nil, func(t *testing.T) {
			if _, out, _ := runVerify(t, "query", "--db", w("l.duckdb"), "files"); strings.Contains(out, "receipts.jsonl") {
				t.Errorf("an interrupted load stored its file:\n%s", out)
			}
		}},
		{"load between commits", "commit", with("load", "--db", w("c.duckdb"), input, second), nil, func(t *testing.T) {
			_, out, _ := runVerify(t, "query", "--db", w("c.duckdb"), "files")
			if !strings.Contains(out, "receipts.jsonl") || strings.Contains(out, "second.jsonl") {
				t.Errorf("want the file committed before the signal, not the next:\n%s", out)
			}
		}},
		{"load in its commit", "committing", with("load", "--db", w("m.duckdb"), input), nil, func(t *testing.T) {
			if _, out, _ := runVerify(t, "query", "--db", w("m.duckdb"), "files"); strings.Contains(out, "receipts.jsonl") {
				t.Errorf("a load interrupted in its commit stored its file:\n%s", out)
			}
		}},
		{"audit in its commit", "committing", with("audit", "--db", w("n.duckdb"), "--out", w("audit-c"), input), []string{w("audit-c")}, func(t *testing.T) {
			if _, out, _ := runVerify(t, "query", "--db", w("n.duckdb"), "files"); strings.Contains(out, "receipts.jsonl") {
				t.Errorf("an audit interrupted in its commit stored its file:\n%s", out)
			}
		}},
		{"audit queries", "queries", with("audit", "--db", w("a.duckdb"), "--out", w("audit-q"), input), []string{w("audit-q/2026-11-01")}, nil},
		{"audit report", "report", with("audit", "--db", w("b.duckdb"), "--out", w("audit-r"), input), []string{w("audit-r/2026-11-01")}, nil},
		{"report", "report", []string{"report", "--db", db, "--day", "2026-11-03", "--out", w("report")}, []string{w("report")}, nil},
		{"query", "query", []string{"query", "--db", db, "-f", "csv", "-o", w("drift.csv"), "drift"}, []string{w("drift.csv")}, nil},
		{"export", "export", []string{"export", "--db", db, "--parquet", w("parquet")}, []string{w("parquet")}, nil},
		{"baseline", "baseline", []string{"baseline", "--db", db, "--day", "2026-11-03", "--out", w("baseline.toml")}, []string{w("baseline.toml")}, nil},
		{"finalize", "finalize", []string{"finalize", "--plan", w("plan.json"), "-o", w("final.txt"), w("shard")}, []string{w("final.txt")}, nil},
	}
	defer func() { phaseHook = nil }()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			phaseHook = func(ctx context.Context, p string) {
				if p != c.phase {
					return
				}
				phaseHook = nil // once
				syscall.Kill(os.Getpid(), syscall.SIGTERM)
				select {
				case <-ctx.Done():
				case <-time.After(10 * time.Second):
					t.Errorf("SIGTERM did not cancel the run's context")
				}
			}
			code, _, stderr := runVerify(t, c.args...)
			if code != exitInterrupt {
				t.Errorf("exit %d, want %d\n%s", code, exitInterrupt, stderr)
			}
			if !strings.Contains(stderr, "verify: SIGTERM received: stopping") || !strings.Contains(stderr, "interrupted") {
				t.Errorf("stderr does not say so:\n%s", stderr)
			}
			for _, p := range c.absent {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s exists, unfinished", p)
				}
			}
			if c.then != nil {
				c.then(t)
			}
		})
	}
	var left []string
	for _, dir := range []string{work, tmp} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && (strings.Contains(d.Name(), ".tmp") || strings.HasPrefix(d.Name(), "verify-")) {
				left = append(left, p)
			}
			return nil
		})
	}
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestSIGTERMWhileFIFOBlocks: a FIFO that no one opens at the other end
// blocks its open (an input with no writer, an -o FILE with no reader);
// SIGTERM ends the wait in every command that opens one, exit 130.
func TestSIGTERMWhileFIFOBlocks(t *testing.T) {
	guardSIGTERM(t)
	work := t.TempDir()
	t.Setenv("TMPDIR", t.TempDir())
	fifo := filepath.Join(work, "in.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	outFIFO := filepath.Join(work, "out")
	if err := syscall.Mkfifo(outFIFO, 0o600); err != nil {
		t.Skip(err)
	}
	doc := filepath.Join(work, "doc.json")
	os.WriteFile(doc, []byte(`{}`), 0o644)
	at := "--at=2026-12-01T00:00:00Z"
	for _, args := range [][]string{
		{"receipts", at, fifo},
		{"load", "--db", filepath.Join(work, "l.duckdb"), at, fifo},
		{"audit", "--db", filepath.Join(work, "a.duckdb"), "--out", filepath.Join(work, "reports"), at, fifo},
		{"explain", at, fifo + ":1"},
		{"canon", "-o", outFIFO, doc},
		{"canon", "--config", fifo, doc},
		{"audit", "--db", filepath.Join(work, "b.duckdb"), "--out", filepath.Join(work, "reports"), "--baseline", fifo, at, doc},
	} {
		t.Run(args[0], func(t *testing.T) {
			_, stderr, wait := startRun(args...)
			time.Sleep(300 * time.Millisecond) // blocked in the open by now
			syscall.Kill(os.Getpid(), syscall.SIGTERM)
			if got := wait(t, 10*time.Second, "SIGTERM did not end the wait for the FIFO"); got != exitInterrupt {
				t.Errorf("exit %d, want %d\n%s", got, exitInterrupt, stderr)
			}
		})
	}
	// A database the interrupted run created, nothing loaded into it, is
	// not left behind.
	for _, name := range []string{"l.duckdb", "a.duckdb", "b.duckdb"} {
		if _, err := os.Lstat(filepath.Join(work, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left behind (%v)", name, err)
		}
	}
}

// TestClosedPipeQuery: `verify query ... | head -1` ends with exit 74 and
// says why, as receipts does, where the default SIGPIPE killed it (141,
// nothing said). A process of its own: SIGPIPE is about its stdout.
func TestClosedPipeQuery(t *testing.T) {
	verify, err := exec.LookPath("verify")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	db, junk := filepath.Join(dir, "a.duckdb"), filepath.Join(dir, "junk.jsonl")
	// Rows enough to fill the pipe many times over: one reject a line.
	if err := os.WriteFile(junk, []byte(strings.Repeat("not json\n", 5000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runVerify(t, "load", "--db", db, "--at", "2026-12-01T00:00:00Z", junk); code != exitOK {
		t.Fatalf("load: exit %d\n%s", code, stderr)
	}
	cmd := exec.Command(verify, "query", "--db", db, "-f", "jsonl", "rejects")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 10)
	if _, err := io.ReadFull(out, line); err != nil {
		t.Fatal(err)
	}
	out.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitIOErr || !strings.Contains(stderr.String(), "broken pipe") {
		t.Errorf("%v, want exit %d saying broken pipe\n%s", err, exitIOErr, stderr.String())
	}
}
