package analytics

import (
	"slices"
	"strings"

	"github.com/receiptverify/verify/queries"
)

// summaryRows makes the collisions and drift rows of one (tool,
// fingerprint) and severity one row of summary.md, its kinds listed in
// it: one drifted fingerprint is a collision, first seen, a session
// change and an unexpected fingerprint, four rows of the same finding
// that read as four problems. The finding files keep every row. Other
// rows, and rows without a tool, stay as they are, in order.
func summaryRows(rows []findingRow) []findingRow {
	type key struct{ tool, fp, severity, suppressedBy string }
	var out []findingRow
	at := map[key]int{}
	for _, r := range rows {
		if (r.finding != "collisions" && r.finding != "drift") || r.tool == "" || r.fingerprint == "" {
			out = append(out, r)
			continue
		}
		k := key{r.tool, r.fingerprint, r.severity, r.suppressedBy}
		i, ok := at[k]
		if !ok {
			at[k] = len(out)
			r.rows = map[string]int{r.finding: 1}
			out = append(out, r)
			continue
		}
		g := &out[i]
		g.rows[r.finding]++
		if g.where == "" && r.where != "" { // a drift row's receipt, and its time
			g.where, g.when = r.where, r.when
		}
		g.kind += ", " + r.kind
		if g.expected == "" {
			g.expected = r.expected
		}
	}
	for i := range out {
		r := &out[i]
		if len(r.rows) == 0 || sumRows(r.rows) < 2 {
			continue
		}
		var names []string
		for _, name := range queries.Findings() {
			if r.rows[name] > 0 {
				names = append(names, name)
			}
		}
		r.finding, r.summary = strings.Join(names, ", "), true
		kinds := strings.Split(r.kind, ", ")
		r.what = strings.Join(slices.Compact(kinds), ", ")
		if r.expected != "" {
			r.what += "; " + r.expected
		}
	}
	return out
}

func sumRows(m map[string]int) int {
	n := 0
	for _, k := range m {
		n += k
	}
	return n
}

// expectedOf is what the expected schemas say of a fingerprint: "match
// (crm)", "drift", "unknown".
func expectedOf(expected, server string) string {
	if server != "" {
		return expected + " (" + server + ")"
	}
	return expected
}
