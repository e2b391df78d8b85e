package main

import (
	"slices"
	"strconv"
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/fingerprint"
	"github.com/urfave/cli/v2"
)

// fingerprintKinds are the subcommands of `verify fingerprint`, in the
// order the help lists them.
var fingerprintKinds = []string{"asqav-action", "asqav-tool", "overturn", "undolog"}

func newFingerprintCommand() *cli.Command {
	return &cli.Command{
		Name:      "fingerprint",
		Usage:     "recompute record fingerprints, one per input line",
		ArgsUsage: "KIND [FILE|-]",
		Description: `Reads one JSON record per line from FILE (or stdin when FILE is "-" or
absent; a FILE ending in .gz is gunzipped) and prints one line per input
line: the record's fingerprint, or "error: <message>" for a record that is
rejected (also reported on stderr as "verify: FILE:LINE: <message>").
A blank line or a line over 16 MiB is rejected; reading goes on.
Exit 1 if any record was rejected.

KIND is one of: ` + strings.Join(fingerprintKinds, ", ") + `.`,
		Subcommands: []*cli.Command{
			newAsqavActionCommand(),
			newAsqavToolCommand(),
			newOverturnCommand(),
			newUndoLogCommand(),
		},
		Action: func(ctx *cli.Context) error {
			known := strings.Join(fingerprintKinds, ", ")
			if ctx.Args().Present() {
				return usagef(ctx, "unknown fingerprint kind %q (known: %s)", ctx.Args().First(), known)
			}
			return usagef(ctx, "missing fingerprint kind (known: %s)", known)
		},
	}
}

// asqavDialectFlag is --dialect for the Asqav kinds.
func asqavDialectFlag() cli.Flag {
	return &cli.StringFlag{
		Name:  "dialect",
		Value: canon.RFC8785().Name(),
		Usage: "canonical JSON `DIALECT`: rfc8785, asqav or asqav-codepoint (or their aliases)",
	}
}

// asqavDialect resolves --dialect to one of the dialects an Asqav
// fingerprint can be computed under.
func asqavDialect(ctx *cli.Context) (canon.Dialect, error) {
	d, err := canon.Lookup(ctx.String("dialect"))
	if err != nil {
		return canon.Dialect{}, usagef(ctx, "%v", err)
	}
	switch d {
	case canon.RFC8785(), canon.Asqav(), canon.AsqavCodePoint():
		return d, nil
	}
	return canon.Dialect{}, usagef(ctx, "dialect %q does not apply to asqav fingerprints (use rfc8785, asqav or asqav-codepoint)", ctx.String("dialect"))
}

// fingerprintLines runs fn over every record of the command's input.
func fingerprintLines(ctx *cli.Context, fn func(record []byte) (string, error)) error {
	file, err := inputArg(ctx)
	if err != nil {
		return err
	}
	in, err := openInput(file, ctx.App.Reader)
	if err != nil {
		return err
	}
	defer in.Close()
	return eachLine(in, ctx.App.Writer, ctx.App.ErrWriter, func(dst, record []byte) ([]byte, error) {
		fp, err := fn(record)
		if err != nil {
			return dst, err
		}
		return append(dst, fp...), nil
	})
}

func newAsqavActionCommand() *cli.Command {
	return &cli.Command{
		Name:      "asqav-action",
		Usage:     `Asqav action fingerprint of {"action_type", "context"} records`,
		ArgsUsage: "[FILE|-]",
		Description: `Prints "sha256:" and the lowercase hex SHA-256 of the canonical
{"action_type", "context"} per record; a missing or null context counts
as {}.`,
		Flags: []cli.Flag{asqavDialectFlag()},
		Action: func(ctx *cli.Context) error {
			d, err := asqavDialect(ctx)
			if err != nil {
				return err
			}
			return fingerprintLines(ctx, func(record []byte) (string, error) {
				return fingerprint.AsqavActionRecord(d, record)
			})
		},
	}
}

func newAsqavToolCommand() *cli.Command {
	return &cli.Command{
		Name:      "asqav-tool",
		Usage:     `Asqav tool_fingerprint of {"tool_name", "schema"} records`,
		ArgsUsage: "[FILE|-]",
		Description: `Prints the first 32 lowercase hex characters of the SHA-256 of the
canonical {"tool_name", "schema"} per record; a missing or null schema
counts as {}.`,
		Flags: []cli.Flag{asqavDialectFlag()},
		Action: func(ctx *cli.Context) error {
			d, err := asqavDialect(ctx)
			if err != nil {
				return err
			}
			return fingerprintLines(ctx, func(record []byte) (string, error) {
				return fingerprint.AsqavToolRecord(d, record)
			})
		},
	}
}

func newOverturnCommand() *cli.Command {
	return &cli.Command{
		Name:      "overturn",
		Usage:     `Overturn v1 fingerprint of {"name", "args", "kind"?, "matchOn"?, "ignoreArgs"?} records`,
		ArgsUsage: "[FILE|-]",
		Description: `Prints the lowercase hex SHA-256 of kind "\n" name "\n" and the
overturn-v1 canonical form of the selected args per record; kind defaults
to "tool_call".`,
		Action: func(ctx *cli.Context) error {
			return fingerprintLines(ctx, fingerprint.OverturnRecord)
		},
	}
}

// undoLogProfiles are the values --profile accepts; profile P names the
// dialect "undolog-P".
var undoLogProfiles = []string{"p3", "r3", "t2", "p1", "r1"}

func newUndoLogCommand() *cli.Command {
	return &cli.Command{
		Name:      "undolog",
		Usage:     `UndoLog call signature of {"session_id", "step_index", "tool_name", "args"} records`,
		ArgsUsage: "[FILE|-]",
		Description: `Prints the 64 lowercase hex characters of the BLAKE3-256 call signature
per record. With --lock-key each line is the signature, one space and the
advisory lock key as a signed decimal int64: "SIGNATURE LOCKKEY".`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "profile", Value: "p3", Usage: "canonical args `PROFILE`: " + strings.Join(undoLogProfiles, ", ")},
			&cli.BoolFlag{Name: "lock-key", Usage: "also print the advisory lock key after the signature"},
		},
		Action: func(ctx *cli.Context) error {
			profile := ctx.String("profile")
			if !slices.Contains(undoLogProfiles, profile) {
				return usagef(ctx, "unknown profile %q (known: %s)", profile, strings.Join(undoLogProfiles, ", "))
			}
			d, err := canon.Lookup("undolog-" + profile)
			if err != nil {
				return usagef(ctx, "%v", err)
			}
			lockKey := ctx.Bool("lock-key")
			return fingerprintLines(ctx, func(record []byte) (string, error) {
				sig, err := fingerprint.UndoLogRecord(d, record)
				if err != nil || !lockKey {
					return sig, err
				}
				return sig + " " + strconv.FormatInt(fingerprint.AdvisoryLockKey(sig), 10), nil
			})
		},
	}
}
