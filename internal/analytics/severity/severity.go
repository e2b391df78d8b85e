// Package severity ranks finding rows by what an auditor does about them.
// Each finding query computes a row's severity from the row's own facts,
// in its severity column (the rules and the reasons for them are in each
// queries/*.sql header and in the README).
package severity

import (
	"fmt"
	"slices"
	"strings"
)

// Severity ranks a finding row.
type Severity int

// The severities, lowest first.
const (
	Info   Severity = iota + 1 // known and expected: read, nothing to do
	Low                        // explained by the expected schemas, but new: worth a glance
	Medium                     // cannot be judged from what was loaded: give schemas or accept it
	High                       // the evidence does not hold, or a tool ran with an undeclared schema: page
)

// DefaultFailOn is the severity at which report and audit exit 1 unless
// told otherwise: the rows a scheduled job should page on.
const DefaultFailOn = High

var names = []string{"", "info", "low", "medium", "high"}

func (s Severity) String() string {
	if s < Info || s > High {
		return fmt.Sprintf("Severity(%d)", int(s))
	}
	return names[s]
}

// All lists the severities, highest first (report order).
func All() []Severity { return []Severity{High, Medium, Low, Info} }

// Parse reads "high", "medium", "low" or "info".
func Parse(s string) (Severity, error) {
	if i := slices.Index(names, strings.ToLower(s)); i > 0 {
		return Severity(i), nil
	}
	return 0, fmt.Errorf("severity %q is not one of high, medium, low, info", s)
}

// Count counts rows by severity, indexed by Severity.
type Count [High + 1]int

// AtLeast is the number of rows at s or above.
func (c Count) AtLeast(s Severity) int {
	n := 0
	for i := max(s, Info); i <= High; i++ {
		n += c[i]
	}
	return n
}
