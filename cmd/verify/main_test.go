package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"verify": func() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar. Besides the standard commands
// they have:
//
//	gzip FILE   writes FILE.gz, FILE gzipped
//	chomp FILE  drops one trailing newline from FILE (txtar always ends a
//	            file with one; canon output never does)
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"gzip":  cmdGzip,
			"chomp": cmdChomp,
		},
	})
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

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestExitCodeOutputError(t *testing.T) {
	var stderr bytes.Buffer
	got := run([]string{"verify", "canon", "--lines"}, strings.NewReader("1\n"), failingWriter{}, &stderr)
	if got != exitRejected {
		t.Errorf("exit code %d, want %d; stderr:\n%s", got, exitRejected, &stderr)
	}
}

func TestLineReader(t *testing.T) {
	t.Parallel()
	type result struct {
		line    string
		tooLong bool
	}
	tests := []struct {
		name string
		in   string
		max  int
		want []result
	}{
		// Line splitting itself is internal/lines' (TestRead); these pin
		// what the reader adds: io.EOF without a phantom last line, and
		// errLineTooLong in place of the line.
		{"empty", "", 8, nil},
		{"one unterminated", "abc", 8, []result{{line: "abc"}}},
		{"one terminated", "abc\n", 8, []result{{line: "abc"}}},
		{"blank lines kept", "\n\na\n", 8, []result{{line: ""}, {line: ""}, {line: "a"}}},
		{"max plus one", "123456789\nok\n", 8, []result{{tooLong: true}, {line: "ok"}}},
		{"too long at the end", "ok\n123456789", 8, []result{{line: "ok"}, {tooLong: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lr := newLineReader(strings.NewReader(tt.in), tt.max)
			var got []result
			for {
				line, err := lr.next()
				if err == io.EOF {
					break
				}
				switch {
				case errors.Is(err, errLineTooLong):
					got = append(got, result{tooLong: true})
				case err != nil:
					t.Fatal(err)
				default:
					got = append(got, result{line: string(line)})
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d lines, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("line %d: got %+.20v, want %+.20v", i+1, got[i], tt.want[i])
				}
			}
		})
	}
}
