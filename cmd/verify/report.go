package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/receiptverify/verify/analytics"
	"github.com/urfave/cli/v2"
)

func newReportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "write the daily report of an audit database: findings as CSV and JSON Lines, a chart, summary.md, manifest.json",
		Description: "Runs the finding queries (" + strings.Join(analytics.Findings, ", ") + ") for one UTC day and writes\n" +
			"in DIR: NAME.csv and NAME.jsonl for each, fingerprints.svg (distinct fingerprints per tool per\n" +
			"day, the 28 days up to DAY), summary.md (read it first) and manifest.json (versions, query\n" +
			"hashes, inputs, totals). Each file is written to a temporary name and renamed; the same day\n" +
			"of the same data gives the same bytes. stdout gets one line per finding type.\n\n" +
			"Exit codes: 0 the day is clean, 1 it has findings (0 with --no-fail), 3 the day has no\n" +
			"receipt at all and no finding (a delivery that did not arrive; also with --no-fail), 64 usage,\n" +
			"66 the database file does not exist, 74 the database could not be read or DIR written.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "db", Usage: "audit database `FILE`"},
			&cli.StringFlag{Name: "day", Usage: "UTC `DAY` to report (YYYY-MM-DD)"},
			&cli.StringFlag{Name: "out", Usage: "output `DIR` (created if missing)"},
			&cli.BoolFlag{Name: "no-fail", Usage: "exit 0 even when the day has findings"},
		},
		Action: reportAction,
	}
}

func reportAction(ctx *cli.Context) error {
	if ctx.NArg() != 0 {
		return usagef(ctx, "unexpected argument %q", ctx.Args().First())
	}
	if err := requireFlags(ctx, "db", "day", "out"); err != nil {
		return err
	}
	day := ctx.String("day")
	if _, err := analytics.ParseDay(day); err != nil {
		return usagef(ctx, "--day: %v", err)
	}
	db, err := openExistingDB(ctx.String("db"))
	if err != nil {
		return err
	}
	defer db.Close()
	sum, err := analytics.Report(context.Background(), db.SQL(), analytics.ReportOptions{Day: day, Dir: ctx.String("out"), ToolVersion: version()})
	if err != nil {
		return outputErr(err)
	}
	if err := writeReportLines(ctx.App.Writer, sum); err != nil {
		return err
	}
	if err := findingsErr(sum.Total(), 1, ctx.Bool("no-fail")); err != nil || sum.Total() > 0 {
		return err
	}
	return emptyDayErr(sum)
}

// emptyDayErr is an *emptyError when the reported day has no receipt.
func emptyDayErr(sum *analytics.ReportSummary) error {
	if sum.Receipts.Receipts > 0 {
		return nil
	}
	return &emptyError{fmt.Errorf("%s: no receipts at all on the day: nothing to judge (exit 3)", sum.Day)}
}

// writeReportLines is report's stdout: the day's receipts, one line per
// finding type, and where summary.md is.
func writeReportLines(w io.Writer, sum *analytics.ReportSummary) error {
	rc := sum.Receipts
	fmt.Fprintf(w, "%s: %d receipts (%d pass, %d fail, %d incomplete)\n", sum.Day, rc.Receipts, rc.Pass, rc.Fail, rc.Incomplete)
	for _, f := range sum.Findings {
		fmt.Fprintf(w, "%s: %s: %d\n", sum.Day, f.Name, f.Rows)
	}
	_, err := fmt.Fprintf(w, "%s: report: %s\n", sum.Day, filepath.Join(sum.Dir, analytics.SummaryFile))
	return err
}

// findingsErr is the exit status of reports with total findings over
// days: a rejectedError (exit 1) unless there are none or noFail.
func findingsErr(total, days int, noFail bool) error {
	if total == 0 || noFail {
		return nil
	}
	return &rejectedError{fmt.Errorf("%d finding(s) on %d day(s)", total, days)}
}

// requireFlags is a usage error naming the first of names not given
// (urfave/cli's own Required check is not a usage error).
func requireFlags(ctx *cli.Context, names ...string) error {
	for _, n := range names {
		if ctx.String(n) == "" {
			return usagef(ctx, "--%s is required", n)
		}
	}
	return nil
}

// outputErr makes a report or export file that could not be written an
// ioError (exit code 74); other errors pass through.
func outputErr(err error) error {
	var we *analytics.WriteError
	if errors.As(err, &we) {
		return &ioError{err}
	}
	return err
}
