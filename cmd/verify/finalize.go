package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/receiptverify/verify/shard"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/stream"
	"github.com/urfave/cli/v2"
)

// emitShard is `verify receipts --emit DIR`: the map step of a sharded
// run, each record verified alone and written with its chain and nonce
// keys into DIR for `verify finalize`.
func emitShard(ctx context.Context, v *verify.Verifier, srcs []stream.Source, sopts stream.Options, dir string, n int64, bar *progressBar, stderr io.Writer) error {
	w, err := shard.Create(dir, n)
	if err != nil {
		return &ioError{fmt.Errorf("--emit %s: %w", dir, err)}
	}
	sum, err := stream.Map(ctx, v, srcs, sopts, w.Add)
	bar.done()
	if err != nil {
		w.Abort()
		if ctx.Err() != nil {
			return &interruptedError{fmt.Errorf("receipts: interrupted; %s is unfinished (no %s)", dir, shard.Manifest)}
		}
		return &ioError{fmt.Errorf("--emit %s: %w", dir, err)}
	}
	if err := w.Close(sum); err != nil {
		return &ioError{fmt.Errorf("--emit %s: %w", dir, err)}
	}
	fmt.Fprintf(stderr, "verify: emit: shard %d: %d records of %d lines in %d files written to %s; verify finalize gives their verdicts\n",
		n, sum.Records-uint64(sum.Blank), sum.Lines, sum.Files, dir)
	return nil
}

func newFinalizeCommand() *cli.Command {
	return &cli.Command{
		Name:      "finalize",
		Usage:     "the verdicts of a sharded run: judge chains and nonces across the map steps' directories",
		ArgsUsage: "DIR...",
		Description: "Each DIR was written by one map step, verify receipts --emit DIR --shard N, over a part of\n" +
			"the input (one task per archive file on a batch system). finalize judges the chains and the\n" +
			"nonces across all of them (queries/shard/judgments.sql, on DuckDB, or its rows computed by\n" +
			"another engine with --judgments), and writes what one verify receipts over the whole input\n" +
			"writes, in its order (shard by shard, by N) and with its exit codes: docs/scale-out.md.",
		Flags: []cli.Flag{
			formatFlag("text", "jsonl"),
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
	output, err := formatOf(ctx, "text", "jsonl")
	if err != nil {
		return err
	}
	if ctx.IsSet("judgments") && ctx.IsSet("history") {
		return usagef(ctx, "--history does not go with --judgments: the engine that ran the judgments reads the history")
	}
	sigCtx := runContext(ctx)
	jsonOut := bufio.NewWriterSize(stdout, 1<<16)
	emit := resultEmitter(output, jsonOut, stdout, newProgressBar(io.Discard))
	opts := shard.FinalizeOptions{Judgments: ctx.String("judgments"), History: ctx.StringSlice("history")}
	phase(sigCtx, "finalize")
	sum, err := shard.Finalize(sigCtx, ctx.Args().Slice(), opts, func(r *verify.Result) error { return emit(&stream.Record{Result: r}) })
	if err != nil {
		jsonOut.Flush()
		if sigCtx.Err() != nil {
			return &interruptedError{errors.New("finalize: interrupted; the output stops short and no summary was written")}
		}
		return &inputError{err}
	}
	if err := jsonOut.Flush(); err != nil {
		return &ioError{err}
	}
	placeSummary(stdout, stderr, output, sum)
	return runOutcome(sum)
}
