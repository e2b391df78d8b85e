package main

import (
	"bytes"
	"encoding/csv"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
)

// TestCompletenessGroundTruth: on receiptgen's default archive, loaded
// with its checkpoints, `verify query completeness` reports as truncated
// exactly the chains truth.jsonl lists as truncated: a tail deleted, a
// session removed and a chain rewritten under a checkpoint, and not the
// same three without one. Serial, like TestExitCodes.
func TestCompletenessGroundTruth(t *testing.T) {
	dir := t.TempDir()
	truth, err := receiptgen.Generate(receiptgen.Default(), receiptgen.DirSink(dir))
	if err != nil {
		t.Fatal(err)
	}
	var want, never []string
	for _, r := range truth.Records {
		switch r.Kind {
		case receiptgen.KindTruncated:
			want = append(want, r.ChainScope)
		case receiptgen.KindNoEvidence:
			never = append(never, r.ChainScope)
		}
	}
	if len(want) == 0 || len(never) == 0 {
		t.Fatalf("the default archive plants %d truncated and %d unevidenced chains; want some of each", len(want), len(never))
	}
	db := filepath.Join(t.TempDir(), "a.duckdb")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"verify", "load", "-q", "--db", db,
		"--keys", filepath.Join(dir, receiptgen.FileJWKS), "--keys", filepath.Join(dir, receiptgen.FileWitness),
		"--schemas", filepath.Join(dir, receiptgen.SchemaDir), "--at", "2026-12-01T00:00:00Z",
		"--checkpoints", filepath.Join(dir, receiptgen.FileCheckpoints), filepath.Join(dir, receiptgen.FileReceipts)},
		strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"verify", "query", "--db", db, "--format", "csv", "completeness"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("query: exit %d: %s", code, stderr.String())
	}
	rows, err := csv.NewReader(&stdout).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("query output: %v", err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	var got []string
	complete := 0
	for _, row := range rows[1:] {
		switch row[col["status"]] {
		case "truncated":
			got = append(got, row[col["chain_scope"]])
		case "complete":
			complete++
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("truncated chains %v, want truth.jsonl's %v", got, want)
	}
	for _, s := range never {
		if slices.Contains(got, s) {
			t.Errorf("chain %s has no signed evidence against it, but is reported truncated", s)
		}
	}
	if complete == 0 {
		t.Error("the clean chain a checkpoint covers is not reported complete")
	}
}
