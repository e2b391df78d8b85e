package severity

import "testing"

// TestParseString: every severity reads back from its name, case aside,
// and All is the caller's copy, highest first.
func TestParseString(t *testing.T) {
	t.Parallel()
	all := All()
	all[0] = 0
	for _, s := range All() {
		for _, name := range []string{s.String(), "X" + s.String()[1:]} {
			got, err := Parse(name)
			if name[0] == 'X' {
				if err == nil {
					t.Errorf("Parse(%q) = %v, want an error", name, got)
				}
				continue
			}
			if err != nil || got != s {
				t.Errorf("Parse(%q) = %v, %v; want %v", name, got, err, s)
			}
		}
	}
	if got := All(); got[0] != High || got[3] != Info {
		t.Errorf("All() = %v", got)
	}
	if _, err := Parse("HIGH"); err != nil {
		t.Error(err)
	}
	var c Count
	c[High], c[Low] = 2, 3
	if c.AtLeast(Medium) != 2 || c.AtLeast(0) != 5 {
		t.Errorf("AtLeast: %v", c)
	}
}
