package rawpolicy

import "testing"

// TestParse: each policy reads back from its name; another name is an
// error.
func TestParse(t *testing.T) {
	t.Parallel()
	for _, p := range []Policy{Flagged, All} {
		if got, err := Parse(p.String()); err != nil || got != p {
			t.Errorf("Parse(%q) = %v, %v; want %v", p.String(), got, err, p)
		}
	}
	if Flagged != 0 {
		t.Error("the zero Policy is not the default, Flagged")
	}
	if _, err := Parse("none"); err == nil {
		t.Error(`Parse("none"): no error`)
	}
}
