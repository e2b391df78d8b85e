package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/receiptverify/verify/analytics"
)

// A quarter of clean days folds into one line: audit's stdout stays one
// screen, and the total still counts every day.
func TestAuditSummaryFoldsCleanDays(t *testing.T) {
	t.Parallel()
	var reports []*analytics.ReportSummary
	for i := range 92 {
		r := &analytics.ReportSummary{Day: fmt.Sprintf("2026-%02d-%02d", 9+i/31, 1+i%31), Dir: "report/d"}
		r.Receipts.Receipts = 10
		reports = append(reports, r)
	}
	var b bytes.Buffer
	if err := writeAuditSummary(&b, "d.duckdb", analytics.LoadSummary{}, reports); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "\n"); n > 12 {
		t.Errorf("%d lines for 92 days, want one screen:\n%s", n, out)
	}
	folded, total := false, false
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		folded = folded || len(f) > 3 && strings.Join(f[:4], " ") == "92 clean day(s) 920"
		total = total || len(f) > 1 && f[0] == "total" && f[1] == "920"
	}
	if !folded || !total {
		t.Errorf("no folded line of 92 clean days, or a total not of 920 receipts:\n%s", out)
	}
}
