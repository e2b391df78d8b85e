package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// untilSignal returns a context cancelled by SIGINT or SIGTERM. A command
// that runs for long stops on it with its temporary files removed (the
// spool of a large archive is gigabytes), where the default handling of
// the signals would end the process at once and leave them behind.
func untilSignal() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}
