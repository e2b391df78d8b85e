//go:build unix

package main

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// TestReportKilled kills verify report with SIGKILL while it writes each
// day's directory, later at each attempt: every day directory is then the
// old report whole or the new one whole, never a mix; what the killed
// runs left beside them is removed by the next run.
func TestReportKilled(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	corpus := genAuditCorpus(t)
	work := t.TempDir()
	db := filepath.Join(work, "audit.duckdb")
	if code, _, stderr := runVerify(t, "load", "--db", db, "--keys", filepath.Join(corpus, "keys", "jwks.json"), "--at", "2026-12-01T00:00:00Z", filepath.Join(corpus, "receipts.jsonl")); code != exitOK {
		t.Fatalf("load: exit %d\n%s", code, stderr)
	}
	days := []string{"2026-11-01", "2026-11-02", "2026-11-03"}
	out, ref := filepath.Join(work, "out"), filepath.Join(work, "ref")
	report := func(dir, day string, extra ...string) []string {
		return append([]string{"report", "--db", db, "--day", day, "--out", filepath.Join(dir, day), "--no-fail", "--at", "2026-12-01T00:00:00Z"}, extra...)
	}
	// The old generation: CSV and JSON Lines; the new one adds OCSF, ECS
	// and SARIF, so that the two differ in files and in manifest.json.
	formats := []string{"--format", "ocsf,ecs,sarif"}
	old, fresh := map[string]map[string]string{}, map[string]map[string]string{}
	for _, d := range days {
		for _, r := range []struct {
			args []string
			tree map[string]map[string]string
			dir  string
		}{{report(out, d), old, out}, {report(ref, d, formats...), fresh, ref}} {
			if code, _, stderr := runVerify(t, r.args...); code != exitOK {
				t.Fatalf("report: exit %d\n%s", code, stderr)
			}
			r.tree[d] = dirTree(t, filepath.Join(r.dir, d))
		}
	}
	killed := 0
	for i, d := range days {
		for attempt := range 4 {
			cmd := exec.Command("verify", report(out, d, formats...)...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait for the hidden generation to appear, then a little
			// longer at each attempt, and kill.
			deadline := time.Now().Add(20 * time.Second)
			for time.Now().Before(deadline) && len(hiddenBeside(t, out, d)) == 0 {
				time.Sleep(200 * time.Microsecond)
			}
			time.Sleep(time.Duration(i*4+attempt) * 3 * time.Millisecond)
			if cmd.Process.Kill() == nil {
				killed++
			}
			cmd.Wait()
			got := dirTree(t, filepath.Join(out, d))
			if !maps.Equal(got, old[d]) && !maps.Equal(got, fresh[d]) {
				t.Errorf("%s after kill -9 (attempt %d): neither the old report nor the new one: %v", d, attempt, treeNames(got))
			}
			if maps.Equal(got, fresh[d]) {
				break // published: a later kill would find nothing to cut
			}
		}
	}
	t.Logf("%d run(s) killed", killed)
	for _, d := range days {
		if code, _, stderr := verifyProcess(t, report(out, d, formats...)...); code != exitOK {
			t.Fatalf("report after the kills: exit %d\n%s", code, stderr)
		}
		if got := dirTree(t, filepath.Join(out, d)); !maps.Equal(got, fresh[d]) {
			t.Errorf("%s after a whole run: not the new report: %v", d, treeNames(got))
		}
		if h := hiddenBeside(t, out, d); len(h) > 0 {
			t.Errorf("%s: the next run left what the killed ones did: %v", d, h)
		}
	}
}

// dirTree is a directory's files by name, with their content.
func dirTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// treeNames are a tree's file names.
func treeNames(tree map[string]string) []string {
	var out []string
	for n := range maps.Keys(tree) {
		out = append(out, n)
	}
	return out
}

// hiddenBeside are the entries of dir that a publication of day left beside it.
func hiddenBeside(t *testing.T, dir, day string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "."+day+".") {
			out = append(out, e.Name())
		}
	}
	return out
}
