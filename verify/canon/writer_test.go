package canon

import (
	"cmp"
	"math/rand/v2"
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
