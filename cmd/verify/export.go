package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/receiptverify/verify/analytics"
	"github.com/urfave/cli/v2"
)

func newExportCommand() *cli.Command {
	return &cli.Command{
		Name:  "export",
		Usage: "export an audit database as Parquet, one directory per table, receipts by UTC day",
		Description: "Writes DIR/receipts/day=YYYY-MM-DD/part-N.parquet (one COPY per day, so memory stays\n" +
			"bounded), DIR/files/, DIR/rejects/, DIR/expected_tools/ and DIR/trust/ (part-N.parquet each).\n" +
			"A part file is closed at about --max-file-size and the next begun. Timestamps are UTC\n" +
			"instants, reasons and tool_servers lists. Each directory is written under a hidden name and\n" +
			"put in place of the old one, so re-running replaces a day's files as a whole. The same\n" +
			"queries/*.sql run over the export (DuckDB read_parquet with hive_partitioning, Trino, Spark\n" +
			"SQL, ClickHouse); docs/export.md describes the layout. stderr gets one line per directory.\n\n" +
			"Exit codes: 0 exported, 64 usage, 66 the database file does not exist,\n" +
			"74 the database could not be read or DIR written.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "db", Usage: "audit database `FILE`"},
			&cli.StringFlag{Name: "parquet", Usage: "export `DIR` (created if missing)"},
			&cli.StringFlag{Name: "max-file-size", Value: "256MiB", Usage: "`SIZE` at which a part file is closed: bytes, or with KiB, MiB or GiB"},
		}, dbLimitFlags()...),
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
	bound, err := parseSize(ctx.String("max-file-size"))
	if err != nil {
		return usagef(ctx, "--max-file-size: %v", err)
	}
	db, err := openExistingDB(ctx, ctx.String("db"))
	if err != nil {
		return err
	}
	defer db.Close()
	dir := ctx.String("parquet")
	phase(runContext(ctx), "export")
	sum, err := db.ExportParquet(runContext(ctx), dir, analytics.ExportOptions{MaxFileBytes: bound})
	if err != nil {
		return outputErr(err)
	}
	// The listing is a diagnostic: stdout carries results only, and an
	// export's results are its files.
	w := ctx.App.ErrWriter
	for _, d := range sum.Days {
		fmt.Fprintf(w, "verify: export: %s\t%d receipts\t%s\n", d.Path, d.Rows, parts(d.Parts))
	}
	for _, t := range sum.Tables {
		if _, err := fmt.Fprintf(w, "verify: export: %s\t%d %s\t%s\n", t.Path, t.Rows, strings.ReplaceAll(t.Table, "_", " "), parts(t.Parts)); err != nil {
			return outputErr(err)
		}
	}
	if sum.Undated > 0 {
		fmt.Fprintf(ctx.App.ErrWriter, "verify: %d receipt(s) without issued_at have no day and were not exported\n", sum.Undated)
	}
	for _, d := range sum.Removed {
		fmt.Fprintf(w, "verify: export: %s removed: the database holds no receipt of that day\n", d)
	}
	for _, d := range sum.Kept {
		fmt.Fprintf(w, "verify: export: %s kept: the database holds no receipt of that day, but the directory holds files the export did not write\n", d)
	}
	if len(sum.Stale) > 0 {
		fmt.Fprintf(ctx.App.ErrWriter, "verify: %s holds %d file(s) of the earlier export layout (such as %s), left as they are; the new layout does not read them\n",
			dir, len(sum.Stale), filepath.ToSlash(sum.Stale[0]))
	}
	return nil
}

func parts(n int) string {
	if n == 1 {
		return "1 file"
	}
	return strconv.Itoa(n) + " files"
}

// parseSize reads a size in bytes, or with a KiB, MiB or GiB suffix.
func parseSize(s string) (int64, error) {
	num, mult := s, int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = n, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (bytes, or a whole number of KiB, MiB or GiB)", s)
	}
	return n * mult, nil
}
