package analytics

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/receiptgen"
	"github.com/receiptverify/verify/verify/stream"
)

// TestChangedInputFailsAlone: an input rewritten in place between the
// load's readings of it (its third opening reads other bytes of the same
// length) is that input's error, named by its path; the inputs before and
// after it are verified and loaded, and counted.
func TestChangedInputFailsAlone(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 21, N: 30, Days: 1})
	data, err := os.ReadFile(c.receipts)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	dir := t.TempDir()
	first, last := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "c.jsonl")
	os.WriteFile(first, []byte(strings.Join(lines[:10], "")), 0o644)
	os.WriteFile(last, []byte(strings.Join(lines[20:30], "")), 0o644)
	orig := []byte(strings.Join(lines[10:20], ""))
	rewritten := bytes.Clone(orig)
	i := bytes.Index(rewritten, []byte(`"`)) // the first line's first member name, one letter changed
	rewritten[i+1] ^= 0x20
	opens := 0
	changing := Input{Source: stream.Source{Name: "b.jsonl", Lines: true, Open: func() (io.ReadCloser, error) {
		opens++
		if opens >= 3 {
			return io.NopCloser(bytes.NewReader(rewritten)), nil
		}
		return io.NopCloser(bytes.NewReader(orig)), nil
	}}}
	db := openTestDB(t)
	sum, err := Load(context.Background(), db, c.v, []Input{fileInput(first), changing, fileInput(last)}, LoadOptions{Schemas: c.schemas, TempDir: t.TempDir()})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var changed *InputChangedError
	if !errors.As(sum.Files[1].Err, &changed) || changed.Path != "b.jsonl" {
		t.Errorf("b.jsonl: err %v, want an InputChangedError naming it", sum.Files[1].Err)
	}
	if sum.Files[0].Accepted != 10 || sum.Files[2].Accepted != 10 || sum.Files[0].Err != nil || sum.Files[2].Err != nil {
		t.Errorf("the other inputs: %+v, %+v", sum.Files[0], sum.Files[2])
	}
	if n := queryInt(t, db, "SELECT count(*) FROM receipts"); n != 20 {
		t.Errorf("%d receipts stored, want 20", n)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM receipts WHERE source = 'b.jsonl'"); n != 0 {
		t.Errorf("%d receipts of the changed input stored", n)
	}
	if sum.Verify.Receipts != 20 {
		t.Errorf("verified %d receipts, want 20 (the changed input's not counted)", sum.Verify.Receipts)
	}
}
