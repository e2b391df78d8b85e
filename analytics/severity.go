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
	severityInfo   Severity = iota + 1 // known and expected: read, nothing to do
	severityLow                        // explained by the expected schemas, but new: worth a glance
	severityMedium                     // cannot be judged from what was loaded: give schemas or accept it
	severityHigh                       // the evidence does not hold, or a tool ran with an undeclared schema: page
)

// DefaultFailOn is the severity at which report and audit exit 1 unless
// told otherwise: the rows a scheduled job should page on.
const DefaultFailOn = severityHigh

var severityNames = []string{"", "info", "low", "medium", "high"}

func (s Severity) String() string {
	if s < severityInfo || s > severityHigh {
		return fmt.Sprintf("Severity(%d)", int(s))
	}
	return severityNames[s]
}

// Severities lists the severities, highest first (report order).
var Severities = []Severity{severityHigh, severityMedium, severityLow, severityInfo}

// ParseSeverity reads "high", "medium", "low" or "info".
func ParseSeverity(s string) (Severity, error) {
	if i := slices.Index(severityNames, strings.ToLower(s)); i > 0 {
		return Severity(i), nil
	}
	return 0, fmt.Errorf("severity %q is not one of high, medium, low, info", s)
}

// findingKeyColumn is the column a finding query names its row's
// identifying facts in; RunQuery replaces it with findingIDColumn, the
// first 32 hex digits of the key's SHA-256, so that a SIEM can
// deduplicate a row reported again on a re-run.
const (
	findingKeyColumn = "finding_key"
	findingIDColumn  = "finding_id"
)

// findingID is the finding_id of a finding_key.
func findingID(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:16])
}

// withFindingIDs replaces a finding_key column by finding_id, in place.
func withFindingIDs(t *Table) {
	i := renameFindingKey(t.Columns)
	for _, r := range t.Rows {
		toFindingID(r, i)
	}
}

// renameFindingKey renames the finding_key column of columns finding_id and
// returns its index, -1 when there is none.
func renameFindingKey(columns []string) int {
	i := slices.Index(columns, findingKeyColumn)
	if i >= 0 {
		columns[i] = findingIDColumn
	}
	return i
}

// toFindingID replaces row's finding key (at i, if i >= 0) by its FindingID.
func toFindingID(row []any, i int) {
	if i < 0 {
		return
	}
	if k, ok := row[i].(string); ok {
		row[i] = findingID(k)
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
