package analytics

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/analytics/baseline"
	"github.com/receiptverify/verify/internal/analytics/severity"
)

// fixtureBaseline accepts the unknown tool pay's fingerprint X (its
// first_seen and unexpected_fingerprint rows on 2026-11-02 are high), and
// tries to accept users.list, whose receipts failed and were replayed: a
// baseline must not hide those.
const fixtureBaseline = `
[[suppress]]
tool = "pay"
fingerprint = "X"
reason = "pay is the new billing tool, schema under review"
expires = 2026-12-01

[[suppress]]
tool = "users.list"
reason = "tries to hide failures"
expires = 2027-01-01
`

// TestBaselineSuppressesUntilExpiry: an entry suppresses exactly its rows
// (listed, marked, not counted for the exit) until its expiry date, then
// suppresses nothing and the report warns; failures and replays of a tool
// an entry names are never suppressed.
func TestBaselineSuppressesUntilExpiry(t *testing.T) {
	t.Parallel()
	db := fixtureDB(t, fixtureRows, fixtureExpected...)
	b, err := baseline.Parse("fixture.toml", []byte(fixtureBaseline))
	if err != nil {
		t.Fatal(err)
	}
	report := func(now time.Time) (*ReportSummary, map[string][]byte) {
		dir := t.TempDir()
		sum, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: "2026-11-02", Dir: dir, ToolVersion: "test", Baseline: b, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		return sum, readDir(t, dir)
	}
	without, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: "2026-11-02", Dir: t.TempDir(), ToolVersion: "test", Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}

	before, files := report(time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC))
	if before.Suppressed != 2 || before.Failing() != without.Failing()-2 || len(before.Expired()) != 0 {
		t.Errorf("before expiry: %d suppressed, %d failing (without a baseline %d), %d expired", before.Suppressed, before.Failing(), without.Failing(), len(before.Expired()))
	}
	for _, row := range readCSVBytes(t, files["drift.csv"]) {
		want := row["tool_name"] == "pay"
		if (row["suppressed"] == "true") != want || (want && row["suppressed_by"] != "pay is the new billing tool, schema under review") {
			t.Errorf("drift row %v", row)
		}
	}
	for _, name := range []string{"failures", "replays"} {
		if bytes.Contains(files[name+".csv"], []byte(",true,")) {
			t.Errorf("%s suppressed:\n%s", name, files[name+".csv"])
		}
	}
	md := string(files["summary.md"])
	if !strings.Contains(md, "## Suppressed by the baseline (2)") || !strings.Contains(md, "; 2 suppressed by the baseline") || strings.Contains(md, "Warning") {
		t.Errorf("summary.md before expiry:\n%s", md)
	}
	if i, j := strings.Index(md, "## Findings by severity"), strings.Index(md, "## Suppressed by the baseline"); i < 0 || j < i {
		t.Errorf("suppressed rows are not listed after the findings")
	}

	after, files := report(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if after.Suppressed != 0 || after.Failing() != without.Failing() || len(after.Expired()) != 1 || after.Expired()[0].Index != 1 || after.Expired()[0].Rows != 2 {
		t.Errorf("at expiry: %d suppressed, %d failing, expired %+v", after.Suppressed, after.Failing(), after.Expired())
	}
	md = string(files["summary.md"])
	if !strings.Contains(md, "> **Warning:** baseline entry 1 (tool pay, fingerprint X) expired on 2026-12-01") {
		t.Errorf("summary.md after expiry:\n%s", md)
	}
	if !bytes.Contains(files["manifest.json"], []byte(`"expired": true`)) {
		t.Errorf("manifest.json:\n%s", files["manifest.json"])
	}
}

// TestStartingBaseline: the file verify baseline writes reads back, and
// suppresses every tool-schema row of its day above info, but nothing
// else.
func TestStartingBaseline(t *testing.T) {
	t.Parallel()
	db := fixtureDB(t, fixtureRows, fixtureExpected...)
	ctx := context.Background()
	st, err := startingBaseline(ctx, db.SQL(), "2026-11-02", time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Baseline.Entries) != 2 || st.Rows != 3 || st.High != 2 || st.Left != 4 {
		t.Errorf("starting baseline: %d entries, %d rows, %d high, %d left: %+v", len(st.Baseline.Entries), st.Rows, st.High, st.Left, st.Baseline.Entries)
	}
	path := filepath.Join(t.TempDir(), "baseline.toml")
	var buf bytes.Buffer
	if err := st.Baseline.WriteTOML(&buf, "a header\nof two lines"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "# a header\n# of two lines\n\n[[suppress]]\n") || !strings.Contains(buf.String(), "expires = 2027-02-01\n") {
		t.Errorf("baseline file:\n%s", buf.String())
	}
	b, err := baseline.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := runReport(ctx, db.SQL(), ReportOptions{Day: "2026-11-02", Dir: t.TempDir(), ToolVersion: "test", Baseline: b, Now: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	// pay X (2 rows) and search B (first_seen, and its info collision and session change).
	if sum.Suppressed != 5 || sum.Severities.AtLeast(severity.Low) != 4 || sum.Failing() != 4 {
		t.Errorf("with the starting baseline: %d suppressed, %v by severity", sum.Suppressed, sum.Severities)
	}
	// An empty day writes an empty baseline that reads back.
	st, err = startingBaseline(ctx, db.SQL(), "2026-10-01", time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	st.Baseline.WriteTOML(&buf, "")
	if b, err := baseline.Parse("empty", buf.Bytes()); err != nil || len(b.Entries) != 0 {
		t.Errorf("empty baseline %q: %v %v", buf.String(), b, err)
	}
}

// readCSVBytes is readCSV of a file's bytes.
func readCSVBytes(t *testing.T, b []byte) []map[string]string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.csv")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return readCSV(t, path)
}
