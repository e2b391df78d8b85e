package receiptgen

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// Sink receives the corpus files. name is slash-separated and relative
// ("keys/jwks.json"); the writer is closed once the file is complete.
type Sink interface {
	Create(name string) (io.WriteCloser, error)
}

// DirSink writes the files under dir, creating directories as needed.
func DirSink(dir string) Sink { return dirSink(dir) }

type dirSink string

func (d dirSink) Create(name string) (io.WriteCloser, error) {
	p := filepath.Join(string(d), filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	return os.Create(p)
}

// MemSink keeps the files in memory, for tests.
type MemSink struct {
	mu    sync.Mutex
	files map[string][]byte
}

// NewMemSink returns an empty MemSink.
func NewMemSink() *MemSink { return &MemSink{files: map[string][]byte{}} }

// Create implements Sink; the file appears when the writer is closed.
func (s *MemSink) Create(name string) (io.WriteCloser, error) {
	return &memFile{sink: s, name: name}, nil
}

// File returns the bytes of a closed file, or nil.
func (s *MemSink) File(name string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.files[name]
}

// Names lists the closed files, sorted.
func (s *MemSink) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.files))
	for n := range s.files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

type memFile struct {
	sink *MemSink
	name string
	buf  bytes.Buffer
}

func (f *memFile) Write(p []byte) (int, error) { return f.buf.Write(p) }

func (f *memFile) Close() error {
	f.sink.mu.Lock()
	defer f.sink.mu.Unlock()
	f.sink.files[f.name] = f.buf.Bytes()
	return nil
}
