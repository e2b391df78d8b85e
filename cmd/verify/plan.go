package main

import (
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/shard"
	"github.com/urfave/cli/v2"
)

func newPlanCommand() *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "name a sharded run before it starts: its inputs, shards and trust material, as a plan file",
		ArgsUsage: "PATH...",
		Description: "Writes the run plan to stdout (JSON): the run's id, the build of verify, the SHA-256 of every\n" +
			"key and schema file, --at, --strict-schemas, the shard count and the input files in order, each\n" +
			"with its size and its shard (consecutive files, balanced by size; a directory is walked as\n" +
			"verify receipts walks it). Each map step (verify receipts --plan FILE --emit DIR --shard N)\n" +
			"reads the plan, checks its inputs and trust material against it and copies it into its\n" +
			"manifest; verify parts and verify finalize refuse a directory that does not match it:\n" +
			"docs/scale-out.md.\n\n" +
			"Exit codes: 0 the plan written, 64 usage (no --at), 66 an input, key or schema file\n" +
			"could not be read, 74 stdout failed.",
		Flags: append(trustFlags(noPredecessor, schemasUsage),
			&cli.Int64Flag{Name: "shards", Usage: "split the inputs into `N` shards", DefaultText: "one per input file"},
			&cli.StringFlag{Name: "id", Usage: "the run's `ID` (default: derived from the plan's content)"},
			walkFlags()[0], walkFlags()[1],
		),
		Action: planAction,
	}
}

func planAction(ctx *cli.Context) error {
	if ctx.NArg() == 0 {
		return usagef(ctx, "want at least one PATH")
	}
	if ctx.String("at") == "" {
		return usagef(ctx, "a sharded run needs --at: every map step judges expiry at the same instant, never at its own now")
	}
	for _, p := range ctx.Args().Slice() {
		if p == "-" {
			return usagef(ctx, "a plan names files: standard input cannot be read by many map steps")
		}
		if fi, err := os.Stat(p); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
			return usagef(ctx, "%s: not a regular file or a directory", p)
		}
	}
	_, m, err := verifierFromFlags(ctx)
	if err != nil {
		return err
	}
	sigCtx := runContext(ctx)
	set, cleanup, err := expandInputs(sigCtx, ctx.Args().Slice(), ctx.App.Reader, ctx.App.ErrWriter, walkOptionsFrom(ctx))
	defer cleanup()
	if err != nil {
		return err
	}
	var inputs []shard.Input
	for _, s := range set.srcs {
		fi, err := os.Stat(s.Name)
		if err != nil {
			return &inputError{err}
		}
		if !fi.Mode().IsRegular() {
			return &inputError{&fs.PathError{Op: "plan", Path: s.Name, Err: fmt.Errorf("not a regular file")}}
		}
		inputs = append(inputs, shard.Input{Path: s.Name, Size: fi.Size()})
	}
	if len(inputs) == 0 {
		return &inputError{fmt.Errorf("plan: no input file in %v", ctx.Args().Slice())}
	}
	shards := ctx.Int64("shards")
	if !ctx.IsSet("shards") {
		shards = int64(len(inputs))
	}
	p, err := shard.NewPlan(ctx.String("id"), trustOf(m), inputs, shards)
	if err != nil {
		return usagef(ctx, "%v", err)
	}
	b, err := p.Marshal()
	if err != nil {
		return err
	}
	if _, err := ctx.App.Writer.Write(b); err != nil {
		return &ioError{err}
	}
	var size int64
	for _, in := range inputs {
		size += in.Size
	}
	fmt.Fprintf(ctx.App.ErrWriter, "verify: plan: run %s: %d input files (%d bytes) in %d shards\n", p.ID, len(inputs), size, p.Shards)
	return nil
}

// trustOf is the trust material a verifier was built from, as a plan and
// a manifest record it.
func trustOf(m *material) shard.Trust {
	files := func(fs []analytics.TrustFile) []shard.File {
		out := []shard.File{}
		for _, f := range fs {
			out = append(out, shard.File{Path: f.Path, SHA256: f.SHA256})
		}
		return out
	}
	return shard.Trust{At: m.at.UTC().Format(time.RFC3339Nano), StrictSchemas: m.trust.StrictSchemas, Keys: files(m.trust.Keys), Schemas: files(m.trust.Schemas)}
}
