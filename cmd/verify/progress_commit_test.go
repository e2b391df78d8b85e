package main

import (
	"testing"
	"time"

	"github.com/receiptverify/verify/analytics"
)

// TestCommitLine: the commit phase's line says how much of the spooled
// rows DuckDB has read, with an ETA, then that it is writing; without a
// count of bytes read, its elapsed time.
func TestCommitLine(t *testing.T) {
	c := commitState{on: true, c: analytics.Commit{Records: 1000, Read: 200e6}, base: 50e6}
	for _, tc := range []struct {
		elapsed time.Duration
		read    int64
		want    string
	}{
		{10 * time.Second, 100e6, "committing 1000 records to the database  25%: 50.0 of 200.0 MB of rows read, ETA 30s"},
		{20 * time.Second, 250e6, "committing 1000 records to the database: rows read, writing (20s)"},
		{3 * time.Second, -1, "committing 1000 records to the database (3s)"},
	} {
		if got := c.line(tc.elapsed, tc.read); got != tc.want {
			t.Errorf("line(%s, %d) = %q, want %q", tc.elapsed, tc.read, got, tc.want)
		}
	}
	c.base = -1
	if got, want := c.line(time.Second, 100e6), "committing 1000 records to the database (1s)"; got != want {
		t.Errorf("without a start: %q, want %q", got, want)
	}
}
