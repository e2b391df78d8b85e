package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/receiptverify/verify/internal/analytics/baseline"
	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/receiptverify/verify/queries"
	"github.com/urfave/cli/v2"
)

// queryExports is what verify query does to a finding query's rows so
// that an export says what the report says: the baseline's suppressions
// and a severity floor.
type queryExports struct {
	baseline    *baseline.Baseline
	now         time.Time
	minSeverity severity.Severity
	filter      bool
	failOn      severity.Severity // OCSF is_alert
}

// exportOptionsOf reads --baseline, --at and --min-severity. They apply
// to finding queries only, and the other queries ignore them: a
// verify.toml that sets baseline for the nightly audit must not break
// verify query days.
func exportOptionsOf(ctx *cli.Context, name string) (*queryExports, error) {
	q := &queryExports{failOn: severity.DefaultFailOn}
	if !slices.Contains(queries.Findings(), name) {
		return q, nil
	}
	var err error
	if s := ctx.String("min-severity"); s != "" {
		if q.minSeverity, err = severity.Parse(s); err != nil {
			return nil, usagef(ctx, "--min-severity: %v", err)
		}
		q.filter = true
	}
	if ctx.String("baseline") != "" {
		if q.now, err = atFlag(ctx); err != nil {
			return nil, err
		}
		if q.baseline, err = baselineFlag(ctx); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// apply marks and filters t's rows; an expired entry is said on stderr.
func (q *queryExports) apply(ctx *cli.Context, t *table.Table) error {
	if q.baseline != nil {
		sup, err := q.baseline.ApplyTo(t, q.now)
		if err != nil {
			return usagef(ctx, "%v", err)
		}
		for _, e := range sup {
			if e.Expired {
				exp, _ := e.Entry.Expires.MarshalTOML()
				fmt.Fprintf(ctx.App.ErrWriter, "verify: baseline: entry %d (%s) expired on %s; its findings count again\n", e.Index, termtext.Escape(e.Entry.String()), exp)
			}
		}
	}
	if q.filter {
		if err := t.KeepAtLeast(q.minSeverity); err != nil {
			return usagef(ctx, "%v", err)
		}
	}
	return nil
}
