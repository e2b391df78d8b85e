package stream

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
