package analytics

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
)

// lineCounter counts the lines stream reads from a source as stream
// numbers them (every '\n', plus a last line without one) and notes how
// reading ended.
type lineCounter struct {
	rc      io.ReadCloser
	h       hash.Hash // nil: do not hash
	n       int64
	newline int64
	last    byte
	oneDoc  bool // not JSON Lines: the whole source is line 1
	eof     bool
	err     error // a read error other than io.EOF
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.rc.Read(p)
	if n > 0 {
		c.n += int64(n)
		c.last = p[n-1]
		c.newline += int64(bytes.Count(p[:n], []byte{'\n'}))
		if c.h != nil {
			c.h.Write(p[:n])
		}
	}
	switch {
	case err == io.EOF:
		c.eof = true
	case err != nil && c.err == nil:
		c.err = err
	}
	return n, err
}

func (c *lineCounter) Close() error { return c.rc.Close() }

func (c *lineCounter) count() int64 {
	if c.rc == nil { // never opened for verifying
		return 0
	}
	if c.oneDoc {
		return 1
	}
	if c.n > 0 && c.last != '\n' {
		return c.newline + 1
	}
	return c.newline
}

// identReader computes, as the verifying pass reads an input from its
// start, what readContent would of it (but for the first line's hash and
// prefix hashes), so that a new input is read once.
type identReader struct {
	rc      io.ReadCloser
	h       hash.Hash
	id      contentID
	aligned bool // id.aligned is not yet the hash up to the last newline read
	last    byte
	eof     bool
	err     error // a read error other than io.EOF
}

func newIdentReader(rc io.ReadCloser) *identReader {
	r := &identReader{rc: rc, h: sha256.New()}
	r.id.aligned = hex.EncodeToString(r.h.Sum(nil))
	return r
}

func (r *identReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	if n > 0 {
		b := p[:n]
		r.id.newlines += int64(bytes.Count(b, []byte{'\n'}))
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			r.h.Write(b[:i+1])
			r.id.alignedBytes = r.id.bytes + int64(i) + 1
			r.aligned = true
			b = b[i+1:]
		}
		if len(b) > 0 {
			if r.aligned {
				r.id.aligned, r.aligned = hex.EncodeToString(r.h.Sum(nil)), false
			}
			r.h.Write(b)
		}
		r.id.bytes += int64(n)
		r.last = p[n-1]
	}
	switch {
	case err == io.EOF:
		r.eof = true
	case err != nil && r.err == nil:
		r.err = err
	}
	return n, err
}

func (r *identReader) Close() error { return r.rc.Close() }

// contentID is the identity of the content read to its end, whose first
// line hashes to head.
func (r *identReader) contentID(head string) contentID {
	id := r.id
	id.head = head
	id.sha256 = hex.EncodeToString(r.h.Sum(nil))
	if r.aligned { // the content ends with that newline
		id.aligned = id.sha256
	}
	id.unterminated = id.bytes > 0 && r.last != '\n'
	id.at = map[int64]prefixHash{}
	return id
}
