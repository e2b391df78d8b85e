package analytics

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestChartKinds: a known collision, a drift to an unexpected schema (with
// or without a second fingerprint) and a collision nobody can judge are
// drawn apart; the most worrying tools come first; past ChartTools rows
// the rest are counted; the window is the days with data, at least a week
// and at most ChartDays.
func TestChartKinds(t *testing.T) {
	t.Parallel()
	last := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	day := func(back int) string { return last.AddDate(0, 0, -back).Format(time.DateOnly) }
	rows := []toolDay{
		{Tool: "a.known", Day: day(0), Fingerprints: 2, Receipts: 5},
		{Tool: "b.drift", Day: day(0), Fingerprints: 2, Receipts: 5, Unexpected: 1},
		{Tool: "c.swapped", Day: day(1), Fingerprints: 1, Receipts: 5, Unexpected: 1},
		{Tool: "d.unjudged", Day: day(2), Fingerprints: 2, Receipts: 5, Unexpected: -1},
	}
	for i := range 25 {
		rows = append(rows, toolDay{Tool: fmt.Sprintf("tool%02d", i), Day: day(0), Fingerprints: 1, Receipts: 1})
	}
	svg := string(fingerprintChart(last, chartDays, rows))
	fill := func(tool string) string {
		m := regexp.MustCompile(`<title>` + regexp.QuoteMeta(tool) + ` on [^<]*</title><circle [^>]*(?:fill="#ffffff" stroke|fill)="(#[0-9a-f]+)"`).FindStringSubmatch(svg)
		if m == nil {
			return ""
		}
		return m[1]
	}
	for tool, want := range map[string]string{"a.known": "#0969da", "b.drift": "#cf222e", "c.swapped": "#cf222e", "d.unjudged": "#bf8700", "tool00": "#6e7781"} {
		if got := fill(tool); got != want {
			t.Errorf("%s drawn %q, want %s", tool, got, want)
		}
	}
	if !strings.Contains(svg, `stroke="#cf222e" stroke-width="3"`) {
		t.Errorf("a single unexpected fingerprint is not a ring")
	}
	var order []string
	for _, m := range regexp.MustCompile(`text-anchor="end" dy="0.35em" fill="#1f2328">([^<]+)</text>`).FindAllStringSubmatch(svg, -1) {
		order = append(order, m[1])
	}
	if len(order) != chartTools || strings.Join(order[:5], " ") != "b.drift c.swapped d.unjudged a.known tool00" {
		t.Errorf("%d rows, in order %v", len(order), order)
	}
	if !strings.Contains(svg, ">9 more tools, none with a red day (see collisions.csv, drift.csv)</text>") {
		t.Errorf("no line for the tools left out")
	}
	if !strings.Contains(svg, "2026-11-24 to 2026-11-30</text>") {
		t.Errorf("three days of data: the window is not the last week")
	}
	old := append(rows, toolDay{Tool: "a.known", Day: day(40), Fingerprints: 1, Receipts: 1}, toolDay{Tool: "a.known", Day: day(12), Fingerprints: 1, Receipts: 1})
	if svg := string(fingerprintChart(last, chartDays, old)); !strings.Contains(svg, "2026-11-18 to 2026-11-30</text>") {
		t.Errorf("data from 12 days back: window %s", regexp.MustCompile(`\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d`).FindString(svg))
	}
}
