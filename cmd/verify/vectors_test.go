package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/receiptverify/verify/internal/testkit/testenv"
	"github.com/receiptverify/verify/internal/testkit/vectors"
)

// TestVectorScripts runs the vectors of the project (the conformance
// corpus and, when present, the interop suite) through the binary, as a
// user types it: every vector with VERIFY_TESTS=all (as in CI), else one
// of each outcome of each directory (format, verdicts and reason codes the
// same) and every one that names a completeness verdict; the library's
// and the stream's tests take every vector in process. One script per
// case, written here from the case's
// directory, which copies the case's files into the work directory and
// runs
//
//	verify receipts --keys K... [--predecessor predecessor.json] [--at T] receipt.json
//
// with -f jsonl, checking the exit status, the summary on stderr and each
// receipt's format, verdict and reason codes (with VERIFY_TESTS=all, as in
// CI, first without -f jsonl, checking the exit status and the summary on
// stdout: the text output's); and for a case
// that names its chain's completeness verdict, `verify load` and `verify
// query completeness`.
func TestVectorScripts(t *testing.T) {
	t.Parallel()
	scripts := t.TempDir()
	outcomes := map[string]bool{}
	for _, c := range vectors.Cases(t, "../..") {
		o := outcome(c)
		if !testenv.All() && outcomes[o] && c.Completeness == "" {
			continue
		}
		outcomes[o] = true
		writeVectorScript(t, scripts, c)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 scripts,
		RequireExplicitExec: true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"copycase": cmdCopyCase,
			"results":  cmdResults,
		},
	})
}

// outcome is what a case's run of the command shows: its directory (the
// format of an interop case, or the conformance corpus) and each line's
// format, verdict and reason codes.
func outcome(c vectors.Case) string {
	var b strings.Builder
	b.WriteString(filepath.Dir(c.Dir))
	for _, w := range c.Lines {
		fmt.Fprintf(&b, "\n%s %s %s", w.Format, w.Verdict, strings.Join(w.Reasons, ","))
	}
	return b.String()
}

func writeVectorScript(t *testing.T, dir string, c vectors.Case) {
	t.Helper()
	abs, err := filepath.Abs(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"receipts"}
	for _, k := range c.Keys {
		args = append(args, "--keys", k)
	}
	if c.Predecessor != "" {
		args = append(args, "--predecessor", c.Predecessor)
	}
	if c.At != "" {
		args = append(args, "--at", c.At)
	}
	var pass, fail, incomplete, unreadable int
	for _, w := range c.Lines {
		switch w.Verdict {
		case "PASS":
			pass++
		case "FAIL":
			fail++
		case "INCOMPLETE":
			incomplete++
		case "UNREADABLE":
			unreadable++
		}
	}
	exec := "exec"
	if pass != len(c.Lines) {
		exec = "! exec"
	}
	n := len(c.Lines)
	want, err := json.Marshal(c.Lines)
	if err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	fmt.Fprintf(&script, "# %s\ncopycase %s\n", c.Name, quoteArg(abs))
	summary := fmt.Sprintf("summary: %d lines read in 1 files: %d receipts verified \\(%d pass, %d fail, %d incomplete\\), %d unreadable, 0 blank$",
		n, n-unreadable, pass, fail, incomplete, unreadable)
	if testenv.All() {
		// The text output's summary too: a second run of each vector.
		fmt.Fprintf(&script, "%s verify %s %s\n", exec, strings.Join(args, " "), c.Input)
		fmt.Fprintf(&script, "stdout '^%s'\n", summary)
	}
	fmt.Fprintf(&script, "%s verify %s -f jsonl %s\n", exec, strings.Join(args, " "), c.Input)
	fmt.Fprintf(&script, "stderr '^verify: %s'\n", summary)
	fmt.Fprintf(&script, "results want.json\n")
	if c.Completeness != "" {
		// The chain's completeness verdict, from an audit database.
		load := append([]string{"load", "-q", "--db", "c.duckdb"}, args[1:]...)
		fmt.Fprintf(&script, "exec verify %s %s\n", strings.Join(load, " "), c.Input)
		fmt.Fprintf(&script, "exec verify query --db c.duckdb --format csv completeness\n")
		if c.Completeness == "unknown" {
			fmt.Fprintf(&script, "! stdout '^completeness,'\n")
		} else {
			fmt.Fprintf(&script, "stdout '^completeness,\\w+,\\w+,[^,]*(,\\S+\\\")?,[0-9-]+,%s,'\n", c.Completeness)
		}
	}
	ar := &txtar.Archive{
		Comment: []byte(script.String()),
		Files:   []txtar.File{{Name: "want.json", Data: append(want, '\n')}},
	}
	name := regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(c.Name, "_") + ".txtar"
	if err := os.WriteFile(filepath.Join(dir, name), txtar.Format(ar), 0o644); err != nil {
		t.Fatal(err)
	}
}

// quoteArg quotes a path for a script line.
func quoteArg(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// cmdCopyCase copies the files of a vector's directory into the work
// directory, byte for byte.
func cmdCopyCase(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: copycase DIR")
	}
	entries, err := os.ReadDir(args[0])
	ts.Check(err)
	for _, e := range entries {
		if e.IsDir() || e.Name() == "want.json" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(args[0], e.Name()))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(e.Name()), data, 0o644))
	}
}

// cmdResults checks the JSON results on stdout, one per receipt, against
// the expectations in FILE.
func cmdResults(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: results FILE")
	}
	var want []vectors.Want
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &want))
	var got []struct {
		Format  string   `json:"format"`
		Verdict string   `json:"verdict"`
		Reasons []string `json:"reasons"`
	}
	sc := bufio.NewScanner(strings.NewReader(ts.ReadFile("stdout")))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r struct {
			Format  string   `json:"format"`
			Verdict string   `json:"verdict"`
			Reasons []string `json:"reasons"`
		}
		ts.Check(json.Unmarshal(line, &r))
		got = append(got, r)
	}
	if len(got) != len(want) {
		ts.Fatalf("%d results on stdout, want %d", len(got), len(want))
	}
	for i, r := range got {
		if d := want[i].Check(r.Format, r.Verdict, r.Reasons); d != "" {
			ts.Fatalf("receipt %d: %s", i+1, d)
		}
	}
}
