package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/baseline"
	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/receiptverify/verify/queries"
	"github.com/urfave/cli/v2"
)

// findingFlags are the flags report and audit share: what fails a day, and
// what is accepted.
func findingFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "fail-on", Value: severity.DefaultFailOn.String(), Usage: "exit 1 when a finding row not suppressed is at `SEVERITY` or above (high, medium, low, info)"},
		&cli.StringFlag{Name: "baseline", Usage: "accepted tool-schema findings: TOML `FILE` of [[suppress]] entries (verify baseline writes one)"},
		&cli.StringFlag{Name: "format", Usage: "also write the findings for a SIEM or CI: `LIST` of ocsf (findings.ocsf.jsonl, OCSF Detection Findings), ecs (findings.ecs.jsonl, Elastic Common Schema), sarif (findings.sarif, SARIF 2.1.0), comma-separated", DefaultText: "CSV and JSON Lines only"},
		&cli.BoolFlag{Name: "no-fail", Usage: "exit 0 whatever the findings"},
		gapWindowFlag(), thinFractionFlag(),
	}
}

// gapWindowFlag and thinFractionFlag set the thresholds of the gaps
// finding: a source is judged against the median of its daily volumes
// over the days before.
func gapWindowFlag() cli.Flag {
	return &cli.IntFlag{Name: "gap-window", Value: queries.DefaultGapSettings().WindowDays, Usage: "gaps: judge a source's day against the median of its daily receipts over the `DAYS` before"}
}

func thinFractionFlag() cli.Flag {
	return &cli.Float64Flag{Name: "thin-fraction", Value: queries.DefaultGapSettings().ThinFraction, Usage: "gaps: a source's day under `FRACTION` of that median is thin (medium); nothing at all is silent (high)"}
}

// gapSettings reads --gap-window and --thin-fraction.
func gapSettings(ctx *cli.Context) (queries.GapSettings, error) {
	g := queries.GapSettings{WindowDays: ctx.Int("gap-window"), ThinFraction: ctx.Float64("thin-fraction")}
	if err := g.Check(); err != nil {
		return g, usagef(ctx, "%v", err)
	}
	return g, nil
}

// findingOptions reads the flags of findingFlags into report options
// (Day and Dir left to the caller), the baseline's expiry judged at now.
func findingOptions(ctx *cli.Context, now time.Time) (analytics.ReportOptions, error) {
	opts := analytics.ReportOptions{ToolVersion: version(), Now: now,
		Run: fmt.Sprintf("verify %s %s pid %d", ctx.Command.Name, time.Now().UTC().Format(time.RFC3339), os.Getpid())}
	var err error
	if opts.Gaps, err = gapSettings(ctx); err != nil {
		return opts, err
	}
	if opts.FailOn, err = severity.Parse(ctx.String("fail-on")); err != nil {
		return opts, usagef(ctx, "--fail-on: %v", err)
	}
	for f := range strings.SplitSeq(ctx.String("format"), ",") {
		switch strings.TrimSpace(f) {
		case "", "jsonl", "csv":
		case "ocsf":
			opts.OCSF = true
		case "ecs":
			opts.ECS = true
		case "sarif":
			opts.SARIF = true
		default:
			return opts, usagef(ctx, "--format: want ocsf, ecs or sarif (comma-separated), not %q", f)
		}
	}
	opts.Baseline, err = baselineFlag(ctx)
	return opts, err
}

// baselineFlag reads --baseline: nil without it; a file that cannot be
// read, or is over its bound, is an input error (66), a bad one a usage
// error (64). A FIFO with no writer blocks the read: a signal ends the wait.
func baselineFlag(ctx *cli.Context) (*baseline.Baseline, error) {
	path := ctx.String("baseline")
	if path == "" {
		return nil, nil
	}
	b, err := whileBlocked(runContext(ctx), path, func() (*baseline.Baseline, error) { return baseline.Read(path) }, func(*baseline.Baseline) {})
	var interrupted *interruptedError
	if errors.As(err, &interrupted) {
		return nil, err
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, baseline.ErrTooLarge) {
			return nil, &inputError{err}
		}
		return nil, usagef(ctx, "%v", err)
	}
	return b, nil
}

// atFlag is --at as an instant, now without it.
func atFlag(ctx *cli.Context) (time.Time, error) {
	s := ctx.String("at")
	if s == "" {
		return time.Now().UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, usagef(ctx, "--at: %v", err)
	}
	return t.UTC(), nil
}

// expiredNotes collect the baseline entries found expired by a command's
// reports, to say so on stderr once each: a line per entry, or, under
// -q, which silences warnings, still one line for them all, as an expired
// entry turns accepted findings into failing ones.
type expiredNotes struct {
	seen  map[int]bool
	lines []string
}

// add notes the entries sum found expired.
func (n *expiredNotes) add(sum *analytics.ReportSummary) {
	if n.seen == nil {
		n.seen = map[int]bool{}
	}
	for _, e := range sum.Expired() {
		if n.seen[e.Index] {
			continue
		}
		n.seen[e.Index] = true
		exp, _ := e.Entry.Expires.MarshalTOML()
		n.lines = append(n.lines, fmt.Sprintf("entry %d (%s) expired on %s", e.Index, termtext.Escape(e.Entry.String()), exp))
	}
}

// write says what was noted.
func (n *expiredNotes) write(ctx *cli.Context) {
	if len(n.lines) == 0 {
		return
	}
	if !ctx.Bool("quiet") {
		for _, l := range n.lines {
			fmt.Fprintf(ctx.App.ErrWriter, "verify: baseline: %s; its findings count again\n", l)
		}
		return
	}
	w := ctx.App.ErrWriter
	if s, ok := ctx.App.Metadata["stderr"].(io.Writer); ok {
		w = s
	}
	fmt.Fprintf(w, "verify: baseline: %d entr(ies) expired, their findings count again: %s\n", len(n.lines), strings.Join(n.lines, "; "))
}

// findingsErr is the exit status of reports: a rejectedError (exit 1)
// when rows not suppressed are at --fail-on or above, unless noFail.
func findingsErr(reports []*analytics.ReportSummary, noFail bool) error {
	failing, days := 0, 0
	for _, r := range reports {
		if n := r.Failing(); n > 0 {
			failing += n
			days++
		}
	}
	if failing == 0 || noFail {
		return nil
	}
	return &rejectedError{fmt.Errorf("%d finding(s) at --fail-on %s or above on %d day(s)", failing, reports[0].FailOn, days)}
}
