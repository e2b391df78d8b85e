package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/queries"
	"github.com/urfave/cli/v2"
)

func newReportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "write the daily report of an audit database: findings as CSV and JSON Lines, a chart, summary.md, manifest.json",
		Description: "Runs the finding queries (" + strings.Join(queries.Findings(), ", ") + ") for one UTC day and writes\n" +
			"in DIR: NAME.csv and NAME.jsonl for each, fingerprints.svg (distinct fingerprints per tool per\n" +
			"day, up to the 28 days up to DAY), summary.md (read it first: it opens with the verdict),\n" +
			"summary.html (the same, one self-contained page) and manifest.json (versions, query\n" +
			"hashes, inputs, totals). Each file is written to a temporary name and renamed; the same day\n" +
			"of the same data gives the same bytes. stdout gets one line per finding type. The report\n" +
			"is recorded in the database (report_runs), so that a later load adding receipts to the day\n" +
			"names it as a late delivery; a database another process holds is left as it is, said on stderr.\n\n" +
			"--lake DIR reads a sharded run's tables instead: the folded shards under DIR (verify finalize\n" +
			"--shard N --emit DIR/shard-N --receipts), checked as verify summarize checks them (against\n" +
			"--plan FILE if given), opened in an in-memory database; the report is the one an audit database\n" +
			"of the same archive gives, byte for byte, and is not recorded anywhere (docs/scale-out.md).\n\n" +
			"Every finding row has a severity (high, medium, low, info; README, \"Severity\"). A\n" +
			"--baseline file accepts tool-schema findings until an expiry date: they are still listed,\n" +
			"as suppressed, and never fail the day; an expired entry is a warning.\n\n" +
			"Exit codes: 0 no finding row at --fail-on or above (0 with --no-fail), 1 some, 3 the day\n" +
			"has no receipt at all and no finding (a delivery that did not arrive; also with --no-fail),\n" +
			"64 usage or a bad baseline file, 65 (--lake) a folded shard not its run's or its manifest's,\n" +
			"66 the database, a folded shard or baseline file does not exist, 74 the database could not\n" +
			"be read or DIR written.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "db", Usage: "audit database `FILE`"},
			&cli.StringFlag{Name: "day", Usage: "UTC `DAY` to report (YYYY-MM-DD)"},
			&cli.StringFlag{Name: "out", Usage: "output `DIR` (created if missing)"},
			&cli.StringFlag{Name: "at", Usage: "judge the baseline's expiry dates at `TIME` (RFC 3339)", DefaultText: "now"},
			attestFlag(),
		}, slices.Concat(lakeFlags(), findingFlags(), dbLimitFlags())...),
		Action: reportAction,
	}
}

func reportAction(ctx *cli.Context) error {
	if ctx.NArg() != 0 {
		return usagef(ctx, "unexpected argument %q", ctx.Args().First())
	}
	if err := requireFlags(ctx, "day", "out"); err != nil {
		return err
	}
	day := ctx.String("day")
	if _, err := queries.ParseDay(day); err != nil {
		return usagef(ctx, "--day: %v", err)
	}
	now, err := atFlag(ctx)
	if err != nil {
		return err
	}
	opts, err := findingOptions(ctx, now)
	if err != nil {
		return err
	}
	signer, err := attestSigner(ctx)
	if err != nil {
		return err
	}
	opts.Day, opts.Dir = day, ctx.String("out")
	db, err := openSource(ctx)
	if err != nil {
		return err
	}
	phase(runContext(ctx), "report")
	sum, err := db.Report(runContext(ctx), opts)
	db.Close()
	if err != nil {
		return outputErr(err)
	}
	if ctx.String("lake") == "" {
		recordReportRun(ctx, opts)
	}
	var expired expiredNotes
	expired.add(sum)
	expired.write(ctx)
	if err := writeReportLines(ctx.App.Writer, sum); err != nil {
		return err
	}
	if signer != nil {
		path, err := writeAttestation(signer, opts.Dir, now, []*analytics.ReportSummary{sum})
		if err != nil {
			return err
		}
		fmt.Fprintf(ctx.App.Writer, "%s: attestation: %s\n", sum.Day, path)
	}
	if err := findingsErr([]*analytics.ReportSummary{sum}, ctx.Bool("no-fail")); err != nil || sum.Total() > 0 {
		return err
	}
	return emptyDayErr(sum)
}

// recordReportRun records the report in the database's report_runs, so
// that a load adding receipts to the day later names it as a late
// delivery. The report was written from the database opened read-only,
// beside other readers; recording needs it to itself for a moment. A
// database that cannot be written then (another process holds it, or the
// file or its directory is read-only) leaves the report as it is, said on
// stderr.
func recordReportRun(ctx *cli.Context, opts analytics.ReportOptions) {
	err := func() error {
		db, err := analytics.Open(ctx.String("db"))
		if err != nil {
			return err
		}
		defer db.Close()
		return db.RecordReport(runContext(ctx), opts)
	}()
	if err != nil {
		fmt.Fprintf(ctx.App.ErrWriter, "verify: %s: the report is written but not recorded in the database (%v): a later delivery to the day will not be named as late\n", opts.Day, err)
	}
}

// emptyDayErr is an *emptyError when the reported day has no receipt.
func emptyDayErr(sum *analytics.ReportSummary) error {
	if sum.Receipts.Receipts > 0 {
		return nil
	}
	return &emptyError{fmt.Errorf("%s: no receipts at all on the day: nothing to judge (exit 3)", sum.Day)}
}

// writeReportLines is report's stdout: the day's receipts, one line per
// finding type, one with the rows by severity, and where summary.md is.
func writeReportLines(w io.Writer, sum *analytics.ReportSummary) error {
	rc := sum.Receipts
	fmt.Fprintf(w, "%s: %d receipts (%d pass, %d fail, %d incomplete)\n", sum.Day, rc.Receipts, rc.Pass, rc.Fail, rc.Incomplete)
	if rc.UnknownFormat > 0 {
		fmt.Fprintf(w, "%s: %d receipt(s) of a format this tool does not read\n", sum.Day, rc.UnknownFormat)
	}
	below := sum.Total()
	for _, f := range sum.Findings {
		n := f.Severities.AtLeast(sum.FailOn)
		below -= n
		fmt.Fprintf(w, "%s: %s: %d\n", sum.Day, f.Name, n)
	}
	fmt.Fprintf(w, "%s: %s: %d\n", sum.Day, belowFailOn, below)
	fmt.Fprintf(w, "%s: severity: %s\n", sum.Day, severityLine(sum.Severities, sum.Suppressed))
	_, err := fmt.Fprintf(w, "%s: report: %s\n", sum.Day, filepath.Join(sum.Dir, analytics.SummaryFile))
	return err
}

// belowFailOn heads the count of finding rows that do not fail the day:
// below --fail-on, or suppressed by the baseline. The finding counts of
// stdout are the rest; the report files list every row.
const belowFailOn = "below --fail-on"

// severityLine is "2 high, 0 medium, 5 low, 30 info, 1 suppressed".
func severityLine(c severity.Count, suppressed int) string {
	var b strings.Builder
	for _, sev := range severity.All() {
		fmt.Fprintf(&b, "%d %s, ", c[sev], sev)
	}
	fmt.Fprintf(&b, "%d suppressed", suppressed)
	return b.String()
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
	var we *dberr.WriteError
	if errors.As(err, &we) {
		return &ioError{err}
	}
	return err
}
