package lines

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
)

// ErrChanged is a line whose bytes at its recorded place are not the ones
// recorded: the file was changed or replaced since.
var ErrChanged = errors.New("the bytes at its recorded place are not the line loaded (SHA-256 differs)")

// At reads lines out of a file's content again by their recorded place
// (offset, length, SHA-256), in increasing order of offset: straight from
// the content where it can (an io.ReaderAt: a file that is not
// compressed), else reading forward through it (a gzip file's
// decompressed bytes), so one pass serves any number of lines.
type At struct {
	r   io.Reader
	ra  io.ReaderAt
	pos int64 // of r
}

// NewAt reads lines out of content.
func NewAt(content io.Reader) *At {
	a := &At{r: content}
	if ra, ok := content.(io.ReaderAt); ok {
		a.ra = ra
	}
	return a
}

// Behind reports whether the line at offset lies before what a forward
// reader has read already, so that the content must be opened again.
func (a *At) Behind(offset int64) bool {
	return a.ra == nil && offset < a.pos
}

// Read returns the length bytes at offset, checked against sum:
// ErrChanged when they differ, io.ErrUnexpectedEOF when the content ends
// before them.
func (a *At) Read(offset, length int64, sum [sha256.Size]byte) ([]byte, error) {
	if offset < 0 || length < 0 {
		return nil, fmt.Errorf("no recorded place (offset %d, length %d)", offset, length)
	}
	if a.Behind(offset) {
		return nil, fmt.Errorf("offset %d is before the last line read (%d): offsets out of order", offset, a.pos)
	}
	buf := make([]byte, length)
	if a.ra != nil {
		// io.ReaderAt may give io.EOF with the whole line when it ends
		// the content.
		if n, err := a.ra.ReadAt(buf, offset); err != nil && n < len(buf) {
			return nil, unexpectedEOF(err)
		}
	} else {
		if _, err := io.CopyN(io.Discard, a.r, offset-a.pos); err != nil {
			return nil, unexpectedEOF(err)
		}
		if _, err := io.ReadFull(a.r, buf); err != nil {
			return nil, unexpectedEOF(err)
		}
		a.pos = offset + length
	}
	if sha256.Sum256(buf) != sum {
		return nil, ErrChanged
	}
	return buf, nil
}

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
