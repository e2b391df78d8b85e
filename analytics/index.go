package analytics

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/helpers/outfile"
	"github.com/receiptverify/verify/queries"
)

// The run's front page and cross-day lists, written in the directory
// above the day reports (verify audit's --out).
const (
	IndexFile     = "index.md"
	IndexHTMLFile = "index.html"
	// AllFailuresFile and allFailuresJSONL are every day's failures rows
	// of the run, in day order: one list to work through.
	AllFailuresFile  = "failures.csv"
	allFailuresJSONL = "failures.jsonl"
)

// indexWorst is how many finding rows the index lists, worst first.
const indexWorst = 25

// WriteIndex writes, in out, the run's front page (index.md and
// index.html: the verdict, totals by reason and by day with a link to
// each day's summary, the worst finding rows first) and the cross-day
// failures list (failures.csv and failures.jsonl, each day's rows in day
// order), from the reports just written in out's day directories. It
// returns the names written, relative to out.
func WriteIndex(out string, reports []*ReportSummary) ([]string, error) {
	if len(reports) == 0 {
		return nil, nil
	}
	rel := func(r *ReportSummary, name string) string {
		d, err := filepath.Rel(out, r.Dir)
		if err != nil || d == "." {
			return name
		}
		return filepath.ToSlash(filepath.Join(d, name))
	}
	var worst []indexRow
	for _, r := range reports {
		rows, err := readWorst(r)
		if err != nil {
			return nil, err
		}
		worst = append(worst, rows...)
		slices.SortStableFunc(worst, func(a, b indexRow) int { return cmp.Compare(b.sev, a.sev) })
		worst = worst[:min(len(worst), indexWorst)]
	}
	names := []string{IndexFile, IndexHTMLFile}
	for _, f := range []struct{ name, day string }{{AllFailuresFile, "failures.csv"}, {allFailuresJSONL, "failures.jsonl"}} {
		if filepath.Clean(out) == filepath.Clean(reports[0].Dir) && len(reports) == 1 {
			break // one report in out itself: its own lists are the run's
		}
		if err := concatDays(filepath.Join(out, f.name), reports, f.day, strings.HasSuffix(f.name, ".csv")); err != nil {
			return nil, err
		}
		names = append(names, f.name)
	}
	failures := AllFailuresFile
	if len(names) == 2 {
		failures = "failures.csv"
	}
	md := indexMarkdown(reports, worst, rel, ".md", failures)
	if err := outfile.WriteFile(filepath.Join(out, IndexFile), md); err != nil {
		return nil, err
	}
	page, err := htmlPage("Receipt audit "+periodOf(reports), indexMarkdown(reports, worst, rel, ".html", failures), nil)
	if err != nil {
		return nil, err
	}
	if err := outfile.WriteFile(filepath.Join(out, IndexHTMLFile), page); err != nil {
		return nil, err
	}
	return names, nil
}

// indexRow is one finding row of the index's worst-first list.
type indexRow struct {
	sev                       severity.Severity
	day, finding, what, where string
}

// readWorst reads the day's finding rows not suppressed, each day's
// worst indexWorst, worst first.
func readWorst(r *ReportSummary) ([]indexRow, error) {
	var out []indexRow
	for _, name := range queries.Findings() {
		f, err := os.Open(filepath.Join(r.Dir, name+".jsonl"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var row indexFields
			if json.Unmarshal(sc.Bytes(), &row) != nil || row.Suppressed == true {
				continue
			}
			sev, _ := severity.Parse(fieldText(row.Severity))
			what := fieldText(row.Kind)
			switch name {
			case "failures":
				what = fieldText(row.Verdict) + " " + fieldText(row.Reasons)
			case "rejects":
				what = fieldText(row.Error)
			case "collisions":
				what = "collision of " + fieldText(row.ToolName)
			}
			ir := indexRow{sev: sev, day: r.Day, finding: name, what: what}
			if line := fieldText(row.Line); line != "" {
				ir.where = cellPath(fieldText(row.Source)) + ":" + line
			}
			out = append(out, ir)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name(), err)
		}
		slices.SortStableFunc(out, func(a, b indexRow) int { return cmp.Compare(b.sev, a.sev) })
		out = out[:min(len(out), indexWorst)]
	}
	return out, nil
}

// indexFields are the fields of a finding row readWorst reads: only
// these are decoded, not the row's others (its receipt, its axes).
type indexFields struct {
	Severity   any `json:"severity"`
	Suppressed any `json:"suppressed"`
	Kind       any `json:"kind"`
	Verdict    any `json:"verdict"`
	Reasons    any `json:"reasons"`
	Error      any `json:"error"`
	ToolName   any `json:"tool_name"`
	Line       any `json:"line"`
	Source     any `json:"source"`
}

// fieldText is a field of a finding row as the index shows it: a number
// as an integer, a list joined with commas, "" when absent.
func fieldText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return fmt.Sprint(int64(v))
	case []any:
		var s []string
		for _, x := range v {
			s = append(s, fmt.Sprint(x))
		}
		return strings.Join(s, ",")
	default:
		return fmt.Sprint(v)
	}
}

// concatDays writes path as the days' file name, one after the other; a
// CSV keeps the first header only.
func concatDays(path string, reports []*ReportSummary, name string, csv bool) error {
	var b bytes.Buffer
	header := false
	for _, r := range reports {
		data, err := os.ReadFile(filepath.Join(r.Dir, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		if csv {
			i := bytes.IndexByte(data, '\n') + 1
			if header {
				data = data[i:]
			}
			header = true
		}
		b.Write(data)
	}
	return outfile.WriteFile(path, b.Bytes())
}

// periodOf is "2026-11-01 to 2026-11-07 (7 days, UTC)", or the one day.
func periodOf(reports []*ReportSummary) string {
	first, last := reports[0].Day, reports[len(reports)-1].Day
	if len(reports) == 1 {
		return first + " (UTC)"
	}
	return fmt.Sprintf("%s to %s (%d days, UTC)", first, last, len(reports))
}

// indexMarkdown is index.md, its links to each day's summary ending in
// ext (.md, or .html for index.html).
func indexMarkdown(reports []*ReportSummary, worst []indexRow, rel func(*ReportSummary, string) string, ext, failures string) []byte {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	var rc dayCounts
	failing, withFailing, suppressed := 0, 0, 0
	var sev severity.Count
	for _, r := range reports {
		rc.Receipts += r.Receipts.Receipts
		rc.Fail += r.Receipts.Fail
		rc.Incomplete += r.Receipts.Incomplete
		failing += r.Failing()
		suppressed += r.Suppressed
		if r.Failing() > 0 {
			withFailing++
		}
		for i, n := range r.Severities {
			sev[i] += n
		}
	}
	failOn := reports[0].FailOn
	p("# Receipt audit, %s\n\n", periodOf(reports))
	if failing > 0 {
		p("**Verdict: action needed.** ")
	} else {
		p("**Verdict: clean.** ")
	}
	p("%d finding row(s) need action at `--fail-on %s`, on %d of %d day(s); %d of %d receipt(s) failed verification (%d FAIL, %d INCOMPLETE); by severity: %s.\n\n",
		failing, failOn, withFailing, len(reports), rc.Fail+rc.Incomplete, rc.Receipts, rc.Fail, rc.Incomplete, severityText(sev, suppressed))

	p("## Totals by reason\n\n| finding | reason or kind | rows |\n|---|---|---|\n")
	type key struct{ finding, kind string }
	totals := map[key]int{}
	var order []key
	for _, r := range reports {
		for _, f := range r.Findings {
			kinds := f.Kinds
			if len(kinds) == 0 && f.Rows > 0 {
				kinds = []kindCount{{Kind: "", Rows: f.Rows}}
			}
			for _, k := range kinds {
				kk := key{f.Name, k.Kind}
				if _, ok := totals[kk]; !ok {
					order = append(order, kk)
				}
				totals[kk] += k.Rows
			}
		}
	}
	slices.SortFunc(order, func(a, b key) int {
		return cmp.Or(cmp.Compare(slices.Index(queries.Findings(), a.finding), slices.Index(queries.Findings(), b.finding)),
			cmp.Compare(totals[b], totals[a]), strings.Compare(a.kind, b.kind))
	})
	if len(order) == 0 {
		p("| none | | 0 |\n")
	}
	for _, k := range order {
		p("| %s | %s | %d |\n", k.finding, mdText(cell(k.kind)), totals[k])
	}

	p("\n## By day\n\n| day | verdict | receipts | fail | incomplete |")
	for _, name := range queries.Findings() {
		p(" %s |", name)
	}
	p(" need action | report |\n|---|---|---|---|---|")
	for range queries.Findings() {
		p("---|")
	}
	p("---|---|\n")
	for _, r := range reports {
		verdict := "clean"
		if r.Failing() > 0 {
			verdict = "action needed"
		} else if r.Receipts.Receipts == 0 && r.Total() == 0 {
			verdict = "nothing to judge"
		}
		p("| %s | %s | %d | %d | %d |", r.Day, verdict, r.Receipts.Receipts, r.Receipts.Fail, r.Receipts.Incomplete)
		for _, f := range r.Findings {
			p(" %d |", f.Rows)
		}
		p(" %d | [summary](%s) |\n", r.Failing(), rel(r, strings.TrimSuffix(SummaryFile, ".md")+ext))
	}

	p("\n## Worst findings first\n\n")
	if len(worst) == 0 {
		p("No finding row on any day.\n")
	} else {
		p("| severity | finding | day | what | where |\n|---|---|---|---|---|\n")
		for _, w := range worst {
			p("| %s | %s | %s | %s | %s |\n", w.sev, w.finding, w.day, mdText(cell(w.what)), mdText(w.where))
		}
		p("\nThe %d worst of the period's rows not suppressed; each day's report lists all of its own.\n", len(worst))
	}
	p("\n## Failures across days\n\n%d failed receipt(s) of the period, every day's in one list: [%s](%s)", rc.Fail+rc.Incomplete, failures, failures)
	if failures == AllFailuresFile {
		p(" and [%s](%s)", allFailuresJSONL, allFailuresJSONL)
	}
	p(". `verify explain --db DB FILE:LINE` explains one.\n")
	return []byte(b.String())
}

// severityText is "2 high, 0 medium, 5 low, 30 info, 1 suppressed".
func severityText(c severity.Count, suppressed int) string {
	var parts []string
	for _, s := range severity.All() {
		parts = append(parts, fmt.Sprintf("%d %s", c[s], s))
	}
	return strings.Join(append(parts, fmt.Sprintf("%d suppressed", suppressed)), ", ")
}
