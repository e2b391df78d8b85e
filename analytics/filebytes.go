package analytics

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
)

// hashFile reads a file's stored bytes once for its SHA-256 and size.
func hashFile(open func() (io.ReadCloser, error)) (string, int64, error) {
	rc, err := open()
	if err != nil {
		return "", 0, err
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

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
		for _, b := range p[:n] {
			if b == '\n' {
				c.newline++
			}
		}
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
