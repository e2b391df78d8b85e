package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/receiptverify/verify/internal/analytics/baseline"
	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/queries"
)

// Starting is what StartingBaseline accepted, and what it could not.
type Starting struct {
	Baseline *baseline.Baseline
	Rows     int   // collisions and drift rows above info that the entries accept
	High     int   // of them high: read those entries before adopting the file
	Left     int   // failures, replays and rejects of the day: no baseline accepts them
	Receipts int64 // the day's receipts: none is a day that cannot be known-good
}

// StartingBaseline writes a team's first baseline from a day it declares
// known-good: one entry per (tool, fingerprint) of the day's collisions
// and drift rows above info (info rows fail no --fail-on worth using),
// each with a reason naming the day and the kinds of finding it accepts,
// expiring at expires.
func (db *DB) StartingBaseline(ctx context.Context, day string, expires time.Time) (*Starting, error) {
	return startingBaseline(ctx, db.sql, day, expires)
}

// startingBaseline is DB.StartingBaseline on any querier.
func startingBaseline(ctx context.Context, q querier, day string, expires time.Time) (*Starting, error) {
	if _, err := queries.ParseDay(day); err != nil {
		return nil, err
	}
	st := &Starting{Baseline: &baseline.Baseline{Entries: []baseline.Entry{}}}
	rows, err := q.QueryContext(ctx, "SELECT count(*) FROM receipts WHERE day = CAST($1 AS DATE)", day)
	if err != nil {
		return nil, &dberr.IOError{Op: "count receipts", Err: err}
	}
	for rows.Next() {
		if err := rows.Scan(&st.Receipts); err != nil {
			rows.Close()
			return nil, &dberr.IOError{Op: "count receipts", Err: err}
		}
	}
	if err := rows.Close(); err != nil {
		return nil, &dberr.IOError{Op: "count receipts", Err: err}
	}
	type pair struct{ tool, fp string }
	var order []pair
	kinds := map[pair][]string{}
	for _, name := range queries.Findings() {
		t, err := runQuery(ctx, q, name, day)
		if err != nil {
			return nil, err
		}
		if !baseline.Suppressible(name) {
			st.Left += len(t.Rows)
			continue
		}
		for _, r := range t.Rows {
			sev := t.RowSeverity(r)
			if sev <= severity.Info {
				continue
			}
			st.Rows++
			if sev == severity.High {
				st.High++
			}
			p := pair{table.Text(r[t.Col("tool_name")]), table.Text(r[t.Col("tool_fingerprint")])}
			if _, ok := kinds[p]; !ok {
				order = append(order, p)
			}
			kind := name
			if i := t.Col("kind"); i >= 0 {
				kind = table.Text(r[i])
			}
			kind += " " + sev.String()
			if !slices.Contains(kinds[p], kind) {
				kinds[p] = append(kinds[p], kind)
			}
		}
	}
	slices.SortFunc(order, func(a, b pair) int { return cmp.Or(cmp.Compare(a.tool, b.tool), cmp.Compare(a.fp, b.fp)) })
	for _, p := range order {
		st.Baseline.Entries = append(st.Baseline.Entries, baseline.Entry{Tool: p.tool, Fingerprint: p.fp,
			Reason:  fmt.Sprintf("known-good on %s (verify baseline): %s", day, strings.Join(kinds[p], ", ")),
			Expires: baseline.Time{Time: expires.UTC()}})
	}
	return st, nil
}
