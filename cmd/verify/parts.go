package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/receiptverify/verify/internal/shard"
	"github.com/receiptverify/verify/queries"
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
			"RocksDB store --history-rocks that the run's keys hit, looked up key by key), and for\n" +
			"queries/shard/fold.sql the view fold_records and the table fold_shards (each shard's counts\n" +
			"from its manifest), one statement a line; with --judgments (ClickHouse), then the statements\n" +
			"that make the table judgments of queries/shard/judgments.sql in stages, each WITH name a\n" +
			"MergeTree table computed once, so that the session's memory settings bound them;\n" +
			"--engine postgres gives a psql script that makes the two tables and the functions unhex and hex\n" +
			"and loads the tables' rows, inline (COPY ... FROM STDIN); --engine list gives one line per file, TABLE<tab>PATH\n" +
			"(shard_records, history_keys, or history_records for a --history part), for any other\n" +
			"loader. Never a glob: a file beside the parts (an earlier attempt's, another run's) or an\n" +
			"unpublished history directory is not read, nor the run's own keys in the history.\n\n" +
			"With --folds, the DIRs are the folded shards of verify finalize --shard N --emit DIR --receipts,\n" +
			"checked as verify summarize checks them, and the statements make the tables the finding queries\n" +
			"read (receipts, files, rejects, expected_tools, trust) over exactly their files, on ClickHouse\n" +
			"after the session settings the queries need: docs/scale-out.md.\n\n" +
			"With --folds --iceberg DIR, the receipts are committed instead to the Apache Iceberg table in\n" +
			"DIR, partitioned by day (made if DIR holds none; a run committed already adds nothing), for\n" +
			"any engine that reads Iceberg; --iceberg-location gives the URL the table will be read at\n" +
			"(s3://..., gs://...) when DIR is to be copied there. Nothing is written to stdout.\n\n" +
			"Paths are absolute. --base . writes them relative to the current directory, for an engine\n" +
			"that runs in it; --base URL joins those relative paths to the URL the current directory is\n" +
			"copied to (s3://bucket/run, gs://...), for --engine list or duckdb.\n\n" +
			"Exit codes: 0 written, 64 usage, 65 a directory or part does not match the plan or its\n" +
			"manifest, 66 the plan, a shard or a part cannot be read, 74 stdout or the table failed.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "plan", Usage: "the run plan `FILE` the map steps read (verify plan); required"},
			&cli.StringFlag{Name: "engine", Value: "list", Usage: "`ENGINE`: list, " + strings.Join(shard.Engines(), ", ") + ", postgres (a psql script: the tables made and loaded)"},
			&cli.StringSliceFlag{Name: "history", Usage: "the map directory `DIR` of an earlier run (repeatable): its records' keys read as history_keys"},
			&cli.StringFlag{Name: "history-keys", Usage: "the compact history `DIR` (queries/shard/history_append.sql): its runs' files read as history_keys"},
			&cli.StringFlag{Name: "history-rocks", Usage: "the compact history kept in a RocksDB store `DIR` (--engine clickhouse; queries/shard/history_rocks_put.sql): probed key by key as history_keys"},
			&cli.StringFlag{Name: "base", Usage: "write paths relative to the current directory: `.` as they are, or joined to a URL (s3://bucket/run) the directory is copied to"},
			&cli.StringFlag{Name: "iceberg", Usage: "with --folds: commit the receipts to the Iceberg table in `DIR` (partitioned by day) instead of writing views"},
			&cli.StringFlag{Name: "iceberg-location", Usage: "with --iceberg: the table's `URL` in its metadata, where DIR is to be copied (s3://bucket/path); by default DIR's file: URL"},
			&cli.BoolFlag{Name: "judgments", Usage: "with --engine clickhouse: then the statements that make the table judgments of queries/shard/judgments.sql in stages, each WITH name a table on disk computed once, so that the session's settings bound their memory"},
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
	if ctx.Bool("judgments") && (engine != "clickhouse" || ctx.Bool("folds")) {
		return usagef(ctx, "--judgments goes with --engine clickhouse, without --folds: other engines run queries/shard/judgments.sql as it is")
	}
	if ctx.IsSet("history-rocks") {
		if engine != "clickhouse" {
			return usagef(ctx, "--history-rocks goes with --engine clickhouse only: the store is ClickHouse's EmbeddedRocksDB")
		}
		if ctx.IsSet("history") || ctx.IsSet("history-keys") || ctx.Bool("folds") {
			return usagef(ctx, "--history-rocks does not go with --history, --history-keys or --folds: the store holds the whole history")
		}
	}
	if (ctx.IsSet("iceberg") || ctx.IsSet("iceberg-location")) && !ctx.Bool("folds") {
		return usagef(ctx, "--iceberg goes with --folds: the table holds the folds' receipts")
	}
	if ctx.IsSet("iceberg") && (ctx.IsSet("engine") || ctx.IsSet("base")) {
		return usagef(ctx, "--engine and --base do not go with --iceberg: the table is committed, no statement written")
	}
	if ctx.IsSet("iceberg-location") && !ctx.IsSet("iceberg") {
		return usagef(ctx, "--iceberg-location goes with --iceberg DIR")
	}
	if loc := ctx.String("iceberg-location"); loc != "" {
		if u, err := url.Parse(loc); err != nil || u.Scheme == "" || u.Path == "" && u.Host == "" {
			return usagef(ctx, "--iceberg-location %q: want a URL, such as s3://bucket/lake/receipts or file:///lake/receipts", loc)
		}
	}
	base := ctx.String("base")
	if base != "" && base != "." {
		if u, err := url.Parse(base); err != nil || u.Scheme == "" || u.Path == "" && u.Host == "" {
			return usagef(ctx, "--base %q: want . or a URL, such as s3://bucket/run", base)
		}
		if engine == "clickhouse" {
			return usagef(ctx, "--base URL goes with --engine list or duckdb: ClickHouse's file() reads local paths (give --base . and run it in this directory)")
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
		if dir := ctx.String("iceberg"); dir != "" {
			return commitIceberg(ctx, sigCtx, plan, folds, dir)
		}
		for t, files := range folds.Tables {
			if folds.Tables[t], err = rebase(ctx, base, files); err != nil {
				return err
			}
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
	parts, history := run.Parts(), run.HistoryParts()
	for _, l := range []*[]string{&parts, &history.Records, &history.Keys} {
		if *l, err = rebase(ctx, base, *l); err != nil {
			return err
		}
	}
	if engine == "list" {
		for _, p := range parts {
			stmts = append(stmts, "shard_records\t"+p)
		}
		for _, p := range history.Records {
			stmts = append(stmts, "history_records\t"+p)
		}
		for _, p := range history.Keys {
			stmts = append(stmts, "history_keys\t"+p)
		}
	} else {
		stmts, _ = shard.Views(engine, parts, history)
		stmts = append(stmts, run.FoldShards(engine)...)
		if ctx.Bool("judgments") {
			stages, err := shard.ClickHouseJudgments(queries.Judgments())
			if err != nil {
				return err
			}
			stmts = append(stmts, stages...)
		}
		for i := range stmts {
			stmts[i] += ";"
		}
	}
	return writeLines(ctx, stmts)
}

// rebase is paths, absolute, as --base writes them: relative to the
// current directory, as they are for ".", joined to the URL otherwise;
// unchanged for "". A path outside the current directory is a usage
// error: it has no place under the base.
func rebase(ctx *cli.Context, base string, paths []string) ([]string, error) {
	if base == "" {
		return paths, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, &ioError{err}
	}
	out := make([]string, len(paths))
	for i, p := range paths {
		rel, err := filepath.Rel(wd, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, usagef(ctx, "--base: %s is outside the current directory %s: run verify parts from a directory that holds the run", p, wd)
		}
		out[i] = filepath.ToSlash(rel)
		if base != "." {
			out[i] = strings.TrimSuffix(base, "/") + "/" + out[i]
		}
	}
	return out, nil
}

// commitIceberg commits the folds' receipts to the Iceberg table in dir
// and says what it did on stderr.
func commitIceberg(ctx *cli.Context, sigCtx context.Context, plan *shard.RunPlan, folds *shard.Folds, dir string) error {
	c, err := shard.CommitIceberg(sigCtx, plan, folds, dir, ctx.String("iceberg-location"), time.Now())
	var se *shard.Error
	switch {
	case errors.As(err, &se):
		return err
	case err != nil:
		return &ioError{err}
	case !c.Committed:
		fmt.Fprintf(ctx.App.ErrWriter, "verify: parts: run %s is in the Iceberg table %s already (snapshot %d): nothing added\n", plan.ID, dir, c.SnapshotID)
	default:
		fmt.Fprintf(ctx.App.ErrWriter, "verify: parts: run %s committed to the Iceberg table %s: snapshot %d, %d files, %d receipts\n", plan.ID, dir, c.SnapshotID, c.Files, c.Receipts)
	}
	return nil
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
