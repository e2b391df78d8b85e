package main

import (
	"bytes"
	"fmt"
	"time"

	"github.com/receiptverify/verify/internal/helpers/outfile"
	"github.com/receiptverify/verify/internal/limits"
	"github.com/receiptverify/verify/queries"
	"github.com/urfave/cli/v2"
)

func newBaselineCommand() *cli.Command {
	return &cli.Command{
		Name:  "baseline",
		Usage: "write a starting baseline file from a day declared known-good",
		Description: "Accepts the tool-schema findings of DAY (collisions and drift rows above info): one\n" +
			"[[suppress]] entry per tool and fingerprint, with a reason naming the day and what it\n" +
			"accepts, expiring after --valid days. Read it, edit the reasons, and pass it to verify\n" +
			"report or audit as --baseline. Failures, replays and rejects are never accepted; stderr\n" +
			"counts those of the day, and the entries that accept high rows.\n\n" +
			"Exit codes: 0 written, 3 the day has no receipts and no findings (nothing written), 64\n" +
			"usage, 66 the database file does not exist, 74 the database could not be read or FILE\n" +
			"written.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "db", Usage: "audit database `FILE`"},
			&cli.StringFlag{Name: "day", Usage: "the known-good UTC `DAY` (YYYY-MM-DD)"},
			&cli.IntFlag{Name: "valid", Value: 90, Usage: "entries expire `N` days after DAY (at most 3650)"},
			&cli.StringFlag{Name: "out", Usage: "write the baseline to `FILE`", DefaultText: "stdout"},
		},
		Action: baselineAction,
	}
}

func baselineAction(ctx *cli.Context) error {
	if ctx.NArg() != 0 {
		return usagef(ctx, "unexpected argument %q", ctx.Args().First())
	}
	if err := requireFlags(ctx, "db", "day"); err != nil {
		return err
	}
	day, err := queries.ParseDay(ctx.String("day"))
	if err != nil {
		return usagef(ctx, "--day: %v", err)
	}
	if n := ctx.Int("valid"); n < 1 || n > limits.MaxBaselineValidDays {
		return usagef(ctx, "--valid must be 1 to %d days (a baseline is meant to expire), not %d", limits.MaxBaselineValidDays, n)
	}
	db, err := openExistingDB(ctx, ctx.String("db"))
	if err != nil {
		return err
	}
	defer db.Close()
	expires := day.AddDate(0, 0, ctx.Int("valid"))
	phase(runContext(ctx), "baseline")
	st, err := db.StartingBaseline(runContext(ctx), ctx.String("day"), expires)
	if err != nil {
		return err
	}
	if st.Receipts == 0 && st.Rows == 0 && st.Left == 0 {
		return &emptyError{fmt.Errorf("baseline: %s has no receipts and no findings in %s: nothing to accept, no file written (is the day right?)", ctx.String("day"), ctx.String("db"))}
	}
	var b bytes.Buffer
	header := fmt.Sprintf("verify baseline: the tool-schema findings of %s, accepted as known-good.\n"+
		"Each entry suppresses the collisions and drift rows of its tool and fingerprint until\n"+
		"it expires (%s); then the report warns and the rows count again. Edit each reason\n"+
		"to say why the schema is expected.", ctx.String("day"), expires.Format(time.DateOnly))
	if err := st.Baseline.WriteTOML(&b, header); err != nil {
		return err
	}
	if path := ctx.String("out"); path != "" {
		if err := outfile.WriteFile(path, b.Bytes()); err != nil {
			return &ioError{err}
		}
	} else if _, err := ctx.App.Writer.Write(b.Bytes()); err != nil {
		return err
	}
	w := ctx.App.ErrWriter
	fmt.Fprintf(w, "verify: baseline: %d entr(ies) accepting %d row(s) of %s", len(st.Baseline.Entries), st.Rows, ctx.String("day"))
	if st.High > 0 {
		fmt.Fprintf(w, "; %d of the rows are high: read their entries before adopting the file", st.High)
	}
	fmt.Fprintln(w)
	if st.Left > 0 {
		fmt.Fprintf(w, "verify: baseline: %d failure, replay and reject row(s) of %s cannot be accepted by a baseline\n", st.Left, ctx.String("day"))
	}
	return nil
}
