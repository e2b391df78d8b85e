package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/receiptverify/verify/internal/termtext"
)

// untilSignal returns a context cancelled by SIGINT or SIGTERM. A command
// that runs for long stops on it with its temporary files removed (the
// spool of a large archive is gigabytes), where the default handling of
// the signals would end the process at once and leave them behind.
//
// SIGPIPE is ignored from then on: a write to a closed stdout (verify
// receipts -o json ... | head) then fails with EPIPE, and the run ends as
// on any stdout failure, its temporary files removed, exit 74, where Go's
// default would kill the process in the middle of the run.
func untilSignal() (context.Context, context.CancelFunc) {
	signal.Ignore(syscall.SIGPIPE)
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
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
