package analytics

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/receiptverify/verify/internal/termtext"
)

// ToolDay is one row of queries/tool_days.sql: how many distinct
// fingerprints a tool name carried on one UTC day.
type ToolDay struct {
	Tool         string
	Day          string // YYYY-MM-DD
	Fingerprints int64
	Receipts     int64
}

// ChartDays is the chart's window: the report day and the 27 before it.
const ChartDays = 28

// Chart geometry, in SVG user units (pixels).
const (
	chartCellW   = 22
	chartRowH    = 20
	chartTop     = 66
	chartRightW  = 96
	chartBottom  = 46
	chartMaxName = 32
)

// FingerprintChart draws distinct fingerprints per tool per day over the
// days days ending with last, as an SVG: one row per tool (sorted by
// name), one column per day; a small grey dot for a day with one
// fingerprint, a red disc labelled with the count for a day with more
// than one (a collision or drift), nothing for a day without receipts. The
// last day's column is shaded. The output depends only on its arguments.
func FingerprintChart(last time.Time, days int, rows []ToolDay) []byte {
	first := last.AddDate(0, 0, -(days - 1))
	col := map[string]int{}
	for i := range days {
		col[first.AddDate(0, 0, i).Format(time.DateOnly)] = i
	}
	type cell struct{ fps, receipts int64 }
	var tools []string
	grid := map[string]map[int]cell{}
	for _, r := range rows {
		i, ok := col[r.Day]
		if !ok {
			continue
		}
		if grid[r.Tool] == nil {
			grid[r.Tool] = map[int]cell{}
			tools = append(tools, r.Tool)
		}
		grid[r.Tool][i] = cell{r.Fingerprints, r.Receipts}
	}
	// rows arrive sorted by tool name (tool_days.sql); keep that order.

	labelW := 90
	for _, t := range tools {
		labelW = max(labelW, 16+7*utf8.RuneCountInString(shorten(t)))
	}
	labelW = min(labelW, 16+7*chartMaxName)
	width := labelW + days*chartCellW + chartRightW
	bodyH := max(1, len(tools)) * chartRowH
	height := chartTop + bodyH + chartBottom

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
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="9" fill="#57606a">days &gt; 1</text>`+"\n", x0+days*chartCellW+10, chartTop-6)

	if len(tools) == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#57606a">no receipt carried a tool fingerprint in these days</text>`+"\n", x0, chartTop+14)
	}
	for j, tool := range tools {
		cy := chartTop + j*chartRowH + chartRowH/2
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" dy="0.35em" fill="#1f2328">%s</text>`+"\n", labelW-10, cy, xmlText(shorten(tool)))
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#d0d7de" stroke-width="1"/>`+"\n", x0, cy, x0+days*chartCellW, cy)
		multi := 0
		for i := range days {
			c, ok := grid[tool][i]
			if !ok {
				continue
			}
			cx := x0 + i*chartCellW + chartCellW/2
			tip := fmt.Sprintf("%s on %s: %d fingerprint(s), %d receipt(s)", tool, first.AddDate(0, 0, i).Format(time.DateOnly), c.fps, c.receipts)
			if c.fps > 1 {
				multi++
				fmt.Fprintf(&b, `<g><title>%s</title><circle cx="%d" cy="%d" r="8" fill="#cf222e"/><text x="%d" y="%d" dy="0.35em" text-anchor="middle" font-size="10" font-weight="bold" fill="#ffffff">%d</text></g>`+"\n",
					xmlText(tip), cx, cy, cx, cy, c.fps)
			} else {
				fmt.Fprintf(&b, `<g><title>%s</title><circle cx="%d" cy="%d" r="3.5" fill="#6e7781"/></g>`+"\n", xmlText(tip), cx, cy)
			}
		}
		if multi > 0 {
			fmt.Fprintf(&b, `<text x="%d" y="%d" dy="0.35em" font-weight="bold" fill="#cf222e">%d</text>`+"\n", x0+days*chartCellW+10, cy, multi)
		} else {
			fmt.Fprintf(&b, `<text x="%d" y="%d" dy="0.35em" fill="#8c959f">0</text>`+"\n", x0+days*chartCellW+10, cy)
		}
	}

	// Legend.
	ly := chartTop + bodyH + 26
	fmt.Fprintf(&b, `<circle cx="18" cy="%d" r="3.5" fill="#6e7781"/><text x="28" y="%d" dy="0.35em" fill="#1f2328">one fingerprint</text>`+"\n", ly, ly)
	fmt.Fprintf(&b, `<circle cx="138" cy="%d" r="8" fill="#cf222e"/><text x="138" y="%d" dy="0.35em" text-anchor="middle" font-size="10" font-weight="bold" fill="#ffffff">2</text><text x="152" y="%d" dy="0.35em" fill="#1f2328">more than one: collision or drift (see collisions.csv, drift.csv)</text>`+"\n", ly, ly, ly)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="#fff4c2" stroke="#d4a72c" stroke-width="0.5"/><text x="%d" y="%d" dy="0.35em" fill="#1f2328">report day</text>`+"\n", width-100, ly-6, width-84, ly)
	b.WriteString("</svg>\n")
	return b.Bytes()
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
