package streamrun

import (
	"math"
	"strings"
	"testing"
)

// TestOrderSplit checks that Split gives back what MakeOrder was made
// from, as an archive compares its stored rows with it: the issue time
// (math.MaxInt64 without one, negative instants too) and the line hash's
// first 32 hex characters (32 "f"s without one).
func TestOrderSplit(t *testing.T) {
	sum := "0123456789abcdef0123456789abcdef" + strings.Repeat("9", 32)
	for _, c := range []struct {
		issued    int64
		hasIssued bool
		line      string
		want      int64
		tiebreak  string
	}{
		{1_764_547_200_000_000, true, sum, 1_764_547_200_000_000, sum[:32]},
		{-5, true, sum, -5, sum[:32]},
		{0, false, sum, math.MaxInt64, sum[:32]},
		{7, true, "", 7, strings.Repeat("f", 32)},
	} {
		issued, tiebreak := MakeOrder(c.issued, c.hasIssued, c.line).Split()
		if issued != c.want || tiebreak != c.tiebreak {
			t.Errorf("MakeOrder(%d, %v, %q).Split() = %d, %s; want %d, %s", c.issued, c.hasIssued, c.line, issued, tiebreak, c.want, c.tiebreak)
		}
	}
}
