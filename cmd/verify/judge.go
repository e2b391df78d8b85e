package main

import (
	"errors"
	"fmt"

	"github.com/receiptverify/verify/internal/shard"
	"github.com/urfave/cli/v2"
)

func newJudgeCommand() *cli.Command {
	return &cli.Command{
		Name:      "judge",
		Usage:     "the engine steps of a sharded run on DuckDB: its judgments, one file a shard, or its history's append",
		ArgsUsage: "DIR...",
		Description: "Checks the map steps' directories as verify finalize does and runs on DuckDB, in one process,\n" +
			"the SQL another engine would run over them (docs/scale-out.md):\n\n" +
			"With --emit OUT, queries/shard/judgments.sql, with the history (--history-keys, --history), its rows\n" +
			"checked as finalize checks them and published in OUT as shard-N.parquet for every shard N of\n" +
			"the plan, a file without rows for a shard with nothing to judge: the fold of shard N reads\n" +
			"--judgments OUT/shard-N.parquet. OUT is written whole beside itself and renamed into place; an\n" +
			"OUT of such files only is replaced (rerun whole), one holding anything else is refused.\n\n" +
			"With --fold VERDICTS as well, queries/shard/fold.sql then folds those judgments into every\n" +
			"record's verdict, reasons, chain and nonce axes and their notes, published in VERDICTS the same\n" +
			"way, one shard-N.parquet a shard: the fold of verify finalize run by the engine; the run's\n" +
			"summary (queries/shard/fold_summary.sql over them) goes to stderr, as verify finalize -f jsonl\n" +
			"writes it.\n\n" +
			"With --append-history DIR, queries/shard/history_append.sql: the run's keys appended to the\n" +
			"compact history as DIR/RUN-ID, once the run's verdicts are out (verify summarize exited 0, 1\n" +
			"or 2); a run appended already is left as it is.\n\n" +
			"--memory-limit bounds DuckDB's buffers; past it the joins, aggregates and sorts spill to\n" +
			"--temp-dir (docs/scale-out.md, Sizing).\n\n" +
			"Exit codes: 0 written, 64 usage, 65 a directory or part does not match the plan or its\n" +
			"manifest, or OUT holds something else, 66 the plan, a shard or a part cannot be read, 74 a\n" +
			"file cannot be written or DuckDB ran out of memory within --memory-limit.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "plan", Usage: "the run plan `FILE` the map steps read (verify plan); required"},
			&cli.StringFlag{Name: "emit", Usage: "publish the judgments in `DIR`, one shard-N.parquet a shard"},
			&cli.StringFlag{Name: "fold", Usage: "with --emit, publish the verdicts of queries/shard/fold.sql in `DIR`, one shard-N.parquet a shard"},
			&cli.StringSliceFlag{Name: "history", Usage: "the map directory `DIR` of an earlier run (repeatable): its receipts count as loaded before"},
			&cli.StringFlag{Name: "history-keys", Usage: "the compact history `DIR`: its runs' receipts count as loaded before"},
			&cli.StringFlag{Name: "append-history", Usage: "append the run's keys to the compact history `DIR` (as DIR/RUN-ID) instead of judging"},
		}, judgmentsLimitFlags()...),
		Action: judgeAction,
	}
}

func judgeAction(ctx *cli.Context) error {
	stdout, stderr := ctx.App.Writer, ctx.App.ErrWriter
	out, appendTo := ctx.String("emit"), ctx.String("append-history")
	switch {
	case ctx.NArg() == 0:
		return usagef(ctx, "want at least one DIR")
	case !ctx.IsSet("plan"):
		return usagef(ctx, "want --plan FILE: the run plan the map steps read")
	case ctx.IsSet("fold") && (out == "" || ctx.String("fold") == "" || ctx.String("fold") == out):
		return usagef(ctx, "--fold DIR goes with --emit, in a directory of its own")
	case (out == "") == (appendTo == ""):
		return usagef(ctx, "want one of --emit DIR (the judgments) and --append-history DIR (the history's append)")
	case appendTo != "" && (ctx.IsSet("history") || ctx.IsSet("history-keys")):
		return usagef(ctx, "--history and --history-keys do not go with --append-history: the append reads the history it appends to")
	}
	engine, err := judgmentsEngine(ctx)
	if err != nil {
		return err
	}
	sigCtx := runContext(ctx)
	phase(sigCtx, "judge")
	plan, err := shard.ReadPlan(ctx.String("plan"))
	if err != nil {
		return err
	}
	run, err := shard.Open(sigCtx, plan, ctx.Args().Slice(), ctx.StringSlice("history"))
	if err != nil {
		return finalizeError(sigCtx.Err(), err)
	}
	run.WithLimits(engine)
	if appendTo != "" {
		appended, err := shard.AppendHistory(sigCtx, run, appendTo)
		if err != nil {
			return finalizeError(sigCtx.Err(), fmt.Errorf("--append-history: %w", err))
		}
		if !appended {
			fmt.Fprintf(stderr, "verify: judge: run %s is in the history %s already: not appended again\n", plan.ID, appendTo)
		}
		return nil
	}
	if err := withHistoryKeys(ctx, run); err != nil {
		return finalizeError(sigCtx.Err(), err)
	}
	verdicts := ctx.String("fold")
	if err := shard.WriteJudgments(sigCtx, run, out, verdicts); err != nil {
		return judgeError(sigCtx.Err(), out, err)
	}
	fmt.Fprintf(stderr, "verify: judge: the judgments of run %s written in %s, one file a shard\n", plan.ID, out)
	if verdicts != "" {
		fmt.Fprintf(stderr, "verify: judge: its verdicts written in %s, one file a shard\n", verdicts)
		sum, err := shard.FoldSummary(sigCtx, run, verdicts)
		if err != nil {
			return finalizeError(sigCtx.Err(), err)
		}
		placeSummary(stdout, stderr, "jsonl", sum)
	}
	return nil
}

// judgeError is finalizeError, but a file that could not be written
// is exit 74.
func judgeError(interrupted error, out string, err error) error {
	if interrupted == nil && errors.Is(err, shard.ErrWrite) {
		return &ioError{fmt.Errorf("--emit %s: %w", out, err)}
	}
	return finalizeError(interrupted, err)
}
