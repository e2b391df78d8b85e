package main

import (
	"bufio"
	"errors"
	"io"

	"github.com/receiptverify/verify/shard"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/stream"
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
			"Exit codes: those of verify receipts; 65 a directory, part or judgments file does not match\n" +
			"the plan or the manifests (a foreign, duplicated or extra shard, other trust material, a\n" +
			"part's digest or counts, judgments missing, repeated or of no record), 66 the plan, a shard,\n" +
			"a part or the judgments cannot be read.",
		Flags: []cli.Flag{
			formatFlag("text", "jsonl"),
			&cli.StringFlag{Name: "plan", Usage: "the run plan `FILE` the map steps read (verify plan); required"},
			&cli.StringFlag{Name: "judgments", Usage: "the rows of queries/shard/judgments.sql as Parquet `FILE` (or glob), run by another engine over the same DIRs"},
			&cli.StringSliceFlag{Name: "history", Usage: "the map directory `DIR` of an earlier run (repeatable): its receipts count as loaded before"},
		},
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
	if ctx.IsSet("judgments") && ctx.IsSet("history") {
		return usagef(ctx, "--history does not go with --judgments: the engine that ran the judgments reads the history")
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
	jsonOut := bufio.NewWriterSize(stdout, 1<<16)
	emit := resultEmitter(output, jsonOut, stdout, newProgressBar(io.Discard))
	opts := shard.FinalizeOptions{Judgments: ctx.String("judgments")}
	sum, err := shard.Finalize(sigCtx, run, opts, func(r *verify.Result) error { return emit(&stream.Record{Result: r}) })
	if err != nil {
		jsonOut.Flush()
		return finalizeError(sigCtx.Err(), err)
	}
	if err := jsonOut.Flush(); err != nil {
		return &ioError{err}
	}
	placeSummary(stdout, stderr, output, sum)
	return runOutcome(sum)
}

// finalizeError is the error of a failed finalize: interrupted, a
// refusal of the run's files (*shard.Error, exit 65 or 66) as it is, or
// input that could not be read.
func finalizeError(interrupted error, err error) error {
	var se *shard.Error
	switch {
	case interrupted != nil:
		return &interruptedError{errors.New("finalize: interrupted; the output stops short and no summary was written")}
	case errors.As(err, &se):
		return err
	}
	return &inputError{err}
}
