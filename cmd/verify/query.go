package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/queries"
	"github.com/urfave/cli/v2"
)

func newQueryCommand() *cli.Command {
	return &cli.Command{
		Name:      "query",
		Usage:     "run one detection query (queries/*.sql) over an audit database",
		ArgsUsage: "NAME",
		Description: "NAME is the base name of an embedded query file: " + strings.Join(queries.Names(), ", ") + ".\n" +
			"Each file's header comment says what it finds. The day is bound as the query's one\n" +
			"parameter; without --day, the queries report every day.\n\n" +
			"Formats: table (aligned text), csv (RFC 4180, header row), jsonl (JSON Lines, one object per row;\n" +
			"json is the same), ocsf (finding queries only: one OCSF Detection Finding event, class_uid 2004,\n" +
			"per row), ecs (finding queries only: one Elastic Common Schema event per row), sarif (finding\n" +
			"queries only: one SARIF 2.1.0 log, a result per row at its file and line).\n" +
			"Times are RFC 3339 UTC. A finding query's rows carry finding, severity, finding_id (the same\n" +
			"on every run over the same data) and event_time.\n\n" +
			"--baseline FILE marks the finding rows a baseline accepts as verify report does: the\n" +
			"suppressed and suppressed_by columns (OCSF status Suppressed), expiry judged at --at.\n" +
			"--min-severity (or --severity) SEVERITY keeps the finding rows at SEVERITY or above.\n" +
			"The other queries ignore both.\n\n" +
			"--lake DIR runs the query over a sharded run's tables instead of --db: the folded shards under\n" +
			"DIR (verify finalize --shard N --emit DIR/shard-N --receipts), checked against --plan FILE if\n" +
			"given; the rows are those of an audit database of the same archive (docs/scale-out.md).\n\n" +
			"Exit codes: 0 the query ran (with or without rows), 64 usage or unknown NAME, 65 (--lake) a\n" +
			"folded shard not its run's or its manifest's, 66 the database, a folded shard or baseline file\n" +
			"does not exist, 74 the database could not be read.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "db", Usage: "audit database `FILE` (made by verify load or verify audit)"},
			&cli.StringFlag{Name: "day", Usage: "UTC `DAY` (YYYY-MM-DD)", DefaultText: "every day"},
			formatFlag("table", "csv", "jsonl", "ocsf", "ecs", "sarif"),
			&cli.StringFlag{Name: "baseline", Usage: "mark the finding rows this baseline `FILE` accepts (suppressed, suppressed_by), as verify report does"},
			&cli.StringFlag{Name: "at", Usage: "judge the baseline's expiry dates at `TIME` (RFC 3339)", DefaultText: "now"},
			gapWindowFlag(), thinFractionFlag(),
			&cli.StringFlag{Name: "min-severity", Aliases: []string{"severity"}, Usage: "keep only finding rows at `SEVERITY` or above (high, medium, low, info)", DefaultText: "every row"},
		}, slices.Concat(lakeFlags(), dbLimitFlags())...),
		Action: queryAction,
	}
}

func queryAction(ctx *cli.Context) error {
	args := ctx.Args().Slice()
	if len(args) != 1 {
		return usagef(ctx, "want one query NAME (%s)", strings.Join(queries.Names(), ", "))
	}
	name := args[0]
	if _, err := queries.Lookup(name); err != nil {
		return usagef(ctx, "%v", err)
	}
	format, err := formatOf(ctx, "table", "csv", "jsonl", "ocsf", "ecs", "sarif")
	if err != nil {
		return err
	}
	if (format == "ocsf" || format == "ecs" || format == "sarif") && !slices.Contains(queries.Findings(), name) {
		return usagef(ctx, "--format %s: %s is not a finding query (%s)", format, name, strings.Join(queries.Findings(), ", "))
	}
	day := ctx.String("day")
	if day != "" {
		if _, err := queries.ParseDay(day); err != nil {
			return usagef(ctx, "--day: %v", err)
		}
	}
	exports, err := exportOptionsOf(ctx, name)
	if err != nil {
		return err
	}
	gaps, err := gapSettings(ctx)
	if err != nil {
		return err
	}
	db, err := openSource(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	phase(runContext(ctx), "query")
	t, err := db.RunQueryWith(runContext(ctx), name, day, gaps)
	if err != nil {
		return err
	}
	if err := exports.apply(ctx, t); err != nil {
		return err
	}
	w := ctx.App.Writer
	switch format {
	case "csv":
		return t.WriteCSV(w)
	case "jsonl":
		return t.WriteJSONL(w)
	case "ocsf":
		return analytics.WriteOCSF(w, t, version(), exports.failOn)
	case "ecs":
		return analytics.WriteECS(w, t, version(), exports.failOn)
	case "sarif":
		return analytics.WriteSARIF(w, version(), t)
	}
	return t.WriteTable(w)
}

// openExistingDB opens an audit database that must already exist, read
// only: query, report and export read one, so any number of them run
// beside each other, and none creates, changes or sets up a file (another
// tool's database included).
func openExistingDB(ctx *cli.Context, path string) (*analytics.DB, error) {
	l, err := dbLimits(ctx)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, &inputError{err}
	case fi.IsDir():
		return nil, &inputError{fmt.Errorf("%s: is a directory", path)}
	}
	db, err := analytics.OpenReadOnly(path)
	if err != nil {
		var ioErr *dberr.IOError
		if errors.As(err, &ioErr) {
			return nil, err
		}
		return nil, &inputError{err}
	}
	if err := db.SetLimits(l); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
