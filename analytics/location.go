package analytics

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/receiptverify/verify/internal/limits"
)

// lineLoc is where one receipts row's line is in its file's content:
// byte_offset, byte_length and line_sha256.
type lineLoc struct {
	line   int64
	offset int64
	length int64
	sha256 string // hex
}

// errLineChanged is a line whose bytes at its recorded place are not the
// ones loaded: the file was changed or replaced.
var errLineChanged = errors.New("the bytes at its recorded place are not the line loaded (SHA-256 differs)")

// contentReader reads lines out of a file's content by offset, in
// increasing order: straight from the file where it can (io.ReaderAt, a
// file that is not compressed), else reading forward through the stream
// (a gzip file's decompressed bytes), so one pass serves any number of
// lines.
type contentReader struct {
	r   io.Reader
	ra  io.ReaderAt
	pos int64 // of r
}

func newContentReader(r io.Reader) *contentReader {
	c := &contentReader{r: r}
	if ra, ok := r.(io.ReaderAt); ok {
		c.ra = ra
	}
	return c
}

// read returns the line at loc, checked against its SHA-256: an
// errLineChanged when the bytes differ, io.ErrUnexpectedEOF when the
// content ends before it.
func (c *contentReader) read(loc lineLoc) ([]byte, error) {
	if loc.offset < 0 || loc.length < 0 || loc.length > limits.MaxDocumentBytes {
		return nil, fmt.Errorf("line %d: no recorded place", loc.line)
	}
	buf := make([]byte, loc.length)
	if c.ra != nil {
		if _, err := c.ra.ReadAt(buf, loc.offset); err != nil {
			return nil, unexpectedEOF(err)
		}
	} else {
		if loc.offset < c.pos {
			return nil, fmt.Errorf("line %d: offsets out of order", loc.line)
		}
		if _, err := io.CopyN(io.Discard, c.r, loc.offset-c.pos); err != nil {
			return nil, unexpectedEOF(err)
		}
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return nil, unexpectedEOF(err)
		}
		c.pos = loc.offset + loc.length
	}
	if !lineMatches(buf, loc.sha256) {
		return nil, errLineChanged
	}
	return buf, nil
}

func lineMatches(b []byte, sha string) bool {
	sum := sha256.Sum256(b)
	want, err := hex.DecodeString(sha)
	return err == nil && bytes.Equal(sum[:], want)
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
