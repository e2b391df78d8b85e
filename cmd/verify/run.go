package main

import (
	"errors"
	"fmt"
	"github.com/receiptverify/verify/internal/evidence"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/receiptverify/verify/internal/shard"
	"github.com/urfave/cli/v2"
)

// run is the whole program: it builds the app around the given streams,
// runs it on args (args[0] is the program name) and returns the exit code.
// Nothing below it calls os.Exit.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// The signal watcher and the progress line write to stderr from
	// goroutines of their own, beside the command's messages.
	stderr = &lockedWriter{w: stderr}
	out := &stdoutWriter{w: stdout}
	if f, ok := stdout.(*os.File); ok && f == os.Stdout && stdoutClosedAtStart() {
		out.closed = true
	}
	sig := watchSignals(stderr)
	app := newApp(stdin, out, stderr)
	app.Metadata["signals"] = sig
	err := app.RunContext(sig.ctx, flagsFirst(app, args))
	err = sig.interrupted(err)
	err = out.failed(err)
	err = out.finish(err)
	sig.stop()
	if err == nil {
		return exitOK
	}
	report(stderr, err)
	return exitCode(err)
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:     "verify",
		HelpName: "verify",
		Usage:    "offline verifier for signed AI-agent tool-call receipts",
		Description: "Results go to stdout and nothing else does; diagnostics go to stderr,\n" +
			"each line prefixed \"verify:\".\n\n" +
			"Exit codes: 0 all input accepted (a clean day), 1 some input rejected (findings),\n" +
			"2 some receipt INCOMPLETE and none FAIL, 3 no receipt at all on the day reported,\n" +
			"64 usage error, 65 an archive file changed since it was loaded, or a sharded run's files\n" +
			"do not match its plan, 66 input unreadable,\n" +
			"74 database or output I/O error (stdout included), 130 interrupted. Each command's\n" +
			"help says which it uses.",
		Version:              versionLine(),
		EnableBashCompletion: true,
		Metadata:             map[string]any{"stderr": stderr},
		Commands: []*cli.Command{
			newCanonCommand(),
			newFingerprintCommand(),
			newReceiptsCommand(),
			newPlanCommand(),
			newFinalizeCommand(),
			newPartsCommand(),
			newJudgeCommand(),
			newSummarizeCommand(),
			newLoadCommand(),
			newQueryCommand(),
			newReportCommand(),
			newExportCommand(),
			newAuditCommand(),
			newExplainCommand(),
			newShowCommand(),
			newVersionCommand(),
			newCompletionCommand(),
			newManCommand(),
			newBaselineCommand(),
			newAttestationCommand(),
			newEvidenceCommand(),
		},
		Reader:    stdin,
		Writer:    stdout,
		ErrWriter: stderr,
		Action: func(ctx *cli.Context) error {
			if ctx.Args().Present() {
				return usagef(ctx, "unknown command %q%s", ctx.Args().First(), commandSuggestion(ctx.App, ctx.Args().First()))
			}
			return usagef(ctx, "missing command")
		},
		OnUsageError: onUsageError,
		// Errors come back from Run; urfave/cli neither prints them nor exits.
		ExitErrHandler: func(*cli.Context, error) {},
	}
	for _, c := range app.Commands {
		harden(c)
	}
	return app
}

// harden makes every subcommand report flag errors as usageError (instead
// of printing "Incorrect Usage" and the help to stdout) and keeps "help" from
// being taken as a subcommand, so `verify canon help` reads a file named help.
// Every command that runs gets the shared flags (prepare).
func harden(c *cli.Command) {
	c.OnUsageError = onUsageError
	c.HideHelpCommand = true
	withExamples(c)
	if len(c.Subcommands) == 0 {
		prepare(c)
	}
	for _, s := range c.Subcommands {
		harden(s)
	}
}

func onUsageError(ctx *cli.Context, err error, _ bool) error {
	return &usageError{err: withFlagSuggestion(ctx, err), cmd: commandPath(ctx)}
}

// usageError is a command line that cannot be run: exit code 64.
type usageError struct {
	err error
	cmd string // "verify canon", for the hint line
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(ctx *cli.Context, format string, a ...any) error {
	return &usageError{err: fmt.Errorf(format, a...), cmd: commandPath(ctx)}
}

func commandPath(ctx *cli.Context) string {
	if ctx != nil && ctx.Command != nil && ctx.Command.HelpName != "" {
		return ctx.Command.HelpName
	}
	return "verify"
}

// inputError is input that cannot be read: exit code 66.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// rejectedError is input that was read but (in part) rejected: exit code 1.
type rejectedError struct{ err error }

func (e *rejectedError) Error() string { return e.err.Error() }
func (e *rejectedError) Unwrap() error { return e.err }

// stdoutWriter is stdout as every command sees it. It keeps the first
// write error, so that results lost to a full disk or a closed pipe end
// the run with exit 74 whichever command wrote them and whether or not it
// checked that write: a scheduled job must not take a lost report for
// findings (exit 1) or, worse, for a clean run.
//
// A stdout closed when the process started (the shell's >&-) fails the
// first write the same way: the Go runtime puts /dev/null there, where the
// results would vanish with exit 0. A command that writes nothing to
// stdout (load) is not affected.
type stdoutWriter struct {
	w      io.Writer
	err    error
	closed bool
	name   string      // what w is, for messages: "" is stdout
	file   *outputFile // -o FILE, nil for stdout
}

// errStdoutClosed is the write error of a stdout closed at start.
var errStdoutClosed = errors.New("standard output is closed")

func (s *stdoutWriter) Write(p []byte) (int, error) {
	if s.closed && s.err == nil {
		s.err = errStdoutClosed
	}
	if s.err != nil {
		return 0, s.err // the output already stops short: nothing more is written
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

// failed is err, the run's own outcome, made a *stdoutError if stdout
// could not be written, unless the run was interrupted (which explains the
// short output itself). What else the run found is kept in the message.
func (s *stdoutWriter) failed(err error) error {
	var interrupted *interruptedError
	if s.err == nil || errors.As(err, &interrupted) {
		return err
	}
	name := s.name
	if name == "" {
		name = "stdout"
	}
	switch {
	case err == nil:
		err = fmt.Errorf("write %s: %w (the output stops short)", name, s.err)
	case errors.Is(err, s.err): // the command's own report of that write
		err = fmt.Errorf("%w (the output stops short)", err)
	default:
		err = errors.Join(fmt.Errorf("write %s: %w (the output stops short)", name, s.err), err)
	}
	return &stdoutError{err}
}

// stdoutError is results that could not be written to stdout: exit code
// 74, whatever else the run found, as its output stops short.
type stdoutError struct{ err error }

func (e *stdoutError) Error() string { return e.err.Error() }
func (e *stdoutError) Unwrap() error { return e.err }

// exitCode is the one place errors become exit codes.
func exitCode(err error) int {
	var (
		usage       *usageError
		interrupted *interruptedError
		stdoutErr   *stdoutError
		input       *inputError
		incomplete  *incompleteError
		empty       *emptyError
		ioErr       *ioError
		dbErr       *dberr.IOError
		shardErr    *shard.Error
	)
	if code, ok := archiveExit(err); ok {
		return code
	}
	var subjects *subjectsError
	if errors.As(err, &subjects) {
		return subjects.code()
	}
	var pack *evidence.Error
	if errors.As(err, &pack) {
		return exitChanged
	}
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usage):
		return exitUsage
	case errors.As(err, &shardErr):
		if shardErr.Missing() {
			return exitNoInput
		}
		return exitDataErr
	case errors.As(err, &interrupted):
		return exitInterrupt
	case errors.As(err, &stdoutErr):
		return exitIOErr
	case errors.As(err, &input), errors.Is(err, streamrun.ErrInputChanged):
		return exitNoInput
	case errors.As(err, &incomplete):
		return exitIncomplete
	case errors.As(err, &empty):
		return exitEmpty
	case errors.As(err, &ioErr), errors.As(err, &dbErr), errors.Is(err, streamrun.ErrSpool):
		return exitIOErr
	default: // rejectedError
		return exitRejected
	}
}

// report writes err to stderr as "verify: ..." lines, with a hint for
// usage errors.
func report(stderr io.Writer, err error) {
	lines := strings.Split(err.Error(), "\n")
	for i, l := range lines {
		lines[i] = termtext.Escape(l) // errors quote file names and input
	}
	fmt.Fprintf(stderr, "verify: %s\n", strings.Join(lines, "\nverify: "))
	var usage *usageError
	if errors.As(err, &usage) {
		fmt.Fprintf(stderr, "verify: run '%s --help' for usage\n", usage.cmd)
	}
}

// lockedWriter makes one writer safe for the goroutines that write
// diagnostics at once: each Write goes through whole, one at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
