package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/receiptverify/verify/internal/testkit/testenv"
)

func TestMain(m *testing.M) {
	testscript.Main(cleanupM{m}, map[string]func(){
		"verify": func() {
			stderr := &prefixChecker{w: os.Stderr}
			code := run(os.Args, os.Stdin, os.Stdout, stderr)
			if bad := stderr.bad(); bad != "" {
				fmt.Fprintf(os.Stderr, "TEST FAILURE: a stderr line without the verify: prefix: %q (exit %d)\n", bad, code)
				code = exitPrefixMissing
			}
			os.Exit(code)
		},
	})
}

// cleanupM runs the tests, then removes what they shared (builtBinary's
// build).
type cleanupM struct{ m *testing.M }

func (c cleanupM) Run() int {
	defer removeBuilt()
	return c.m.Run()
}

// exitPrefixMissing is the exit code of the verify that testscripts and
// the signal tests run when it wrote a stderr line without the prefix
// "verify:", so that every script checks the prefix through its exit code.
const exitPrefixMissing = 97

// prefixChecker passes stderr through and keeps the first line that does
// not begin "verify:" (blank lines aside).
type prefixChecker struct {
	mu    sync.Mutex
	w     io.Writer
	start []byte // the current line's first bytes, up to len("verify:")
	first string // the first line without the prefix, as far as it was seen
}

const stderrPrefix = "verify:"

func (p *prefixChecker) Write(b []byte) (int, error) {
	p.mu.Lock()
	for _, c := range b {
		if c == '\n' {
			p.endLine()
			continue
		}
		if len(p.start) < len(stderrPrefix) {
			p.start = append(p.start, c)
		}
	}
	p.mu.Unlock()
	return p.w.Write(b)
}

// endLine judges the line whose start was seen.
func (p *prefixChecker) endLine() {
	if len(p.start) > 0 && string(p.start) != stderrPrefix && p.first == "" {
		p.first = string(p.start) + "..."
	}
	p.start = p.start[:0]
}

// bad is the first line without the prefix, the last one, unterminated,
// included; empty when there is none.
func (p *prefixChecker) bad() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLine()
	return p.first
}

// TestScripts runs testdata/script/*.txtar. Besides the standard commands
// they (and TestLongScripts') have:
//
//	gzip FILE   writes FILE.gz, FILE gzipped
//	chomp FILE  drops one trailing newline from FILE (txtar always ends a
//	            file with one; canon output never does)
//	exits CODE PROG [ARGS...]
//	            runs PROG as exec does and fails unless it exits with CODE
//	            (! exec tells only that it failed, not which failure)
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, scriptParams("testdata/script"))
}

// TestLongScripts runs testdata/script/long/*.txtar: the scripts that
// open an audit database many times over, each a second of CPU or more,
// are long tests (testenv.Long).
func TestLongScripts(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	testscript.Run(t, scriptParams("testdata/script/long"))
}

// scriptParams are the scripts' parameters, commands included, for the
// scripts in dir.
func scriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"gzip":  cmdGzip,
			"chomp": cmdChomp,
			"exits": cmdExits,
		},
	}
}

func cmdGzip(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gzip FILE")
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write([]byte(ts.ReadFile(args[0])))
	ts.Check(err)
	ts.Check(zw.Close())
	ts.Check(os.WriteFile(ts.MkAbs(args[0]+".gz"), buf.Bytes(), 0o644))
}

func cmdChomp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: chomp FILE")
	}
	s := strings.TrimSuffix(ts.ReadFile(args[0]), "\n")
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(s), 0o644))
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	var exit *exec.ExitError
	switch err := ts.Exec(args[1], args[2:]...); {
	case errors.As(err, &exit):
		got = exit.ExitCode()
	case err != nil:
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// TestExitCodes pins the exit code of each kind of outcome; the scripts
// check the output. It calls run serially: urfave/cli v2 applies its
// package-level HelpFlag and VersionFlag to every app, so two runs at once
// race (a process only ever has one).
func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"b":1,"a":2}`)
	bad := write("bad.json", `{"a":1,"a":2}`)
	mixed := write("mixed.jsonl", "{\"a\":1}\n{\n\n")
	tools := write("tools.jsonl", `{"tool_name":"search","schema":{"args":{"q":"string"}}}`+"\n")
	notGzip := write("plain.gz", "not gzip")
	missing := filepath.Join(dir, "missing.json")

	tests := []struct {
		name  string
		args  []string
		stdin string
		want  int
	}{
		{"canon file", []string{"canon", good}, "", exitOK},
		{"canon stdin", []string{"canon"}, `[1]`, exitOK},
		{"canon dash", []string{"canon", "-"}, `[1]`, exitOK},
		{"canon each dialect", []string{"canon", "--dialect", "asqav-codepoint", good}, "", exitOK},
		{"canon rejected", []string{"canon", bad}, "", exitRejected},
		{"canon lines ok", []string{"canon", "--lines"}, "1\n2\n", exitOK},
		{"canon lines empty input", []string{"canon", "--lines"}, "", exitOK},
		{"canon lines mixed", []string{"canon", "--lines", mixed}, "", exitRejected},
		{"canon list", []string{"canon", "--list"}, "", exitOK},
		{"canon list with file", []string{"canon", "--list", good}, "", exitUsage},
		{"canon unknown dialect", []string{"canon", "--dialect", "nope", good}, "", exitUsage},
		{"canon unknown flag", []string{"canon", "--nope", good}, "", exitUsage},
		{"canon two files", []string{"canon", good, good}, "", exitUsage},
		{"canon missing file", []string{"canon", missing}, "", exitNoInput},
		{"canon directory", []string{"canon", dir}, "", exitNoInput},
		{"canon lines directory", []string{"canon", "--lines", dir}, "", exitNoInput},
		{"canon bad gzip", []string{"canon", notGzip}, "", exitNoInput},
		{"fingerprint asqav-tool", []string{"fingerprint", "asqav-tool", tools}, "", exitOK},
		{"fingerprint rejected", []string{"fingerprint", "asqav-tool"}, "{}\n", exitRejected},
		{"fingerprint asqav dialect", []string{"fingerprint", "asqav-action", "--dialect", "asqav"}, `{"action_type":"x"}`, exitOK},
		{"fingerprint asqav wrong dialect", []string{"fingerprint", "asqav-action", "--dialect", "overturn-v1"}, "", exitUsage},
		{"fingerprint overturn", []string{"fingerprint", "overturn"}, `{"name":"t","args":null}`, exitOK},
		{"fingerprint undolog", []string{"fingerprint", "undolog", "--profile", "r1", "--lock-key"}, "", exitOK},
		{"fingerprint undolog bad profile", []string{"fingerprint", "undolog", "--profile", "p2"}, "", exitUsage},
		{"fingerprint missing file", []string{"fingerprint", "overturn", missing}, "", exitNoInput},
		{"fingerprint no kind", []string{"fingerprint"}, "", exitUsage},
		{"fingerprint unknown kind", []string{"fingerprint", "nope"}, "", exitUsage},
		{"fingerprint unknown flag", []string{"fingerprint", "overturn", "--dialect", "rfc8785"}, "", exitUsage},
		{"no command", nil, "", exitUsage},
		{"unknown command", []string{"nope"}, "", exitUsage},
		{"unknown global flag", []string{"--nope"}, "", exitUsage},
		{"version", []string{"--version"}, "", exitOK},
		{"help", []string{"--help"}, "", exitOK},
		{"command help", []string{"canon", "--help"}, "", exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"verify"}, tt.args...)
			got := run(args, strings.NewReader(tt.stdin), &stdout, &stderr)
			if got != tt.want {
				t.Errorf("run(%q) = %d, want %d\nstdout:\n%s\nstderr:\n%s", tt.args, got, tt.want, &stdout, &stderr)
			}
			if got != exitOK && !strings.HasPrefix(stderr.String(), "verify: ") {
				t.Errorf("run(%q): stderr does not start with \"verify: \":\n%s", tt.args, &stderr)
			}
			if got == exitUsage && stdout.Len() != 0 {
				t.Errorf("run(%q): usage error wrote to stdout:\n%s", tt.args, &stdout)
			}
		})
	}
}

// failingWriter takes the first n bytes written to it, then fails as a
// full disk does.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= w.n {
		w.n -= len(p)
		return len(p), nil
	}
	n := w.n
	w.n = 0
	return n, errors.New("no space left on device")
}

// TestStdoutFailureExits74: results that cannot be written to stdout end
// the run with exit 74 and say so, whichever command wrote them and
// whatever else the run found. Before, a lost text summary of a clean run
// exited 0 and a lost JSON stream exited 1, as if receipts had failed.
func TestStdoutFailureExits74(t *testing.T) {
	t.Parallel()
	receipts := "../../testdata/receipts/asqav-06-mldsa65-payload-prod/"
	demo := "../../testdata/demo/"
	at := "--at=2026-12-01T00:00:00Z"
	records := filepath.Join(t.TempDir(), "records.jsonl")
	if err := os.WriteFile(records, []byte(`{"action_type":"a","context":{}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		args  []string
		after int // bytes stdout takes before it fails
		stdin string
	}{
		{"clean run, summary lost", []string{"receipts", "--keys", receipts + "jwks.json", at, receipts + "receipt.json"}, 0, ""},
		{"findings, text lost at once", []string{"receipts", "--keys", demo + "keys/jwks.json", at, demo + "receipts.jsonl"}, 0, ""},
		{"findings, text lost midway", []string{"receipts", "--keys", demo + "keys/jwks.json", at, demo + "receipts.jsonl"}, 300, ""},
		{"findings, JSON lost midway", []string{"receipts", "--keys", demo + "keys/jwks.json", at, "-f", "json", demo + "receipts.jsonl"}, 70000, ""},
		{"canon", []string{"canon", "--list"}, 0, ""},
		{"canon lines", []string{"canon", "--lines"}, 0, "1\n"},
		{"fingerprint", []string{"fingerprint", "asqav-action", records}, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var stderr bytes.Buffer
			got := run(append([]string{"verify"}, c.args...), strings.NewReader(c.stdin), &failingWriter{n: c.after}, &stderr)
			if got != exitIOErr || !strings.Contains(stderr.String(), "no space left on device (the output stops short)") {
				t.Errorf("exit %d, want %d; stderr:\n%s", got, exitIOErr, &stderr)
			}
		})
	}
}
