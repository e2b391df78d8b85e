package stream

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/receiptverify/verify/internal/gunzip"
)

// FileSource is the Source of the file at path, read as the command reads
// it: one JSON document if the name ends in .json or .json.gz, JSON Lines
// otherwise; gzip content (by its bytes, whatever the name) decompressed
// with its expansion bounded.
func FileSource(path string) Source {
	return Source{
		Name:  path,
		Lines: !jsonDocument.MatchString(path),
		Open:  func() (io.ReadCloser, error) { return os.Open(path) },
	}
}

// jsonDocument is the name of a file holding one JSON document.
var jsonDocument = regexp.MustCompile(`\.json(\.gz)?$`)

// gzipMagic starts every gzip stream; no JSON text starts with 0x1f.
var gzipMagic = []byte{0x1f, 0x8b}

// openSource opens src and, when its bytes are gzip, returns a reader of
// the decompressed content; closing it closes the source.
func openSource(src Source) (io.ReadCloser, error) {
	rc, err := src.Open()
	if err != nil {
		return nil, err
	}
	head := make([]byte, len(gzipMagic))
	n, err := io.ReadFull(rc, head)
	head = head[:n]
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		rc.Close()
		return nil, err
	}
	body := io.MultiReader(bytes.NewReader(head), rc)
	if !bytes.Equal(head, gzipMagic) {
		return readCloser{body, rc}, nil
	}
	size := int64(-1)
	if f, ok := rc.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	zr, err := gunzip.NewReader(body, size)
	if err != nil {
		rc.Close()
		return nil, fmt.Errorf("gzip: %w", err)
	}
	return readCloser{gzipErrors{zr}, rc}, nil
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
