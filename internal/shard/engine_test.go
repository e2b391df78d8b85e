package shard

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// mappedRun maps n generated receipts into one shard and opens the run.
func mappedRun(t *testing.T, n int) *Run {
	t.Helper()
	dir, v, _ := generated(t, receiptgen.Config{Seed: 5, N: n, Rate: 0.1, Days: 1})
	in := filepath.Join(dir, "receipts.jsonl")
	ctx := context.Background()
	plan := testPlan(t, in)
	maps := filepath.Join(dir, "maps", "shard-0")
	w, err := Create(maps, plan, 0, plan.Trust)
	if err != nil {
		t.Fatal(err)
	}
	srcs := []streamrun.Source{{Name: in, Lines: true, Open: func() (io.ReadCloser, error) { return os.Open(in) }}}
	msum, err := streamrun.Map(ctx, v, srcs, streamrun.Options{}, w.Add)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(msum); err != nil {
		t.Fatal(err)
	}
	run, err := Open(ctx, plan, []string{maps}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestJudgeEngineLimits: the run's engine limits reach the judgments'
// DuckDB (its settings read back on the connection), and a limit the
// judgments do not fit in fails with DuckDB's out-of-memory error
// (OutOfMemory), publishing nothing.
func TestJudgeEngineLimits(t *testing.T) {
	ctx := context.Background()
	run := mappedRun(t, 2000)
	spill := filepath.Join(t.TempDir(), "spill")
	run.WithLimits(Engine{Limits: analytics.Limits{Memory: "12MB", Threads: 1}, TempDir: spill})
	conn, done, err := judgmentsConn(ctx, run.engine, run.Parts(), History{})
	if err != nil {
		t.Fatal(err)
	}
	var mem, tmp string
	var threads int
	err = conn.QueryRowContext(ctx, "SELECT current_setting('memory_limit'), current_setting('temp_directory'), current_setting('threads')").Scan(&mem, &tmp, &threads)
	done()
	if err != nil {
		t.Fatal(err)
	}
	if mem != "11.4 MiB" || tmp != spill || threads != 1 {
		t.Errorf("the judgments' DuckDB has memory_limit %q, temp_directory %q, threads %d; want 11.4 MiB (12MB), %q, 1", mem, tmp, threads, spill)
	}

	out := filepath.Join(t.TempDir(), "judgments")
	run.WithLimits(Engine{Limits: analytics.Limits{Memory: "64KB", Threads: 1}})
	err = WriteJudgments(ctx, run, out, "")
	if !OutOfMemory(err) {
		t.Errorf("judgments within 64KB: %v, want DuckDB's out-of-memory error", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("judgments that ran out of memory published %s (%v)", out, err)
	}
}

// TestJudgeSpills: within a memory limit the judgments of 60,000 receipts
// only fit in by spilling (they fail when DuckDB may not write its
// temporary directory), they spill to the directory given and are byte
// for byte those of a run without a limit.
func TestJudgeSpills(t *testing.T) {
	testenv.Long(t)
	ctx := context.Background()
	run := mappedRun(t, 60000)
	spill := filepath.Join(t.TempDir(), "spill")
	bounded := Engine{Limits: analytics.Limits{Memory: "96MB", Threads: 1}, TempDir: spill}

	conn, done, err := judgmentsConn(ctx, bounded, run.Parts(), History{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "SET max_temp_directory_size = '0KB'"); err != nil {
		t.Fatal(err)
	}
	_, err = loadJudgments(ctx, conn, "", -1)
	done()
	if !OutOfMemory(err) {
		t.Fatalf("judgments within %s and no room to spill: %v, want DuckDB's out-of-memory error", bounded.Limits.Memory, err)
	}

	dir := t.TempDir()
	whole, small := filepath.Join(dir, "whole"), filepath.Join(dir, "small")
	if err := WriteJudgments(ctx, run, whole, ""); err != nil {
		t.Fatal(err)
	}
	run.WithLimits(bounded)
	if err := WriteJudgments(ctx, run, small, ""); err != nil {
		t.Fatalf("judgments within %s, spilling to %s: %v", bounded.Limits.Memory, spill, err)
	}
	a, err := os.ReadFile(JudgmentsFile(whole, 0))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(JudgmentsFile(small, 0))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("the judgments within %s differ from those without a limit", bounded.Limits.Memory)
	}
}
