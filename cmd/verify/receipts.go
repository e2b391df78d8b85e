package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/receiptverify/verify/verify"
	"github.com/urfave/cli/v2"
)

func newReceiptsCommand() *cli.Command {
	return &cli.Command{
		Name:      "receipts",
		Usage:     "verify receipts: one file, JSON Lines streams, gzip, or whole directories",
		ArgsUsage: "PATH...",
		Description: "Each PATH is a .json file (one receipt), a .jsonl or .ndjson file (one receipt per line),\n" +
			"the same gzipped (.gz), a directory of them (walked in name order; it also reads *.log and\n" +
			"logrotate's names, X.jsonl.1, X.jsonl-20261102, gzipped or not; --include and --exclude for\n" +
			"others), or - for standard input. A path that cannot be read is named and the others are read.\n\n" +
			"Text output: one line per receipt that is not PASS, then a summary. JSON Lines output\n" +
			"(--format jsonl): one object per receipt, in input order (schemas/result.schema.json); the summary goes to stderr.\n\n" +
			"Exit codes: 0 all PASS, 1 any FAIL or unreadable line, 2 any INCOMPLETE and no FAIL,\n" +
			"64 usage, 66 an input, key or schema file could not be read, 74 the temporary spool\n" +
			"could not be written or stdout failed, 130 interrupted (SIGINT or SIGTERM).\n\n" +
			"The map step of a sharded run (--plan FILE --emit DIR --shard N, docs/scale-out.md): exit 0\n" +
			"the shard published (or already published by another attempt), 65 its inputs or trust\n" +
			"material differ from the plan's or DIR holds something else, 66 the plan or an input could\n" +
			"not be read, 74 DIR could not be written.",
		Flags: append(trustFlags(withPredecessor, schemasUsage),
			formatFlag("text", "jsonl"),
			&cli.IntFlag{Name: "workers", Usage: "verifying goroutines (0: one per core)"},
			&cli.StringFlag{Name: "emit", Usage: "the map step of a sharded run: write each receipt verified alone, its chain link and nonce as Parquet, published as `DIR` (new or empty) in one rename, for verify finalize; nothing on stdout"},
			&cli.Int64Flag{Name: "shard", Usage: "with --emit: the shard `N` of the plan this step maps (0, 1, ...)"},
			&cli.StringFlag{Name: "plan", Usage: "with --emit: the run plan `FILE` (verify plan); PATHs, trust flags and --at default to the plan's and must match it"},
			walkFlags()[0], walkFlags()[1],
		),
		Action: receiptsAction,
	}
}

func receiptsAction(ctx *cli.Context) error {
	stdout, stderr := ctx.App.Writer, ctx.App.ErrWriter
	if ctx.IsSet("emit") || ctx.IsSet("plan") {
		return emitAction(ctx)
	}
	if len(inputPaths(ctx)) == 0 {
		return usagef(ctx, "want at least one PATH")
	}
	output, err := formatOf(ctx, "text", "jsonl")
	if err != nil {
		return err
	}
	workers, err := workersFlag(ctx)
	if err != nil {
		return err
	}
	v, _, err := verifierFromFlags(ctx)
	if err != nil {
		return err
	}
	var sopts streamrun.Options
	sopts.Workers = workers
	if ctx.IsSet("shard") {
		return usagef(ctx, "--shard goes with --emit")
	}
	if p := ctx.String("predecessor"); p != "" {
		raw, err := readSmallFile(p)
		if err != nil {
			return err
		}
		sopts.Predecessors = [][]byte{raw}
	}
	// The handler goes in before anything is copied: a signal during the
	// copy of standard input removes it too.
	sigCtx := runContext(ctx)
	set, cleanup, err := expandInputs(sigCtx, inputPaths(ctx), ctx.App.Reader, stderr, walkOptionsFrom(ctx))
	srcs := set.srcs
	defer cleanup()
	if err != nil {
		return err
	}
	bar := newProgress(ctx, srcs)
	defer bar.done()
	defer onInterrupt(ctx, bar, "removing the temporary files (the output stops short)")()
	sopts.Progress = bar.update

	// JSON output is one object per receipt: buffer it, or every receipt
	// costs a write system call. Text output stays unbuffered so its lines
	// interleave properly with the progress line.
	jsonOut := bufio.NewWriterSize(stdout, 1<<16)
	if output == "jsonl" {
		sopts.Render = streamrun.RenderJSON // encoded on all cores
	} else {
		sopts.OmitSignatureHash = true // only the JSON output shows it
	}
	emit := resultEmitter(output, jsonOut, stdout, bar)
	phase(sigCtx, "verify")
	sum, err := streamrun.Run(sigCtx, v, srcs, sopts, emit)
	bar.done()
	if err != nil && sigCtx.Err() != nil {
		jsonOut.Flush()
		return &interruptedError{errors.New("receipts: interrupted; the output stops short and no summary was written")}
	}
	if err == nil {
		err = jsonOut.Flush()
	}
	if err != nil {
		return err
	}
	placeSummary(stdout, stderr, output, sum)
	return runOutcome(sum)
}

// placeSummary writes the run's summary to stdout after text results;
// after JSON Lines it is a diagnostic, on stderr, each line prefixed
// verify: as every stderr line is.
func placeSummary(stdout, stderr io.Writer, output string, sum streamrun.Summary) {
	if output != "jsonl" {
		writeSummary(stdout, sum)
		return
	}
	var b strings.Builder
	writeSummary(&b, sum)
	for l := range strings.Lines(b.String()) {
		io.WriteString(stderr, "verify: "+l)
	}
}

// runOutcome is the exit status of a run that summarized as sum.
func runOutcome(sum streamrun.Summary) error {
	switch {
	case sum.FilesFailed > 0:
		return &inputError{fmt.Errorf("%d input file(s) could not be read", sum.FilesFailed)}
	case sum.Fail > 0 || sum.Unreadable > 0:
		return &rejectedError{fmt.Errorf("%d receipt(s) failed, %d line(s) unreadable", sum.Fail, sum.Unreadable)}
	case sum.Incomplete > 0 && sum.Incomplete == sum.UnknownFormat:
		return &incompleteError{fmt.Errorf("%d receipt(s) of a format this tool does not read, not checked", sum.UnknownFormat)}
	case sum.Incomplete > 0:
		return &incompleteError{fmt.Errorf("%d receipt(s) could not be fully checked", sum.Incomplete)}
	}
	return nil
}

// resultEmitter writes each result as the output format wants: JSON
// Lines to jsonOut (its Rendered, or encoded here when not rendered), text
// lines for the receipts that are not PASS to stdout.
func resultEmitter(output string, jsonOut io.Writer, stdout io.Writer, bar *progressBar) func(*streamrun.Record) error {
	var buf []byte
	return func(r *streamrun.Record) error {
		if output == "jsonl" {
			if r.Rendered == nil {
				buf = streamrun.RenderJSON(buf[:0], r.Result)
				_, err := jsonOut.Write(buf)
				return err
			}
			_, err := jsonOut.Write(r.Rendered)
			return err
		}
		if r.Verdict == verify.Pass && r.Axes.Of(verify.AxisToolFingerprint).Status != verify.StatusFail {
			return nil
		}
		bar.clear()
		_, err := fmt.Fprintln(stdout, textLine(r.Result))
		return err
	}
}

// textLine is the one-line report of a receipt that is not PASS:
// FILE:LINE: VERDICT format: axis status reason (note); ... Notes and
// errors quote the receipt, so the line is escaped (termtext): whatever a
// receipt holds, it stays one line and writes nothing a terminal acts on.
func textLine(r *verify.Result) string {
	var b strings.Builder
	verdict := string(r.Verdict)
	if r.Verdict == verify.Pass {
		verdict = "PASS (tool finding)" // a genuine receipt for an unexpected tool
	}
	fmt.Fprintf(&b, "%s:%d: %s %s", r.Source, r.Line, verdict, r.Format)
	if r.Error != "" {
		b.WriteString(": " + r.Error)
		return termtext.Escape(b.String())
	}
	sep := ": "
	for _, name := range verify.AxisOrder() {
		ax, ok := r.Axes.Get(name)
		if !ok || (ax.Status != verify.StatusFail && ax.Status != verify.StatusSkipped) || name == verify.AxisExpiry {
			continue
		}
		if name == verify.AxisChain && ax.Status == verify.StatusSkipped {
			continue
		}
		fmt.Fprintf(&b, "%s%s %s %s", sep, name, strings.ToLower(string(ax.Status)), ax.Reason)
		if ax.Note != "" {
			fmt.Fprintf(&b, " (%s)", ax.Note)
		}
		sep = "; "
	}
	return termtext.Escape(b.String())
}

func writeSummary(w io.Writer, s streamrun.Summary) {
	fmt.Fprintf(w, "summary: %d lines read in %d files: %d receipts verified (%d pass, %d fail, %d incomplete), %d unreadable, %d blank",
		s.Lines, s.Files, s.Receipts, s.Pass, s.Fail, s.Incomplete, s.Unreadable, s.Blank)
	if s.FilesFailed > 0 {
		fmt.Fprintf(w, ", %d files unreadable", s.FilesFailed)
	}
	fmt.Fprintln(w)
	reasons := make([]string, 0, len(s.Reasons))
	for r := range s.Reasons {
		reasons = append(reasons, string(r))
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(w, "summary: %s: %d\n", r, s.Reasons[verify.Reason(r)])
	}
	if s.UnknownFormat > 0 {
		fmt.Fprintf(w, "summary: %d receipt(s) of a format this tool does not read (INCOMPLETE, unknown_format: not checked, not failed)\n", s.UnknownFormat)
	}
	if s.Duplicates > 0 {
		fmt.Fprintf(w, "summary: duplicates: %d (receipts delivered again, the same signed bytes: judged as their first delivery, not as replays)\n", s.Duplicates)
	}
	if s.ChainsOutside > 0 {
		fmt.Fprintf(w, "summary: chains starting before the input: %d (their first link not checked; give the predecessors with --predecessor, the earlier files, or the audit database)\n", s.ChainsOutside)
	}
}

// incompleteError is a run in which some receipt could not be fully
// checked and none failed: exit code 2.
type incompleteError struct{ err error }

func (e *incompleteError) Error() string { return e.err.Error() }
func (e *incompleteError) Unwrap() error { return e.err }
