package queries

import (
	"strings"
	"testing"
)

// TestGapSettingsLine checks that gaps.sql holds the defaults in the line
// the runner replaces, so that a configured threshold reaches the query.
func TestGapSettingsLine(t *testing.T) {
	t.Parallel()
	q, err := Lookup("gaps")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(q.Text, gapSettingsLine) || DefaultGapSettings().String() != gapSettingsLine {
		t.Fatalf("gaps.sql does not hold %q", DefaultGapSettings().String())
	}
	g := GapSettings{WindowDays: 14, ThinFraction: 0.1}
	got := g.Apply("gaps", q.Text)
	if !strings.Contains(got, "SELECT 14 AS window_days, 0.1 AS thin_fraction") || strings.Contains(got, gapSettingsLine) {
		t.Errorf("Apply did not replace the settings line")
	}
	if g.Apply("drift", q.Text) != q.Text {
		t.Errorf("Apply changed another query")
	}
	if err := (GapSettings{WindowDays: 0, ThinFraction: 0.5}).Check(); err == nil {
		t.Errorf("Check accepted a window of 0 days")
	}
	if err := (GapSettings{WindowDays: 7, ThinFraction: 1.5}).Check(); err == nil {
		t.Errorf("Check accepted a fraction above 1")
	}
}
