package analytics

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/receiptverify/verify/internal/helpers/lines"
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

// contentReader reads the rows' lines out of a file's content by their
// recorded places, in increasing order (lines.At).
type contentReader struct {
	r  io.Reader
	at *lines.At
}

func newContentReader(r io.Reader) *contentReader {
	return &contentReader{r: r, at: lines.NewAt(r)}
}

// read returns the line at loc, checked against its SHA-256: a
// lines.ErrChanged when the bytes differ, io.ErrUnexpectedEOF when the
// content ends before it.
func (c *contentReader) read(loc lineLoc) ([]byte, error) {
	var sum [sha256.Size]byte
	if loc.length > limits.MaxDocumentBytes || hex.DecodedLen(len(loc.sha256)) != len(sum) {
		return nil, fmt.Errorf("line %d: no recorded place", loc.line)
	}
	if _, err := hex.Decode(sum[:], []byte(loc.sha256)); err != nil {
		return nil, lines.ErrChanged
	}
	return c.at.Read(loc.offset, loc.length, sum)
}

// lineMatches reports whether b's SHA-256 is sha (hex).
func lineMatches(b []byte, sha string) bool {
	sum := sha256.Sum256(b)
	want, err := hex.DecodeString(sha)
	return err == nil && bytes.Equal(sum[:], want)
}
