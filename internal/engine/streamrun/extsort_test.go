package streamrun

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSorterMerges: records come back in order, none lost or repeated,
// whether they fit in memory or go through many runs.
func TestSorterMerges(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, limit := range []int{1, 3, 64, 10_000} {
		for _, n := range []int{0, 1, 2, 999} {
			s := newSorter(5, limit, t.TempDir())
			var want [][]byte
			for range n {
				rec := []byte{byte(rng.IntN(4)), byte(rng.IntN(256)), 0, 0, byte(rng.IntN(256))}
				want = append(want, rec)
				if err := s.add(rec); err != nil {
					t.Fatal(err)
				}
			}
			slices.SortFunc(want, bytes.Compare)
			rd, err := s.reader()
			if err != nil {
				t.Fatal(err)
			}
			var got [][]byte
			for {
				rec, err := rd.next()
				if err != nil {
					t.Fatal(err)
				}
				if rec == nil {
					break
				}
				got = append(got, bytes.Clone(rec))
			}
			s.close()
			if !slices.EqualFunc(got, want, bytes.Equal) {
				t.Fatalf("limit %d, %d records: merged output differs", limit, n)
			}
		}
	}
}

// TestSortBufOrders: the in-memory sort gives bytes.Compare order for the
// index's record sizes, with records equal in their first 8 bytes (the
// sort's key) and whole duplicates among them.
func TestSortBufOrders(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{3, 8, 18, 42} {
		for _, n := range []int{0, 1, 2, 5000} {
			s := newSorter(size, n+1, "")
			var want [][]byte
			for i := range n {
				rec := make([]byte, size)
				for j := range rec {
					rec[j] = byte(rng.IntN(3)) // few values: many equal prefixes
				}
				if i > 0 && rng.IntN(10) == 0 {
					copy(rec, want[rng.IntN(len(want))]) // a duplicate
				}
				want = append(want, rec)
				s.buf = append(s.buf, rec...)
			}
			s.sortBuf()
			slices.SortFunc(want, bytes.Compare)
			if !bytes.Equal(s.buf, bytes.Join(want, nil)) {
				t.Fatalf("size %d, %d records: not in order", size, n)
			}
		}
	}
}
