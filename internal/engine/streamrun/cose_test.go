package streamrun

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/receiptverify/verify/internal/helpers/cosefile"
	"github.com/receiptverify/verify/internal/testkit/vectors"
)

// TestFileSourceCOSE: FileSource reads a .cose file, gzipped or not, as
// the scitt-statement line of its bytes (the interop vector
// scitt/es256-attached), and a .cose file cut short not at all.
func TestFileSourceCOSE(t *testing.T) {
	t.Parallel()
	cose := vectors.TransparentStatement(t, filepath.Join("..", "..", "..", "testdata", "interop", "scitt", "es256-attached"))
	want, err := cosefile.Line(bytes.NewReader(cose))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var gz bytes.Buffer
	gzipTo(t, &gz, cose)
	for name, data := range map[string][]byte{"s.cose": cose, "s.cose.gz": gz.Bytes(), "cut.cose": cose[:len(cose)/2]} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		src := FileSource(path)
		rc, err := src.Open()
		if name == "cut.cose" {
			if !errors.Is(err, cosefile.ErrTruncated) {
				t.Errorf("%s: %v, want a truncated file", name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !src.Lines || !bytes.Equal(got, want) {
			t.Errorf("%s: lines %v, read %q, %v; want the statement's line", name, src.Lines, got, err)
		}
	}
}

// gzipTo writes data to w, gzipped.
func gzipTo(t *testing.T, w io.Writer, data []byte) {
	t.Helper()
	zw := gzip.NewWriter(w)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}
