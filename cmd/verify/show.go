package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/helpers/gunzip"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/urfave/cli/v2"
)

func newShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print a loaded receipt's exact bytes, from the audit database (or a sharded run's tables) or its archive file",
		ArgsUsage: "FILE:LINE | ACTION_ID",
		Description: "Prints the receipt loaded from FILE (the path as loaded) at LINE, or every receipt\n" +
			"with ACTION_ID, exactly as read at load, each followed by a newline. The database holds\n" +
			"the line of the receipts a report flags (verify load --store-raw); the others are read\n" +
			"from their archive file at the byte offset recorded at load, and their SHA-256 checked\n" +
			"against the one recorded. For a gzip file the offset is in its decompressed bytes, so\n" +
			"the file is decompressed up to the line. stderr says where each came from. --lake DIR\n" +
			"reads a sharded run's tables in place of --db (verify report --lake).\n\n" +
			"Exit codes: 0 printed, 1 no such receipt in the database, 64 usage, 65 the archive file\n" +
			"has changed since it was loaded (the bytes at the line's place are not the receipt\n" +
			"loaded), 66 the archive file or the database cannot be read (moved or deleted: give\n" +
			"--root for an archive moved as a whole), 74 the database or stdout failed.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "db", Usage: "audit database `FILE` (made by verify load or verify audit)"},
			&cli.StringFlag{Name: "root", Usage: "read archive files loaded under a relative path from `DIR`", DefaultText: "the current directory"},
			&cli.BoolFlag{Name: "archive", Usage: "read the bytes from the archive file even when the database holds them"},
		}, lakeFlags()...),
		Action: showAction,
	}
}

func showAction(ctx *cli.Context) error {
	if ctx.NArg() != 1 {
		return usagef(ctx, "want one FILE:LINE or ACTION_ID")
	}
	db, err := openSource(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	bg := runContext(ctx)
	arg := ctx.Args().First()
	var found []analytics.StoredReceipt
	if file, line, perr := splitPathLine(arg); perr == nil { // else an action_id
		if found, err = db.ReceiptsAt(bg, file, int64(line)); err != nil {
			return err
		}
	}
	if len(found) == 0 {
		if found, err = db.ReceiptsByActionID(bg, arg); err != nil {
			return err
		}
	}
	if len(found) == 0 {
		if file, _, perr := splitPathLine(arg); perr == nil {
			if n, err := db.Redelivered(bg, file); err != nil {
				return err
			} else if n > 0 {
				return &rejectedError{fmt.Errorf("show: %s: no receipt stored at that FILE:LINE: %s re-delivered %d line(s) stored from another file, not stored again; verify explain --db %s %s names where it is stored",
					arg, file, n, shellQuote(ctx.String("db")), shellQuote(arg))}
			}
		}
		return &rejectedError{fmt.Errorf("show: %s: no receipt at that FILE:LINE or with that action_id", arg)}
	}
	stdout, stderr := ctx.App.Writer, ctx.App.ErrWriter
	for _, r := range found {
		b, fromDB, err := r.Bytes(bg, ctx.String("root"), ctx.Bool("archive"))
		if err != nil {
			return withRootHint(err, r)
		}
		where := "from the database"
		if !fromDB {
			where = fmt.Sprintf("from %s at byte %d, SHA-256 checked", r.ArchivePath(ctx.String("root")), r.Offset)
			if gunzip.FileIsGzip(r.ArchivePath(ctx.String("root"))) {
				where += " (offset in the decompressed bytes)"
			}
		}
		fmt.Fprintln(stderr, termtext.Escape(fmt.Sprintf("verify: show: %s:%d: %s", r.Source, r.Line, where)))
		if _, err := stdout.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// withRootHint adds to an archive file that cannot be read the way to
// find one moved as a whole: --root, for a file loaded under a relative
// path.
func withRootHint(err error, r analytics.StoredReceipt) error {
	var ae *dberr.ArchiveError
	if !errors.As(err, &ae) || ae.Changed {
		return err
	}
	if filepath.IsAbs(r.Source) {
		return fmt.Errorf("%w\nshow: %s was loaded under an absolute path: put the file back there to read it", err, r.Source)
	}
	return fmt.Errorf("%w\nshow: an archive moved as a whole: give --root DIR, the directory %s is relative to (where the load ran)", err, r.Source)
}

// archiveExit is the exit code of an *dberr.ArchiveError: 65 when the
// file has changed, 66 when it cannot be read.
func archiveExit(err error) (int, bool) {
	var ae *dberr.ArchiveError
	if !errors.As(err, &ae) {
		return 0, false
	}
	if ae.Changed {
		return exitChanged, true
	}
	return exitNoInput, true
}
