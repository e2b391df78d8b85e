package lines

import (
	"crypto/sha256"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestAt reads lines by place from content that can be read at an
// offset and from content that can only be read forward, and refuses a
// changed line, one past the end and, forward only, one behind.
func TestAt(t *testing.T) {
	const content = "first\nsecond line\nthird\n"
	place := func(line string) (int64, int64, [sha256.Size]byte) {
		return int64(strings.Index(content, line)), int64(len(line)), sha256.Sum256([]byte(line))
	}
	for name, open := range map[string]func() io.Reader{
		"at":      func() io.Reader { return strings.NewReader(content) },
		"forward": func() io.Reader { return struct{ io.Reader }{strings.NewReader(content)} },
	} {
		t.Run(name, func(t *testing.T) {
			a := NewAt(open())
			for _, line := range []string{"second line", "third"} {
				off, n, sum := place(line)
				got, err := a.Read(off, n, sum)
				if err != nil || string(got) != line {
					t.Fatalf("Read(%q) = %q, %v", line, got, err)
				}
			}
			off, n, sum := place("first")
			_, err := a.Read(off, n, sum)
			if name == "forward" && (err == nil || !a.Behind(off)) {
				t.Errorf("a line behind the last read: %v, want an error", err)
			}
			if name == "at" && err != nil {
				t.Errorf("a line behind the last read: %v", err)
			}

			a = NewAt(open())
			off, n, _ = place("third")
			if _, err := a.Read(off, n, sha256.Sum256([]byte("thirD"))); !errors.Is(err, ErrChanged) {
				t.Errorf("changed line: %v, want ErrChanged", err)
			}
			a = NewAt(open())
			if _, err := a.Read(int64(len(content))-2, 5, sum); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("line past the end: %v, want io.ErrUnexpectedEOF", err)
			}
			if _, err := NewAt(open()).Read(-1, 3, sum); err == nil {
				t.Error("negative offset read")
			}
		})
	}
}
