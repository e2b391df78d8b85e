package queries

import (
	"fmt"
	"strconv"
	"strings"
)

// GapSettings are the thresholds of gaps.sql: a source is judged against
// the median of its daily volumes over the WindowDays days before, and a
// day under ThinFraction of it is thin.
type GapSettings struct {
	WindowDays   int
	ThinFraction float64
}

// DefaultGapSettings are the values gaps.sql's settings line holds.
func DefaultGapSettings() GapSettings {
	return GapSettings{WindowDays: 7, ThinFraction: 0.25}
}

// gapSettingsLine is gaps.sql's settings CTE as the file holds it.
const gapSettingsLine = "settings AS (SELECT 7 AS window_days, 0.25 AS thin_fraction)"

// Check says what is wrong with g, if anything.
func (g GapSettings) Check() error {
	if g.WindowDays < 1 || g.WindowDays > 366 {
		return fmt.Errorf("gap window %d: want 1 to 366 days", g.WindowDays)
	}
	if !(g.ThinFraction > 0 && g.ThinFraction <= 1) {
		return fmt.Errorf("thin fraction %v: want above 0, at most 1", g.ThinFraction)
	}
	return nil
}

// String is the settings CTE holding g, as it is put in gaps.sql.
func (g GapSettings) String() string {
	return fmt.Sprintf("settings AS (SELECT %d AS window_days, %s AS thin_fraction)", g.WindowDays, strconv.FormatFloat(g.ThinFraction, 'f', -1, 64))
}

// Apply is the text of the query called name with g in place of the
// defaults: gaps.sql's settings line replaced; any other query as it is.
// The zero GapSettings are the defaults.
func (g GapSettings) Apply(name, text string) string {
	if name != "gaps" || g == (GapSettings{}) || g == DefaultGapSettings() {
		return text
	}
	return strings.Replace(text, gapSettingsLine, g.String(), 1)
}
