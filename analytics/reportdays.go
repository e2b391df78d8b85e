package analytics

import (
	"context"
	"slices"
)

// byDay are the finding queries whose rows each carry their UTC day and
// come ordered by it first. Most of their cost is aggregates over the whole
// receipts table (the history a replay or a first-seen pair is judged
// against), the same for one day as for all, so a report of many days runs
// each of them once and splits the rows by day (SharedFindings).
var byDay = []string{"collisions", "drift", "replays", "failures"}

// SharedFindings are the byDay finding tables of a report of several days,
// run once with the NULL day and split by their day column. Report takes a
// day's rows from it (ReportOptions.Shared) instead of running the queries
// again: the same rows, in the same order (TestSharedFindingsAgree).
type SharedFindings struct {
	tables  map[string]map[string]*Table // query name, then day
	columns map[string][]string          // query name
}

// ShareFindings runs the byDay queries once for days, when they are every
// day the database holds receipts on: the NULL day's rows are then exactly
// theirs. Otherwise (a report of some days of a longer history) it returns
// nil, and each day runs its own queries, which read only that day's rows
// besides the aggregates.
func ShareFindings(ctx context.Context, q Querier, days []string) (*SharedFindings, error) {
	if len(days) < 2 {
		return nil, nil
	}
	all, err := RunQuery(ctx, q, "days", "")
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, d := range days {
		want[d] = true
	}
	for _, r := range all.Rows {
		if !want[Text(r[all.Col("day")])] {
			return nil, nil
		}
	}
	s := &SharedFindings{tables: map[string]map[string]*Table{}, columns: map[string][]string{}}
	for _, name := range byDay {
		t, err := RunQuery(ctx, q, name, "")
		if err != nil {
			return nil, err
		}
		s.tables[name], s.columns[name] = tablesByDay(t), t.Columns
	}
	return s, nil
}

// tablesByDay cuts a table ordered by its day column into one table per day.
func tablesByDay(t *Table) map[string]*Table {
	out := map[string]*Table{}
	col := t.Col("day")
	for _, r := range t.Rows {
		d := Text(r[col])
		dt := out[d]
		if dt == nil {
			dt = &Table{Name: t.Name, Columns: slices.Clip(slices.Clone(t.Columns))}
			out[d] = dt
		}
		dt.Rows = append(dt.Rows, r)
	}
	return out
}

// take hands over query name's rows on day, and says whether s holds that
// query. A day's rows are handed over once: the report then owns them (a
// baseline adds its columns to them).
func (s *SharedFindings) take(name, day string) (*Table, bool) {
	if s == nil {
		return nil, false
	}
	days, ok := s.tables[name]
	if !ok {
		return nil, false
	}
	t := days[day]
	delete(days, day)
	if t == nil { // no row on the day
		t = &Table{Name: name, Columns: slices.Clip(slices.Clone(s.columns[name]))}
	}
	return t, true
}
