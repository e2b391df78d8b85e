package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
)

const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 64 // EX_USAGE
)

// usageError is a command line that cannot be run.
type usageError struct{ error }

// run builds the app around the given writers, runs it on args and
// returns the exit code. Nothing below it calls os.Exit.
func run(args []string, stdout, stderr io.Writer) int {
	err := newApp(stdout, stderr).Run(args)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "receiptgen:", err)
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "receiptgen: see receiptgen --help")
		return exitUsage
	}
	return exitFailed
}

func newApp(stdout, stderr io.Writer) *cli.App {
	def := receiptgen.Default()
	return &cli.App{
		Name:      "receiptgen",
		HelpName:  "receiptgen",
		Usage:     "write a deterministic corpus of signed Asqav receipts with planted anomalies",
		UsageText: "receiptgen --out DIR [--n 1000] [--rate 0.05] [--seed 1] [flags]",
		Description: "Writes DIR/keys/jwks.json, DIR/schemas/<server>.json, DIR/receipts.jsonl\n" +
			"(or receipts.jsonl.gz) and DIR/truth.jsonl; with completeness plants, also\n" +
			"DIR/keys/witness.json and DIR/checkpoints.jsonl. The same flags write the same bytes.\n\n" +
			"Exit codes: 0 written, 1 generation or write failure, 64 usage error.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "output `DIR`, created if missing (required)"},
			&cli.Uint64Flag{Name: "seed", Value: def.Seed, Usage: "random seed"},
			&cli.IntFlag{Name: "n", Value: def.N, Usage: "receipt lines to write (removed receipts not counted)"},
			&cli.Float64Flag{Name: "rate", Value: def.Rate, Usage: "fraction of receipts with one planted anomaly (0 to 0.5)"},
			&cli.StringFlag{Name: "start", Value: receiptgen.DefaultStart().Format(time.DateOnly), Usage: "first `DAY` (YYYY-MM-DD, UTC)"},
			&cli.IntFlag{Name: "days", Value: receiptgen.DefaultDays, Usage: "days in the window"},
			&cli.IntFlag{Name: "agents", Value: receiptgen.DefaultAgents, Usage: "agents with an active key (a revoked one is added)"},
			&cli.IntFlag{Name: "sessions-per-agent", Usage: "sessions (chains) per agent; 0 picks chains of about 25 receipts"},
			&cli.IntFlag{Name: "orgs", Value: receiptgen.DefaultOrgs, Usage: "issuers the agents are spread over"},
			&cli.StringFlag{Name: "algs", Value: "ML-DSA-65=6,ML-DSA-44=2,ML-DSA-87=2,Ed25519=2", Usage: "key algorithm `MIX`, name=weight,... (\"Ed25519\" alone is fastest)"},
			&cli.StringFlag{Name: "mix", Usage: "lines of other formats among the n, `FORMAT=COUNT,...`: asqav-hash, dsse, agentreceipts"},
			&cli.IntFlag{Name: "completeness", Value: def.Completeness, Usage: "sets of completeness plants (a tail deleted, a session removed, a chain rewritten, each with and without a checkpoint); 0 none"},
			&cli.BoolFlag{Name: "gzip", Usage: "write receipts.jsonl.gz"},
		},
		Writer:    stdout,
		ErrWriter: stderr,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return &usageError{err}
		},
		ExitErrHandler: func(*cli.Context, error) {},
		Action:         generate,
	}
}

func generate(ctx *cli.Context) error {
	if ctx.Args().Present() {
		return &usageError{fmt.Errorf("unexpected argument %q", ctx.Args().First())}
	}
	out := ctx.String("out")
	if out == "" {
		return &usageError{errors.New("--out DIR is required")}
	}
	start, err := time.Parse(time.DateOnly, ctx.String("start"))
	if err != nil {
		return &usageError{fmt.Errorf("--start: want YYYY-MM-DD, got %q", ctx.String("start"))}
	}
	algs, err := receiptgen.ParseAlgs(ctx.String("algs"))
	if err != nil {
		return &usageError{fmt.Errorf("--algs: %w", err)}
	}
	mix, err := receiptgen.ParseMix(ctx.String("mix"))
	if err != nil {
		return &usageError{fmt.Errorf("--mix: %w", err)}
	}
	cfg := receiptgen.Config{
		Seed: ctx.Uint64("seed"), N: ctx.Int("n"), Rate: ctx.Float64("rate"),
		Start: start, Days: ctx.Int("days"),
		Agents: ctx.Int("agents"), SessionsPerAgent: ctx.Int("sessions-per-agent"), Orgs: ctx.Int("orgs"),
		Algs: algs, Mix: mix, Gzip: ctx.Bool("gzip"), Completeness: ctx.Int("completeness"),
	}
	if cfg.Completeness < 0 {
		return &usageError{errors.New("--completeness must be >= 0")}
	}
	if cfg.N < 0 || cfg.Days < 1 || cfg.Agents < 1 || cfg.Orgs < 1 || cfg.SessionsPerAgent < 0 || cfg.Rate < 0 || cfg.Rate > 0.5 {
		return &usageError{errors.New("--n and --sessions-per-agent must be >= 0, --days, --agents and --orgs >= 1, --rate in [0, 0.5]")}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	began := time.Now()
	truth, err := receiptgen.Generate(cfg, receiptgen.DirSink(out))
	if err != nil {
		return err
	}
	elapsed := time.Since(began)
	w := ctx.App.Writer
	fmt.Fprintf(w, "%d receipts in %s (%d removed), %d anomalies, %d truth lines\n",
		truth.Lines, out, truth.Removed+truth.Cut, len(truth.Anomalies()), len(truth.Records))
	for _, k := range receiptgen.Kinds() {
		fmt.Fprintf(w, "  %-20s %d\n", k, truth.Counts[k])
	}
	byKind := map[receiptgen.Kind]int{}
	for _, r := range truth.Records {
		byKind[r.Kind]++
	}
	for _, k := range []receiptgen.Kind{receiptgen.KindNameCollision, receiptgen.KindTruncated, receiptgen.KindNoEvidence} {
		fmt.Fprintf(w, "  %-20s %d\n", k, byKind[k])
	}
	fmt.Fprintf(ctx.App.ErrWriter, "receiptgen: %.0f receipts/s\n", float64(truth.Lines)/elapsed.Seconds())
	return nil
}
