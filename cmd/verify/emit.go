package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/shard"
	"github.com/urfave/cli/v2"
)

// mapGCPercent is the map step's GOGC, unless the environment sets one.
// Its Go heap stays at 2 to 5 MB, since each record goes into DuckDB's
// memory as soon as it is verified, so at Go's default of 100 the
// collector runs every 2 MB or so allocated: about 800 cycles for 100k
// receipts, a quarter of the step's CPU. A plain verify receipts keeps
// about 30 MB and collects a tenth as often. At 800 the map step's heap
// may grow to 20 to 45 MB between cycles (docs/performance.md has the
// CPU and memory measured).
const mapGCPercent = 800

// emitAction is `verify receipts --plan FILE --emit DIR --shard N`: the
// map step of a sharded run. Its inputs and trust material are the
// plan's, checked against it; each record verified alone is written with
// its chain and nonce keys into a hidden attempt directory, published as
// DIR in one rename for verify finalize.
func emitAction(ctx *cli.Context) error {
	stderr := ctx.App.ErrWriter
	switch {
	case ctx.String("emit") == "":
		return usagef(ctx, "--plan goes with --emit")
	case !ctx.IsSet("plan"):
		return usagef(ctx, "--emit needs --plan: a sharded run is named by its plan (verify plan)")
	case !ctx.IsSet("shard"):
		return usagef(ctx, "--emit needs --shard N: the shard of the plan this step maps")
	case ctx.String("predecessor") != "":
		return usagef(ctx, "--predecessor does not go with --emit: give the predecessor's file as an input of the plan")
	case ctx.IsSet("format"):
		return usagef(ctx, "--format does not go with --emit: verify finalize writes the output")
	}
	workers, err := workersFlag(ctx)
	if err != nil {
		return err
	}
	dir, n := ctx.String("emit"), ctx.Int64("shard")
	plan, err := shard.ReadPlan(ctx.String("plan"))
	if err != nil {
		return err
	}
	paths := ctx.Args().Slice()
	if len(paths) == 0 {
		for _, in := range plan.InputsOf(n) {
			paths = append(paths, in.Path)
		}
	}
	if err := plan.CheckInputs(n, paths); err != nil {
		return err
	}
	// The plan's trust material, unless a flag (the command line, the
	// environment, verify.toml) gives other: then it is checked.
	set := func(name, value string) error {
		if err := ctx.Set(name, value); err != nil {
			return usagef(ctx, "--%s: %v", name, err)
		}
		return nil
	}
	for name, files := range map[string][]shard.File{"keys": plan.Trust.Keys, "schemas": plan.Trust.Schemas} {
		if ctx.IsSet(name) {
			continue
		}
		for _, f := range files {
			if err := set(name, f.Path); err != nil {
				return err
			}
		}
	}
	if !ctx.IsSet("at") {
		if err := set("at", plan.Trust.At); err != nil {
			return err
		}
	}
	if !ctx.IsSet("strict-schemas") {
		if err := set("strict-schemas", fmt.Sprint(plan.Trust.StrictSchemas)); err != nil {
			return err
		}
	}
	v, m, err := verifierFromFlags(ctx)
	if err != nil {
		return err
	}
	trust := trustOf(m)
	if diff := trust.Diff(plan.Trust); diff != "" {
		return &shard.Error{Reason: shard.ReasonTrust, Path: dir, Msg: fmt.Sprintf("shard %d: %s: every map step of a run verifies with its plan's trust material", n, diff)}
	}

	w, err := shard.Create(dir, plan, n, trust)
	if done, err := attemptCreated(err, stderr, fmt.Sprintf("emit: shard %d of run %s is already published in %s", n, plan.ID, dir), dir); done || err != nil {
		return err
	}
	sigCtx := runContext(ctx)
	inputs, cleanup, err := expandInputs(sigCtx, paths, ctx.App.Reader, stderr, walkOptions{})
	defer cleanup()
	if err != nil {
		w.Abort()
		return err
	}
	bar := newProgress(ctx, inputs.srcs)
	defer bar.done()
	defer onInterrupt(ctx, bar, "removing the temporary files and the unpublished attempt")()
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(mapGCPercent)
	}
	sopts := streamrun.Options{Workers: workers, Progress: bar.update}
	sum, err := streamrun.Map(sigCtx, v, inputs.srcs, sopts, w.Add)
	bar.done()
	if err != nil {
		w.Abort()
		switch {
		case shard.Published(dir, plan, n):
			fmt.Fprintf(stderr, "verify: emit: shard %d of run %s was published in %s by another attempt meanwhile: this one's output is dropped\n", n, plan.ID, dir)
			return nil
		case sigCtx.Err() != nil:
			return &interruptedError{fmt.Errorf("receipts: interrupted; shard %d is not published in %s", n, dir)}
		}
		return &ioError{fmt.Errorf("--emit %s: %w", dir, err)}
	}
	// The inputs' content digests, for the fold's receipts table
	// (file_sha256): read again, as the records name only their source.
	if err := w.Contents(sigCtx, inputs.srcs); err != nil {
		w.Abort()
		return &interruptedError{fmt.Errorf("receipts: interrupted; shard %d is not published in %s", n, dir)}
	}
	switch err := w.Close(sum); {
	case errors.Is(err, shard.ErrPublished):
		fmt.Fprintf(stderr, "verify: emit: shard %d of run %s was published in %s by another attempt meanwhile: this one's output is dropped\n", n, plan.ID, dir)
		return nil
	case err != nil:
		var se *shard.Error
		if errors.As(err, &se) {
			return err
		}
		return &ioError{fmt.Errorf("--emit %s: %w", dir, err)}
	}
	fmt.Fprintf(stderr, "verify: emit: shard %d of run %s: %d records of %d lines in %d files published in %s; verify finalize gives their verdicts\n",
		n, plan.ID, sum.Records-uint64(sum.Blank), sum.Lines, sum.Files, dir)
	return nil
}

// attemptCreated sorts out the error of creating an attempt directory for
// --emit DIR: done, with nothing to do, when another attempt published
// the shard already (published says so on stderr); a refusal of the
// shard package as it is; any other error an I/O error naming DIR.
func attemptCreated(err error, stderr io.Writer, published, dir string) (done bool, _ error) {
	var se *shard.Error
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, shard.ErrPublished):
		fmt.Fprintf(stderr, "verify: %s: nothing to do\n", published)
		return true, nil
	case errors.As(err, &se):
		return false, err
	}
	return false, &ioError{fmt.Errorf("--emit %s: %w", dir, err)}
}
