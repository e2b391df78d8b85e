// Package gunzip reads gzip files with their expansion bounded
// (limits.MaxGzipContent): a small file that expands without end (a
// gzip of blank lines is a thousand times its size) is refused part way
// with an error naming the limit, instead of keeping a run busy for hours.
package gunzip

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/receiptverify/verify/internal/limits"
)

// TooLargeError is the error of a gzip file that expands beyond its limit.
type TooLargeError struct {
	Compressed, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("gzip content larger than %d bytes (%d times the %d compressed bytes, at least %d): refused",
		e.Limit, limits.MaxGzipRatio, e.Compressed, limits.GzipSlackBytes)
}

// NewReader reads the gzip content of r, whose compressed size is size
// (the file's, from Stat). A negative size means unknown (a pipe, a
// library caller's reader): the bound then grows with the compressed bytes
// read so far, limits.MaxGzipContent of them, so that a bomb is refused
// as soon as its expansion passes the ratio.
func NewReader(r io.Reader, size int64) (*Reader, error) {
	var consumed *countReader
	if size < 0 {
		consumed = &countReader{r: r}
		r = consumed
	}
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	limit := limits.MaxGzipContent(max(size, 0))
	return &Reader{zr: zr, left: limit, limit: limit, size: size, consumed: consumed}, nil
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Size is the compressed size to bound f's content by: its size when it
// is a regular file, else -1 (unknown: the bound grows as it is read).
func Size(f *os.File) int64 {
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		return fi.Size()
	}
	return -1
}

// Content is what a reader of r reads: r's bytes decompressed, their
// expansion bounded by size (NewReader), when they are gzip, and r's bytes
// as they are otherwise; gz says which. name, when not empty, is the
// file's: one ending in .gz whose bytes are not gzip is gzip.ErrHeader.
// An error of the gzip stream's start reads "gzip: ...".
func Content(r io.Reader, name string, size int64) (content io.Reader, gz bool, err error) {
	body, gz, err := Sniff(r)
	switch {
	case err != nil:
		return nil, false, err
	case !gz && name != "" && strings.HasSuffix(name, ".gz"):
		return nil, false, gzip.ErrHeader
	case !gz:
		return body, false, nil
	}
	zr, err := NewReader(body, size)
	if err != nil {
		return nil, true, fmt.Errorf("gzip: %w", err)
	}
	return zr, true, nil
}

// Reader is gzip content read up to its limit.
type Reader struct {
	zr       *gzip.Reader
	left     int64        // content that may still be read
	limit    int64        // the bound in force: left + content read
	size     int64        // the compressed size given, negative if unknown
	consumed *countReader // the compressed bytes read, when the size is unknown
}

func (r *Reader) Read(p []byte) (int, error) {
	if r.left <= 0 && r.consumed != nil {
		r.grow()
	}
	if r.left <= 0 {
		// One byte more tells a file of exactly the limit from a larger one.
		var one [1]byte
		if n, err := r.zr.Read(one[:]); n > 0 {
			if r.consumed != nil {
				r.grow() // reading the byte may have read more compressed input
				if r.left > 0 {
					r.left--
					p[0] = one[0]
					return 1, nil
				}
			}
			return 0, r.tooLarge()
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.zr.Read(p)
	r.left -= int64(n)
	return n, err
}

// grow raises the bound of a reader of unknown size to what the compressed
// bytes read so far allow.
func (r *Reader) grow() {
	if l := limits.MaxGzipContent(r.consumed.n); l > r.limit {
		r.left += l - r.limit
		r.limit = l
	}
}

func (r *Reader) tooLarge() error {
	compressed := r.size
	if r.consumed != nil {
		compressed = r.consumed.n
	}
	return &TooLargeError{Compressed: compressed, Limit: r.limit}
}

// Close closes the gzip stream (not the underlying reader).
func (r *Reader) Close() error { return r.zr.Close() }

// IsGzip reports whether head, the first bytes of a stream, start a gzip
// stream (1f 8b, RFC 1952). No JSON text starts with 0x1f, so a receipt
// file is told from a gzip file by its bytes, whatever its name.
func IsGzip(head []byte) bool {
	return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b
}

// Sniff reads the first bytes of r and returns a reader of all of r's
// bytes, those included, and whether they are gzip. A stream shorter than
// the magic is not gzip.
func Sniff(r io.Reader) (io.Reader, bool, error) {
	head := make([]byte, 2)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, false, err
	}
	head = head[:n]
	return io.MultiReader(bytes.NewReader(head), r), IsGzip(head), nil
}

// FileIsGzip reports whether the file at path starts a gzip stream; a file
// that cannot be read is not.
func FileIsGzip(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [2]byte
	n, _ := io.ReadFull(f, head[:])
	return IsGzip(head[:n])
}
