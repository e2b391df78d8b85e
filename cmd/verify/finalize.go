package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/receiptverify/verify/analytics"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/shard"
	"github.com/receiptverify/verify/verify"
	"github.com/urfave/cli/v2"
)

func newFinalizeCommand() *cli.Command {
	return &cli.Command{
		Name:      "finalize",
		Usage:     "the verdicts of a sharded run: judge chains and nonces across the map steps' directories",
		ArgsUsage: "DIR...",
		Description: "Each DIR was published by one map step, verify receipts --plan FILE --emit DIR --shard N, over\n" +
			"its shard of the plan's inputs (one task per archive file on a batch system). finalize checks\n" +
			"the directories against the plan (one per shard, each part's SHA-256 and counts), judges the\n" +
			"chains and the nonces across all of them (queries/shard/judgments.sql, on DuckDB, or its rows\n" +
			"computed by another engine with --judgments, which must judge every record with a link or a\n" +
			"nonce exactly once), and writes what one verify receipts over the whole input writes, in its\n" +
			"order (shard by shard) and with its exit codes: docs/scale-out.md.\n\n" +
			"With --shard N --emit DIR (and --judgments), finalize folds shard N alone, in memory bounded\n" +
			"by a part, and publishes its results and summary in DIR: one task per shard, a second array\n" +
			"job; verify summarize adds the shards' summaries and gives the exit code. With --receipts the\n" +
			"fold also writes the shard's receipts, final verdicts, as the report's tables (the layout of\n" +
			"verify export) for the finding queries on a lake engine: verify parts --folds lists them.\n\n" +
			"Earlier runs count as loaded before: --history-keys DIR reads the compact history of their\n" +
			"keys, --append-history DIR adds this run's once its verdicts are written (as DIR/RUN-ID;\n" +
			"queries/shard/history_append.sql on another engine), --history DIR reads a run's map directory.\n\n" +
			"Exit codes: those of verify receipts (0 with --emit once the shard is published); 65 a directory, part or judgments file does not match\n" +
			"the plan or the manifests (a foreign, duplicated or extra shard, other trust material, a\n" +
			"part's digest or counts, judgments missing, repeated or of no record), 66 the plan, a shard,\n" +
			"a part or the judgments cannot be read.",
		Flags: append([]cli.Flag{
			formatFlag("text", "jsonl"),
			&cli.StringFlag{Name: "plan", Usage: "the run plan `FILE` the map steps read (verify plan); required"},
			&cli.StringFlag{Name: "judgments", Usage: "the rows of queries/shard/judgments.sql as Parquet `FILE` (or glob), run by another engine over the same DIRs"},
			&cli.Int64Flag{Name: "shard", Usage: "fold shard `N` of the plan alone (with --emit and --judgments)"},
			&cli.StringFlag{Name: "emit", Usage: "publish the shard's results and summary in `DIR` (with --shard): verify summarize reads it"},
			&cli.BoolFlag{Name: "receipts", Usage: "with --emit: also write the shard's receipts, with their final verdicts, as the report's tables in DIR (the layout of verify export), for the finding queries on a lake engine"},
			&cli.StringSliceFlag{Name: "history", Usage: "the map directory `DIR` of an earlier run (repeatable): its receipts count as loaded before"},
			&cli.StringFlag{Name: "history-keys", Usage: "the compact history `DIR` (--append-history, queries/shard/history_append.sql): its runs' receipts count as loaded before"},
			&cli.StringFlag{Name: "append-history", Usage: "once the verdicts are written, append the run's keys to the compact history `DIR` (as DIR/RUN-ID, on DuckDB)"},
		}, judgmentsLimitFlags()...),
		Action: finalizeAction,
	}
}

func finalizeAction(ctx *cli.Context) error {
	stdout, stderr := ctx.App.Writer, ctx.App.ErrWriter
	if ctx.NArg() == 0 {
		return usagef(ctx, "want at least one DIR")
	}
	if !ctx.IsSet("plan") {
		return usagef(ctx, "want --plan FILE: the run plan the map steps read")
	}
	output, err := formatOf(ctx, "text", "jsonl")
	if err != nil {
		return err
	}
	if ctx.IsSet("judgments") && (ctx.IsSet("history") || ctx.IsSet("history-keys")) {
		return usagef(ctx, "--history and --history-keys do not go with --judgments: the engine that ran the judgments reads the history")
	}
	engine, err := judgmentsEngine(ctx)
	if err != nil {
		return err
	}
	if ctx.IsSet("shard") || ctx.IsSet("emit") {
		return finalizeShardAction(ctx, output, engine)
	}
	if ctx.Bool("receipts") {
		return usagef(ctx, "--receipts goes with --shard N --emit DIR: the report's tables are written with a folded shard")
	}
	sigCtx := runContext(ctx)
	phase(sigCtx, "finalize")
	plan, err := shard.ReadPlan(ctx.String("plan"))
	if err != nil {
		return err
	}
	run, err := shard.Open(sigCtx, plan, ctx.Args().Slice(), ctx.StringSlice("history"))
	if err != nil {
		return finalizeError(sigCtx.Err(), err)
	}
	run.WithLimits(engine)
	if err := withHistoryKeys(ctx, run); err != nil {
		return finalizeError(sigCtx.Err(), err)
	}
	jsonOut := bufio.NewWriterSize(stdout, 1<<16)
	emit := resultEmitter(output, jsonOut, stdout, newProgressBar(io.Discard))
	opts := shard.FinalizeOptions{Judgments: ctx.String("judgments")}
	sum, err := shard.Finalize(sigCtx, run, opts, func(r *verify.Result) error { return emit(&streamrun.Record{Result: r}) })
	if err != nil {
		jsonOut.Flush()
		return finalizeError(sigCtx.Err(), err)
	}
	if err := jsonOut.Flush(); err != nil {
		return &ioError{err}
	}
	placeSummary(stdout, stderr, output, sum)
	if !ctx.IsSet("judgments") {
		n, err := shard.HistorySuperseded(sigCtx, run)
		if err != nil {
			return finalizeError(sigCtx.Err(), err)
		}
		if n > 0 {
			fmt.Fprintf(stderr, "verify: finalize: %d predecessor(s) or nonce(s) of the history are named or used first by this run's receipts (by issue time, then line hash): "+
				"the history's receipts are their forks or replays, but the verdicts their runs published are not revised; judge those days again with this one (docs/scale-out.md)\n", n)
		}
	}
	if dir := ctx.String("append-history"); dir != "" {
		appended, err := shard.AppendHistory(sigCtx, run, dir)
		if err != nil {
			return finalizeError(sigCtx.Err(), fmt.Errorf("--append-history: %w", err))
		}
		if !appended {
			fmt.Fprintf(stderr, "verify: finalize: run %s is in the history %s already: not appended again\n", plan.ID, dir)
		}
	}
	return runOutcome(sum)
}

// withHistoryKeys adds the compact history --history-keys names to run,
// saying so when it holds the run itself (left out).
func withHistoryKeys(ctx *cli.Context, run *shard.Run) error {
	dir := ctx.String("history-keys")
	if dir == "" {
		return nil
	}
	skipped, err := run.WithHistoryKeys(dir)
	if err != nil {
		return err
	}
	if skipped {
		fmt.Fprintf(ctx.App.ErrWriter, "verify: the history %s holds run %s itself (appended already): its keys are left out\n", dir, run.Plan.ID)
	}
	return nil
}

// finalizeShardAction is `verify finalize --shard N --emit DIR`: shard N
// folded alone with the judgments of another engine, its results and
// summary published in DIR for verify summarize.
func finalizeShardAction(ctx *cli.Context, output string, engine shard.Engine) error {
	stderr := ctx.App.ErrWriter
	switch {
	case !ctx.IsSet("shard"):
		return usagef(ctx, "--emit needs --shard N: the shard this step folds")
	case ctx.String("emit") == "":
		return usagef(ctx, "--shard needs --emit DIR: where the shard's results and summary are published")
	case ctx.IsSet("history") || ctx.IsSet("history-keys"):
		return usagef(ctx, "--history and --history-keys do not go with --shard: the engine that ran the judgments reads the history")
	case ctx.IsSet("append-history"):
		return usagef(ctx, "--append-history does not go with --shard: append the whole run once every shard is folded (queries/shard/history_append.sql)")
	case !ctx.IsSet("judgments"):
		return usagef(ctx, "--shard needs --judgments: the rows of queries/shard/judgments.sql over the whole run")
	}
	dir, n := ctx.String("emit"), ctx.Int64("shard")
	sigCtx := runContext(ctx)
	phase(sigCtx, "finalize")
	plan, err := shard.ReadPlan(ctx.String("plan"))
	if err != nil {
		return err
	}
	if shard.FoldPublished(dir, plan, n) {
		fmt.Fprintf(stderr, "verify: finalize: shard %d of run %s is already folded in %s: nothing to do\n", n, plan.ID, dir)
		return nil
	}
	run, err := shard.OpenShard(sigCtx, plan, ctx.Args().Slice(), n)
	if err != nil {
		return finalizeError(sigCtx.Err(), err)
	}
	run.WithLimits(engine)
	w, err := shard.CreateFold(dir, plan, n, output)
	if done, err := attemptCreated(err, stderr, fmt.Sprintf("finalize: shard %d of run %s is already folded in %s", n, plan.ID, dir), dir); done || err != nil {
		return err
	}
	defer onInterrupt(ctx, nil, "removing the unpublished attempt")()
	if ctx.Bool("receipts") {
		opts, err := receiptTableOptions(plan)
		if err == nil {
			err = w.WithReceipts(sigCtx, run, opts)
		}
		if err != nil {
			w.Abort()
			var ie *inputError
			var se *shard.Error
			if errors.As(err, &ie) || errors.As(err, &se) {
				return err // a schema file or an earlier shard's part: exit 66 or 65
			}
			return &ioError{fmt.Errorf("--emit %s: %w", dir, err)}
		}
	}
	emit := resultEmitter(output, w, w, newProgressBar(io.Discard))
	sum, err := shard.FinalizeShard(sigCtx, run, n, ctx.String("judgments"), func(r *verify.Result, line *streamrun.LineRef) error {
		if err := emit(&streamrun.Record{Result: r}); err != nil {
			return err
		}
		return w.AddReceipt(r, line)
	})
	if err != nil {
		w.Abort()
		return finalizeError(sigCtx.Err(), err)
	}
	switch err := w.Close(sum); {
	case errors.Is(err, shard.ErrPublished):
		fmt.Fprintf(stderr, "verify: finalize: shard %d of run %s was folded in %s by another attempt meanwhile: this one's output is dropped\n", n, plan.ID, dir)
		return nil
	case err != nil:
		return &ioError{fmt.Errorf("--emit %s: %w", dir, err)}
	}
	fmt.Fprintf(stderr, "verify: finalize: shard %d of run %s: %d receipts verified (%d pass, %d fail, %d incomplete), %d unreadable, folded in %s; verify summarize gives the run's summary\n",
		n, plan.ID, sum.Receipts, sum.Pass, sum.Fail, sum.Incomplete, sum.Unreadable, dir)
	return nil
}

// finalizeError is the error of a failed finalize: interrupted, a
// refusal of the run's files (*shard.Error, exit 65 or 66) as it is, or
// input that could not be read.
func finalizeError(interrupted error, err error) error {
	var se *shard.Error
	switch {
	case interrupted != nil:
		return &interruptedError{errors.New("finalize: interrupted; the output stops short and no summary was written")}
	case shard.OutOfMemory(err):
		return &ioError{fmt.Errorf("DuckDB ran out of memory within --memory-limit (raise it, or give --temp-dir room to spill): %w", err)}
	case errors.As(err, &se):
		return err
	}
	return &inputError{err}
}

// receiptTableOptions is what the report's tables of a folded shard
// record besides its receipts: the plan's trust material, as a load
// records it (trust_sha256), its --at (the day of undated receipts), and
// its expected tool schemas (expected_tools), read again from the plan's
// schema files, each checked by its SHA-256.
func receiptTableOptions(plan *shard.RunPlan) (analytics.ReceiptTableOptions, error) {
	var opts analytics.ReceiptTableOptions
	at, err := time.Parse(time.RFC3339Nano, plan.Trust.At)
	if err != nil {
		return opts, &shard.Error{Reason: shard.ReasonManifest, Path: plan.Path, Msg: "trust.at: " + err.Error()}
	}
	files := func(fs []shard.File) []analytics.TrustFile {
		out := make([]analytics.TrustFile, len(fs))
		for i, f := range fs {
			out[i] = analytics.TrustFile{Path: f.Path, SHA256: f.SHA256}
			// The bytes go into the database when they are still the plan's.
			if data, err := readSmallFile(f.Path); err == nil {
				if now := analytics.TrustFileOf(f.Path, data); now.SHA256 == f.SHA256 {
					out[i] = now
				}
			}
		}
		return out
	}
	opts.At = at
	opts.Trust = analytics.Trust{Keys: files(plan.Trust.Keys), Schemas: files(plan.Trust.Schemas), At: at,
		StrictSchemas: plan.Trust.StrictSchemas, ToolVersion: version()}
	if len(plan.Trust.Schemas) == 0 {
		return opts, nil
	}
	var paths []string
	for _, f := range plan.Trust.Schemas {
		paths = append(paths, f.Path)
	}
	set, read, err := loadSchemas(paths)
	if err != nil {
		return opts, err
	}
	for i, f := range read {
		if want := plan.Trust.Schemas[i]; f.SHA256 != want.SHA256 {
			return opts, &shard.Error{Reason: shard.ReasonTrust, Path: f.Path, Msg: fmt.Sprintf("SHA-256 %s, the plan's %s: the expected schemas of the receipts table are the plan's", f.SHA256, want.SHA256)}
		}
	}
	opts.Schemas = set
	return opts, nil
}
