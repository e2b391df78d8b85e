package main

import (
	"fmt"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/shard"
	"github.com/urfave/cli/v2"
)

// lakeFlags are report's and query's flags that read a sharded run's
// tables in place of an audit database.
func lakeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "lake", Usage: "read a sharded run's tables: `DIR` holds its folded shards (verify finalize --shard N --emit DIR/shard-N --receipts), in place of --db"},
		&cli.StringFlag{Name: "plan", Usage: "with --lake, check the folded shards against the run plan `FILE`", DefaultText: "the run their fold.json name"},
	}
}

// openSource opens what report and query read: the lake of --lake, or the
// audit database of --db.
func openSource(ctx *cli.Context) (*analytics.DB, error) {
	dir := ctx.String("lake")
	if dir == "" {
		if ctx.IsSet("plan") {
			return nil, usagef(ctx, "--plan goes with --lake")
		}
		if err := requireFlags(ctx, "db"); err != nil {
			return nil, err
		}
		return openExistingDB(ctx, ctx.String("db"))
	}
	if ctx.String("db") != "" {
		fmt.Fprintf(ctx.App.ErrWriter, "verify: --lake %s: the database --db %s is not read\n", dir, ctx.String("db"))
	}
	return openLake(ctx, dir)
}

// openLake checks the folded shards under dir (against --plan, if
// given) and opens their tables as an in-memory database's: the report
// and the queries then run on them by the same code as on an audit
// database.
func openLake(ctx *cli.Context, dir string) (*analytics.DB, error) {
	l, err := dbLimits(ctx)
	if err != nil {
		return nil, err
	}
	var plan *shard.RunPlan
	if p := ctx.String("plan"); p != "" {
		if plan, err = shard.ReadPlan(p); err != nil {
			return nil, err
		}
	}
	folds, err := shard.ReadLake(dir, plan)
	if err != nil {
		return nil, err
	}
	if folds.Tables == nil {
		return nil, &shard.Error{Reason: shard.ReasonMissing, Path: dir, Msg: fmt.Sprintf("shards %v were folded without --receipts: the run has no report tables", folds.Unfolded)}
	}
	sources, err := shard.TableSelects(folds.Tables)
	if err != nil {
		return nil, &shard.Error{Reason: shard.ReasonManifest, Path: dir, Msg: err.Error()}
	}
	db, err := analytics.OpenLake(runContext(ctx), sources)
	if err != nil {
		return nil, err
	}
	return withLimits(db, l)
}
