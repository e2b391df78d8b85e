// Package gunzip reads gzip files with their expansion bounded
// (limits.MaxGzipContent): a small file that expands without end (a
// gzip of blank lines is a thousand times its size) is refused part way
// with an error naming the limit, instead of keeping a run busy for hours.
package gunzip

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"

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
// (the file's, from Stat; a negative size means unknown: GzipSlackBytes).
func NewReader(r io.Reader, size int64) (*Reader, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	limit := limits.MaxGzipContent(max(size, 0))
	return &Reader{zr: zr, left: limit, err: &TooLargeError{Compressed: size, Limit: limit}}, nil
}

// Open reads the gzip file f, its expansion bounded by its size.
func Open(f *os.File) (*Reader, error) {
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	return NewReader(f, size)
}

// Reader is gzip content read up to its limit.
type Reader struct {
	zr   *gzip.Reader
	left int64
	err  error
}

func (r *Reader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		// One byte more tells a file of exactly the limit from a larger one.
		var one [1]byte
		if n, err := r.zr.Read(one[:]); n > 0 {
			return 0, r.err
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

// Close closes the gzip stream (not the underlying reader).
func (r *Reader) Close() error { return r.zr.Close() }
