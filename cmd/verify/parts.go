package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/receiptverify/verify/internal/shard"
	"github.com/urfave/cli/v2"
)

func newPartsCommand() *cli.Command {
	return &cli.Command{
		Name:      "parts",
		Usage:     "the exact Parquet parts of a sharded run, checked against its plan, as a list or an engine's views",
		ArgsUsage: "DIR...",
		Description: "Checks the map steps' directories as verify finalize does (one per shard of the plan, each\n" +
			"part's SHA-256 and counts) and writes, for the engine that runs queries/shard/judgments.sql,\n" +
			"the statements that make its two tables over exactly those parts: --engine duckdb or\n" +
			"clickhouse gives CREATE VIEW shard_records ... and history_keys (the rows of the compact\n" +
			"history's files, --history-keys, and of the keys of the --history directories' parts, that the\n" +
			"run's keys hit, read once into a table; or an empty table; or, on ClickHouse, the rows of the\n" +
			"RocksDB store --history-rocks that the run's keys hit, looked up key by key), one statement a line;\n" +
			"--engine postgres gives a psql script that makes the two tables and the functions unhex and hex\n" +
			"and loads the tables' rows, inline (COPY ... FROM STDIN); --engine list gives one line per file, TABLE<tab>PATH\n" +
			"(shard_records, history_keys, or history_records for a --history part), for any other\n" +
			"loader. Never a glob: a file beside the parts (an earlier attempt's, another run's) or an\n" +
			"unpublished history directory is not read, nor the run's own keys in the history.\n\n" +
			"With --folds, the DIRs are the folded shards of verify finalize --shard N --emit DIR --receipts,\n" +
			"checked as verify summarize checks them, and the statements make the tables the finding queries\n" +
			"read (receipts, expected_tools, trust) over exactly their files: docs/scale-out.md.\n\n" +
			"Exit codes: 0 written, 64 usage, 65 a directory or part does not match the plan or its\n" +
			"manifest, 66 the plan, a shard or a part cannot be read, 74 stdout failed.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "plan", Usage: "the run plan `FILE` the map steps read (verify plan); required"},
			&cli.StringFlag{Name: "engine", Value: "list", Usage: "`ENGINE`: list, " + strings.Join(shard.Engines(), ", ") + ", postgres (a psql script: the tables made and loaded)"},
			&cli.StringSliceFlag{Name: "history", Usage: "the map directory `DIR` of an earlier run (repeatable): its records' keys read as history_keys"},
			&cli.StringFlag{Name: "history-keys", Usage: "the compact history `DIR` (queries/shard/history_append.sql): its runs' files read as history_keys"},
			&cli.StringFlag{Name: "history-rocks", Usage: "the compact history kept in a RocksDB store `DIR` (--engine clickhouse; queries/shard/history_rocks_put.sql): probed key by key as history_keys"},
			&cli.BoolFlag{Name: "folds", Usage: "the DIRs are folded shards (verify finalize --shard N --emit DIR --receipts): the views or list of the report's tables, receipts, expected_tools and trust"},
		},
		Action: partsAction,
	}
}

func partsAction(ctx *cli.Context) error {
	if ctx.NArg() == 0 {
		return usagef(ctx, "want at least one DIR")
	}
	if !ctx.IsSet("plan") {
		return usagef(ctx, "want --plan FILE: the run plan the map steps read")
	}
	engine := ctx.String("engine")
	var stmts []string
	if engine == "postgres" && ctx.Bool("folds") {
		return usagef(ctx, "--engine postgres goes without --folds: load the report's tables from the files --engine list names")
	}
	if engine != "list" && engine != "postgres" {
		var err error
		if _, err = shard.Views(engine, nil, shard.History{}); err != nil {
			return usagef(ctx, "--engine: %v", err)
		}
	}
	if ctx.IsSet("history-rocks") {
		if engine != "clickhouse" {
			return usagef(ctx, "--history-rocks goes with --engine clickhouse only: the store is ClickHouse's EmbeddedRocksDB")
		}
		if ctx.IsSet("history") || ctx.IsSet("history-keys") || ctx.Bool("folds") {
			return usagef(ctx, "--history-rocks does not go with --history, --history-keys or --folds: the store holds the whole history")
		}
	}
	sigCtx := runContext(ctx)
	plan, err := shard.ReadPlan(ctx.String("plan"))
	if err != nil {
		return err
	}
	if ctx.Bool("folds") {
		if ctx.IsSet("history") {
			return usagef(ctx, "--history does not go with --folds")
		}
		folds, err := shard.ReadFolds(plan, ctx.Args().Slice())
		if err != nil {
			return err
		}
		if folds.Tables == nil {
			return &shard.Error{Reason: shard.ReasonMissing, Path: plan.Path, Msg: fmt.Sprintf("shards %v were folded without --receipts: no receipts table to read", folds.Unfolded)}
		}
		if engine == "list" {
			stmts = shard.TableList(folds.Tables)
		} else if stmts, err = shard.TableViews(engine, folds.Tables); err != nil {
			return err
		} else {
			for i := range stmts {
				stmts[i] += ";"
			}
		}
		return writeLines(ctx, stmts)
	}
	run, err := shard.Open(sigCtx, plan, ctx.Args().Slice(), ctx.StringSlice("history"))
	if err != nil {
		return finalizeError(sigCtx.Err(), err)
	}
	if err := withHistoryKeys(ctx, run); err != nil {
		return finalizeError(sigCtx.Err(), err)
	}
	if dir := ctx.String("history-rocks"); dir != "" {
		if err := run.WithHistoryRocks(dir); err != nil {
			return finalizeError(sigCtx.Err(), err)
		}
	}
	if engine == "postgres" {
		if err := shard.WritePostgres(sigCtx, run, ctx.App.Writer); err != nil {
			return &ioError{err}
		}
		return nil
	}
	if engine == "list" {
		for _, p := range run.Parts() {
			stmts = append(stmts, "shard_records\t"+p)
		}
		for _, p := range run.HistoryParts().Records {
			stmts = append(stmts, "history_records\t"+p)
		}
		for _, p := range run.HistoryParts().Keys {
			stmts = append(stmts, "history_keys\t"+p)
		}
	} else {
		stmts, _ = shard.Views(engine, run.Parts(), run.HistoryParts())
		for i := range stmts {
			stmts[i] += ";"
		}
	}
	return writeLines(ctx, stmts)
}

// writeLines writes each of lines on a line of stdout.
func writeLines(ctx *cli.Context, lines []string) error {
	out := bufio.NewWriter(ctx.App.Writer)
	for _, s := range lines {
		fmt.Fprintln(out, s)
	}
	if err := out.Flush(); err != nil {
		return &ioError{err}
	}
	return nil
}
