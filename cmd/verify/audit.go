package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/receiptverify/verify/queries"
	"github.com/urfave/cli/v2"
)

func newAuditCommand() *cli.Command {
	return &cli.Command{
		Name:      "audit",
		Usage:     "verify and load receipts, then write the report of every UTC day in them",
		ArgsUsage: "PATH...",
		Description: "The main job in one command: verify load, then verify report for each UTC day that\n" +
			"holds receipts of the input (or --day only), into OUT/YYYY-MM-DD/. Loading is idempotent:\n" +
			"a file already in the database is not loaded again, and its days are reported again.\n" +
			"stdout gets a one-screen summary: the load, one line per day (past 20 days the clean days\n" +
			"folded into one line), the totals; OUT/index.md and index.html give the whole period.\n" +
			"stderr gets one line per file loaded, as verify load writes it (on a terminal only with -v).\n\n" +
			"Every finding row has a severity (README, \"Severity\"); --fail-on and --baseline work as in\n" +
			"verify report, the baseline's expiry judged at --at.\n\n" +
			"A day reported before that the load adds receipts to (a late delivery) is named on stdout\n" +
			"and reported again, its findings counted in the exit code.\n\n" +
			"Exit codes: 0 no finding row at --fail-on or above (0 with --no-fail), 1 some, 3 no\n" +
			"receipt at all in the input (or on --day), or no input file new or grown since the last\n" +
			"load, and no finding (also with --no-fail), 64 usage\n" +
			"or a bad baseline file, 66 an input, key, schema or baseline file could not be read (the\n" +
			"rest is loaded and reported),\n" +
			"74 the database could not be written or a report could not be written, 130 interrupted\n" +
			"(SIGINT or SIGTERM).",
		Flags: slices.Concat(trustFlags(noPredecessor, schemasLoadUsage), []cli.Flag{
			&cli.StringFlag{Name: "db", Value: "verify-audit.duckdb", Usage: "audit database `FILE` (created if missing)"},
			&cli.StringFlag{Name: "day", Usage: "report only this UTC `DAY` (YYYY-MM-DD)", DefaultText: "every day in the input"},
			&cli.StringFlag{Name: "out", Value: "report", Usage: "reports go to `DIR`/YYYY-MM-DD/"},
			&cli.IntFlag{Name: "workers", Usage: "verifying goroutines (0: one per core)"},
			reverifyFlag(),
			storeRawFlag(),
			attestFlag(),
		}, walkFlags(), findingFlags(), dbLimitFlags(), []cli.Flag{verboseFlag()}),
		Action: auditAction,
	}
}

func auditAction(ctx *cli.Context) error {
	stdout := ctx.App.Writer
	if len(inputPaths(ctx)) == 0 {
		return usagef(ctx, "want at least one PATH")
	}
	day := ctx.String("day")
	if day != "" {
		if _, err := queries.ParseDay(day); err != nil {
			return usagef(ctx, "--day: %v", err)
		}
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
	dbPath := ctx.String("db")
	created := dbMissing(dbPath)
	db, err := openDB(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	lsum, err := verifyAndLoad(ctx, db, "audit")
	if err != nil {
		removeUnfinishedDB(db, dbPath, created, err)
		return err // an interrupted load writes no report
	}
	bg := runContext(ctx)

	days := []string{day}
	if day == "" {
		if days, err = inputDays(bg, db, lsum); err != nil {
			return err
		}
	}
	// A day reported before that the load added receipts to is reported
	// again, its findings counted in tonight's exit code.
	late, err := db.LateDays(bg, lsum)
	if err != nil {
		return err
	}
	asked := slices.Clone(days)
	for _, l := range late {
		days = append(days, l.Day)
	}
	// So is a day whose stored verdicts the load revised.
	for _, r := range lsum.Revised {
		days = append(days, r.Day)
	}
	slices.Sort(days)
	days = slices.Compact(days)
	opts.NotRead = lsum.Skipped
	out := ctx.String("out")
	var reports []*analytics.ReportSummary
	var expired expiredNotes
	bar := newProgress(ctx, nil)
	defer bar.done()
	if len(days) > 1 {
		bar.setPhase(fmt.Sprintf("finding queries over %d days", len(days)))
	}
	phase(bg, "queries")
	if opts.Shared, err = db.ShareFindings(bg, days, opts.Gaps); err != nil {
		return outputErr(err)
	}
	defer opts.Shared.Close()
	for i, d := range days {
		bar.setPhase(fmt.Sprintf("reporting day %d of %d (%s)", i+1, len(days), d))
		opts.Day, opts.Dir = d, filepath.Join(out, d)
		phase(bg, "report")
		sum, err := db.Report(bg, opts)
		if err != nil {
			return outputErr(err)
		}
		expired.add(sum)
		reports = append(reports, sum)
	}
	bar.done()
	expired.write(ctx)
	index, err := analytics.WriteIndex(out, reports)
	if err != nil {
		return outputErr(err)
	}
	if err := writeAuditSummary(stdout, dbPath, lsum, reports); err != nil {
		return err
	}
	if len(index) > 0 {
		fmt.Fprintf(stdout, "index: %s\n", filepath.Join(out, analytics.IndexFile))
	}
	if err := writeLoadNotes(stdout, dbPath, out, lsum, late); err != nil {
		return err
	}
	if signer != nil && len(reports) > 0 {
		var extra []string
		for _, name := range index {
			extra = append(extra, filepath.Join(out, name))
		}
		path, err := writeAttestation(signer, out, now, reports, extra...)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "attestation: %s\n", path)
	}
	if n := lsum.Unreadable(); n > 0 {
		return failedInputs(lsum, fmt.Sprintf("%d input file(s) could not be read or have changed, nothing of them recorded; the others are loaded and reported", n))
	}
	total := 0
	for _, r := range reports {
		total += r.Total()
	}
	if err := findingsErr(reports, ctx.Bool("no-fail")); err != nil || total > 0 {
		return err
	}
	if lsum.NewFiles() == 0 {
		return &emptyError{errors.New(noNewBytes + " (exit 3)")}
	}
	var receipts int64
	for _, r := range reports {
		if slices.Contains(asked, r.Day) {
			receipts += r.Receipts.Receipts
		}
	}
	if receipts == 0 {
		where := "in the input"
		if day != "" {
			where = "on " + day
		}
		return &emptyError{fmt.Errorf("no receipts at all %s: nothing to judge (exit 3)", where)}
	}
	return nil
}

// inputDays are the UTC days of the files of a load (those loaded before
// included), in order: the days of the database (days.sql) whose files
// (files.sql) include one of them, the days of the stored receipts an
// input re-delivered, and the load day of an input file with no receipt
// at all and not wholly re-delivered, whose rejected lines are reported
// on that day.
func inputDays(ctx context.Context, db *analytics.DB, lsum analytics.LoadSummary) ([]string, error) {
	want := map[string]bool{}
	for _, f := range lsum.Files {
		if f.Err == nil {
			for _, sha := range f.Holds {
				want[sha] = true
			}
		}
	}
	days, err := db.RedeliveredDays(ctx, lsum)
	if err != nil {
		return nil, err
	}
	loaded, err := db.RunQuery(ctx, "files", "")
	if err != nil {
		return nil, err
	}
	for _, r := range loaded.Rows {
		accepted, _ := r[loaded.Col("accepted")].(int64)
		rejected, _ := r[loaded.Col("rejected")].(int64)
		redelivered, _ := r[loaded.Col("redelivered")].(int64)
		if want[table.Text(r[loaded.Col("file_sha256")])] && accepted == 0 && (rejected > 0 || redelivered == 0) {
			if t, ok := r[loaded.Col("loaded_at")].(time.Time); ok {
				days = append(days, t.UTC().Format(time.DateOnly))
			}
		}
	}
	all, err := db.RunQuery(ctx, "days", "")
	if err != nil {
		return nil, err
	}
	for _, r := range all.Rows {
		d := table.Text(r[all.Col("day")])
		files, err := db.RunQuery(ctx, "files", d)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(files.Rows, func(r []any) bool { return want[table.Text(r[files.Col("file_sha256")])] }) {
			days = append(days, d)
		}
	}
	slices.Sort(days)
	return slices.Compact(days), nil
}

// writeLoadNotes ends audit's stdout with what a nightly job must not
// miss, -q or not: the files the input directories held and the run did
// not read, the last lines left for the next run, and the days the load
// added receipts to that an earlier run has reported (a late delivery),
// and those whose stored verdicts the load revised, which this run
// reports again.
func writeLoadNotes(w io.Writer, dbPath, out string, lsum analytics.LoadSummary, late []analytics.LateDay) error {
	if n := len(lsum.Skipped); n > 0 {
		fmt.Fprintf(w, "not read: %d file(s) in the input directories (%s; --include GLOB reads others): %s\n",
			n, receiptNamesHelp, termtext.Escape(strings.Join(lsum.Skipped, ", ")))
	}
	for _, f := range lsum.Files {
		if f.Incomplete {
			fmt.Fprintf(w, "left for the next run: %s: its last line has no newline yet (still being written)\n", termtext.Escape(f.Path))
		}
	}
	for _, f := range lsum.Files {
		if f.Redelivered > 0 {
			fmt.Fprintf(w, "re-delivered: %s: %d line(s) stored already from another file: not stored again, not judged replays\n", termtext.Escape(f.Path), f.Redelivered)
		}
	}
	for _, l := range late {
		fmt.Fprintf(w, "late delivery: %s, reported at %s; reported again: %s\n",
			lateAdded(l), l.ReportedAt.UTC().Format(time.RFC3339), termtext.Escape(filepath.Join(out, l.Day, analytics.SummaryFile)))
	}
	for _, r := range lsum.Revised {
		fmt.Fprintf(w, "%s; reported again: %s\n", revisedLine(r), termtext.Escape(filepath.Join(out, r.Day, analytics.SummaryFile)))
	}
	// Said whatever the exit code: a night's findings (a silent source)
	// decide it before a missing delivery does.
	if lsum.NewFiles() == 0 {
		fmt.Fprintln(w, noNewBytes)
	}
	return nil
}

// noNewBytes says that a run loaded nothing new: a delivery is missing.
const noNewBytes = "no new bytes: no input file is new or has grown since the last load: the delivery is missing"

// lateAdded is what a late delivery added: "3 receipt(s) added to
// 2026-11-01 (1 not PASS)".
func lateAdded(l analytics.LateDay) string {
	s := fmt.Sprintf("%d receipt(s) added to %s", l.Added, l.Day)
	if l.NotPass > 0 {
		s += fmt.Sprintf(" (%d not PASS)", l.NotPass)
	}
	return s
}

// shellQuote quotes s for a shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// screenDays is how many day lines audit's stdout table holds at most,
// so that it stays one screen for any period; index.md lists every day.
const screenDays = 20

// screenful splits reports into the days stdout lists one by one and the
// days it folds: every day when they fit in screenDays lines; otherwise
// the clean days (no finding row) fold into one line, and past the days
// with the most rows that fail, the other days with findings into
// another. Each list keeps day order.
func screenful(reports []*analytics.ReportSummary) (shown, clean, more []*analytics.ReportSummary) {
	if len(reports) <= screenDays {
		return reports, nil, nil
	}
	for _, r := range reports {
		if r.Total() == 0 {
			clean = append(clean, r)
		} else {
			shown = append(shown, r)
		}
	}
	if len(shown) <= screenDays-2 {
		return shown, clean, nil
	}
	worst := slices.Clone(shown)
	slices.SortStableFunc(worst, func(a, b *analytics.ReportSummary) int {
		return cmp.Or(cmp.Compare(b.Failing(), a.Failing()), cmp.Compare(b.Total(), a.Total()))
	})
	keep := map[string]bool{}
	for _, r := range worst[:screenDays-2] {
		keep[r.Day] = true
	}
	var kept []*analytics.ReportSummary
	for _, r := range shown {
		if keep[r.Day] {
			kept = append(kept, r)
		} else {
			more = append(more, r)
		}
	}
	return kept, clean, more
}

// writeAuditSummary is audit's stdout: the load, a table of days, totals.
func writeAuditSummary(w io.Writer, dbPath string, lsum analytics.LoadSummary, reports []*analytics.ReportSummary) error {
	var loaded, already, failed int
	for _, f := range lsum.Files {
		switch {
		case f.Err != nil:
			failed++
		case f.AlreadyLoaded:
			already++
		default:
			loaded++
		}
	}
	vs := lsum.Verify
	fmt.Fprintf(w, "loaded %d file(s) into %s (%d already loaded, %d unreadable): %d receipts (%d pass, %d fail, %d incomplete), %d unreadable line(s)\n",
		loaded, dbPath, already, failed, vs.Receipts, vs.Pass, vs.Fail, vs.Incomplete, vs.Unreadable)
	if vs.UnknownFormat > 0 {
		fmt.Fprintf(w, "%d receipt(s) of a format this tool does not read (incomplete, not checked; a medium finding)\n", vs.UnknownFormat)
	}
	if len(reports) == 0 {
		_, err := fmt.Fprintln(w, "no receipts in the input: no report written")
		return err
	}
	fmt.Fprintln(w)
	// Each finding column counts the rows that fail the day (at --fail-on
	// or above, not suppressed), so a clean day reads clean; the rest are
	// one column.
	head := append(append([]string{"day", "receipts"}, queries.Findings()...), belowFailOn)
	table := [][]string{head}
	totals := make([]int64, len(head)-1)
	with := 0
	for _, r := range reports {
		if r.Total() > 0 {
			with++
		}
	}
	// counts are a group of days' cells after the label, added to totals.
	counts := func(group []*analytics.ReportSummary) []string {
		sums := make([]int64, len(head)-1)
		for _, r := range group {
			sums[0] += r.Receipts.Receipts
			below := r.Total()
			for i, f := range r.Findings {
				n := f.Severities.AtLeast(r.FailOn)
				below -= n
				sums[i+1] += int64(n)
			}
			sums[len(sums)-1] += int64(below)
		}
		var cells []string
		for i, n := range sums {
			totals[i] += n
			cells = append(cells, fmt.Sprint(n))
		}
		return cells
	}
	shown, clean, more := screenful(reports)
	for _, r := range shown {
		table = append(table, append([]string{r.Day}, counts([]*analytics.ReportSummary{r})...))
	}
	if len(clean) > 0 {
		table = append(table, append([]string{fmt.Sprintf("%d clean day(s)", len(clean))}, counts(clean)...))
	}
	if len(more) > 0 {
		table = append(table, append([]string{fmt.Sprintf("%d more day(s)", len(more))}, counts(more)...))
	}
	cells := []string{"total"}
	for _, n := range totals {
		cells = append(cells, fmt.Sprint(n))
	}
	table = append(table, cells)
	// The day column left-aligned, the counts right-aligned under their names.
	widths := make([]int, len(head))
	for _, row := range table {
		for i, c := range row {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, row := range table {
		var b strings.Builder
		for i, c := range row {
			if i == 0 {
				fmt.Fprintf(&b, "%-*s", widths[i], c)
			} else {
				fmt.Fprintf(&b, "  %*s", widths[i], c)
			}
		}
		fmt.Fprintln(w, b.String())
	}
	var sev severity.Count
	suppressed, failing := 0, 0
	for _, r := range reports {
		for i, n := range r.Severities {
			sev[i] += n
		}
		suppressed += r.Suppressed
		if r.Failing() > 0 {
			failing++
		}
	}
	fmt.Fprintf(w, "\nby severity: %s\n", severityLine(sev, suppressed))
	fmt.Fprintf(w, "findings on %d of %d day(s), at --fail-on %s or above on %d; reports: %s/YYYY-MM-DD/summary.md\n",
		with, len(reports), reports[0].FailOn, failing, filepath.Dir(reports[0].Dir))
	if len(reports) == 1 {
		fmt.Fprintf(w, "report: %s\n", filepath.Join(reports[0].Dir, analytics.SummaryFile))
	}
	return nil
}
