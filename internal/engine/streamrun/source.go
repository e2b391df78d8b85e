package streamrun

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/receiptverify/verify/internal/helpers/cosefile"
	"github.com/receiptverify/verify/internal/helpers/gunzip"
)

// FileSource is the Source of the file at path, read as the command reads
// it: one JSON document if the name ends in .json or .json.gz, JSON Lines
// otherwise; gzip content (by its bytes, whatever the name) decompressed
// with its expansion bounded, and a file named *.gz that is not gzip an
// error.
func FileSource(path string) Source {
	if cosefile.IsName(path) {
		return Source{Name: path, Lines: true, Open: func() (io.ReadCloser, error) { return openCOSE(path) }}
	}
	return Source{
		Name:  path,
		Lines: !jsonDocument.MatchString(path),
		Open:  func() (io.ReadCloser, error) { return openFile(path) },
	}
}

// openCOSE opens a .cose file, one binary COSE_Sign1 message (gzipped or
// not), as its receipt line (cosefile.Line).
func openCOSE(path string) (io.ReadCloser, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	content, _, err := gunzip.Content(f, path, gunzip.Size(f))
	if err == nil {
		var line []byte
		if line, err = cosefile.Line(content); err == nil {
			return io.NopCloser(bytes.NewReader(line)), nil
		}
	}
	return nil, fmt.Errorf("%s: %w", path, err)
}

// openFile opens the file at path; one named *.gz must hold gzip.
func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return f, err
	}
	head := make([]byte, 2)
	n, _ := f.ReadAt(head, 0)
	if !gunzip.IsGzip(head[:n]) {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, gzip.ErrHeader)
	}
	return f, nil
}

// jsonDocument is the name of a file holding one JSON document.
var jsonDocument = regexp.MustCompile(`\.json(\.gz)?$`)

// openSource opens src and, when its bytes are gzip, returns a reader of
// the decompressed content; closing it closes the source.
func openSource(src Source) (io.ReadCloser, error) {
	rc, err := src.Open()
	if err != nil {
		return nil, err
	}
	size := int64(-1)
	if f, ok := rc.(*os.File); ok {
		size = gunzip.Size(f)
	}
	content, gz, err := gunzip.Content(rc, "", size)
	if err != nil {
		rc.Close()
		return nil, err
	}
	if gz {
		content = gzipErrors{content}
	}
	return readCloser{content, rc}, nil
}

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// gzipErrors names the errors of a gzip stream as such.
type gzipErrors struct{ r io.Reader }

func (g gzipErrors) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("gzip: %w", err)
	}
	return n, err
}
