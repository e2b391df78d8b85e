package enginetest

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/receiptverify/verify/queries"
)

// lakeReports are the outputs of verify report and verify query over the
// audit database, which the same commands over a sharded run's folds
// (--lake) must give byte for byte.
type lakeReports struct {
	root string // the audit's outputs
	cmds []lakeCmd
}

// lakeCmd is one command, its arguments without --db or --lake, and what
// it gave over the audit database.
type lakeCmd struct {
	args   []string
	out    string // --out, under the root, for a report
	audit  string // the report verify audit wrote of the day, if it is this one
	code   int
	stdout []byte
}

// auditReports runs, over the audit database db, verify report for every
// day (plain, with every export format, and with a baseline and
// --fail-on medium), and verify query for every query in every format,
// with --min-severity and a baseline for the finding queries.
func auditReports(t *testing.T, bin, dir, db string, days []string) *lakeReports {
	t.Helper()
	at := "2026-12-01T00:00:00Z"
	base := filepath.Join(dir, "baseline.toml")
	if r := runVerify(t, bin, "baseline", "--db", db, "--day", days[0], "--out", base); r.code != 0 {
		t.Fatalf("verify baseline: exit %d\n%s", r.code, r.stderr)
	}
	lr := &lakeReports{root: filepath.Join(dir, "db-reports")}
	for _, day := range days {
		lr.cmds = append(lr.cmds,
			lakeCmd{args: []string{"report", "--day", day}, out: "plain-" + day, audit: filepath.Join(dir, "report", day)},
			lakeCmd{args: []string{"report", "--day", day, "--at", at, "--format", "ocsf,ecs,sarif"}, out: "formats-" + day},
			lakeCmd{args: []string{"report", "--day", day, "--at", at, "--baseline", base, "--fail-on", "medium"}, out: "baseline-" + day})
	}
	for _, name := range queries.Names() {
		formats := []string{"csv", "jsonl", "table"}
		finding := slices.Contains(queries.Findings(), name)
		if finding {
			formats = append(formats, "ocsf", "ecs", "sarif")
		}
		for _, f := range formats {
			lr.cmds = append(lr.cmds, lakeCmd{args: []string{"query", name, "--format", f}})
		}
		lr.cmds = append(lr.cmds, lakeCmd{args: []string{"query", name, "--format", "csv", "--day", days[len(days)/2]}})
		if finding {
			lr.cmds = append(lr.cmds,
				lakeCmd{args: []string{"query", name, "--format", "jsonl", "--min-severity", "high"}},
				lakeCmd{args: []string{"query", name, "--format", "jsonl", "--at", at, "--baseline", base, "--min-severity", "medium"}})
		}
	}
	failing := 0
	for i := range lr.cmds {
		c := &lr.cmds[i]
		r := runVerify(t, bin, c.withSource(lr.root, "--db", db)...)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("verify %s over the audit database: exit %d\n%s", strings.Join(c.args, " "), r.code, r.stderr)
		}
		if r.code == 1 {
			failing++
		}
		c.code, c.stdout = r.code, bytes.ReplaceAll(r.stdout, []byte(lr.root), []byte("ROOT"))
		if c.out != "" {
			want := filepath.Join(lr.root, c.out)
			if c.audit != "" {
				if d := diffDirs(t, c.audit, want); d != "" {
					t.Fatalf("verify report --db of %s is not the report verify audit wrote: %s", c.args[2], d)
				}
			}
		}
	}
	if failing == 0 {
		t.Fatal("no report or query exits 1: the archive plants no failing finding")
	}
	return lr
}

// withSource is c's arguments reading source (--db FILE, or --lake DIR
// and its flags), a report written under root.
func (c lakeCmd) withSource(root string, source ...string) []string {
	args := append(slices.Clone(c.args), source...)
	if c.out != "" {
		args = append(args, "--out", filepath.Join(root, c.out))
	}
	return args
}

// check runs every command over lk's folds, with and without its plan,
// and compares exit code, stdout and every report file with the audit
// database's.
func (lr *lakeReports) check(t *testing.T, bin string, lk lake) {
	for i, c := range lr.cmds {
		source := []string{"--lake", lk.folds, "--plan", lk.plan}
		if i%2 == 1 {
			source = source[:2] // the run the fold.json files name
		}
		root := t.TempDir()
		r := runVerify(t, bin, c.withSource(root, source...)...)
		name := "verify " + strings.Join(c.args, " ") + " " + strings.Join(source, " ")
		if r.code != c.code {
			t.Errorf("%s: exit %d, over the audit database %d\n%s", name, r.code, c.code, r.stderr)
			continue
		}
		if got := bytes.ReplaceAll(r.stdout, []byte(root), []byte("ROOT")); !bytes.Equal(got, c.stdout) {
			t.Errorf("%s: stdout differs from the audit database's: %s", name, firstDiff(c.stdout, got))
		}
		if c.out != "" {
			if d := diffDirs(t, filepath.Join(lr.root, c.out), filepath.Join(root, c.out)); d != "" {
				t.Errorf("%s: the report differs from the audit database's: %s", name, d)
			}
		}
	}
}

// diffDirs says how the files of dir got differ from want's: a name
// missing or extra, or the first line that differs; "" if none.
func diffDirs(t *testing.T, want, got string) string {
	t.Helper()
	names := func(dir string) []string {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	wn, gn := names(want), names(got)
	if !slices.Equal(wn, gn) {
		return "files " + strings.Join(gn, ", ") + ", want " + strings.Join(wn, ", ")
	}
	var diffs []string
	for _, n := range wn {
		w, err := os.ReadFile(filepath.Join(want, n))
		if err != nil {
			t.Fatal(err)
		}
		g, err := os.ReadFile(filepath.Join(got, n))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w, g) {
			diffs = append(diffs, n+": "+firstDiff(w, g))
		}
	}
	return strings.Join(diffs, "\n")
}
