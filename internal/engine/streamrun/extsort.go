package streamrun

import (
	"bufio"
	"bytes"
	"cmp"
	"container/heap"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
	"unsafe"
)

// sorter sorts fixed-size records of any number in bounded memory: it
// keeps up to limit records, and when full sorts them and writes them to a
// temporary file (a run); reading merges the runs. Records are encoded so
// that bytes.Compare orders them (big-endian fields, most significant
// first), which lets runs be merged without decoding.
type sorter struct {
	size  int       // bytes per record
	limit int       // records kept in memory before a run is written
	dir   string    // for the runs ("" is os.TempDir())
	buf   []byte    // records not yet in a run
	keys  []sortKey // sortBuf's, kept for the next run: limit of them at most
	runs  []*os.File
}

func newSorter(size, limit int, dir string) *sorter {
	return &sorter{size: size, limit: max(limit, 1), dir: dir}
}

// add appends one record (len(rec) == size).
func (s *sorter) add(rec []byte) error {
	if len(s.buf)+len(rec) > cap(s.buf) {
		// Doubling, but never past the bound: a small input keeps a small
		// buffer, a large one exactly the bound.
		grown := make([]byte, len(s.buf), min(max(2*cap(s.buf), 1<<16), s.limit*s.size))
		copy(grown, s.buf)
		s.buf = grown
	}
	s.buf = append(s.buf, rec...)
	if len(s.buf) >= s.limit*s.size {
		return s.spill()
	}
	return nil
}

// sortBuf sorts the records in memory, in place. It sorts small keys (a
// record's first 8 bytes as a big-endian number, which orders as the bytes
// do, and its position) and then moves each record once, following the
// permutation's cycles: moving 42-byte records at every swap made the sort
// the largest serial step between the passes.
func (s *sorter) sortBuf() {
	n := len(s.buf) / s.size
	rec := func(i int) []byte { return s.buf[i*s.size : (i+1)*s.size] }
	s.keys = slices.Grow(s.keys[:0], n)[:n]
	keys := s.keys
	var first [8]byte
	for i := range keys {
		copy(first[:], rec(i)) // shorter records: zero-padded, which keeps their order
		keys[i] = sortKey{prefix: binary.BigEndian.Uint64(first[:]), pos: uint32(i)}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if c := cmp.Compare(a.prefix, b.prefix); c != 0 {
			return c
		}
		return bytes.Compare(rec(int(a.pos)), rec(int(b.pos)))
	})
	// Position i takes the record at keys[i].pos. Each cycle is walked
	// once, keeping the record first overwritten aside; a walked position
	// is marked by pointing at itself.
	tmp := make([]byte, s.size)
	for i := range keys {
		if int(keys[i].pos) == i {
			continue
		}
		copy(tmp, rec(i))
		j := i
		for {
			k := int(keys[j].pos)
			keys[j].pos = uint32(j)
			if k == i {
				copy(rec(j), tmp)
				break
			}
			copy(rec(j), rec(k))
			j = k
		}
	}
}

// sortKey is one record's place in sortBuf.
type sortKey struct {
	prefix uint64
	pos    uint32
}

// sortKeyLen is the memory a record's sort key takes (with padding), which
// a sorter's memory bound must count beside the record itself.
const sortKeyLen = int(unsafe.Sizeof(sortKey{}))

func (s *sorter) spill() error {
	s.sortBuf()
	f, err := os.CreateTemp(s.dir, "verify-index-*")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSpool, err)
	}
	os.Remove(f.Name()) // unlinked: the space is freed when it is closed, whatever happens
	if _, err := f.Write(s.buf); err != nil {
		f.Close()
		return fmt.Errorf("%w: %w", ErrSpool, err)
	}
	s.runs = append(s.runs, f)
	s.buf = s.buf[:0]
	return nil
}

// close releases the runs.
func (s *sorter) close() {
	for _, f := range s.runs {
		f.Close()
	}
	s.runs, s.buf, s.keys = nil, nil, nil
}

// reader returns the records in order. No record may be added after.
func (s *sorter) reader() (*mergeReader, error) {
	s.sortBuf()
	m := &mergeReader{}
	if len(s.buf) > 0 {
		m.heap = append(m.heap, &cursor{r: bytes.NewReader(s.buf), cur: make([]byte, s.size)})
	}
	for _, f := range s.runs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSpool, err)
		}
		m.heap = append(m.heap, &cursor{r: bufio.NewReaderSize(f, 1<<15), cur: make([]byte, s.size)})
	}
	live := m.heap[:0]
	for _, c := range m.heap {
		ok, err := c.advance()
		if err != nil {
			return nil, err
		}
		if ok {
			live = append(live, c)
		}
	}
	m.heap = live
	heap.Init(&m.heap)
	return m, nil
}

// mergeReader yields the records of every run in order.
type mergeReader struct {
	heap cursorHeap
	out  []byte
}

// next returns the next record (valid until the following call), or nil at
// the end.
func (m *mergeReader) next() ([]byte, error) {
	if len(m.heap) == 0 {
		return nil, nil
	}
	c := m.heap[0]
	m.out = append(m.out[:0], c.cur...)
	ok, err := c.advance()
	if err != nil {
		return nil, err
	}
	if ok {
		heap.Fix(&m.heap, 0)
	} else {
		heap.Pop(&m.heap)
	}
	return m.out, nil
}

// cursor is one run's next record.
type cursor struct {
	r   io.Reader // the records in memory, or a run on disk behind a buffer
	cur []byte
}

func (c *cursor) advance() (bool, error) {
	_, err := io.ReadFull(c.r, c.cur)
	switch err {
	case nil:
		return true, nil
	case io.EOF:
		return false, nil
	default:
		return false, fmt.Errorf("%w: reading an index run: %w", ErrSpool, err)
	}
}

type cursorHeap []*cursor

func (h cursorHeap) Len() int           { return len(h) }
func (h cursorHeap) Less(i, j int) bool { return bytes.Compare(h[i].cur, h[j].cur) < 0 }
func (h cursorHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)        { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}
