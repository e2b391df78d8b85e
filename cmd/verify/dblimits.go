package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/shard"
	"github.com/urfave/cli/v2"
)

// dbLimitFlags bound the DuckDB engine of the commands that load or query
// an audit database (analytics.Limits).
func dbLimitFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "memory-limit", Value: analytics.DefaultMemoryLimit,
			Usage: "DuckDB's memory `SIZE` (as 512MB or 2GiB): past it, its joins, aggregates and sorts spill to DB.tmp"},
		&cli.IntFlag{Name: "db-threads", Usage: "DuckDB's `THREADS` (0: one per core)"},
	}
}

// dbLimits reads dbLimitFlags; a command without them gets the defaults.
func dbLimits(ctx *cli.Context) (analytics.Limits, error) {
	l := analytics.Limits{Memory: ctx.String("memory-limit"), Threads: ctx.Int("db-threads")}
	if err := l.Check(); err != nil {
		return l, usagef(ctx, "%v", err)
	}
	return l, nil
}

// openDB opens the audit database at path for loading, with dbLimits.
func openDB(ctx *cli.Context, path string) (*analytics.DB, error) {
	l, err := dbLimits(ctx)
	if err != nil {
		return nil, err
	}
	if err := makeParentDir(path); err != nil {
		return nil, err
	}
	db, err := analytics.Open(path)
	if err != nil {
		return nil, err
	}
	return withLimits(db, l)
}

// withLimits sets l on a database just opened, closing it if DuckDB
// refuses them.
func withLimits(db *analytics.DB, l analytics.Limits) (*analytics.DB, error) {
	if err := db.SetLimits(l); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// makeParentDir creates the missing directories of a database path about
// to be created, as a nightly job's first run needs (/var/lib/verify).
func makeParentDir(path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return &ioError{fmt.Errorf("--db: %w", err)}
	}
	return nil
}

// dbMissing says whether path names no file yet: a database openDB is
// about to create.
func dbMissing(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// removeUnfinishedDB closes and removes a database this run created when
// err is an interruption and no file was loaded into it (a run stopped
// while it waited for its first input, say): an unfinished output is not
// left behind. Its write-ahead log goes with it.
func removeUnfinishedDB(db *analytics.DB, path string, created bool, err error) {
	var ie *interruptedError
	if !created || !errors.As(err, &ie) {
		return
	}
	t, qerr := db.RunQuery(context.Background(), "files", "")
	if qerr != nil || len(t.Rows) > 0 || db.Close() != nil {
		return
	}
	os.Remove(path)
	os.Remove(path + ".wal")
}

// judgmentsLimitFlags bound the private DuckDB that runs a sharded run's
// judgments (verify judge, verify finalize): dbLimitFlags without a
// default memory limit (DuckDB's own, 80% of the RAM, unless given), and
// where it spills.
func judgmentsLimitFlags() []cli.Flag {
	flags := dbLimitFlags()
	flags[0] = &cli.StringFlag{Name: "memory-limit",
		Usage: "DuckDB's memory `SIZE` for the judgments (as 512MB or 2GiB; DuckDB's default, 80% of the RAM, if not given): past it, its joins, aggregates and sorts spill to --temp-dir"}
	return append(flags, &cli.StringFlag{Name: "temp-dir",
		Usage: "the `DIR` DuckDB spills the judgments to past --memory-limit (a directory of its own under $TMPDIR, removed afterwards, if not given)"})
}

// judgmentsEngine reads judgmentsLimitFlags.
func judgmentsEngine(ctx *cli.Context) (shard.Engine, error) {
	l := analytics.Limits{Memory: ctx.String("memory-limit"), Threads: ctx.Int("db-threads")}
	if err := l.Check(); err != nil {
		return shard.Engine{}, usagef(ctx, "%v", err)
	}
	return shard.Engine{Limits: l, TempDir: ctx.String("temp-dir")}, nil
}
