package analytics

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/table"
)

// manifest is manifest.json: what a report was made from and of.
type manifest struct {
	Version       int             `json:"version"`
	Tool          string          `json:"tool"`
	ToolVersion   string          `json:"tool_version"`
	DuckDBVersion string          `json:"duckdb_version"`
	Day           string          `json:"day"`
	Window        window          `json:"window"`
	ChartWindow   window          `json:"chart_window"`
	Queries       []manifestQuery `json:"queries"`
	Inputs        []manifestInput `json:"inputs"`
	NotRead       []string        `json:"not_read,omitempty"` // files the input directories held that the run did not read
	// LateDeliveries are the receipts of the day loaded after a report of
	// it was written, [] for none.
	LateDeliveries []lateDelivery         `json:"late_deliveries"`
	Trust          []manifestTrust        `json:"trust"`
	Receipts       dayCounts              `json:"receipts"`
	Findings       map[string]int         `json:"findings"`
	FindingKinds   map[string][]kindCount `json:"finding_kinds"`
	FailOn         string                 `json:"fail_on"`
	Severities     map[string]int         `json:"severities"` // rows not suppressed, by severity
	Suppressed     int                    `json:"suppressed"`
	Failing        int                    `json:"failing"` // rows at fail_on or above, not suppressed
	Baseline       *manifestBaseline      `json:"baseline,omitempty"`
	Outputs        []manifestOutput       `json:"outputs"`
}

// manifestBaseline is the baseline file a report applied.
type manifestBaseline struct {
	Path    string                  `json:"path"`
	SHA256  string                  `json:"sha256"`
	Now     string                  `json:"now"` // the instant expiry was judged at
	Entries []manifestBaselineEntry `json:"entries"`
}

// manifestBaselineEntry is one entry and what it did.
type manifestBaselineEntry struct {
	Entry   string `json:"entry"`
	Expires string `json:"expires"`
	Expired bool   `json:"expired"`
	Rows    int    `json:"rows"`
}

// window is a half-open UTC interval [from, to).
type window struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// manifestQuery is one query the report ran.
type manifestQuery struct {
	Name   string `json:"name"`
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	Rows   int    `json:"rows"`
	// Settings is the settings line run in place of the file's own
	// (gaps.sql with thresholds other than its defaults).
	Settings string `json:"settings,omitempty"`
}

// manifestInput is one input file holding receipts of the day, with its
// counts as loaded.
type manifestInput struct {
	Path          string `json:"path"`
	SHA256        string `json:"sha256"`
	SizeBytes     int64  `json:"size_bytes"`
	Lines         int64  `json:"lines"`
	Accepted      int64  `json:"accepted"`
	Rejected      int64  `json:"rejected"`
	ReceiptsOnDay int64  `json:"receipts_on_day"`
	// Redelivered are its lines not stored because they were stored
	// already from another file.
	Redelivered int64 `json:"redelivered"`
}

// manifestTrust is the trust material some of the day's verdicts came
// from (trust.sql): the key and schema files by path and SHA-256, the
// judging time (empty: the clock of the load), strictness, the version of
// the tool that judged, and how many of the day's receipts it judged.
// TrustSHA256 is empty for receipts loaded before provenance was recorded.
type manifestTrust struct {
	TrustSHA256   string      `json:"trust_sha256"`
	KeyFiles      []TrustFile `json:"key_files"`
	SchemaFiles   []TrustFile `json:"schema_files"`
	JudgedAt      string      `json:"judged_at"`
	StrictSchemas bool        `json:"strict_schemas"`
	ToolVersion   string      `json:"tool_version"`
	Receipts      int64       `json:"receipts"`
}

// manifestOutput is one file the report wrote (the manifest excepted).
type manifestOutput struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

func duckdbVersion(ctx context.Context, q querier) (string, error) {
	rows, err := q.QueryContext(ctx, "SELECT version()")
	if err != nil {
		return "", &dberr.IOError{Op: "query version", Err: err}
	}
	defer rows.Close()
	var v string
	if rows.Next() {
		err = rows.Scan(&v)
	}
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return "", &dberr.IOError{Op: "query version", Err: err}
	}
	return v, nil
}

// trustOfManifest reads trust.sql's rows.
func trustOfManifest(t *table.Table) []manifestTrust {
	out := []manifestTrust{}
	files := func(v any) []TrustFile {
		fs := []TrustFile{}
		json.Unmarshal([]byte(table.Text(v)), &fs)
		return fs
	}
	for _, r := range t.Rows {
		g := func(c string) any { return r[t.Col(c)] }
		mt := manifestTrust{TrustSHA256: table.Text(g("trust_sha256")), KeyFiles: files(g("key_files")), SchemaFiles: files(g("schema_files")),
			ToolVersion: table.Text(g("tool_version")), Receipts: asInt(g("receipts"))}
		if at, ok := g("judged_at").(time.Time); ok {
			mt.JudgedAt = at.UTC().Format(time.RFC3339Nano)
		}
		mt.StrictSchemas, _ = g("strict_schemas").(bool)
		out = append(out, mt)
	}
	return out
}

// trustSummary is summary.md's line on the trust material the day's
// verdicts came from (the manifest lists it whole).
func trustSummary(ts []manifestTrust) string {
	describe := func(t manifestTrust) string {
		if t.TrustSHA256 == "" {
			return "unrecorded (loaded before provenance was kept)"
		}
		at := "the clock of the load"
		if t.JudgedAt != "" {
			at = t.JudgedAt
		}
		strict := ""
		if t.StrictSchemas {
			strict = ", strict schemas"
		}
		return fmt.Sprintf("`%s` (%d key file(s), %d schema file(s), judged at %s%s, verify %s)",
			t.TrustSHA256[:min(12, len(t.TrustSHA256))], len(t.KeyFiles), len(t.SchemaFiles), at, strict, mdText(t.ToolVersion))
	}
	switch len(ts) {
	case 0:
		return ""
	case 1:
		return "Verdicts from trust material " + describe(ts[0]) + "; its files and hashes are in manifest.json.\n\n"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = fmt.Sprintf("%s for %d receipt(s)", describe(t), t.Receipts)
	}
	return fmt.Sprintf("Verdicts from %d sets of trust material: %s; their files and hashes are in manifest.json.\n\n", len(ts), strings.Join(parts, "; "))
}

// hasTrust reports whether the database records trust material: one
// written before it did, opened without its schema brought up to date (read
// only), has no trust table to ask.
func hasTrust(ctx context.Context, q querier) (bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT count(*) FROM information_schema.columns
		WHERE (table_name = 'trust' AND column_name = 'trust_sha256') OR (table_name = 'receipts' AND column_name = 'trust_sha256')`)
	if err != nil {
		return false, &dberr.IOError{Op: "read schema", Err: err}
	}
	defer rows.Close()
	var n int
	if rows.Next() {
		err = rows.Scan(&n)
	}
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return false, &dberr.IOError{Op: "read schema", Err: err}
	}
	return n == 2, nil
}
