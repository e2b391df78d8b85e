package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/receiptverify/verify/analytics"
	"github.com/urfave/cli/v2"
)

func newExportCommand() *cli.Command {
	return &cli.Command{
		Name:  "export",
		Usage: "export an audit database as Parquet partitioned by UTC day",
		Description: "Writes DIR/day=YYYY-MM-DD/receipts.parquet (one COPY per day, so memory stays bounded),\n" +
			"DIR/expected_tools.parquet, DIR/files.parquet and DIR/rejects.parquet. Each file is written\n" +
			"to a temporary name and renamed, so re-running replaces a day's file atomically. The same\n" +
			"queries/*.sql run over the export (DuckDB read_parquet with hive_partitioning, Trino, Spark\n" +
			"SQL, ClickHouse). stdout gets one line per file written.\n\n" +
			"Exit codes: 0 exported, 64 usage, 66 the database file does not exist,\n" +
			"74 the database could not be read or DIR written.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "db", Usage: "audit database `FILE`"},
			&cli.StringFlag{Name: "parquet", Usage: "export `DIR` (created if missing)"},
		},
		Action: exportAction,
	}
}

func exportAction(ctx *cli.Context) error {
	if ctx.NArg() != 0 {
		return usagef(ctx, "unexpected argument %q", ctx.Args().First())
	}
	if err := requireFlags(ctx, "db", "parquet"); err != nil {
		return err
	}
	db, err := openExistingDB(ctx.String("db"))
	if err != nil {
		return err
	}
	defer db.Close()
	dir := ctx.String("parquet")
	sum, err := analytics.ExportParquet(context.Background(), db, dir)
	if err != nil {
		return outputErr(err)
	}
	w := ctx.App.Writer
	for _, d := range sum.Days {
		fmt.Fprintf(w, "%s\t%d receipts\n", d.Path, d.Rows)
	}
	fmt.Fprintf(w, "%s\t%d expected tools\n", filepath.Join(dir, analytics.ParquetExpectedTools), sum.ExpectedTools)
	fmt.Fprintf(w, "%s\t%d files\n", filepath.Join(dir, analytics.ParquetFiles), sum.Files)
	_, err = fmt.Fprintf(w, "%s\t%d rejects\n", filepath.Join(dir, analytics.ParquetRejects), sum.Rejects)
	if sum.Undated > 0 {
		fmt.Fprintf(ctx.App.ErrWriter, "verify: %d receipt(s) without issued_at have no day and were not exported\n", sum.Undated)
	}
	return err
}
