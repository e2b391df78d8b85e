package analytics

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// Severity ranks a finding row by what an auditor does about it. Each
// finding query computes it per row, from the row's own facts, in its
// severity column (the rules and the reasons for them are in each
// queries/*.sql header and in the README).
type Severity int

// The severities, lowest first.
const (
	SeverityInfo   Severity = iota + 1 // known and expected: read, nothing to do
	SeverityLow                        // explained by the expected schemas, but new: worth a glance
	SeverityMedium                     // cannot be judged from what was loaded: give schemas or accept it
	SeverityHigh                       // the evidence does not hold, or a tool ran with an undeclared schema: page
)

// DefaultFailOn is the severity at which report and audit exit 1 unless
// told otherwise: the rows a scheduled job should page on.
const DefaultFailOn = SeverityHigh

var severityNames = []string{"", "info", "low", "medium", "high"}

func (s Severity) String() string {
	if s < SeverityInfo || s > SeverityHigh {
		return fmt.Sprintf("Severity(%d)", int(s))
	}
	return severityNames[s]
}

// Severities lists the severities, highest first (report order).
var Severities = []Severity{SeverityHigh, SeverityMedium, SeverityLow, SeverityInfo}

// ParseSeverity reads "high", "medium", "low" or "info".
func ParseSeverity(s string) (Severity, error) {
	if i := slices.Index(severityNames, strings.ToLower(s)); i > 0 {
		return Severity(i), nil
	}
	return 0, fmt.Errorf("severity %q is not one of high, medium, low, info", s)
}

// FindingKeyColumn is the column a finding query names its row's
// identifying facts in; RunQuery replaces it with FindingIDColumn, the
// first 32 hex digits of the key's SHA-256, so that a SIEM can
// deduplicate a row reported again on a re-run.
const (
	FindingKeyColumn = "finding_key"
	FindingIDColumn  = "finding_id"
)

// FindingID is the finding_id of a finding_key.
func FindingID(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:16])
}

// withFindingIDs replaces a finding_key column by finding_id, in place.
func withFindingIDs(t *Table) {
	i := findingIDColumn(t.Columns)
	for _, r := range t.Rows {
		toFindingID(r, i)
	}
}

// findingIDColumn renames the finding_key column of columns finding_id and
// returns its index, -1 when there is none.
func findingIDColumn(columns []string) int {
	i := slices.Index(columns, FindingKeyColumn)
	if i >= 0 {
		columns[i] = FindingIDColumn
	}
	return i
}

// toFindingID replaces row's finding key (at i, if i >= 0) by its FindingID.
func toFindingID(row []any, i int) {
	if i < 0 {
		return
	}
	if k, ok := row[i].(string); ok {
		row[i] = FindingID(k)
	}
}

// rowSeverity is a finding row's severity column, 0 if it has none.
func rowSeverity(t *Table, r []any) Severity {
	i := t.Col("severity")
	if i < 0 {
		return 0
	}
	s, _ := ParseSeverity(Text(r[i]))
	return s
}

// KeepAtLeast drops the rows of t, a finding query's table, below min:
// what verify query --min-severity shows.
func (t *Table) KeepAtLeast(min Severity) error {
	if t.Col("severity") < 0 {
		return fmt.Errorf("--min-severity: %s is not a finding query (no severity column)", t.Name)
	}
	t.Rows = slices.DeleteFunc(t.Rows, func(r []any) bool { return rowSeverity(t, r) < min })
	return nil
}
