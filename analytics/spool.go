package analytics

import (
	"bufio"
	"os"
	"strconv"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/tempspool"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
)

// read is the read_ndjson call over the spool. The path is ours
// (os.CreateTemp), quoted as an SQL string literal. maximum_object_size
// fits the longest row written; the default is kept when it does, as a
// larger one makes DuckDB read with larger buffers.
func (s *spool) read(columns string) string {
	return "read_ndjson(" + sqltext.String(s.path) + ", columns=" + columns +
		", format='newline_delimited', maximum_object_size=" + strconv.FormatInt(max(s.longest+1, defaultMaxObject), 10) + ")"
}

// defaultMaxObject is DuckDB's default maximum_object_size.
const defaultMaxObject = 16 << 20

// spool is a temporary NDJSON file of rows, written through a buffer so a
// file's rows are never all in memory.
type spool struct {
	path    string
	f       *os.File
	w       *bufio.Writer
	buf     []byte
	size    int64
	longest int64 // the longest row
}

func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, tempspool.Pattern()) // named for tempspool.RemoveStale
	if err != nil {
		return nil, err
	}
	return &spool{path: f.Name(), f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (s *spool) add(row func([]byte) []byte) error {
	s.buf = row(s.buf[:0])
	s.size += int64(len(s.buf))
	s.longest = max(s.longest, int64(len(s.buf)))
	if _, err := s.w.Write(s.buf); err != nil {
		return &dberr.IOError{Op: "spool", Path: s.path, Err: err}
	}
	if cap(s.buf) > 1<<20 {
		s.buf = nil // do not keep a huge line's buffer
	}
	return nil
}

// write adds one row encoded beforehand.
func (s *spool) write(row []byte) error {
	s.size += int64(len(row))
	s.longest = max(s.longest, int64(len(row)))
	if _, err := s.w.Write(row); err != nil {
		return &dberr.IOError{Op: "spool", Path: s.path, Err: err}
	}
	return nil
}

func (s *spool) close() error {
	err := s.w.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *spool) remove() {
	s.f.Close()
	os.Remove(s.path)
}
