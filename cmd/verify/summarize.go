package main

import (
	"bufio"
	"io"
	"os"

	"github.com/receiptverify/verify/internal/shard"
	"github.com/urfave/cli/v2"
)

func newSummarizeCommand() *cli.Command {
	return &cli.Command{
		Name:      "summarize",
		Usage:     "the summary and exit code of a sharded run whose shards were folded one by one",
		ArgsUsage: "DIR...",
		Description: "Each DIR was published by verify finalize --plan FILE --judgments J --shard N --emit DIR.\n" +
			"summarize checks them against the plan (one per shard, one output format, each results file,\n" +
			"and each table file of --receipts, the bytes its fold.json names), adds up the shards' summaries and writes the summary of one\n" +
			"verify receipts over the whole input, where it writes it (stdout for text, stderr for jsonl),\n" +
			"with its exit code. With --results, the shards' results come first on stdout, in shard\n" +
			"order: the whole output of that run. docs/scale-out.md.\n\n" +
			"Exit codes: those of verify receipts; 65 a directory or results file does not match the plan\n" +
			"or its fold.json (a foreign, duplicated or extra shard, mixed formats, results changed), 66\n" +
			"the plan, a folded shard or its results cannot be read.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "plan", Usage: "the run plan `FILE` of the run (verify plan); required"},
			&cli.BoolFlag{Name: "results", Usage: "write the shards' results to stdout first, in shard order"},
		},
		Action: summarizeAction,
	}
}

func summarizeAction(ctx *cli.Context) error {
	stdout, stderr := ctx.App.Writer, ctx.App.ErrWriter
	if ctx.NArg() == 0 {
		return usagef(ctx, "want at least one DIR")
	}
	if !ctx.IsSet("plan") {
		return usagef(ctx, "want --plan FILE: the run plan the shards were folded with")
	}
	plan, err := shard.ReadPlan(ctx.String("plan"))
	if err != nil {
		return err
	}
	folds, err := shard.ReadFolds(plan, ctx.Args().Slice())
	if err != nil {
		return err
	}
	if ctx.Bool("results") {
		out := bufio.NewWriterSize(stdout, 1<<16)
		for _, path := range folds.Results {
			if err := copyFile(out, path); err != nil {
				return err
			}
		}
		if err := out.Flush(); err != nil {
			return &ioError{err}
		}
	}
	placeSummary(stdout, stderr, folds.Format, folds.Summary)
	return runOutcome(folds.Summary)
}

// copyFile copies the file at path to w: an error reading it is an
// input error, writing an I/O error.
func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return &inputError{err}
	}
	defer f.Close()
	if _, err := io.Copy(struct{ io.Writer }{w}, f); err != nil {
		return &ioError{err}
	}
	return nil
}
