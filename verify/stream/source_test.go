package stream

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/limits"
	"github.com/receiptverify/verify/verify"
)

// TestGzipSources: the demo archive gzipped, read through FileSource and
// through a Source that is not a file, gives every result the plain file
// gives; a corrupt gzip file, a gzip bomb and a file named .gz that holds
// text are each their source's error
// (an UNREADABLE record naming gzip, a file failed; the bomb's lines up to
// its bound are read as blank), and the sources after them are still read.
func TestGzipSources(t *testing.T) {
	t.Parallel()
	demo := "../../testdata/demo"
	plain, err := os.ReadFile(filepath.Join(demo, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(plain)
	zw.Close()
	dir := t.TempDir()
	gz := filepath.Join(dir, "receipts.jsonl.gz")
	if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// A gzip header, then bytes that are no deflate stream.
	corrupt := append(append([]byte(nil), z.Bytes()[:10]...), bytes.Repeat([]byte{0xff}, 100)...)
	bad := filepath.Join(dir, "cut.jsonl.gz")
	if err := os.WriteFile(bad, corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	var bz bytes.Buffer
	zw = gzip.NewWriter(&bz)
	zw.Write(bytes.Repeat([]byte("\n"), 4*limits.GzipSlackBytes))
	zw.Close()
	bomb := bz.Bytes()

	v := corpusVerifier(t, demo)
	results := func(srcs ...Source) (Summary, []string) {
		t.Helper()
		var out []string
		sum, err := Run(context.Background(), v, srcs, Options{}, func(r *Record) error {
			line := r.Source + ":" + strconv.Itoa(r.Line) + " " + string(r.Verdict)
			for _, reason := range r.Reasons {
				line += " " + string(reason)
			}
			if r.Verdict == verify.Unreadable {
				line += " " + r.Error
			}
			out = append(out, line)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return sum, out
	}
	rename := func(src Source, name string) Source { src.Name = name; return src }
	want, wantLines := results(rename(FileSource(filepath.Join(demo, "receipts.jsonl")), "r"))
	if want.Receipts != 300 {
		t.Fatalf("the plain archive: %+v", want)
	}
	for name, src := range map[string]Source{
		"FileSource":   FileSource(gz),
		"not a file":   memSource("r", z.Bytes(), true),
		"named .jsonl": rename(FileSource(gz), "r"),
	} {
		got, gotLines := results(rename(src, "r"))
		if got.Receipts != want.Receipts || got.Pass != want.Pass || got.Fail != want.Fail || strings.Join(gotLines, "\n") != strings.Join(wantLines, "\n") {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}

	notGzip := filepath.Join(dir, "plain.jsonl.gz")
	if err := os.WriteFile(notGzip, plain, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, lines := results(FileSource(bad), memSource("bomb.jsonl", bomb, true), FileSource(notGzip), FileSource(gz))
	if sum.FilesFailed != 3 || sum.Receipts != 300 {
		t.Fatalf("a corrupt gzip, a bomb, a .gz file of text and a good file: %+v", sum)
	}
	for _, name := range []string{bad, "bomb.jsonl", notGzip} {
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, name+":") && strings.Contains(l, " UNREADABLE ") && strings.Contains(l, "gzip") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no UNREADABLE record naming gzip", name)
		}
	}
}
