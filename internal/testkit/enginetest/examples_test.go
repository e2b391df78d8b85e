package enginetest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnginesSlurmExample runs examples/slurm/run.sh as it is written,
// twice (two days, the second judged against the first's history), with
// a stand-in for sbatch (testdata/slurm/sbatch) that runs each job at
// once and each array index as a task of its own, two at a time: each
// day's results.jsonl is byte for byte what one verify receipts over the
// day's files writes (the second day's what finalize writes with the
// first day's map directories as history), and the history holds both
// days.
func TestEnginesSlurmExample(t *testing.T) {
	enginesOff(t)
	bin := buildVerify(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	lines, trust := generatedArchive(t, dir, 20261206)
	lake, archive := filepath.Join(dir, "lake"), filepath.Join(dir, "archive")
	days := []string{"2026-11-29", "2026-11-30"}
	// Day one: the first half of the archive in 3 files; day two: the
	// rest in 2 files (its links reach into day one).
	half := len(lines) / 2
	cut := [][]string{{strings.Join(lines[:half/3], ""), strings.Join(lines[half/3:2*half/3], ""), strings.Join(lines[2*half/3:half], "")},
		{strings.Join(lines[half:3*half/2], ""), strings.Join(lines[3*half/2:], "")}}
	var files [2][]string
	for d, day := range days {
		if err := os.MkdirAll(filepath.Join(archive, day), 0o755); err != nil {
			t.Fatal(err)
		}
		for i, body := range cut[d] {
			p := filepath.Join(archive, day, fmt.Sprintf("part-%d.jsonl", i))
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			files[d] = append(files[d], p)
		}
	}
	script, err := filepath.Abs("../../../examples/slurm/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	fake, err := filepath.Abs("testdata/slurm")
	if err != nil {
		t.Fatal(err)
	}
	keys, schemas := trust[1], trust[3]
	for d, day := range days {
		log := filepath.Join(dir, "sbatch-"+day+".log")
		cmd := exec.Command(sh, script, day, fmt.Sprint(len(files[d])))
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+fake+string(os.PathListSeparator)+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
			"VERIFY_LAKE="+lake, "VERIFY_ARCHIVE="+archive, "VERIFY_KEYS="+keys, "VERIFY_SCHEMAS="+schemas, "SBATCH_LOG="+log, "NO_COLOR=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("run.sh %s: %v\n%s", day, err, stderr.Bytes())
		}
		if calls, _ := os.ReadFile(log); bytes.Count(calls, []byte("\n")) != 5 || !bytes.Contains(calls, []byte(fmt.Sprintf("--array=0-%d", len(files[d])-1))) {
			t.Errorf("run.sh %s: sbatch calls:\n%s", day, calls)
		}
		want := runVerify(t, bin, append([]string{"receipts", "--format", "json", "--keys", keys, "--schemas", schemas, "--at", day + "T23:59:59Z"}, files[d]...)...)
		if d == 1 {
			// Against the history: what finalize gives with day one's
			// map directories as history (TestEnginesHistory ties the
			// compact history to them).
			run := filepath.Join(lake, "verify", day)
			maps, _ := filepath.Glob(filepath.Join(run, "maps", "shard-*"))
			one, _ := filepath.Glob(filepath.Join(lake, "verify", days[0], "maps", "shard-*"))
			args := []string{"finalize", "--plan", filepath.Join(run, "plan.json"), "--format", "json"}
			for _, h := range one {
				args = append(args, "--history", h)
			}
			want = runVerify(t, bin, append(args, maps...)...)
		}
		got, err := os.ReadFile(filepath.Join(lake, "verify", day, "results.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.stdout) || len(got) == 0 {
			t.Errorf("%s: results.jsonl differs from verify receipts (exit %d):\n%s", day, want.code, firstDiff(want.stdout, got))
		}
		if _, err := os.Stat(filepath.Join(lake, "history", day, "keys.parquet")); err != nil {
			t.Errorf("%s: not appended to the history: %v", day, err)
		}
	}
}
