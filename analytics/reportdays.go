package analytics

import (
	"context"
	"slices"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/queries"
)

// byDay are the finding queries whose rows each carry their UTC day and
// come ordered by it first. Most of their cost is aggregates over the whole
// receipts table (the history a replay or a first-seen pair is judged
// against, every chain's receipts for completeness), the same for one day
// as for all, so a report of many days runs each of them once and reads
// its rows day by day (SharedFindings).
var byDay = []string{"collisions", "drift", "replays", "failures", "completeness"}

// byHeldDay are the byDay queries whose NULL day judges only the days
// that hold receipts: gaps judges a day nothing arrived on only when it
// is named. They are shared only when every day reported holds receipts.
var byHeldDay = []string{"gaps"}

// SharedFindings are the byDay finding queries of a report of several
// days, each run once with the NULL day and read one day at a time, in
// order, and the days and tool_days queries run once (dayRows): Report takes a day's rows from them (ReportOptions.Shared)
// instead of running the queries again, the same rows in the same order
// (TestSharedFindingsAgree). Only the day being reported is held in
// memory; the engine holds the rest of each result. Close releases them.
type SharedFindings struct {
	cursors map[string]*dayCursor
	// whole are the small queries of every day held whole (days,
	// tool_days), each day's rows taken by dayRows.
	whole map[string]*table.Table
}

// dayRows are the queries of Report beside the findings whose rows, run
// for the NULL day, are every day's rows: a day's report takes the ones
// dayRows keeps (the same rows in the same order), as the query for the
// day would give them.
var dayRows = map[string]func(day, rowDay string) bool{
	// One row per day.
	"days": func(day, rowDay string) bool { return rowDay == day },
	// Each tool's days in the chart's window, the ChartDays days up to
	// the day.
	"tool_days": func(day, rowDay string) bool {
		d, err := queries.ParseDay(day)
		return err == nil && rowDay <= day && rowDay >= d.AddDate(0, 0, 1-chartDays).Format(time.DateOnly)
	},
}

// dayCursor reads one byDay query's rows a day at a time.
type dayCursor struct {
	sc     *rowScanner
	day    int // the day column
	shape  findingShape
	cols   []string // the columns as users get them
	peeked []any
	err    error
}

// ShareFindings runs the byDay queries once for days, when they are every
// day the database holds receipts on: the NULL day's rows are then exactly
// theirs (and the byHeldDay queries too, with gaps, the thresholds of the
// reports, when days holds no other day). Otherwise (a report of some days
// of a longer history) it returns nil, and each day runs its own queries,
// which read only that day's rows besides the aggregates. Days must then
// be reported in ascending order.
func (db *DB) ShareFindings(ctx context.Context, days []string, gaps queries.GapSettings) (*SharedFindings, error) {
	return shareFindings(ctx, db.sql, days, gaps)
}

// shareFindings is DB.ShareFindings on any querier.
func shareFindings(ctx context.Context, q querier, days []string, gaps queries.GapSettings) (*SharedFindings, error) {
	if len(days) < 2 || !slices.IsSorted(days) {
		return nil, nil
	}
	all, err := runQuery(ctx, q, "days", "")
	if err != nil {
		return nil, err
	}
	for _, r := range all.Rows {
		if _, found := slices.BinarySearch(days, table.Text(r[all.Col("day")])); !found {
			return nil, nil
		}
	}
	names := byDay
	if len(all.Rows) == len(slices.Compact(slices.Clone(days))) {
		names = slices.Concat(byDay, byHeldDay)
	}
	s := &SharedFindings{cursors: map[string]*dayCursor{}, whole: map[string]*table.Table{"days": all}}
	if s.whole["tool_days"], err = runQuery(ctx, q, "tool_days", ""); err != nil {
		return nil, err
	}
	for _, name := range names {
		query, err := queries.Lookup(name)
		if err != nil {
			s.Close()
			return nil, err
		}
		rows, err := q.QueryContext(ctx, gaps.Apply(name, query.Text), nil)
		if err != nil {
			s.Close()
			return nil, &dberr.IOError{Op: "query " + name, Err: err}
		}
		sc, err := newRowScanner(name, rows)
		if err != nil {
			rows.Close()
			s.Close()
			return nil, &dberr.IOError{Op: "query " + name, Err: err}
		}
		cols, shape := shapeFindings(sc.columns)
		s.cursors[name] = &dayCursor{sc: sc, day: slices.Index(sc.columns, "day"), shape: shape, cols: cols}
	}
	return s, nil
}

// Close releases the queries' results.
func (s *SharedFindings) Close() {
	if s == nil {
		return
	}
	for _, c := range s.cursors {
		c.sc.rows.Close()
	}
}

// take reads query name's rows on day, and says whether s holds that
// query. Rows of earlier days not taken are passed over.
func (s *SharedFindings) take(name, day string) (*table.Table, bool, error) {
	if s == nil {
		return nil, false, nil
	}
	if all, ok := s.whole[name]; ok {
		keep, col := dayRows[name], all.Col("day")
		t := &table.Table{Name: name, Columns: slices.Clone(all.Columns)}
		for _, r := range all.Rows {
			if keep(day, table.Text(r[col])) {
				t.Rows = append(t.Rows, r)
			}
		}
		return t, true, nil
	}
	c, ok := s.cursors[name]
	if !ok {
		return nil, false, nil
	}
	t := &table.Table{Name: name, Columns: slices.Clone(c.cols)}
	for {
		if c.peeked == nil && c.err == nil {
			c.peeked, c.err = c.sc.next()
		}
		if c.err != nil {
			return nil, true, &dberr.IOError{Op: "query " + name, Err: c.err}
		}
		if c.peeked == nil { // the end
			return t, true, nil
		}
		switch d := table.Text(c.peeked[c.day]); {
		case d > day:
			return t, true, nil
		case d == day:
			t.Rows = append(t.Rows, c.shape.row(c.peeked))
		}
		c.peeked = nil
	}
}
