package analytics

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
)

// TestCommitting: every file verified has its commit phase announced,
// before its OnFile, with the records verified and the spool bytes DuckDB
// is to read (the receipts rows twice, the rejects once); a file already
// loaded has none.
func TestCommitting(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 15, N: 30, Days: 1})
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.jsonl")
	if err := os.WriteFile(junk, []byte("not json\nnor this\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := openTestDB(t)
	var events []string
	var commits []Commit
	opts := LoadOptions{
		TempDir: t.TempDir(),
		Committing: func(cm Commit) {
			events = append(events, "commit "+filepath.Base(cm.Path))
			commits = append(commits, cm)
		},
		OnFile: func(f FileSummary) { events = append(events, "file "+filepath.Base(f.Path)) },
	}
	if _, err := db.Load(context.Background(), c.v, []Input{fileInput(c.receipts), fileInput(junk)}, opts); err != nil {
		t.Fatal(err)
	}
	// Small files share a transaction (fileBatch), so a file's OnFile
	// may come after the next file's commit phase begins: each file's
	// own order is what is promised.
	for _, name := range []string{"receipts.jsonl", "junk.jsonl"} {
		c, f := slices.Index(events, "commit "+name), slices.Index(events, "file "+name)
		if c < 0 || f < c {
			t.Fatalf("events %v: want commit %s before its file event", events, name)
		}
	}
	if len(events) != 4 || len(commits) != 2 {
		t.Fatalf("events %v, want one commit and one file event for each file", events)
	}
	slices.SortFunc(commits, func(a, b Commit) int { return cmp.Compare(filepath.Base(b.Path), filepath.Base(a.Path)) })
	if commits[0].Records != 30 || commits[0].Read <= 0 {
		t.Errorf("receipts.jsonl: %+v, want 30 records and bytes to read", commits[0])
	}
	if commits[1].Records != 2 || commits[1].Read <= 0 {
		t.Errorf("junk.jsonl: %+v, want 2 records and bytes to read", commits[1])
	}
	events = nil
	if _, err := db.Load(context.Background(), c.v, []Input{fileInput(c.receipts)}, opts); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(events, []string{"file receipts.jsonl"}) {
		t.Errorf("loaded again: events %v, want OnFile alone", events)
	}
}
