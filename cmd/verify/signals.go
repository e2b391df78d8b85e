package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/urfave/cli/v2"
)

// signals is the one way every command honours SIGINT and SIGTERM, in
// every phase: the context of the whole run (the cli.Context's) is
// cancelled by them, and each phase (verifying, loading, the finding
// queries, the report, an export, finalize) stops on it, removes its
// temporary files and leaves unfinished outputs absent. The default
// handling of the signals would end the process at once and leave the
// temporary files behind (the spool of a large archive is gigabytes, a
// report's hidden .drift.jsonl temporary), with no message and no exit 130.
//
// SIGPIPE is ignored: a write to a closed stdout (verify query ... | head
// -1) then fails with EPIPE, and the run ends as on any stdout failure,
// exit 74 with a message, where Go's default would kill the process by
// the signal (exit 141, nothing said).
type signals struct {
	ctx    context.Context
	cancel context.CancelFunc
	stderr io.Writer

	mu   sync.Mutex
	what string       // what stopping does, for the message
	bar  *progressBar // erased before the message, if any
	got  os.Signal

	ch       chan os.Signal
	quit     chan struct{}
	finished chan struct{}
}

// defaultStopping is what stopping does when no phase said more.
const defaultStopping = "removing the temporary files; unfinished outputs are not written"

// watchSignals starts the watch for the run; stop ends it.
func watchSignals(stderr io.Writer) *signals {
	signal.Ignore(syscall.SIGPIPE)
	s := &signals{stderr: stderr, what: defaultStopping, ch: make(chan os.Signal, 1), quit: make(chan struct{}), finished: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	signal.Notify(s.ch, os.Interrupt, syscall.SIGTERM)
	go s.watch()
	return s
}

// watch says on stderr, as soon as a signal arrives, that it did and
// what the run does about it, as stopping can take a moment. It is said
// even with -q.
func (s *signals) watch() {
	defer close(s.finished)
	select {
	case sig := <-s.ch:
		s.mu.Lock()
		defer s.mu.Unlock()
		s.got = sig
		s.cancel()
		if s.bar != nil {
			s.bar.done()
		}
		fmt.Fprintf(s.stderr, "verify: %s received: stopping, %s\n", signalName(sig), s.what)
	case <-s.quit:
	}
}

// stop ends the watch, and waits for a message under way to be written.
func (s *signals) stop() {
	signal.Stop(s.ch)
	close(s.quit)
	<-s.finished
	s.cancel()
}

// interrupted is err, the run's outcome, made an *interruptedError when
// a signal stopped the run, whatever error the stopped phase returned
// (a cancelled query, a closed spool) or none.
func (s *signals) interrupted(err error) error {
	s.mu.Lock()
	got := s.got
	s.mu.Unlock()
	var done *interruptedError
	if got == nil || errors.As(err, &done) {
		return err
	}
	return &interruptedError{fmt.Errorf("interrupted by %s: the run stopped; outputs it had not finished were not written", signalName(got))}
}

// during makes what the message says stopping does, and the progress
// line it erases, those of the phase that begins; the returned func ends
// the phase.
func (s *signals) during(bar *progressBar, what string) (end func()) {
	s.mu.Lock()
	s.bar, s.what = bar, what
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.bar, s.what = nil, defaultStopping
		s.mu.Unlock()
	}
}

func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "interrupt"
}

// onInterrupt makes the message of a signal during the phase that begins
// say what (and erase bar first). It returns the end of the phase.
func onInterrupt(ctx *cli.Context, bar *progressBar, what string) (end func()) {
	if s, ok := ctx.App.Metadata["signals"].(*signals); ok {
		return s.during(bar, what)
	}
	return func() {}
}

// runContext is the run's context: cancelled by SIGINT or SIGTERM.
func runContext(ctx *cli.Context) context.Context {
	if ctx.Context != nil {
		return ctx.Context
	}
	return context.Background()
}

// whileBlocked runs open, which may block for ever (a FIFO that no
// writer or reader opens), on its own, so that a signal ends the wait.
// What open returns after the run gave up on it is given to discard.
// (Key and schema files are read without it: a FIFO there still blocks.)
func whileBlocked[T any](ctx context.Context, name string, open func() (T, error), discard func(T)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := open()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		go func() {
			if r := <-done; r.err == nil {
				discard(r.v)
			}
		}()
		var zero T
		return zero, &interruptedError{fmt.Errorf("%s: interrupted while waiting to open it", name)}
	}
}

// openWaiting is os.Open of an input, given up on a signal (a FIFO with
// no writer blocks the open).
func openWaiting(ctx context.Context, path string) (*os.File, error) {
	return whileBlocked(ctx, path, func() (*os.File, error) { return os.Open(path) }, func(f *os.File) { f.Close() })
}

// reportStaleSpools reports the row spools of killed loads that were
// removed at start, or the error that kept them.
func reportStaleSpools(stderr io.Writer, removed []string, err error) {
	for _, f := range removed {
		fmt.Fprintf(stderr, "verify: removed %s, left by a load that was killed\n", termtext.Escape(f))
	}
	if err != nil {
		fmt.Fprintf(stderr, "verify: temporary files of killed loads: %s\n", termtext.Escape(err.Error()))
	}
}

// phaseHook, when a test sets it, runs as each phase of a command begins
// (verify, load, committing (a file's commit begins), commit (one is
// done), queries, report, query, export, baseline,
// finalize), so
// that a test can send a signal in exactly that phase.
var phaseHook func(ctx context.Context, phase string)

// phase marks the start of a phase for phaseHook.
func phase(ctx context.Context, name string) {
	if phaseHook != nil {
		phaseHook(ctx, name)
	}
}
