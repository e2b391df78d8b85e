package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/rawpolicy"
	"github.com/receiptverify/verify/internal/analytics/tempspool"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/receiptverify/verify/verify/stream"
	"github.com/urfave/cli/v2"
)

func newLoadCommand() *cli.Command {
	return &cli.Command{
		Name:      "load",
		Usage:     "verify receipts and load them into a DuckDB audit database",
		ArgsUsage: "PATH...",
		Description: "Verifies each PATH as `verify receipts` does (same kinds of files, same verdicts) and\n" +
			"loads one row per receipt into --db: its normalized fields, verdict, reason codes and the\n" +
			"line exactly as read. Unreadable lines go to the rejects table. A file is known by the\n" +
			"SHA-256 of its content (decompressed): content already loaded, under any name, is\n" +
			"skipped, so loading twice adds nothing; a JSON Lines file that has grown since it was\n" +
			"loaded adds only its new lines; a file whose loaded part has changed is refused.\n" +
			"Chains and nonces are judged against everything in the database. Each file is loaded\n" +
			"in one transaction: an interrupted load leaves no part of it, and running it again\n" +
			"resumes it. Each load records its trust material (the SHA-256 of every key and schema\n" +
			"file, --at, --strict-schemas, the tool version); a known file met with other material\n" +
			"is left as it is, with a warning, unless --reverify is given.\n\n" +
			"stderr gets one line per file (on a terminal, where a progress line tells the whole run,\n" +
			"only with -v or when the file has a problem): \"verify: load: FILE: N accepted, M rejected\",\n" +
			"\"verify: load: FILE: already loaded\" or \"lines N on\" for a grown file. A line stored already from\n" +
			"another file (a batch delivered again) is counted as re-delivered, not stored twice and not\n" +
			"judged a replay. A receipt that fails verification is loaded\n" +
			"(with its verdict); the exit code says whether the load worked, not whether receipts passed.\n\n" +
			"Exit codes: 0 loaded, 64 usage, 66 an input, key or schema file could not be read, or an\n" +
			"input's already-loaded part has changed (a PATH that does not exist or cannot be read, a\n" +
			"file that fails while read or was changed: it is named and not recorded, and the others\n" +
			"are loaded), 74 the database could not be opened or written,\n" +
			"130 interrupted (SIGINT or SIGTERM; the file being loaded is rolled back).",
		Flags: append(append(trustFlags(noPredecessor, schemasLoadUsage),
			&cli.StringFlag{Name: "db", Usage: "audit database `FILE` (created if missing)"},
			&cli.IntFlag{Name: "workers", Usage: "verifying goroutines (0: one per core)"},
			reverifyFlag(),
			storeRawFlag(),
			verboseFlag(),
		), append(walkFlags(), dbLimitFlags()...)...),
		Action: loadAction,
	}
}

func loadAction(ctx *cli.Context) error {
	if len(inputPaths(ctx)) == 0 {
		return usagef(ctx, "want at least one PATH")
	}
	if ctx.String("db") == "" {
		return usagef(ctx, "--db FILE is required")
	}
	created := dbMissing(ctx.String("db"))
	db, err := openDB(ctx, ctx.String("db"))
	if err != nil {
		return err
	}
	defer db.Close()
	sum, err := verifyAndLoad(ctx, db, "load")
	if err != nil {
		removeUnfinishedDB(db, ctx.String("db"), created, err)
		return err
	}
	late, err := db.LateDays(context.Background(), sum)
	if err != nil {
		return err
	}
	for _, l := range late {
		fmt.Fprintf(ctx.App.Writer, "late delivery: %s, reported at %s; report it again: verify report --db %s --day %s --out DIR\n",
			lateAdded(l), l.ReportedAt.UTC().Format(time.RFC3339), shellQuote(ctx.String("db")), l.Day)
	}
	for _, r := range sum.Revised {
		fmt.Fprintf(ctx.App.Writer, "%s; report it again: verify report --db %s --day %s --out DIR\n",
			revisedLine(r), shellQuote(ctx.String("db")), r.Day)
	}
	if n := sum.Unreadable(); n > 0 {
		return failedInputs(sum, fmt.Sprintf("load: %d input file(s) could not be read or have changed, nothing of them recorded", n))
	}
	return nil
}

// revisedLine names a day whose stored verdicts a load revised: "revised:
// 2026-11-01 (2 receipt(s))".
func revisedLine(r analytics.RevisedDay) string {
	return fmt.Sprintf("revised: %s (%d receipt(s))", r.Day, r.Receipts)
}

// reverifyFlag is --reverify, for load and audit. It and storeRawFlag are
// made anew for each command: a command writes its flags as it parses
// them, and the tests run commands in parallel.
func reverifyFlag() cli.Flag {
	return &cli.BoolFlag{Name: "reverify", Usage: "verify the stored receipts of inputs already loaded with other trust material again, with this material"}
}

// storeRawFlag is --store-raw, for load and audit.
func storeRawFlag() cli.Flag {
	return &cli.StringFlag{Name: "store-raw", Value: "flagged",
		Usage: "which receipts' lines the database stores: `flagged` (not PASS, or sharing an action_id, nonce or signature with another: the rows reports flag) or all (a database that needs no archive); the others are read from their archive file by offset and SHA-256 (verify show)"}
}

// failedInputs is the error that ends a load with inputs that failed: the
// head line, then each such input's own line (as fileLine writes it), so
// that they are named even under -q, which silences the per-file lines.
func failedInputs(sum analytics.LoadSummary, head string) error {
	lines := []string{head}
	for _, f := range sum.Files {
		if f.Err != nil {
			lines = append(lines, strings.TrimPrefix(fileOutcome(f), "verify: "))
		}
	}
	return &inputError{errors.New(strings.Join(lines, "\n"))}
}

// fileLine is the per-file line on stderr.
func fileLine(f analytics.FileSummary) string {
	line := fileOutcome(f)
	if f.Duplicates > 0 {
		line += fmt.Sprintf("; %d receipt(s) delivered again, judged as their first delivery", f.Duplicates)
	}
	if f.ChainsOutside > 0 {
		line += fmt.Sprintf("; %d chain(s) starting before what is loaded, their first link not checked (load the earlier files first)", f.ChainsOutside)
	}
	if f.Redelivered > 0 {
		line += fmt.Sprintf("; %d re-delivered: their lines are stored already from another file, not stored again", f.Redelivered)
	}
	if f.Incomplete {
		line += "; its last line has no newline and cannot be read (still being written?): left for a later load"
	}
	return line
}

func fileOutcome(f analytics.FileSummary) string {
	var changed *dberr.ChangedError
	var rewritten *dberr.InputChangedError
	switch {
	case errors.As(f.Err, &changed):
		return fmt.Sprintf("verify: load: %s: refused, not loaded: %v", f.Path, f.Err)
	case errors.As(f.Err, &rewritten):
		return fmt.Sprintf("verify: load: %s: not loaded: %v", f.Path, f.Err)
	case f.Err != nil:
		return fmt.Sprintf("verify: load: %s: unreadable, not loaded: %v", f.Path, f.Err)
	case f.AlreadyLoaded && f.Reverified:
		return fmt.Sprintf("verify: load: %s: already loaded; its stored receipts verified again with this trust material", f.Path)
	case f.AlreadyLoaded && f.TrustChanged:
		return fmt.Sprintf("verify: load: warning: %s: already loaded, but its stored verdicts came from other key or schema files (SHA-256) or --strict-schemas; give --reverify to verify its stored receipts again with this material", f.Path)
	case f.AlreadyLoaded:
		return fmt.Sprintf("verify: load: %s: already loaded", f.Path)
	case f.FirstLine > 1:
		line := fmt.Sprintf("verify: load: %s: grown since loaded: lines %d on: %d accepted, %d rejected", f.Path, f.FirstLine, f.Accepted, f.Rejected)
		switch {
		case f.Reverified:
			line += "; the lines stored before verified again with this trust material"
		case f.TrustChanged:
			line += "; warning: the lines stored before came from other key or schema files (SHA-256) or --strict-schemas; give --reverify to verify them again with this material"
		}
		return line
	}
	return fmt.Sprintf("verify: load: %s: %d accepted, %d rejected", f.Path, f.Accepted, f.Rejected)
}

// loadInputs expands PATH arguments as `verify receipts` does and says how
// to read each gzip file's stored bytes, which identify it in the database.
// It also returns the files the directory walks passed over.
func loadInputs(ctx context.Context, paths []string, stdin io.Reader, stderr io.Writer, wo walkOptions) ([]analytics.Input, []string, func(), error) {
	set, cleanup, err := expandInputs(ctx, paths, stdin, stderr, wo)
	if err != nil {
		return nil, nil, cleanup, err
	}
	inputs := make([]analytics.Input, len(set.srcs))
	for i, s := range set.srcs {
		inputs[i] = analytics.Input{Source: stream.Source(s), NoArchive: !onDisk(s.Name, paths)}
		if snap := set.snapshots[s.Name]; snap != nil { // a file path: its bytes as stored, compressed if gzip
			inputs[i].Stored = snap.stored(ctx)
		}
	}
	return inputs, set.skipped, cleanup, nil
}

// onDisk says whether the input named name is a regular file that stays
// where the name says: not standard input, nor a pipe, which are read once.
func onDisk(name string, paths []string) bool {
	if name == "stdin" && slices.Contains(paths, "-") {
		return false
	}
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// verifyAndLoad is the part `load` and `audit` share: build the verifier
// from the flags, verify the PATH arguments and load them into db, one line
// per file on stderr, a progress line on terminals. SIGINT (Ctrl-C) or
// SIGTERM rolls the file being loaded back and removes its spool.
func verifyAndLoad(ctx *cli.Context, db *analytics.DB, cmd string) (analytics.LoadSummary, error) {
	stderr := ctx.App.ErrWriter
	workers, err := workersFlag(ctx)
	if err != nil {
		return analytics.LoadSummary{}, err
	}
	raw, err := rawpolicy.Parse(ctx.String("store-raw"))
	if err != nil {
		return analytics.LoadSummary{}, usagef(ctx, "--store-raw: %v", err)
	}
	v, m, err := verifierFromFlags(ctx)
	if err != nil {
		return analytics.LoadSummary{}, err
	}
	sigCtx := runContext(ctx)
	inputs, skipped, cleanup, err := loadInputs(sigCtx, inputPaths(ctx), ctx.App.Reader, stderr, walkOptionsFrom(ctx))
	defer cleanup()
	if err != nil {
		return analytics.LoadSummary{}, err
	}
	stale, err := tempspool.RemoveStale("")
	reportStaleSpools(stderr, stale, err)
	srcs := make([]streamrun.Source, len(inputs))
	for i, in := range inputs {
		srcs[i] = streamrun.Source(in.Source)
	}
	bar := newProgress(ctx, srcs)
	bar.load = true
	bar.overall(len(srcs))
	// On a terminal the progress line tells the run; each file's line is
	// for -v, or for a file with something to say. Off a terminal (a
	// job's log) every file has its line.
	quietFiles := bar.on && !ctx.Bool("verbose")
	var folded struct{ files, accepted, rejected int64 }
	defer bar.done()
	defer onInterrupt(ctx, bar, "rolling back the file being loaded and removing the temporary files")()
	opts := analytics.LoadOptions{
		Schemas:  m.schemas,
		Workers:  workers,
		At:       m.at,
		Trust:    m.trust,
		Reverify: ctx.Bool("reverify"),
		Raw:      raw,
		Run:      fmt.Sprintf("verify %s %s pid %d", ctx.Command.Name, time.Now().UTC().Format(time.RFC3339), os.Getpid()),
		Progress: func(p stream.Progress) { bar.update(streamrun.Progress(p)) },
		Committing: func(c analytics.Commit) {
			bar.committing(c)
			phase(sigCtx, "committing")
		},
		OnFile: func(f analytics.FileSummary) {
			bar.committed()
			bar.fileDone(f.Path, f.Accepted+f.Rejected)
			if quietFiles && f.Err == nil && !f.TrustChanged {
				folded.files++
				folded.accepted += f.Accepted
				folded.rejected += f.Rejected
			} else {
				bar.clear()
				fmt.Fprintln(stderr, termtext.Escape(fileLine(f)))
			}
			phase(sigCtx, "commit")
		},
	}
	phase(sigCtx, "load")
	sum, err := db.Load(sigCtx, v, inputs, opts)
	sum.Skipped = skipped
	bar.done()
	if folded.files > 0 {
		fmt.Fprintf(stderr, "verify: %s: %d file(s): %d accepted, %d rejected (-v lists each file)\n", cmd, folded.files, folded.accepted, folded.rejected)
	}
	if err != nil && sigCtx.Err() != nil {
		return sum, &interruptedError{fmt.Errorf("%s: interrupted; the file being loaded was rolled back", cmd)}
	}
	return sum, err
}

// verboseFlag is -v of load and audit: a line per file on a terminal too.
func verboseFlag() cli.Flag {
	return &cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "a line per file on stderr on a terminal too (off a terminal every file has one)"}
}
