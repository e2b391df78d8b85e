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

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/rawpolicy"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/verify/stream"
)

// TestChangedInputFailsAlone: an input rewritten in place between the
// load's readings of it (once it has been read to its end, its openings
// read other bytes of the same length) is that input's error, named by
// its path; the inputs before and after it are verified and loaded, and
// counted. Only a load that stores every line reads its inputs twice
// (RawAll); the others read a new input once.
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
	readWhole := false
	changing := Input{Source: stream.Source{Name: "b.jsonl", Lines: true, Open: func() (io.ReadCloser, error) {
		if readWhole {
			return io.NopCloser(bytes.NewReader(rewritten)), nil
		}
		return io.NopCloser(eofReader{bytes.NewReader(orig), &readWhole}), nil
	}}}
	db := openTestDB(t)
	sum, err := db.Load(context.Background(), c.v, []Input{fileInput(first), changing, fileInput(last)}, LoadOptions{Schemas: c.schemas, TempDir: t.TempDir(), Raw: rawpolicy.All})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	var changed *dberr.InputChangedError
	if !errors.As(sum.Files[1].Err, &changed) || changed.Path != "b.jsonl" {
		t.Errorf("b.jsonl: err %v, want an dberr.InputChangedError naming it", sum.Files[1].Err)
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

// TestTrustWarningIgnoresClock: a file loaded again with the same key
// files but another judging time (a nightly job without --at) or tool
// version is not flagged; other key bytes under the same path are.
func TestTrustWarningIgnoresClock(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 22, N: 20, Days: 1})
	db := openTestDB(t)
	load := func(tr Trust) FileSummary {
		t.Helper()
		sum, err := db.Load(context.Background(), c.v, []Input{fileInput(c.receipts)}, LoadOptions{TempDir: t.TempDir(), Trust: tr})
		if err != nil {
			t.Fatal(err)
		}
		return sum.Files[0]
	}
	keyFile := func(b string) []TrustFile { return []TrustFile{TrustFileOf("keys/jwks.json", []byte(b))} }
	load(Trust{Keys: keyFile("a"), At: testStart, ToolVersion: "1"})
	if f := load(Trust{Keys: keyFile("a"), ToolVersion: "2"}); !f.AlreadyLoaded || f.TrustChanged {
		t.Errorf("same key files, other clock and version: %+v, want no warning", f)
	}
	if f := load(Trust{Keys: keyFile("b"), ToolVersion: "2"}); !f.TrustChanged {
		t.Errorf("other key bytes: %+v, want a warning", f)
	}
}

// eofReader notes in *eof that its reader was read to its end.
type eofReader struct {
	r   io.Reader
	eof *bool
}

func (e eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		*e.eof = true
	}
	return n, err
}
