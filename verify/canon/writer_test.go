package canon

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNameKeyOrder checks that sorting by nameKey never disagrees with a
// dialect's own comparison, on names that share prefixes, end early, hold
// 0 bytes or leave ASCII anywhere in their first eight bytes.
func TestNameKeyOrder(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a", "b", "_", "\x00", "\x7f", "é", "\uffff", "😀", "\xed\xa0\x80", "\xff"}
	r := rand.New(rand.NewPCG(3, 4))
	name := func() string {
		var s string
		for range r.IntN(12) {
			s += alphabet[r.IntN(len(alphabet))]
		}
		return s
	}
	for _, order := range []func(a, b string) int{compareUTF16, compareCodePoints} {
		e := encoder{w: &writer{order: order}}
		for range 300000 {
			a, b := name(), name()
			if r.IntN(3) == 0 {
				b = a[:r.IntN(len(a)+1)] + name()
			}
			got := e.compare(sortEntry{nameKey(a), &Member{Name: a}}, sortEntry{nameKey(b), &Member{Name: b}})
			if want := order(a, b); cmp.Compare(got, 0) != cmp.Compare(want, 0) {
				t.Fatalf("compare(%q, %q) = %d, the dialect's order says %d", a, b, got, want)
			}
		}
	}
}

// TestSortByKey checks that when the insertion sort by key decides an
// order, it is the one the dialect's comparison sort gives, on objects
// with shared prefixes, equal names and names without keys.
func TestSortByKey(t *testing.T) {
	t.Parallel()
	names := []string{"a", "ab", "abcdefgh", "abcdefghi", "abcdefghj", "b", "é", "😀", "\uffff", "x\x00", "x", "payload", "payload_digest"}
	r := rand.New(rand.NewPCG(5, 6))
	decided := 0
	for _, order := range []func(a, b string) int{compareUTF16, compareCodePoints} {
		e := encoder{w: &writer{order: order}}
		for range 20000 {
			var es []sortEntry
			for range r.IntN(smallSort + 4) {
				m := &Member{Name: names[r.IntN(len(names))]}
				if r.IntN(2) == 0 {
					m.Name += names[r.IntN(len(names))]
				}
				es = append(es, sortEntry{nameKey(m.Name), m})
			}
			want := slices.Clone(es)
			slices.SortFunc(want, e.compare)
			got := slices.Clone(es)
			if !sortByKey(got) {
				continue
			}
			decided++
			for i := range got {
				if got[i].m != want[i].m {
					t.Fatalf("sortByKey put %q at %d, the dialect's sort puts %q there", got[i].m.Name, i, want[i].m.Name)
				}
			}
		}
	}
	if decided < 1000 {
		t.Fatalf("only %d objects were sorted by key; the test needs more", decided)
	}
}
