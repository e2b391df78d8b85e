package analytics

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/receiptverify/verify/internal/helpers/termtext"
)

// toolDay is one row of queries/tool_days.sql: how many distinct
// fingerprints a tool name carried on one UTC day, and how many of them
// no expected server has.
type toolDay struct {
	Tool         string
	Day          string // YYYY-MM-DD
	Fingerprints int64
	Receipts     int64
	Unexpected   int64 // -1: no expected schemas were loaded
}

// chartDays is the chart's widest window: the report day and the 27
// before it. The window starts at the first day with data if that is
// later.
const chartDays = 28

// chartTools is the most tool rows the chart draws; the rest are counted
// in a last line.
const chartTools = 20

// Chart geometry, in SVG user units (pixels).
const (
	chartCellW   = 22
	chartRowH    = 20
	chartTop     = 66
	chartRightW  = 96
	chartBottom  = 46
	chartMaxName = 32
	chartMinDays = 7
)

// cellKind is what a chart cell shows, in increasing order of concern.
type cellKind int

const (
	cellOne        cellKind = iota // one fingerprint, none unexpected (or nothing to judge it by)
	cellKnown                      // more than one, every one an expected server's: a known collision
	cellUnjudged                   // more than one, no expected schemas loaded
	cellUnexpected                 // a fingerprint no expected server has
)

var cellFill = map[cellKind]string{cellOne: "#6e7781", cellKnown: "#0969da", cellUnjudged: "#bf8700", cellUnexpected: "#cf222e"}

func kindOf(fps, unexpected int64) cellKind {
	switch {
	case unexpected > 0:
		return cellUnexpected
	case fps <= 1:
		return cellOne
	case unexpected < 0:
		return cellUnjudged
	}
	return cellKnown
}

// fingerprintChart draws distinct fingerprints per tool per day, for at
// most days days ending with last (from the first day with data, if
// later, but at least a week), as an SVG: one row per tool, the tools
// with the most worrying cell first (then by name), at most ChartTools
// rows and a line counting the rest; one column per day. A cell is a
// small grey dot for one fingerprint, all as expected; a blue disc
// labelled with the count for a name that expected servers share (a
// known collision); a red disc or ring for a fingerprint no expected
// server has; an amber disc for more than one fingerprint with no
// expected schemas to judge them. The last day's column is shaded. The
// output depends only on its arguments.
func fingerprintChart(last time.Time, days int, rows []toolDay) []byte {
	first, days := chartWindow(last, days, rows)
	col := map[string]int{}
	for i := range days {
		col[first.AddDate(0, 0, i).Format(time.DateOnly)] = i
	}
	type cell struct {
		fps, receipts, unexpected int64
	}
	var tools []string
	grid := map[string]map[int]cell{}
	worst := map[string]cellKind{}
	flagged := map[string]int{}
	for _, r := range rows {
		i, ok := col[r.Day]
		if !ok {
			continue
		}
		if grid[r.Tool] == nil {
			grid[r.Tool] = map[int]cell{}
			tools = append(tools, r.Tool)
		}
		grid[r.Tool][i] = cell{r.Fingerprints, r.Receipts, r.Unexpected}
		k := kindOf(r.Fingerprints, r.Unexpected)
		worst[r.Tool] = max(worst[r.Tool], k)
		if k == cellUnexpected {
			flagged[r.Tool]++
		}
	}
	slices.SortStableFunc(tools, func(a, b string) int {
		if c := cmp.Compare(worst[b], worst[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var hidden []string
	if len(tools) > chartTools {
		tools, hidden = tools[:chartTools], tools[chartTools:]
	}

	labelW := 90
	for _, t := range tools {
		labelW = max(labelW, 16+7*utf8.RuneCountInString(shorten(t)))
	}
	labelW = min(labelW, 16+7*chartMaxName)
	width := max(labelW+days*chartCellW+chartRightW, 640)
	bodyH := max(1, len(tools)) * chartRowH
	if len(hidden) > 0 {
		bodyH += chartRowH
	}
	height := chartTop + bodyH + chartBottom + 16

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="DejaVu Sans, Verdana, Helvetica, Arial, sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="12" y="20" font-size="13" font-weight="bold" fill="#1f2328">Distinct tool fingerprints per day (UTC), %s to %s</text>`+"\n",
		first.Format(time.DateOnly), last.Format(time.DateOnly))

	// The report day's column, then the row bands.
	x0 := labelW
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#fff4c2"/>`+"\n", x0+(days-1)*chartCellW, chartTop-30, chartCellW, bodyH+30)
	for j := range tools {
		if j%2 == 1 {
			fmt.Fprintf(&b, `<rect x="0" y="%d" width="%d" height="%d" fill="#f3f5f7" fill-opacity="0.7"/>`+"\n", chartTop+j*chartRowH, width, chartRowH)
		}
	}

	// Day labels: month at the first column and on the 1st, day of month above each column.
	for i := range days {
		d := first.AddDate(0, 0, i)
		cx := x0 + i*chartCellW + chartCellW/2
		if i == 0 || d.Day() == 1 {
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#57606a">%s</text>`+"\n", x0+i*chartCellW+2, chartTop-22, d.Format("Jan 2006"))
		}
		weight := ""
		if i == days-1 {
			weight = ` font-weight="bold"`
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="9" text-anchor="middle" fill="#57606a"%s>%d</text>`+"\n", cx, chartTop-6, weight, d.Day())
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="9" fill="#57606a">red days</text>`+"\n", x0+days*chartCellW+10, chartTop-6)

	if len(tools) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#57606a">no receipt carried a tool fingerprint in these days</text>`+"\n", x0, chartTop+14)
	}
	for j, tool := range tools {
		cy := chartTop + j*chartRowH + chartRowH/2
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" dy="0.35em" fill="#1f2328">%s</text>`+"\n", labelW-10, cy, xmlText(shorten(tool)))
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#d0d7de" stroke-width="1"/>`+"\n", x0, cy, x0+days*chartCellW, cy)
		for i := range days {
			c, ok := grid[tool][i]
			if !ok {
				continue
			}
			cx := x0 + i*chartCellW + chartCellW/2
			k := kindOf(c.fps, c.unexpected)
			tip := fmt.Sprintf("%s on %s: %d fingerprint(s), %d receipt(s)", tool, first.AddDate(0, 0, i).Format(time.DateOnly), c.fps, c.receipts)
			switch k {
			case cellUnexpected:
				tip += fmt.Sprintf(", %d no expected server has", c.unexpected)
			case cellKnown:
				tip += ", each an expected server's (known collision)"
			case cellUnjudged:
				tip += ", no expected schemas to judge them"
			}
			switch {
			case k == cellOne:
				fmt.Fprintf(&b, `<g><title>%s</title><circle cx="%d" cy="%d" r="3.5" fill="%s"/></g>`+"\n", xmlText(tip), cx, cy, cellFill[k])
			case c.fps == 1: // one fingerprint, unexpected: a ring, so it is not read as a count
				fmt.Fprintf(&b, `<g><title>%s</title><circle cx="%d" cy="%d" r="6.5" fill="#ffffff" stroke="%s" stroke-width="3"/></g>`+"\n", xmlText(tip), cx, cy, cellFill[k])
			default:
				fmt.Fprintf(&b, `<g><title>%s</title><circle cx="%d" cy="%d" r="8" fill="%s"/><text x="%d" y="%d" dy="0.35em" text-anchor="middle" font-size="10" font-weight="bold" fill="#ffffff">%d</text></g>`+"\n",
					xmlText(tip), cx, cy, cellFill[k], cx, cy, c.fps)
			}
		}
		if n := flagged[tool]; n > 0 {
			fmt.Fprintf(&b, `<text x="%d" y="%d" dy="0.35em" font-weight="bold" fill="#cf222e">%d</text>`+"\n", x0+days*chartCellW+10, cy, n)
		} else {
			fmt.Fprintf(&b, `<text x="%d" y="%d" dy="0.35em" fill="#8c959f">0</text>`+"\n", x0+days*chartCellW+10, cy)
		}
	}
	if len(hidden) > 0 {
		red := 0
		for _, t := range hidden {
			if flagged[t] > 0 {
				red++
			}
		}
		cy := chartTop + len(tools)*chartRowH + chartRowH/2
		note := fmt.Sprintf("%d more tools, none with a red day (see collisions.csv, drift.csv)", len(hidden))
		if red > 0 {
			note = fmt.Sprintf("%d more tools, %d of them with red days (see drift.csv)", len(hidden), red)
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" dy="0.35em" font-style="italic" fill="#57606a">%s</text>`+"\n", 12, cy, xmlText(note))
	}

	// Legend, two lines.
	ly := chartTop + bodyH + 24
	fmt.Fprintf(&b, `<circle cx="18" cy="%d" r="3.5" fill="%s"/><text x="28" y="%d" dy="0.35em" fill="#1f2328">one fingerprint, as expected</text>`+"\n", ly, cellFill[cellOne], ly)
	fmt.Fprintf(&b, `<circle cx="218" cy="%d" r="8" fill="%s"/><text x="218" y="%d" dy="0.35em" text-anchor="middle" font-size="10" font-weight="bold" fill="#ffffff">2</text><text x="232" y="%d" dy="0.35em" fill="#1f2328">known collision: expected servers share the name</text>`+"\n", ly, cellFill[cellKnown], ly, ly)
	ly += 20
	fmt.Fprintf(&b, `<circle cx="18" cy="%d" r="8" fill="%s"/><text x="18" y="%d" dy="0.35em" text-anchor="middle" font-size="10" font-weight="bold" fill="#ffffff">2</text><circle cx="40" cy="%d" r="6.5" fill="#ffffff" stroke="%s" stroke-width="3"/><text x="54" y="%d" dy="0.35em" fill="#1f2328">a fingerprint no expected server has (drift.csv)</text>`+"\n", ly, cellFill[cellUnexpected], ly, ly, cellFill[cellUnexpected], ly)
	fmt.Fprintf(&b, `<circle cx="338" cy="%d" r="8" fill="%s"/><text x="338" y="%d" dy="0.35em" text-anchor="middle" font-size="10" font-weight="bold" fill="#ffffff">2</text><text x="352" y="%d" dy="0.35em" fill="#1f2328">no expected schemas to judge</text>`+"\n", ly, cellFill[cellUnjudged], ly, ly)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="#fff4c2" stroke="#d4a72c" stroke-width="0.5"/><text x="%d" y="%d" dy="0.35em" fill="#1f2328">report day</text>`+"\n", width-100, ly-6, width-84, ly)
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// chartWindow is the chart's first day and its number of days: from the
// first day with data among the days days ending with last, but at least
// chartMinDays.
func chartWindow(last time.Time, days int, rows []toolDay) (time.Time, int) {
	first := last.AddDate(0, 0, -(days - 1))
	earliest := ""
	for _, r := range rows {
		if r.Day >= first.Format(time.DateOnly) && (earliest == "" || r.Day < earliest) {
			earliest = r.Day
		}
	}
	if t, err := time.Parse(time.DateOnly, earliest); err == nil && t.After(first) {
		first = t
	}
	if min7 := last.AddDate(0, 0, 1-chartMinDays); first.After(min7) {
		first = min7
	}
	return first, int(last.Sub(first).Hours()/24) + 1
}

// shorten cuts a tool name to chartMaxName characters.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= chartMaxName {
		return s
	}
	r := []rune(s)
	return string(r[:chartMaxName-1]) + "…"
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

// xmlText escapes s for SVG text and attributes: control and format
// characters (a bidirectional override would reorder a tool's name as
// drawn) become escapes first (termtext), and the noncharacters XML 1.0
// cannot carry are dropped.
func xmlText(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF || r == utf8.RuneError {
			return -1
		}
		return r
	}, termtext.Escape(s))
	return xmlEscaper.Replace(s)
}
