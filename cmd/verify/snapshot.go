package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/receiptverify/verify/internal/helpers/cosefile"
	"github.com/receiptverify/verify/internal/helpers/ctxio"
	"github.com/receiptverify/verify/internal/helpers/gunzip"
	"github.com/receiptverify/verify/internal/limits"
)

// snapshot is a file as it was when the run first opened it: its first
// size bytes, read through the descriptor opened then. A run reads each
// input several times (identify, verify, read again for the stored
// lines), and a producer keeps appending to its log, logrotate renames it
// or gzips it: reading every time the same bytes of the same file is what
// makes the passes agree. Lines appended after the first opening are the
// next run's. A file cut shorter than its snapshot (copytruncate, a
// rewrite) fails that file's read, by name, not the run.
type snapshot struct {
	path string
	open *openFiles // shared by the run's snapshots; nil: no bound
	mu   sync.Mutex
	f    *os.File
	fi   os.FileInfo // of the first opening
	size int64
	err  error
	// readers is how many readings are under way: the descriptor is
	// closed, past limits.MaxOpenInputs, only when none is.
	readers int
}

// openFiles counts the descriptors a run's snapshots hold.
type openFiles struct {
	mu sync.Mutex
	n  int
}

// errMoved is the error of a snapshot whose path, reopened, is another
// file or a shorter one.
type errMoved struct{ path string }

func (e *errMoved) Error() string {
	return fmt.Sprintf("%s: changed while it was being read: another file, or a shorter one, when opened again (renamed or truncated); nothing of it recorded, it is read again by the next run", e.path)
}

// errShrunk is the read error of a snapshot whose file became shorter.
type errShrunk struct {
	path       string
	size, have int64
}

func (e *errShrunk) Error() string {
	return fmt.Sprintf("%s: changed while it was being read: %d bytes when opened, %d now (truncated or rewritten); nothing of it recorded, it is read again by the next run", e.path, e.size, e.have)
}

// open opens the file the first time it is called and returns the
// snapshot's bytes, from the start, every time.
func (s *snapshot) openReader(ctx context.Context) (io.Reader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	if s.f == nil && s.fi != nil { // closed between readings: the same file again
		f, err := os.Open(s.path)
		if err != nil {
			return nil, err
		}
		fi, err := f.Stat()
		if err != nil || !os.SameFile(fi, s.fi) || fi.Size() < s.size {
			f.Close()
			return nil, &errMoved{path: s.path}
		}
		s.f = f
		s.open.add(1)
	}
	if s.f == nil {
		// A FIFO with no writer blocks the open: a signal ends the wait.
		f, err := openWaiting(ctx, s.path)
		if err == nil {
			var fi os.FileInfo
			if fi, err = f.Stat(); err != nil {
				f.Close()
			} else if !fi.Mode().IsRegular() {
				// A device or a pipe named on the command line is read
				// as it comes, once per opening.
				f.Close()
				return openWaiting(ctx, s.path)
			} else {
				s.f, s.fi, s.size = f, fi, fi.Size()
				s.open.add(1)
			}
		}
		if err != nil {
			s.err = err
			return nil, err
		}
	}
	s.readers++
	return &snapshotReader{s: s, r: io.NewSectionReader(s.f, 0, s.size)}, nil
}

// done ends one reading; past limits.MaxOpenInputs open files, the last
// reading closes the descriptor, to be opened again when needed.
func (s *snapshot) done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.readers--
	if s.readers == 0 && s.f != nil && s.open.over() {
		s.f.Close()
		s.f = nil
		s.open.add(-1)
	}
}

func (o *openFiles) add(n int) {
	if o == nil {
		return
	}
	o.mu.Lock()
	o.n += n
	o.mu.Unlock()
}

func (o *openFiles) over() bool {
	if o == nil {
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n > limits.MaxOpenInputs
}

// close closes the descriptor, at the end of the run.
func (s *snapshot) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		s.f.Close()
		s.f = nil
		s.open.add(-1)
	}
}

// snapshotReader reads a snapshot and fails when the file ends before it.
type snapshotReader struct {
	s      *snapshot
	r      *io.SectionReader
	read   int64
	closed bool
}

func (r *snapshotReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.read += int64(n)
	if err == io.EOF && r.read < r.s.size {
		return n, &errShrunk{path: r.s.path, size: r.s.size, have: r.read}
	}
	return n, err
}

// Close ends the reading; the descriptor stays open for the run's next
// reading, unless too many are (snapshot.done).
func (r *snapshotReader) Close() error {
	if !r.closed {
		r.closed = true
		r.s.done()
	}
	return nil
}

// source is the snapshot's content, decompressed when its bytes are gzip
// (whatever the name); its reads check ctx.
func (s *snapshot) source(ctx context.Context, name string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		r, err := s.openReader(ctx)
		if err != nil {
			return nil, err
		}
		rc := asReadCloser(r)
		size := int64(-1)
		if sr, ok := r.(*snapshotReader); ok {
			size = sr.s.size
		}
		content, gz, err := gunzip.Content(ctxio.Reader(ctx, r), s.path, size)
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if cosefile.IsName(s.path) {
			// One binary COSE_Sign1 message: read as its receipt line,
			// the content every pass and the load's offsets see.
			line, err := cosefile.Line(content)
			rc.Close()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			b := bytes.NewReader(line)
			return contentAt{readCloser{b, io.NopCloser(b)}, b}, nil
		}
		if sr, ok := r.(*snapshotReader); ok && !gz {
			// Its content is the file's bytes: a load reads the lines it
			// stores after verifying by offset (an io.ReaderAt), not by
			// reading the file through again.
			return contentAt{readCloser{content, rc}, sr.r}, nil
		}
		return readCloser{content, rc}, nil
	}
}

// contentAt is the content of a file that is not compressed, which can be
// read at any offset.
type contentAt struct {
	readCloser
	at io.ReaderAt
}

func (c contentAt) ReadAt(p []byte, off int64) (int, error) { return c.at.ReadAt(p, off) }

// storedAt is the bytes of a regular file as stored, which know their
// size (Stat), so that a load records it without reading them through.
type storedAt struct {
	io.ReadCloser
	fi snapshotInfo
}

func (s storedAt) Stat() (os.FileInfo, error) { return s.fi, nil }

// snapshotInfo is the file's information as first opened, with the
// snapshot's size.
type snapshotInfo struct {
	os.FileInfo
	size int64
}

func (i snapshotInfo) Size() int64 { return i.size }

// readCloser reads from one reader and closes another.
type readCloser struct {
	io.Reader
	c io.Closer
}

func (r readCloser) Close() error { return r.c.Close() }

// stored is the snapshot's bytes as stored (compressed, for a gzip file).
func (s *snapshot) stored(ctx context.Context) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		r, err := s.openReader(ctx)
		if err != nil {
			return nil, err
		}
		rc := ctxio.ReadCloser(ctx, asReadCloser(r))
		if sr, ok := r.(*snapshotReader); ok {
			return storedAt{rc, snapshotInfo{sr.s.fi, sr.s.size}}, nil
		}
		return rc, nil
	}
}

func asReadCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}
